/**
 * OAuth for remote MCP servers (mcp/oauth.ts): the built server against a local authorization
 * server and an MCP server that wants its bearer token (helpers/oauth-server.ts, the SDK's
 * server-side auth). The test plays the browser: it fetches the authorization URL that `mcp/list`
 * shows and follows the redirect to Santra's loopback listener.
 *
 * What is checked: the sign-in (dynamic registration, PKCE, the code exchange), the token file
 * and its mode, a call with the token, a token near its expiry refreshed before it is used (no
 * 401 first), a 401 mid-session refreshed on the same connection (the MCP session is not opened
 * again), a revoked refresh token bringing the server back to `needs_auth` with a message that
 * says what to do (and a new sign-in continuing the same connection), a restart using the kept
 * tokens, a pinned client id without registration, a redirect with the wrong `state` refused —
 * and no token in protocol output or the log.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { startOAuthServer, type OAuthTestServer } from './helpers/oauth-server.ts';
import { type Harness, suiteHarnesses, TESTER } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();
const servers: OAuthTestServer[] = [];
const homes: string[] = [];
after(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await Promise.all(homes.map((home) => removeTempDir(home)));
});

const MCP_TESTER = {
  ...TESTER,
  id: 'mcp_tester',
  name: 'MCP tester',
  toolNames: [...TESTER.toolNames, 'mcp__*'],
};
const call = (id: string, text: string) => ({
  toolCalls: [{ id, name: 'mcp__remote__echo', args: { text } }],
});

async function oauthServer(options: Parameters<typeof startOAuthServer>[0] = {}): Promise<OAuthTestServer> {
  const server = await startOAuthServer(options);
  servers.push(server);
  return server;
}

/** A config directory of its own (so a second server can share it), with `remote` pointing at `url`. */
function santraHome(remote: Json): string {
  const home = tempDir('santra-oauth-');
  homes.push(home);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({ mcpServers: { remote: { policy: 'allow', ...remote } } }),
    {
      mode: 0o600,
    },
  );
  return home;
}

async function santra(home: string, turns: Parameters<typeof start>[1]): Promise<Harness> {
  const h = await start('anthropic', turns, { SANTRA_HOME: home }, undefined, {
    capabilities: { approve: true, ask: true },
  });
  writeFileSync(join(h.workspace, '.agents/mcp_tester.json'), JSON.stringify(MCP_TESTER));
  return h;
}

async function remote(h: Harness): Promise<Json> {
  const id = h.nextId();
  h.client.request(id, 'mcp/list', {});
  const result = (await h.client.response(id)).result as Json;
  return (result.servers as Json[]).find((server) => server.name === 'remote') as Json;
}

/** `mcp/list`'s entry for the server once it is in `state` (polled; the server connects in the background). */
async function until(h: Harness, state: string): Promise<Json> {
  for (let i = 0; ; i++) {
    const server = await remote(h);
    if (server.state === state) return server;
    assert.ok(i < 500, `the server stayed ${String(server.state)}, not ${state}: ${JSON.stringify(server)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The browser: opens the authorization URL, follows its redirect to Santra's listener; the page it shows. */
async function signIn(authUrl: string): Promise<{ status: number; page: string; callback: string }> {
  const authorize = await fetch(authUrl, { redirect: 'manual' });
  assert.equal(authorize.status, 302, await authorize.text());
  const callback = authorize.headers.get('location') ?? '';
  const landed = await fetch(callback);
  return { status: landed.status, page: await landed.text(), callback };
}

async function echo(h: Harness, id: string): Promise<Json> {
  const { response, phases } = await h.prompt({ text: 'go', agent: 'mcp_tester' });
  assert.equal((response.result as Json).status, 'completed', JSON.stringify(response));
  const result = phases.find((p) => p.type === 'tool_result' && p.toolCallId === id);
  assert.ok(result !== undefined, JSON.stringify(phases));
  return result;
}

function assertNoTokens(h: Harness, server: OAuthTestServer): void {
  assert.ok(server.issued.length > 0, 'no token was issued, so this proves nothing');
  for (const tokens of server.issued)
    for (const secret of [tokens.access_token, tokens.refresh_token ?? '']) {
      assert.ok(!h.client.stdout.includes(secret), 'a token appeared in protocol output');
      assert.ok(!h.client.stderr.includes(secret), 'a token appeared in the server log');
    }
}

describe('a remote MCP server behind OAuth', () => {
  let oauth: OAuthTestServer;
  let home: string;
  let h: Harness;

  test('needs a sign-in: mcp/list shows the URL and says what to do', async () => {
    oauth = await oauthServer();
    home = santraHome({ type: 'http', url: oauth.url });
    h = await santra(home, [
      call('c1', 'signed in'),
      { text: 'done' },
      call('c2', 'after a 401'),
      { text: 'done' },
      call('c3', 'revoked'),
      { text: 'done' },
      { text: 'told' },
      call('c4', 'signed in again'),
      { text: 'done' },
    ]);
    const server = await until(h, 'needs_auth');
    assert.match(String(server.error), /santra mcp login remote/);
    const authUrl = new URL(String(server.authUrl));
    assert.equal(authUrl.searchParams.get('code_challenge_method'), 'S256');
    assert.match(String(authUrl.searchParams.get('redirect_uri')), /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    assert.equal(oauth.stats.registrations, 1, 'the client registered itself (dynamic registration)');
    assert.equal(oauth.stats.mcpSessions, 0);
  });

  test('a redirect with another state is refused and signs nobody in; a refusal is told', async () => {
    const server = await remote(h);
    const callback = new URL(String(new URL(String(server.authUrl)).searchParams.get('redirect_uri')));
    callback.searchParams.set('code', 'stolen');
    callback.searchParams.set('state', 'not-the-one');
    const refused = await fetch(callback);
    assert.equal(refused.status, 400);
    assert.match(await refused.text(), /not the one Santra is waiting for/);
    assert.equal(oauth.stats.codeExchanges, 0);
    assert.equal((await remote(h)).state, 'needs_auth');

    // The person said no at the authorization server: told, and the link still works afterwards.
    const denied = new URL(callback);
    denied.search = '';
    denied.searchParams.set('error', 'access_denied');
    denied.searchParams.set('state', String(new URL(String(server.authUrl)).searchParams.get('state')));
    const page = await fetch(denied);
    assert.equal(page.status, 400);
    assert.match(await page.text(), /The sign-in to remote was refused \(access_denied\)/);
    const told = await remote(h);
    assert.equal(told.state, 'needs_auth');
    assert.match(
      String(told.error),
      /the sign-in was refused \(access_denied\); run `santra mcp login remote`/,
    );
  });

  test('signing in keeps the tokens in a 0600 file and connects; a call carries the token', async () => {
    const { status, page } = await signIn(String((await remote(h)).authUrl));
    assert.equal(status, 200, page);
    assert.match(page, /Signed in to remote/);
    const server = await until(h, 'connected');
    assert.equal(server.authUrl, undefined);
    assert.ok((server.tools as Json[]).some((tool) => tool.name === 'mcp__remote__echo'));
    const dir = join(home, 'mcp-oauth');
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    const files = readdirSync(dir);
    assert.equal(files.length, 1, files.join(', '));
    assert.match(files[0] as string, /^127\.0\.0\.1_\d+-[0-9a-f]{16}\.json$/);
    assert.equal(statSync(join(dir, files[0] as string)).mode & 0o777, 0o600);

    const result = await echo(h, 'c1');
    assert.equal(result.status, 'ok', JSON.stringify(result));
    assert.match(String(result.output), /echo: signed in/);
    assert.equal(oauth.accepted.at(-1), oauth.issued.at(-1)?.access_token);
    assertNoTokens(h, oauth);
  });

  test('a 401 mid-session is refreshed on the same connection', async () => {
    const { refreshes, unauthorized, mcpSessions } = { ...oauth.stats };
    oauth.expireAccessTokens();
    const result = await echo(h, 'c2');
    assert.equal(result.status, 'ok', JSON.stringify(result));
    assert.ok(oauth.stats.unauthorized > unauthorized, 'the server answered 401');
    assert.equal(oauth.stats.refreshes, refreshes + 1);
    assert.equal(oauth.stats.mcpSessions, mcpSessions, 'the connection was opened again');
    assert.equal((await remote(h)).state, 'connected');
    assertNoTokens(h, oauth);
  });

  test('a revoked refresh token brings back needs_auth with what to do; a new sign-in goes on', async () => {
    const { mcpSessions } = oauth.stats;
    oauth.expireAccessTokens();
    oauth.revokeRefreshTokens();
    const result = await echo(h, 'c3');
    assert.equal(result.status, 'error');
    assert.match(String(result.output), /sign-in expired or was revoked: run `santra mcp login remote`/);
    const server = await remote(h);
    assert.equal(server.state, 'needs_auth');
    assert.match(String(server.error), /santra mcp login remote/);
    // The next prompt tells it once, as a warning, with the URL to open.
    const { phases } = await h.prompt({ text: 'anything new?', agent: 'mcp_tester' });
    const warning = phases.find(
      (p) => p.type === 'status' && p.level === 'warning' && /remote/.test(String(p.text)),
    );
    assert.ok(warning !== undefined, JSON.stringify(phases));
    assert.match(String(warning.text), /santra mcp login remote/);
    assert.ok(String(warning.text).includes(String(server.authUrl)), String(warning.text));

    const { status } = await signIn(String(server.authUrl));
    assert.equal(status, 200);
    await until(h, 'connected');
    const again = await echo(h, 'c4');
    assert.equal(again.status, 'ok', JSON.stringify(again));
    assert.equal(oauth.stats.mcpSessions, mcpSessions, 'the connection was opened again');
    assertNoTokens(h, oauth);
  });

  test('a second Santra uses the kept sign-in: no question, no new registration', async () => {
    const { registrations, authorizations } = { ...oauth.stats };
    const second = await santra(home, [{ text: 'unused' }]);
    await until(second, 'connected');
    assert.equal(oauth.stats.registrations, registrations);
    assert.equal(oauth.stats.authorizations, authorizations);
    assertNoTokens(second, oauth);
  });
});

describe('mcp/logout', () => {
  test('forgets the sign-in: the file goes, the server asks for a new one with a URL, and signing in again connects it', async () => {
    const oauth = await oauthServer();
    const home = santraHome({ type: 'http', url: oauth.url });
    const h = await santra(home, [call('c1', 'after the new sign-in'), { text: 'done' }]);
    await signIn(String((await until(h, 'needs_auth')).authUrl));
    await until(h, 'connected');
    const dir = join(home, 'mcp-oauth');
    assert.equal(readdirSync(dir).length, 1);
    const logout = async (server: string) => {
      const id = h.nextId();
      h.client.request(id, 'mcp/logout', { server });
      return h.client.response(id);
    };
    const out = (await logout('remote')).result as Json;
    assert.equal(out.signedOut, true);
    assert.equal((out.server as Json).state, 'needs_auth');
    assert.match(String((out.server as Json).authUrl), /^http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
    assert.match(String((out.server as Json).error), /santra mcp login remote/);
    // The tokens are gone from disk (the new sign-in under way may have registered a client again).
    for (const file of readdirSync(dir))
      assert.equal((JSON.parse(readFileSync(join(dir, file), 'utf8')) as Json).tokens, undefined);
    // Signed out twice: nothing was kept the second time.
    assert.equal(((await logout('remote')).result as Json).signedOut, false);
    // Signing in again connects it, and its tools work.
    const { status } = await signIn(String((await until(h, 'needs_auth')).authUrl));
    assert.equal(status, 200);
    await until(h, 'connected');
    assert.equal((await echo(h, 'c1')).status, 'ok');
    // A name that is not a server, and a server that keeps no sign-in, are refused with why.
    assert.match(String(((await logout('nope')).error as Json).message), /there is no MCP server "nope"/);
    assertNoTokens(h, oauth);
  });

  test('revokes the tokens at the authorization server: the old access and refresh tokens stop working anywhere', async () => {
    const oauth = await oauthServer();
    const home = santraHome({ type: 'http', url: oauth.url });
    const h = await santra(home, [{ text: 'unused' }]);
    await signIn(String((await until(h, 'needs_auth')).authUrl));
    await until(h, 'connected');
    const held = oauth.issued.at(-1) as { access_token: string; refresh_token: string };
    const id = h.nextId();
    h.client.request(id, 'mcp/logout', { server: 'remote' });
    const out = (await h.client.response(id)).result as Json;
    assert.deepEqual(out.revocation, { revoked: true });
    assert.equal(oauth.stats.revocations, 2, 'the refresh token and the access token');
    // Whoever still holds them (a copy, another process) is refused.
    const mcp = await fetch(oauth.url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${held.access_token}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
    assert.equal(mcp.status, 401);
    const refresh = await fetch(new URL('/token', oauth.url), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: held.refresh_token }),
    });
    assert.equal(refresh.status >= 400, true, `a refresh with the revoked token: HTTP ${refresh.status}`);
    assertNoTokens(h, oauth);
  });

  test('an authorization server without revocation: signed out here, and the result says the tokens live on there', async () => {
    const oauth = await oauthServer({ revocation: false });
    const home = santraHome({ type: 'http', url: oauth.url });
    const h = await santra(home, [{ text: 'unused' }]);
    await signIn(String((await until(h, 'needs_auth')).authUrl));
    await until(h, 'connected');
    const id = h.nextId();
    h.client.request(id, 'mcp/logout', { server: 'remote' });
    const out = (await h.client.response(id)).result as Json;
    assert.equal(out.signedOut, true);
    assert.equal((out.revocation as Json).revoked, false);
    assert.match(String((out.revocation as Json).why), /offers no way to revoke them/);
    assert.equal(oauth.stats.revocations, 0);
    assertNoTokens(h, oauth);
  });

  test('another Santra signed in with the same sign-in stops using it when this one signs out', async () => {
    // No revocation: the other Santra's tokens would still be accepted; it must drop them itself.
    const oauth = await oauthServer({ revocation: false });
    const home = santraHome({ type: 'http', url: oauth.url });
    const other = await santra(home, [
      call('c1', 'before'),
      { text: 'done' },
      call('c2', 'after'),
      { text: 'done' },
    ]);
    await signIn(String((await until(other, 'needs_auth')).authUrl));
    await until(other, 'connected');
    assert.equal((await echo(other, 'c1')).status, 'ok');
    const h = await santra(home, [{ text: 'unused' }]);
    await until(h, 'connected');
    const id = h.nextId();
    h.client.request(id, 'mcp/logout', { server: 'remote' });
    assert.equal(((await h.client.response(id)).result as Json).signedOut, true);
    const accepted = oauth.accepted.length;
    const { response, phases } = await other.prompt({ text: 'go', agent: 'mcp_tester' });
    assert.equal((response.result as Json).status, 'completed');
    const after = phases.find((p) => p.type === 'tool_result' && p.toolCallId === 'c2');
    assert.equal(after?.status, 'error', JSON.stringify(after));
    assert.equal(oauth.accepted.length, accepted, 'no request with the old token was accepted');
    // Its own sign-in goes to a port of its own: the first Santra waits for one on the port both had.
    const waiting = String((await until(other, 'needs_auth')).authUrl);
    assert.notEqual(
      new URL(waiting).searchParams.get('redirect_uri'),
      new URL(String((await remote(h)).authUrl)).searchParams.get('redirect_uri'),
    );
    assert.equal((await signIn(waiting)).status, 200);
    await until(other, 'connected');
    other.fake.push(call('c3', 'signed in again'), { text: 'done' });
    assert.equal((await echo(other, 'c3')).status, 'ok');
    assertNoTokens(other, oauth);
  });

  test('a local server has no sign-in to forget', async () => {
    const home = santraHome({ command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] });
    const h = await santra(home, [{ text: 'unused' }]);
    const id = h.nextId();
    h.client.request(id, 'mcp/logout', { server: 'remote' });
    const response = await h.client.response(id);
    assert.match(JSON.stringify(response.error), /local server \(stdio\): it has no sign-in to forget/);
  });
});

describe('a sign-in made by another Santra', () => {
  test('connects a Santra that was waiting for it, without a prompt', async () => {
    const oauth = await oauthServer();
    const home = santraHome({ type: 'http', url: oauth.url });
    const waiting = await santra(home, [call('c1', 'picked up'), { text: 'done' }]);
    await until(waiting, 'needs_auth');
    // `santra mcp login` in another terminal is another santra-server on the same config directory.
    const other = await santra(home, [{ text: 'unused' }]);
    const { status } = await signIn(String((await until(other, 'needs_auth')).authUrl));
    assert.equal(status, 200);
    await until(other, 'connected');
    await until(waiting, 'connected');
    const result = await echo(waiting, 'c1');
    assert.equal(result.status, 'ok', JSON.stringify(result));
    assertNoTokens(waiting, oauth);
  });
});

describe('an access token near its expiry', () => {
  test('is refreshed before it is used, not after a 401', async () => {
    // 30 s left is inside the refresh margin (60 s): every use refreshes first.
    const oauth = await oauthServer({ expiresIn: 30 });
    const home = santraHome({ type: 'http', url: oauth.url });
    const h = await santra(home, [call('c1', 'fresh'), { text: 'done' }]);
    const { status } = await signIn(String((await until(h, 'needs_auth')).authUrl));
    assert.equal(status, 200);
    await until(h, 'connected');
    const { unauthorized, refreshes } = { ...oauth.stats };
    // The server would refuse the tokens issued so far: only a refresh before use gets through
    // without a 401.
    oauth.expireAccessTokens();
    const result = await echo(h, 'c1');
    assert.equal(result.status, 'ok', JSON.stringify(result));
    assert.equal(oauth.stats.unauthorized, unauthorized, 'a request went out with the old token');
    assert.ok(oauth.stats.refreshes > refreshes);
    assertNoTokens(h, oauth);
  });
});

describe('a client id pinned in the config', () => {
  test('signs in without registering, on the configured callback port', async () => {
    const port = await freePort();
    const oauth = await oauthServer({
      registration: false,
      clients: [
        {
          client_id: 'santra-pinned',
          redirect_uris: [`http://127.0.0.1:${port}/callback`],
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code', 'refresh_token'],
        },
      ],
    });
    const home = santraHome({
      type: 'http',
      url: oauth.url,
      oauth: { clientId: 'santra-pinned', callbackPort: port },
    });
    const h = await santra(home, [call('c1', 'pinned'), { text: 'done' }]);
    const server = await until(h, 'needs_auth');
    const authUrl = new URL(String(server.authUrl));
    assert.equal(authUrl.searchParams.get('client_id'), 'santra-pinned');
    const { status, callback } = await signIn(authUrl.href);
    assert.equal(status, 200);
    assert.ok(callback.startsWith(`http://127.0.0.1:${port}/callback?`), callback);
    await until(h, 'connected');
    const result = await echo(h, 'c1');
    assert.equal(result.status, 'ok', JSON.stringify(result));
    assert.equal(oauth.stats.registrations, 0);
  });
});

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
