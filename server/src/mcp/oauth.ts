/**
 * OAuth for a remote MCP server, through the SDK's client auth (`@modelcontextprotocol/sdk/client/
 * auth.js`): this is the `OAuthClientProvider` the Streamable HTTP and SSE transports are given.
 * The SDK does the protocol — discovery (RFC 9728, RFC 8414), dynamic client registration where
 * the server offers it, PKCE, the code exchange, refreshing on a 401 — and asks this provider to
 * keep what it learns and to send the person to the authorization URL.
 *
 * Santra's part:
 * - what is kept goes to one file per server URL (oauth-store.ts), never to a log: every token
 *   and client secret is handed to the redactor as soon as it is read or saved;
 * - the access token is refreshed *before* it expires (`tokens()` is asked before each request),
 *   so a request does not first fail; a 401 all the same is left to the SDK, which refreshes and
 *   sends the request again on the same connection;
 * - "sending the person" is showing the URL (the manager puts it in `mcp/list` and a status
 *   warning; `santra mcp login` prints it) and listening on the loopback redirect
 *   (oauth-callback.ts). Nothing is opened automatically.
 */
import { rm } from 'node:fs/promises';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { type FSWatcher, mkdirSync, statSync, watch } from 'node:fs';
import { basename } from 'node:path';
import {
  auth,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  UnauthorizedError,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { errorMessage } from '../support/errno.ts';
import type { Logger, Redactor } from '../support/log.ts';
import {
  CALLBACK_PATH,
  type CallbackListener,
  freeLoopbackPort,
  listenForCallback,
} from './oauth-callback.ts';
import { readSignIn, signInDir, signInFile, type StoredSignIn, writeSignIn } from './oauth-store.ts';
import { REVOKE_TIMEOUT_MS, type Revocation, revokeTokens } from './oauth-revoke.ts';

/** Set inside the SDK's `auth()` started by a refresh: `tokens()` then answers what is kept, as is. */
const inRefresh = new AsyncLocalStorage<true>();

/** A token this close to its expiry is refreshed before it is used. */
export const REFRESH_MARGIN_MS = 60_000;

/** The `oauth` field of a remote server's definition. */
export interface OAuthSettings {
  clientId?: string;
  clientSecret?: string;
  scope?: string;
  callbackPort?: number;
}

export interface McpOAuthOptions {
  /** The server's name (for messages and the browser page). */
  server: string;
  /** The server's URL, expanded: what the sign-in is kept under. */
  serverUrl: string;
  settings: OAuthSettings | undefined;
  env: NodeJS.ProcessEnv;
  log: Logger;
  redactor: Redactor;
  /** A person must sign in: the URL to open (a newer one replaces the one before). */
  onAuthorizationUrl: (url: string) => void;
  /** The sign-in finished and the tokens are kept. */
  onSignedIn: () => void;
  /** The authorization server refused the sign-in (the person denied it…). */
  onRefused: (why: string) => void;
}

/** Whether an error (or one of its causes) is the SDK's "a person must sign in". */
export function needsSignIn(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++)
    if (e instanceof UnauthorizedError) return true;
  return false;
}

/** Made with `McpOAuth.create`, which settles the redirect port first. */
export class McpOAuth implements OAuthClientProvider {
  readonly #options: McpOAuthOptions;
  readonly #file: string;
  #port: number;
  #stored: StoredSignIn;
  #verifier: string | undefined;
  #state: string | undefined;
  #listener: Promise<CallbackListener> | undefined;
  #refreshing: Promise<void> | undefined;
  #authorizationUrl: string | undefined;
  #watcher: FSWatcher | undefined;
  /** A code from the redirect is being exchanged: the sign-in under way must not be dropped. */
  #exchanging = false;
  /**
   * The sign-in file's modification time when the tokens held were read from it or written to it
   * (undefined: none held). Changed since, another Santra wrote it: it signed out or refreshed.
   */
  #stamp: number | undefined;

  private constructor(options: McpOAuthOptions, file: string, stored: StoredSignIn, port: number) {
    this.#options = options;
    this.#file = file;
    this.#stored = stored;
    this.#port = port;
    this.#stamp = stored.tokens === undefined ? undefined : fileStamp(file);
    this.#redact(stored);
  }

  /**
   * The redirect port: the configured one, else the one the kept client was registered with (an
   * authorization server that matches redirect URIs exactly keeps working), else a free one. When
   * that port is taken (another Santra is waiting for its own sign-in there), a client registered
   * for it is not used: a new one is registered with the free port.
   */
  static async create(options: McpOAuthOptions): Promise<McpOAuth> {
    const file = signInFile(options.env, options.serverUrl);
    const stored = await readSignIn(file, options.serverUrl);
    const configured = options.settings?.callbackPort;
    if (configured !== undefined) return new McpOAuth(options, file, stored, configured);
    const registered = redirectPort(stored.client);
    const kept = registered === undefined ? undefined : await freeLoopbackPort(registered);
    if (kept !== undefined) return new McpOAuth(options, file, stored, kept);
    const port = await freeLoopbackPort();
    if (port === undefined) throw new Error('no loopback port is free for the sign-in redirect');
    // Kept tokens need their own client to be refreshed: only a client not yet signed in is replaced.
    const { client: _elsewhere, ...rest } = stored;
    const replace = registered !== undefined && stored.tokens === undefined;
    return new McpOAuth(options, file, replace ? rest : stored, port);
  }

  /** The file the sign-in is kept in. */
  get file(): string {
    return this.#file;
  }

  /** The authorization URL waiting to be opened, if a sign-in is under way. */
  get authorizationUrl(): string | undefined {
    return this.#authorizationUrl;
  }

  get redirectUrl(): string {
    return `http://127.0.0.1:${this.#port}${CALLBACK_PATH}`;
  }

  get clientMetadata(): OAuthClientMetadata {
    const secret = this.#options.settings?.clientSecret !== undefined;
    return {
      client_name: 'Santra',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: secret ? 'client_secret_post' : 'none',
      ...(this.#options.settings?.scope === undefined ? {} : { scope: this.#options.settings.scope }),
    };
  }

  state(): string {
    this.#state = randomBytes(24).toString('base64url');
    return this.#state;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const pinned = this.#pinnedClient();
    if (pinned !== undefined) return pinned;
    // A sign-in is about to start here (no tokens, no redirect awaited yet): its redirect port must
    // be free, and another Santra waiting for its own sign-in to this server may hold it now.
    const fixedPort = this.#options.settings?.callbackPort !== undefined;
    if (this.#stored.tokens === undefined && this.#listener === undefined && !fixedPort)
      await this.#freeRedirectPort();
    return this.#stored.client;
  }

  /** The client the config pins (`oauth.clientId`, and its secret), if it does. */
  #pinnedClient(): OAuthClientInformationMixed | undefined {
    const { clientId, clientSecret } = this.#options.settings ?? {};
    if (clientId === undefined) return undefined;
    return { client_id: clientId, ...(clientSecret === undefined ? {} : { client_secret: clientSecret }) };
  }

  /**
   * Moves the redirect to a free port when the one chosen is taken, and forgets (here only) the
   * client registered for the old one, so the sign-in registers one for the new: as `create` does.
   */
  async #freeRedirectPort(): Promise<void> {
    if ((await freeLoopbackPort(this.#port)) !== undefined) return;
    const port = await freeLoopbackPort();
    // None free: listening says so, with what to do.
    if (port === undefined) return;
    this.#options.log.info(
      `MCP ${this.#options.server}: port ${this.#port} is taken (another sign-in?); the redirect goes to ${port}`,
    );
    this.#port = port;
    const { client: _other, ...rest } = this.#stored;
    this.#stored = rest;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    // A client the config pins is the config's: nothing registered is kept in its place.
    if (this.#options.settings?.clientId !== undefined) return;
    await this.#update({ client });
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    if (inRefresh.getStore() === true) return this.#stored.tokens;
    // A request made while a refresh is under way waits for its token.
    if (this.#refreshing !== undefined) await this.#refreshing;
    if (this.#stored.tokens !== undefined && this.#stamp !== undefined) await this.#followFile();
    // Waiting for a sign-in here: `santra mcp login` in another terminal may have done it meanwhile.
    if (this.#stored.tokens === undefined && this.#authorizationUrl !== undefined)
      await this.signedInElsewhere();
    const { tokens, expiresAt } = this.#stored;
    if (
      tokens?.refresh_token !== undefined &&
      expiresAt !== undefined &&
      expiresAt - Date.now() < REFRESH_MARGIN_MS
    )
      await this.#refreshSoon();
    return this.#stored.tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const expiresAt = tokens.expires_in === undefined ? undefined : Date.now() + tokens.expires_in * 1000;
    // A refresh that returns no new refresh token keeps the old one (RFC 6749 §6).
    const refresh = tokens.refresh_token ?? this.#stored.tokens?.refresh_token;
    await this.#update({
      tokens: { ...tokens, ...(refresh === undefined ? {} : { refresh_token: refresh }) },
      expiresAt,
    });
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    await this.#listen();
    this.#authorizationUrl = url.href;
    this.#options.log.info(`MCP ${this.#options.server}: a sign-in is needed; the URL is in mcp/list`);
    this.#options.onAuthorizationUrl(url.href);
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (this.#verifier === undefined)
      throw new Error('no sign-in is under way (its code verifier is gone): sign in again');
    return this.#verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') {
      this.#verifier = undefined;
      return;
    }
    if (scope === 'tokens') {
      // Refused because another Santra refreshed first (a rotated refresh token is spent once):
      // its tokens are taken, not thrown away.
      const kept = await readSignIn(this.#file, this.#options.serverUrl).catch(() => undefined);
      const theirs = kept?.tokens?.access_token;
      if (theirs !== undefined && theirs !== this.#stored.tokens?.access_token) {
        this.#stored = kept as StoredSignIn;
        this.#redact(this.#stored);
        return;
      }
    }
    const next: StoredSignIn = { ...this.#stored };
    if (scope === 'all' || scope === 'client') delete next.client;
    if (scope === 'all' || scope === 'tokens') {
      delete next.tokens;
      delete next.expiresAt;
    }
    if (scope === 'all' || scope === 'discovery') delete next.discovery;
    this.#stored = next;
    await writeSignIn(this.#file, signInDir(this.#options.env), next);
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    await this.#update({ discovery });
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#stored.discovery;
  }

  /** Reads the kept sign-in again; true when it has tokens (another Santra signed in). */
  async signedInElsewhere(): Promise<boolean> {
    const stored = await readSignIn(this.#file, this.#options.serverUrl).catch(() => this.#stored);
    if (stored.tokens === undefined) return false;
    this.#stored = stored;
    this.#stamp = fileStamp(this.#file);
    this.#redact(stored);
    if (this.#authorizationUrl !== undefined && !this.#exchanging) {
      // The sign-in under way here is not needed any more: its link stops working.
      this.#authorizationUrl = undefined;
      this.#state = undefined;
      this.#verifier = undefined;
      void this.#stopListening();
    }
    return true;
  }

  /**
   * Calls `changed` whenever the sign-in file is written by someone else (`santra mcp login` in
   * another terminal), so a Santra waiting for a sign-in connects as soon as it happened there.
   * Best effort: where the directory cannot be watched, the next prompt or call still looks.
   */
  watchForSignIn(changed: () => void): void {
    if (this.#watcher !== undefined) return;
    const dir = signInDir(this.#options.env);
    const name = basename(this.#file);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      this.#watcher = watch(dir, { persistent: false }, (_event, file) => {
        if (file === null || file === name) changed();
      });
      this.#watcher.on('error', () => this.stopWatching());
    } catch (error) {
      this.#options.log.debug(`MCP ${this.#options.server}: cannot watch ${dir}: ${errorMessage(error)}`);
    }
  }

  stopWatching(): void {
    this.#watcher?.close();
    this.#watcher = undefined;
  }

  /**
   * Forgets the sign-in — the tokens and the client registered for this server, here and in its
   * file (removed) — and revokes the tokens at the authorization server where it can (RFC 7009),
   * so that they end for everyone holding them. `signedOut`: it held tokens; `revocation`: what the
   * authorization server said, when there were tokens to revoke.
   */
  async signOut(): Promise<{ signedOut: boolean; revocation?: Revocation }> {
    const { tokens, discovery } = this.#stored;
    const client = this.#pinnedClient() ?? this.#stored.client;
    this.#stored = { serverUrl: this.#options.serverUrl };
    this.#stamp = undefined;
    this.#verifier = undefined;
    await rm(this.#file, { force: true });
    if (tokens === undefined) return { signedOut: false };
    const revocation = await revokeTokens(
      { tokens, serverUrl: this.#options.serverUrl, discovery, client },
      AbortSignal.timeout(REVOKE_TIMEOUT_MS),
    );
    const redacted: Revocation = revocation.revoked
      ? revocation
      : { revoked: false, why: this.#options.redactor.apply(revocation.why).slice(0, 300) };
    if (redacted.revoked) this.#options.log.info(`MCP ${this.#options.server}: tokens revoked at sign-out`);
    else
      this.#options.log.warn(
        `MCP ${this.#options.server}: signed out here, but the tokens were not revoked: ${redacted.why}`,
      );
    return { signedOut: true, revocation: redacted };
  }

  /** Stops listening for a redirect (the server is closing). */
  async close(): Promise<void> {
    this.stopWatching();
    await this.#stopListening();
  }

  async #stopListening(): Promise<void> {
    const listener = this.#listener;
    this.#listener = undefined;
    if (listener !== undefined) await (await listener.catch(() => undefined))?.close();
  }

  /** One refresh at a time; the kept file is read first, in case another Santra refreshed already. */
  async #refreshSoon(): Promise<void> {
    this.#refreshing ??= (async () => {
      this.#stored = await readSignIn(this.#file, this.#options.serverUrl);
      this.#stamp = this.#stored.tokens === undefined ? undefined : fileStamp(this.#file);
      this.#redact(this.#stored);
      const { expiresAt } = this.#stored;
      if (expiresAt !== undefined && expiresAt - Date.now() >= REFRESH_MARGIN_MS) return;
      try {
        const result = await inRefresh.run(true, () => auth(this, { serverUrl: this.#options.serverUrl }));
        if (result === 'AUTHORIZED')
          this.#options.log.info(`MCP ${this.#options.server}: access token refreshed`);
      } catch (error) {
        // The old token may still work for a moment; a 401 then brings the SDK's own attempt.
        this.#options.log.warn(
          `MCP ${this.#options.server}: refreshing the access token failed: ${errorMessage(error)}`,
        );
      }
    })().finally(() => {
      this.#refreshing = undefined;
    });
    await this.#refreshing;
  }

  async #listen(): Promise<void> {
    this.#listener ??= listenForCallback({
      port: this.#port,
      server: this.#options.server,
      expectedState: () => this.#state,
      onCode: (code) => this.#exchange(code),
      onRefused: (why) => this.#options.onRefused(why),
    });
    try {
      await this.#listener;
    } catch (error) {
      this.#listener = undefined;
      throw error;
    }
  }

  async #exchange(code: string): Promise<void> {
    this.#exchanging = true;
    try {
      const result = await auth(this, { serverUrl: this.#options.serverUrl, authorizationCode: code });
      if (result !== 'AUTHORIZED') throw new Error('the authorization server did not grant the tokens');
    } finally {
      this.#exchanging = false;
    }
    this.#state = undefined;
    this.#verifier = undefined;
    this.#authorizationUrl = undefined;
    this.#listener = undefined; // it closes itself once the browser has its answer
    this.#options.log.info(`MCP ${this.#options.server}: signed in; the tokens are kept in ${this.#file}`);
    this.#options.onSignedIn();
  }

  async #update(patch: Partial<StoredSignIn>): Promise<void> {
    const next: StoredSignIn = { ...this.#stored, ...patch };
    if ('expiresAt' in patch && patch.expiresAt === undefined) delete next.expiresAt;
    this.#stored = next;
    this.#redact(next);
    await writeSignIn(this.#file, signInDir(this.#options.env), next);
    this.#stamp = next.tokens === undefined ? undefined : fileStamp(this.#file);
  }

  /**
   * Follows the sign-in file when another Santra wrote it since the tokens held were read or
   * written: signed out there (`santra mcp logout`: no tokens in it now), they are dropped here
   * too — the next request then asks for a sign-in; refreshed there, its new tokens are used.
   */
  async #followFile(): Promise<void> {
    const stamp = fileStamp(this.#file);
    if (stamp === this.#stamp) return;
    const stored = await readSignIn(this.#file, this.#options.serverUrl).catch(() => undefined);
    // Unreadable for a moment: what is held is used, and the file read again at the next request.
    if (stored === undefined) return;
    if (stored.tokens === undefined)
      this.#options.log.info(
        `MCP ${this.#options.server}: signed out elsewhere; its tokens are dropped here`,
      );
    this.#stored = stored;
    this.#stamp = stored.tokens === undefined ? undefined : stamp;
    this.#redact(stored);
  }

  #redact(stored: StoredSignIn): void {
    const { redactor } = this.#options;
    redactor.add(stored.tokens?.access_token);
    redactor.add(stored.tokens?.refresh_token);
    redactor.add(stored.tokens?.id_token);
    redactor.add(stored.client?.client_secret);
    redactor.add(this.#options.settings?.clientSecret);
  }
}

/** The file's modification time; -1 when it is not there. */
function fileStamp(file: string): number {
  return statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? -1;
}

/** The loopback port a kept client was registered with, if it was. */
function redirectPort(client: OAuthClientInformationMixed | undefined): number | undefined {
  const uris = client !== undefined && 'redirect_uris' in client ? client.redirect_uris : undefined;
  for (const uri of uris ?? []) {
    try {
      const url = new URL(uri);
      if (url.hostname === '127.0.0.1' && url.port !== '' && url.pathname === CALLBACK_PATH)
        return Number(url.port);
    } catch {
      // Not a URL: not ours.
    }
  }
  return undefined;
}
