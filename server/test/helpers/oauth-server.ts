/**
 * A remote MCP server behind OAuth on 127.0.0.1, built with the SDK's server side: its
 * authorization server (`mcpAuthRouter`: metadata, dynamic client registration, authorize with
 * PKCE, token, revoke) over an in-test `OAuthServerProvider` that approves every sign-in at once
 * (so a test plays the browser by fetching the authorization URL and following the redirect),
 * and the `tools` server of mcp-servers.ts over stateful Streamable HTTP behind
 * `requireBearerAuth`.
 *
 * The test controls the tokens: `expireAccessTokens()` makes every access token issued so far
 * refused as expired (the client does not know: a 401 mid-session), `revokeRefreshTokens()`
 * makes the refresh tokens refused (`invalid_grant`), as when a person revokes the app's access.
 * `stats` counts what happened, so a test can tell a refresh before use from one after a 401.
 * Revocation (RFC 7009) is offered unless `revocation: false`: a revoked token is refused at once.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
  AuthorizationParams,
  OAuthServerProvider,
} from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import {
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { toolsServer } from './mcp-servers.ts';

export interface OAuthServerOptions {
  /** Seconds an access token lives (its `expires_in`); default an hour. */
  expiresIn?: number;
  /** Offer dynamic client registration (default true); without it only `clients` can sign in. */
  registration?: boolean;
  /** Clients registered beforehand (a configured client id and secret). */
  clients?: OAuthClientInformationFull[];
  /** Offer token revocation (RFC 7009, default true); without it the metadata names no endpoint. */
  revocation?: boolean;
}

export interface OAuthStats {
  registrations: number;
  authorizations: number;
  codeExchanges: number;
  refreshes: number;
  /** Requests to the MCP endpoint answered 401. */
  unauthorized: number;
  /** MCP sessions opened: one per connection the client made. */
  mcpSessions: number;
  /** Tokens revoked at the revocation endpoint. */
  revocations: number;
}

export interface OAuthTestServer {
  /** The MCP endpoint. */
  url: string;
  stats: OAuthStats;
  /** Every token issued, newest last. */
  issued: OAuthTokens[];
  /** The tool calls the MCP server ran. */
  calls: Array<{ tool: string; args: unknown }>;
  /** The access tokens the MCP endpoint accepted, in order. */
  accepted: string[];
  expireAccessTokens(): void;
  revokeRefreshTokens(): void;
  close(): Promise<void>;
}

interface Grant {
  clientId: string;
  scopes: string[];
  /** Epoch seconds. */
  expiresAt: number;
}

class AutoApprove implements OAuthServerProvider {
  readonly clients = new Map<string, OAuthClientInformationFull>();
  readonly codes = new Map<string, { clientId: string; challenge: string; redirectUri: string }>();
  readonly access = new Map<string, Grant>();
  readonly refresh = new Map<string, Grant>();
  readonly stats: OAuthStats = {
    registrations: 0,
    authorizations: 0,
    codeExchanges: 0,
    refreshes: 0,
    unauthorized: 0,
    mcpSessions: 0,
    revocations: 0,
  };
  readonly issued: OAuthTokens[] = [];
  readonly #expiresIn: number;
  readonly clientsStore: OAuthServerProvider['clientsStore'];
  /** Present only when revocation is offered: the router names the endpoint when the provider has it. */
  readonly revokeToken?: OAuthServerProvider['revokeToken'];

  constructor(options: OAuthServerOptions) {
    this.#expiresIn = options.expiresIn ?? 3600;
    if (options.revocation !== false)
      this.revokeToken = (client, request) => {
        for (const grants of [this.access, this.refresh]) {
          const grant = grants.get(request.token);
          if (grant?.clientId === client.client_id && grants.delete(request.token)) this.stats.revocations++;
        }
        return Promise.resolve();
      };
    for (const client of options.clients ?? []) this.clients.set(client.client_id, client);
    this.clientsStore = {
      getClient: (id) => this.clients.get(id),
      ...(options.registration === false
        ? {}
        : {
            registerClient: (
              client: Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>,
            ) => {
              this.stats.registrations++;
              const full = {
                ...client,
                client_id: randomUUID(),
                client_id_issued_at: Math.floor(Date.now() / 1000),
              };
              this.clients.set(full.client_id, full);
              return full;
            },
          }),
    };
  }

  async authorize(
    client: OAuthClientInformationFull,
    params: AuthorizationParams,
    res: ServerResponse,
  ): Promise<void> {
    this.stats.authorizations++;
    const code = randomBytes(16).toString('hex');
    this.codes.set(code, {
      clientId: client.client_id,
      challenge: params.codeChallenge,
      redirectUri: params.redirectUri,
    });
    const target = new URL(params.redirectUri);
    target.searchParams.set('code', code);
    if (params.state !== undefined) target.searchParams.set('state', params.state);
    res.writeHead(302, { location: target.href }).end();
    await Promise.resolve();
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    const found = this.codes.get(code);
    if (found === undefined) throw new InvalidGrantError('unknown authorization code');
    return Promise.resolve(found.challenge);
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<OAuthTokens> {
    const found = this.codes.get(code);
    if (found === undefined || found.clientId !== client.client_id)
      throw new InvalidGrantError('unknown authorization code');
    this.codes.delete(code);
    this.stats.codeExchanges++;
    return Promise.resolve(this.#issue(client.client_id));
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string): Promise<OAuthTokens> {
    const grant = this.refresh.get(refreshToken);
    if (grant === undefined || grant.clientId !== client.client_id)
      throw new InvalidGrantError('the refresh token was revoked');
    // Rotated, as most authorization servers do: the old refresh token is spent.
    this.refresh.delete(refreshToken);
    this.stats.refreshes++;
    return Promise.resolve(this.#issue(client.client_id));
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const grant = this.access.get(token);
    if (grant === undefined) throw new InvalidTokenError('unknown access token');
    return Promise.resolve({
      token,
      clientId: grant.clientId,
      scopes: grant.scopes,
      expiresAt: grant.expiresAt,
    });
  }

  #issue(clientId: string): OAuthTokens {
    const tokens: OAuthTokens = {
      access_token: `at-${randomBytes(16).toString('hex')}`,
      refresh_token: `rt-${randomBytes(16).toString('hex')}`,
      token_type: 'Bearer',
      expires_in: this.#expiresIn,
    };
    const grant = { clientId, scopes: [], expiresAt: Math.floor(Date.now() / 1000) + this.#expiresIn };
    this.access.set(tokens.access_token, grant);
    this.refresh.set(tokens.refresh_token as string, grant);
    this.issued.push(tokens);
    return tokens;
  }
}

/** Starts the authorization server and the MCP server on one port of 127.0.0.1. */
export async function startOAuthServer(options: OAuthServerOptions = {}): Promise<OAuthTestServer> {
  const provider = new AutoApprove(options);
  const calls: Array<{ tool: string; args: unknown }> = [];
  const accepted: string[] = [];
  const app = createMcpExpressApp({ host: '127.0.0.1' });
  const http: Server = await new Promise((resolve) => {
    const server: Server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const mcpUrl = new URL('/mcp', base);
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(base),
      resourceServerUrl: mcpUrl,
      // Tests sign in many times a second.
      authorizationOptions: { rateLimit: false },
      tokenOptions: { rateLimit: false },
      clientRegistrationOptions: { rateLimit: false },
      revocationOptions: { rateLimit: false },
    }),
  );
  const transports = new Map<string, StreamableHTTPServerTransport>();
  app.use('/mcp', (_req: IncomingMessage, res: ServerResponse, next: () => void) => {
    res.on('finish', () => {
      if (res.statusCode === 401) provider.stats.unauthorized++;
    });
    next();
  });
  app.all(
    '/mcp',
    requireBearerAuth({
      verifier: provider,
      resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
    }),
    async (req: IncomingMessage & { body?: unknown; auth?: AuthInfo }, res: ServerResponse) => {
      if (req.auth !== undefined) accepted.push(req.auth.token);
      const id = req.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? transports.get(id) : undefined;
      if (transport === undefined) {
        if (typeof id === 'string') {
          res.writeHead(404).end();
          return;
        }
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: randomUUID,
          onsessioninitialized: (session) => void transports.set(session, created),
        });
        provider.stats.mcpSessions++;
        transport = created;
        await toolsServer(calls).connect(created);
      }
      await transport.handleRequest(req, res, req.body);
    },
  );
  return {
    url: mcpUrl.href,
    stats: provider.stats,
    issued: provider.issued,
    calls,
    accepted,
    expireAccessTokens: () => {
      for (const grant of provider.access.values()) grant.expiresAt = Math.floor(Date.now() / 1000) - 10;
    },
    revokeRefreshTokens: () => provider.refresh.clear(),
    close: async () => {
      await Promise.allSettled([...transports.values()].map((transport) => transport.close()));
      await new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      });
    },
  };
}
