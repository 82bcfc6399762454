/**
 * `santra mcp login SERVER` (tui/src/print/mcp-command.ts) as a person runs it: the built santra
 * prints the authorization URL, the test plays the browser (fetches it, follows the redirect to
 * the loopback listener of the santra-server it started), and santra ends 0 once the server is
 * connected; a later `santra mcp list` finds it connected with the kept tokens. The local
 * authorization server and MCP server are helpers/oauth-server.ts.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { startOAuthServer } from './helpers/oauth-server.ts';
import { runSantra, SANTRA_BIN } from './helpers/run.ts';

const dirs: string[] = [];
const closers: Array<() => Promise<void>> = [];
after(async () => {
  for (const close of closers) await close();
  for (const dir of dirs) await removeTempDir(dir);
});

function place(servers: Record<string, unknown>): { env: NodeJS.ProcessEnv; workspace: string } {
  const home = tempDir('santra-login-home-');
  const workspace = tempDir('santra-login-ws-');
  dirs.push(home, workspace);
  mkdirSync(join(home, 'santra'), { recursive: true, mode: 0o700 });
  writeFileSync(join(home, 'santra', 'config.json'), JSON.stringify({ mcpServers: servers }), {
    mode: 0o600,
  });
  return {
    env: { PATH: process.env.PATH, NO_COLOR: '1', HOME: home, SANTRA_HOME: join(home, 'santra') },
    workspace,
  };
}

describe('santra mcp login', () => {
  test('prints the URL, waits for the sign-in, ends 0; the next santra is signed in', async () => {
    const oauth = await startOAuthServer();
    closers.push(() => oauth.close());
    const { env, workspace } = place({ remote: { type: 'http', url: oauth.url } });
    // santra mcp list says to sign in, without a URL: its server is gone once it has listed.
    const before = await runSantra(['mcp', 'list', '--json', '--cwd', workspace], { cwd: workspace, env });
    const listed = (JSON.parse(before.stdout) as { servers: Array<Record<string, unknown>> }).servers[0];
    assert.equal(listed?.state, 'needs_auth', before.stdout);
    assert.equal(listed.authUrl, undefined);
    assert.match(String(listed.error), /run `santra mcp login remote`/);
    const child = spawn(process.execPath, [SANTRA_BIN, 'mcp', 'login', 'remote', '--cwd', workspace], {
      cwd: workspace,
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    });
    closers.push(async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const found = /^ {2}(http\S+)$/m.exec(stdout);
        if (found !== null) resolve(found[1] as string);
      });
      child.once('close', () => reject(new Error(`santra ended before showing a URL: ${stdout} ${stderr}`)));
    });
    assert.match(stdout, /To sign in to remote, open this URL in a browser on this machine/);
    const authorize = await fetch(url, { redirect: 'manual' });
    assert.equal(authorize.status, 302);
    const landed = await fetch(authorize.headers.get('location') ?? '');
    assert.equal(landed.status, 200, await landed.text());
    const [code] = (await once(child, 'close')) as [number | null];
    assert.equal(code, 0, `${stdout}\n${stderr}`);
    assert.match(stdout, /Signed in to remote: \d+ tools ready/);
    for (const tokens of oauth.issued) {
      assert.ok(!stdout.includes(tokens.access_token) && !stderr.includes(tokens.access_token));
      assert.ok(!stdout.includes(tokens.refresh_token ?? '') && !stderr.includes(tokens.refresh_token ?? ''));
    }

    const authorizations = oauth.stats.authorizations;
    const list = await runSantra(['mcp', 'list', '--json', '--cwd', workspace], { cwd: workspace, env });
    assert.equal(list.code, 0, list.stderr);
    const server = (JSON.parse(list.stdout) as { servers: Array<{ name: string; state: string }> })
      .servers[0];
    assert.equal(server?.state, 'connected');
    assert.equal(oauth.stats.authorizations, authorizations, 'it had to sign in again');

    const again = await runSantra(['mcp', 'login', 'remote', '--cwd', workspace], { cwd: workspace, env });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /remote is connected: it is signed in already/);
  });

  test('a server that is not there, or is local, is refused with what is wrong', async () => {
    const { env, workspace } = place({ local: { command: process.execPath, args: ['-e', ''] } });
    const missing = await runSantra(['mcp', 'login', 'nope', '--cwd', workspace], { cwd: workspace, env });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /there is no MCP server "nope"; the servers are local/);
    const local = await runSantra(['mcp', 'login', 'local', '--wait', '5', '--cwd', workspace], {
      cwd: workspace,
      env,
    });
    assert.equal(local.code, 1);
    assert.match(local.stderr, /"local" is a local server \(stdio\); only a remote server signs in/);
    const bare = await runSantra(['mcp', 'login', '--cwd', workspace], { cwd: workspace, env });
    assert.equal(bare.code, 2);
    assert.match(bare.stderr, /santra mcp login needs the name of the server/);
  });
});
