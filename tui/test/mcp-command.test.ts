/**
 * `santra mcp list` and the text `/mcp` shows: the built santra and santra-server with real MCP
 * servers over stdio (tui/test/fixtures/mcp-server.ts), one from the user's config (starts
 * unasked), one from the project's `.mcp.json` (not trusted: this command has no person to ask),
 * one whose program does not exist (failed, exit 1). No model is needed.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import type { McpListResult } from '../../protocol-spec/src/mcp.ts';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { mcpText } from '../src/client/mcp-text.ts';
import { login, parseMcpArgs, settledList } from '../src/print/mcp-command.ts';

const SANTRA = fileURLToPath(new URL('../../dist/santra.js', import.meta.url));
const MCP_SERVER = fileURLToPath(new URL('./fixtures/mcp-server.ts', import.meta.url));

const dirs: string[] = [];
after(async () => {
  for (const path of dirs) await removeTempDir(path);
});
function dir(prefix: string): string {
  const path = tempDir(prefix);
  dirs.push(path);
  return path;
}

/** A home whose config defines `servers`, and a workspace whose `.mcp.json` defines `project`. */
function setUp(servers: Record<string, unknown>, project?: Record<string, unknown>) {
  const home = dir('santra-mcp-home-');
  const workspace = dir('santra-mcp-ws-');
  mkdirSync(join(home, 'santra'), { recursive: true });
  writeFileSync(join(home, 'santra', 'config.json'), JSON.stringify({ mcpServers: servers }), {
    mode: 0o600,
  });
  if (project !== undefined)
    writeFileSync(join(workspace, '.mcp.json'), JSON.stringify({ mcpServers: project }, null, 2));
  return { home, workspace };
}

async function santra(args: string[], home: string, workspace: string) {
  const child = spawn(process.execPath, [SANTRA, ...args, '--cwd', workspace], {
    cwd: workspace,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, NO_COLOR: '1', HOME: home, SANTRA_HOME: join(home, 'santra') },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

const glossary = { command: process.execPath, args: [MCP_SERVER] };

describe('santra mcp list', () => {
  test("lists your servers with their tools and prompts, and a project's untrusted server with why", async () => {
    const { home, workspace } = setUp(
      { glossary },
      { tickets: { command: process.execPath, args: [MCP_SERVER] } },
    );
    const text = await santra(['mcp', 'list'], home, workspace);
    assert.equal(text.code, 0, text.stderr);
    assert.match(
      text.stdout,
      /^glossary\s+connected\s+stdio · your config · 2 tools, 1 prompt, 1 resource$/m,
    );
    assert.match(text.stdout, /mcp__glossary__lookup \(read-only\)\s+Looks a word up in the glossary\./);
    assert.match(text.stdout, /mcp__glossary__echo\s+Returns the text/);
    assert.match(text.stdout, /\/mcp__glossary__review \(prompt\)/);
    assert.match(text.stdout, /^tickets\s+not trusted\s+stdio · project \(.*\.mcp\.json\)$/m);
    assert.match(text.stdout, /cannot ask a person/);

    const json = await santra(['mcp', 'list', '--json'], home, workspace);
    assert.equal(json.code, 0, json.stderr);
    const result = JSON.parse(json.stdout) as McpListResult;
    assert.deepEqual(
      result.servers.map((server) => [server.name, server.state, server.tools.length]),
      [
        ['glossary', 'connected', 2],
        ['tickets', 'untrusted', 0],
      ],
    );
  });

  test('a server whose program is missing is failed, said how to fix, and the exit code is 1', async () => {
    const { home, workspace } = setUp({ broken: { command: 'santra-no-such-mcp-server' } });
    const run = await santra(['mcp', 'list'], home, workspace);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /^broken\s+failed/m);
    assert.match(run.stdout, /"santra-no-such-mcp-server" was not found: install it, or give its full path/);
  });

  test('santra mcp logout: a local server, or a name that is no server, is an error saying why', async () => {
    const { home, workspace } = setUp({ glossary });
    const local = await santra(['mcp', 'logout', 'glossary'], home, workspace);
    assert.equal(local.code, 1, local.stdout + local.stderr);
    assert.match(local.stderr, /"glossary" is a local server \(stdio\): it has no sign-in to forget/);
    const unknown = await santra(['mcp', 'logout', 'docs'], home, workspace);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /there is no MCP server "docs"; the servers are glossary/);
    assert.deepEqual(parseMcpArgs(['logout', 'docs'], '/w'), { logout: 'docs', cwd: '/w', cwdGiven: false });
    assert.match(
      (parseMcpArgs(['logout'], '/w') as { error: string }).error,
      /needs the name of the server to sign out of/,
    );
    assert.match(
      (parseMcpArgs(['logout', 'a', '--json'], '/w') as { error: string }).error,
      /only the server name/,
    );
  });

  test('bad usage is exit 2 with what was wrong', async () => {
    const { home, workspace } = setUp({});
    const run = await santra(['mcp', 'show'], home, workspace);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /santra mcp has no command "show"; usage: santra mcp list/);
  });
});

describe('santra mcp arguments', () => {
  test('list, --json, --wait and --cwd; everything else is refused with the usage', () => {
    assert.deepEqual(parseMcpArgs(['list', '--json', '--wait', '2'], '/w'), {
      json: true,
      waitSeconds: 2,
      cwd: '/w',
      cwdGiven: false,
    });
    assert.match((parseMcpArgs([], '/w') as { error: string }).error, /needs a command/);
    assert.match((parseMcpArgs(['list', 'x'], '/w') as { error: string }).error, /takes no arguments/);
    assert.match(
      (parseMcpArgs(['list', '--wait', 'soon'], '/w') as { error: string }).error,
      /--wait takes seconds/,
    );
    assert.match(
      (parseMcpArgs(['list', '--bogus'], '/w') as { error: string }).error,
      /usage: santra mcp list/,
    );
  });

  test('the list is taken once no server is connecting, or when the wait is over', async () => {
    const states: McpListResult['servers'][number]['state'][] = ['connecting', 'connecting', 'connected'];
    let calls = 0;
    const listOf = (state: McpListResult['servers'][number]['state']): McpListResult => ({
      servers: [
        {
          name: 's',
          scope: 'user',
          source: '/c',
          transport: 'stdio',
          state,
          tools: [],
          prompts: [],
          resources: 0,
        },
      ],
      problems: [],
      toolSearch: false,
    });
    const settled = await settledList(
      async () => listOf(states[Math.min(calls++, 2)] ?? 'connected'),
      10_000,
    );
    assert.equal(settled.servers[0]?.state, 'connected');
    assert.equal(calls, 3);
    const hanging = await settledList(async () => listOf('connecting'), 0);
    assert.equal(hanging.servers[0]?.state, 'connecting');
  });
});

describe('santra mcp login', () => {
  const remote = (
    state: McpListResult['servers'][number]['state'],
    authUrl?: string,
    error = authUrl === undefined ? undefined : 'it needs you to sign in',
  ): McpListResult => ({
    servers: [
      {
        name: 'docs',
        scope: 'user',
        source: '/c',
        transport: 'http',
        state,
        ...(authUrl === undefined ? {} : { authUrl }),
        ...(error === undefined ? {} : { error }),
        tools: [{ name: 'mcp__docs__search', policy: 'ask' }],
        prompts: [],
        resources: 0,
      },
    ],
    problems: [],
    toolSearch: false,
  });

  test('takes one server name; --wait defaults to five minutes', () => {
    assert.deepEqual(parseMcpArgs(['login', 'docs'], '/w'), {
      login: 'docs',
      waitSeconds: 300,
      cwd: '/w',
      cwdGiven: false,
    });
    assert.match((parseMcpArgs(['login'], '/w') as { error: string }).error, /needs the name of the server/);
    assert.match((parseMcpArgs(['login', 'a', 'b'], '/w') as { error: string }).error, /one server name/);
    assert.match((parseMcpArgs(['login', 'a', '--json'], '/w') as { error: string }).error, /no --json/);
  });

  test('prints each new sign-in URL once and ends 0 when connected', async () => {
    const answers = [
      remote('connecting'),
      remote('needs_auth', 'https://auth.example/a?state=1'),
      remote('needs_auth', 'https://auth.example/a?state=1'),
      remote('needs_auth', 'https://auth.example/a?state=2'),
      remote('connected'),
    ];
    let calls = 0;
    let out = '';
    const code = await login(
      'docs',
      async () => answers[Math.min(calls++, answers.length - 1)] as McpListResult,
      60_000,
      (text) => (out += text),
    );
    assert.equal(code, 0);
    assert.equal(out.match(/state=1/g)?.length, 1);
    assert.match(out, /A new sign-in was started\. To sign in to docs[^]*state=2/);
    assert.match(out, /Signed in to docs: 1 tool ready/);
  });

  test('a failed server, or no sign-in in time, is an error', async () => {
    await assert.rejects(
      login(
        'docs',
        async () => remote('failed', undefined, 'boom'),
        1000,
        () => {},
      ),
      /docs is failed: boom/,
    );
    await assert.rejects(
      login(
        'docs',
        async () => remote('needs_auth', 'https://auth.example/a'),
        0,
        () => {},
      ),
      /no sign-in within 0 s; run santra mcp login docs again/,
    );
  });
});

describe('the text of /mcp and santra mcp list', () => {
  const base: McpListResult = { servers: [], problems: [], toolSearch: false };

  test('a server that needs a sign-in shows its URL', () => {
    const text = mcpText({
      ...base,
      servers: [
        {
          name: 'docs',
          scope: 'user',
          source: '/c',
          transport: 'http',
          state: 'needs_auth',
          error: 'it needs you to sign in: run `santra mcp login docs`',
          authUrl: 'https://auth.example/authorize?state=x',
          tools: [],
          prompts: [],
          resources: 0,
        },
      ],
    });
    assert.match(text, /docs {2}needs sign-in/);
    assert.match(text, /santra mcp login docs/);
    assert.match(text, /sign-in URL: https:\/\/auth\.example\/authorize\?state=x/);
  });

  test('no server: where to define one', () => {
    assert.match(mcpText(base), /No MCP servers\. Define them in the project's \.mcp\.json/);
  });

  test('a hostile name or error cannot put escape sequences on the terminal', () => {
    const text = mcpText({
      ...base,
      servers: [
        {
          name: 'evil\u001b[2J',
          scope: 'project',
          source: '/w/.mcp.json',
          transport: 'stdio',
          state: 'failed',
          error: 'boom\u001b]0;owned\u0007\nsecond line',
          tools: [],
          prompts: [],
          resources: 0,
        },
      ],
      problems: ['/w/.mcp.json is not valid JSON'],
      toolSearch: true,
    });
    assert.doesNotMatch(text, /\u001b|\u0007/);
    assert.match(text, /boom ]0;owned second line/);
    assert.match(text, /Problems with the definitions:\n {2}\/w\/\.mcp\.json is not valid JSON/);
    assert.match(text, /search_mcp_tools/);
  });

  test('with maxTools, the rest is counted', () => {
    const tools = Array.from({ length: 5 }, (_, i) => ({ name: `mcp__s__t${i}`, policy: 'ask' as const }));
    const text = mcpText(
      {
        ...base,
        servers: [
          {
            name: 's',
            scope: 'user',
            source: '/c',
            transport: 'http',
            state: 'connected',
            tools,
            prompts: [],
            resources: 0,
          },
        ],
      },
      { maxTools: 2 },
    );
    assert.match(text, /mcp__s__t1\n\s+… and 3 more/);
    assert.doesNotMatch(text, /mcp__s__t2/);
  });
});
