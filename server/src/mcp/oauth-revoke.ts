/**
 * Signing out for real: a remote MCP server's tokens revoked at its authorization server (RFC
 * 7009), so that they end everywhere — another Santra still holding them is refused at its next
 * request, and so is anyone who copied them — not only in Santra's file. The refresh token goes
 * first (its grant's access tokens end with it at most servers), then the access token.
 *
 * Best effort by nature: a server that offers no revocation endpoint (it is optional), or one that
 * fails or does not answer in time, leaves the tokens valid there until they expire; the caller
 * says so to the person.
 */
import { discoverOAuthServerInfo, type OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  AuthorizationServerMetadata,
  OAuthClientInformationMixed,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { errorMessage } from '../support/errno.ts';

/** How long a sign-out waits for the authorization server, in all. */
export const REVOKE_TIMEOUT_MS = 5_000;

export type Revocation = { revoked: true } | { revoked: false; why: string };

export interface RevokeTarget {
  tokens: OAuthTokens;
  /** The MCP server's URL: where the authorization server is discovered when `discovery` lacks it. */
  serverUrl: string;
  /** What the sign-in discovered and kept (its authorization server's metadata). */
  discovery: OAuthDiscoveryState | undefined;
  /** The client the tokens were issued to. */
  client: OAuthClientInformationMixed | undefined;
}

export async function revokeTokens(target: RevokeTarget, signal: AbortSignal): Promise<Revocation> {
  try {
    const metadata =
      target.discovery?.authorizationServerMetadata ?? (await discover(target.serverUrl, signal));
    // OAuth metadata (RFC 8414) names the endpoint; the SDK's OpenID type leaves it out.
    const endpoint = field(metadata, 'revocation_endpoint');
    if (metadata === undefined || typeof endpoint !== 'string')
      return { revoked: false, why: 'its authorization server offers no way to revoke them (RFC 7009)' };
    const { tokens } = target;
    const kinds = [
      ...(tokens.refresh_token === undefined ? [] : [['refresh_token', tokens.refresh_token] as const]),
      ['access_token', tokens.access_token] as const,
    ];
    for (const [hint, token] of kinds) {
      const why = await revoke(endpoint, metadata, target.client, { token, hint }, signal);
      if (why !== undefined)
        return { revoked: false, why: `revoking its ${hint.replace('_', ' ')} failed: ${why}` };
    }
    return { revoked: true };
  } catch (error) {
    return {
      revoked: false,
      why: signal.aborted ? 'its authorization server did not answer in time' : errorMessage(error),
    };
  }
}

async function discover(
  serverUrl: string,
  signal: AbortSignal,
): Promise<AuthorizationServerMetadata | undefined> {
  const info = await discoverOAuthServerInfo(serverUrl, {
    fetchFn: (url, init) => fetch(url, { ...init, signal }),
  });
  return info.authorizationServerMetadata;
}

/** One token revoked: undefined, or what went wrong. */
async function revoke(
  endpoint: string,
  metadata: AuthorizationServerMetadata,
  client: OAuthClientInformationMixed | undefined,
  { token, hint }: { token: string; hint: string },
  signal: AbortSignal,
): Promise<string | undefined> {
  const body = new URLSearchParams({ token, token_type_hint: hint });
  const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
  const secret = client?.client_secret;
  // RFC 7009 §2.1: the client authenticates as at the token endpoint; Basic is the default method.
  const listed = field(metadata, 'revocation_endpoint_auth_methods_supported');
  const methods = Array.isArray(listed) ? listed : ['client_secret_basic'];
  if (client !== undefined && secret !== undefined && !methods.includes('client_secret_post')) {
    const pair = `${encodeURIComponent(client.client_id)}:${encodeURIComponent(secret)}`;
    headers.Authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
  } else if (client !== undefined) {
    body.set('client_id', client.client_id);
    if (secret !== undefined) body.set('client_secret', secret);
  }
  const response = await fetch(endpoint, { method: 'POST', headers, body, signal });
  // RFC 7009 §2.2: 200 whether or not the token was still valid.
  if (response.ok) return undefined;
  const text = await response.text().catch(() => '');
  const error = oauthError(text);
  return `HTTP ${response.status}${error === undefined ? '' : ` (${error})`}`;
}

/** A field of the metadata that its type may not name. */
function field(metadata: AuthorizationServerMetadata | undefined, name: string): unknown {
  return metadata === undefined ? undefined : (metadata as Record<string, unknown>)[name];
}

/** The `error` (and its description) of an OAuth error body, if it is one. */
function oauthError(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { error?: unknown; error_description?: unknown };
    if (typeof body.error !== 'string') return undefined;
    return typeof body.error_description === 'string'
      ? `${body.error}: ${body.error_description}`
      : body.error;
  } catch {
    return undefined;
  }
}
