/**
 * The MCP client through the protocol, against real MCP servers (the SDK's server side, over
 * stdio and Streamable HTTP): tools offered as mcp__<server>__<tool>, each call approved with the
 * server, tool and arguments shown; a project's `.mcp.json` server only after a person trusted it;
 * a server that hangs at start delays nothing; one that crashes mid-call or returns 10 MB is
 * reported to the model, bounded; `mcp/list` shows it all. Each case also checks what must not
 * happen (a call that ran unasked, a server started untrusted), so a gate that waves calls
 * through fails here.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { MCP_SERVERS_SCRIPT, startHttpToolsServer } from './helpers/mcp-servers.ts';
import { CANARY_KEY, suiteHarnesses, TESTER } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();
const SECRET = 'mcp-secret-4b7e1d9a0c3f';
const APPROVER = { capabilities: { approve: true, ask: true } };
/** The test agent, with every MCP tool. */
const MCP_TESTER = {
  ...TESTER,
  id: 'mcp_tester',
  name: 'MCP tester',
  toolNames: [...TESTER.toolNames, 'mcp__*'],
};

const stdioServer = (mode: string, extra: Json = {}) => ({
  command: process.execPath,
  args: [MCP_SERVERS_SCRIPT, mode],
  ...extra,
});
const call = (id: string, name: string, args: Json) => ({ toolCalls: [{ id, name, args }] });
const resultOf = (phases: Json[], id: string) =>
  phases.find((p) => p.type === 'tool_result' && p.toolCallId === id);

async function mcpList(h: Awaited<ReturnType<typeof start>>): Promise<Json> {
  const id = h.nextId();
  h.client.request(id, 'mcp/list', {});
  const response = await h.client.response(id);
  assert.equal(response.error, undefined, JSON.stringify(response.error));
  return response.result as Json;
}

/** Waits until `mcp/list` shows `server` in a state other than connecting / needs_trust. */
async function settled(h: Awaited<ReturnType<typeof start>>, server: string): Promise<Json> {
  for (let i = 0; i < 500; i++) {
    const list = await mcpList(h);
    const found = (list.servers as Json[]).find((s) => s.name === server);
    if (found !== undefined && found.state !== 'connecting' && found.state !== 'needs_trust') return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the MCP server ${server} never settled`);
}

async function withServers(
  servers: Json,
  turns: Parameters<typeof start>[1],
  answers: { approve?: Json } = {},
  init: { capabilities?: Json; config?: Json; env?: NodeJS.ProcessEnv } = {},
) {
  const h = await start(
    'anthropic',
    turns,
    init.env ?? {},
    { mcpServers: servers, ...init.config },
    { capabilities: init.capabilities ?? APPROVER.capabilities },
  );
  writeFileSync(join(h.workspace, '.agents/mcp_tester.json'), JSON.stringify(MCP_TESTER));
  const approvals: Json[] = [];
  h.client.handle('approve', (params) => {
    approvals.push(params);
    return answers.approve ?? { decision: 'allow' };
  });
  return { h, approvals };
}

describe('MCP servers from the user config', () => {
  test('a stdio server: its tool is offered, called after approval showing server, tool and arguments', async () => {
    const { h, approvals } = await withServers({ tools: stdioServer('tools') }, [
      call('c1', 'mcp__tools__echo', { text: 'hi' }),
      { text: 'done' },
    ]);
    const listed = await settled(h, 'tools');
    assert.equal(listed.state, 'connected', JSON.stringify(listed));
    assert.ok((listed.tools as Json[]).some((t) => t.name === 'mcp__tools__echo'));
    assert.deepEqual(listed.prompts, ['/mcp__tools__greet']);
    const { response, phases } = await h.prompt({ text: 'go', agent: 'mcp_tester' });
    assert.equal((response.result as Json).status, 'completed');
    assert.equal(approvals.length, 1, 'the call was asked about');
    assert.equal(approvals[0]?.kind, 'mcp_tool');
    assert.equal(approvals[0]?.server, 'tools');
    assert.equal(approvals[0]?.tool, 'echo');
    assert.deepEqual(approvals[0]?.arguments, { text: 'hi' });
    const result = resultOf(phases, 'c1');
    assert.equal(result?.status, 'ok', JSON.stringify(result));
    // What the model read: the server's answer, in the next request to the provider.
    assert.match(JSON.stringify(h.fake.requests.at(-1)), /echo: hi/);
    // The schema the model saw is the server's.
    const offered = JSON.stringify(h.fake.requests[0]);
    assert.match(offered, /mcp__tools__echo/);
  });

  test('a rejected call does not run; a denied tool is not offered at all', async () => {
    const { h, approvals } = await withServers(
      { tools: stdioServer('tools', { tools: { count: 'deny' } }) },
      [call('c1', 'mcp__tools__echo', { text: 'no' }), { text: 'done' }],
      { approve: { decision: 'reject' } },
    );
    await settled(h, 'tools');
    const { phases } = await h.prompt({ text: 'go', agent: 'mcp_tester' });
    assert.equal(approvals.length, 1);
    assert.equal(resultOf(phases, 'c1')?.status, 'rejected');
    assert.doesNotMatch(JSON.stringify(h.fake.requests.at(-1)), /echo: no/, 'the tool ran although rejected');
    assert.doesNotMatch(JSON.stringify(h.fake.requests[0]), /mcp__tools__count/, 'a denied tool was offered');
  });

  test('readOnlyHint from a user server runs unasked; policy allow runs unasked', async () => {
    const { h, approvals } = await withServers(
      { tools: stdioServer('tools', { tools: { echo: 'allow' } }) },
      [
        call('c1', 'mcp__tools__add', { a: 2, b: 3 }),
        call('c2', 'mcp__tools__echo', { text: 'x' }),
        { text: 'done' },
      ],
    );
    await settled(h, 'tools');
    const { phases } = await h.prompt({ text: 'go', agent: 'mcp_tester' });
    assert.equal(approvals.length, 0, `asked: ${JSON.stringify(approvals)}`);
    assert.equal(resultOf(phases, 'c1')?.status, 'ok');
    assert.equal(resultOf(phases, 'c2')?.status, 'ok');
  });

  test('a server that crashes mid-call: the model is told, the run goes on', async () => {
    const { h } = await withServers({ tools: stdioServer('tools', { policy: 'allow' }) }, [
      call('c1', 'mcp__tools__crash', {}),
      { text: 'done' },
    ]);
    await settled(h, 'tools');
    const { response, phases } = await h.prompt({ text: 'go', agent: 'mcp_tester' });
    assert.equal((response.result as Json).status, 'completed');
    assert.equal(resultOf(phases, 'c1')?.status, 'error');
    assert.match(JSON.stringify(h.fake.requests.at(-1)), /MCP server \\"tools\\" failed to run crash/);
    const listed = await settled(h, 'tools');
    assert.equal(listed.state, 'failed');
  });

  test('10 MB of result is bounded like command output, start and end kept', async () => {
    const { h } = await withServers({ tools: stdioServer('tools', { policy: 'allow' }) }, [
      call('c1', 'mcp__tools__big', {}),
      { text: 'done' },
    ]);
    await settled(h, 'tools');
    await h.prompt({ text: 'go', agent: 'mcp_tester' });
    const next = JSON.stringify(h.fake.requests.at(-1));
    assert.ok(next.length < 1_000_000, `the model got ${next.length} characters`);
    assert.match(next, /BEGIN/);
    assert.match(next, /END/);
    assert.match(next, /bytes of the MCP result cut here/);
  });

  test('a server that hangs at start does not delay the first prompt, and its failure is told', async () => {
    const { h } = await withServers({ stuck: stdioServer('hang', { startupTimeoutSeconds: 1 }) }, [
      { text: 'first' },
      { text: 'second' },
    ]);
    const began = Date.now();
    const first = await h.prompt({ text: 'go', agent: 'mcp_tester' });
    assert.equal((first.response.result as Json).status, 'completed');
    assert.ok(Date.now() - began < 900, 'the prompt waited for the stuck server');
    const listed = await settled(h, 'stuck');
    assert.equal(listed.state, 'failed');
    assert.match(String(listed.error), /did not finish starting within 1 s/);
    const second = await h.prompt({ text: 'again', agent: 'mcp_tester' });
    assert.match(JSON.stringify(second.phases), /MCP server \\"stuck\\" failed/);
  });

  test('a Streamable HTTP server, with a header from ${VAR} that never reaches the protocol or the log', async () => {
    const http = await startHttpToolsServer();
    after(() => http.close());
    const { h } = await withServers(
      {
        web: {
          type: 'http',
          url: http.url,
          headers: { Authorization: `Bearer \${MCP_TEST_TOKEN}` },
          policy: 'allow',
        },
      },
      [call('c1', 'mcp__web__echo', { text: 'over http' }), { text: 'done' }],
      {},
      { env: { MCP_TEST_TOKEN: SECRET, SANTRA_LOG_LEVEL: 'debug' } },
    );
    const listed = await settled(h, 'web');
    assert.equal(listed.state, 'connected', JSON.stringify(listed));
    const { phases } = await h.prompt({ text: 'go', agent: 'mcp_tester' });
    assert.equal(resultOf(phases, 'c1')?.status, 'ok');
    assert.match(JSON.stringify(h.fake.requests.at(-1)), /echo: over http/);
    assert.equal(http.headers.at(-1)?.authorization, `Bearer ${SECRET}`, 'the header was not sent expanded');
    const list = JSON.stringify(await mcpList(h));
    assert.ok(!list.includes(SECRET) && !h.client.stdout.includes(SECRET), 'the secret reached the protocol');
    assert.ok(!h.client.stderr.includes(SECRET), 'the secret reached the log');
  });
});

describe("a project's .mcp.json", () => {
  const project = (h: Awaited<ReturnType<typeof start>>) =>
    writeFileSync(
      join(h.workspace, '.mcp.json'),
      JSON.stringify({
        mcpServers: { proj: { command: process.execPath, args: [MCP_SERVERS_SCRIPT, 'tools'] } },
      }),
    );

  test('is not started until a person trusts the exact definition; the trust is kept, 0600', async () => {
    const { h, approvals } = await withServers({}, [
      call('c1', 'mcp__proj__echo', { text: 'p' }),
      { text: 'done' },
    ]);
    project(h);
    // The harness started the manager before the file existed; a fresh server reads it.
    const { h: h2, approvals: approvals2, close } = await restartIn(h.workspace);
    after(close);
    const listed = await settled(h2, 'proj');
    assert.equal(listed.state, 'connected', JSON.stringify(listed));
    const trust = approvals2.find((a) => a.kind === 'trust');
    assert.ok(trust !== undefined, 'no trust request');
    assert.equal(trust.subject, 'mcp_server');
    assert.equal(trust.name, 'proj');
    assert.equal(trust.source, '.mcp.json');
    assert.equal(trust.protected, true);
    assert.match(String(trust.definition), /mcp-servers\.ts/);
    assert.equal(approvals.length, 0);
    // The question came after the answer to initialize, never before it (the client may not be ready).
    const frames = h2.client.stdout;
    const answered = frames.indexOf('"id":1,"result"');
    assert.ok(answered !== -1 && answered < frames.indexOf('"method":"approve"'), frames.slice(0, 400));
  });

  test("waits for the client's initialized before it asks", async () => {
    const { h } = await withServers({}, [{ text: 'done' }]);
    project(h);
    const { WireClient } = await import('./helpers/wire.ts');
    const client = new WireClient([], { ANTHROPIC_API_KEY: CANARY_KEY });
    after(async () => {
      client.child.kill('SIGKILL');
      await client.exited;
    });
    const asked = new Promise<Json>((resolve) =>
      client.handle('approve', (params) => {
        resolve(params);
        return { decision: 'reject' };
      }),
    );
    const initialized = await client.initialize(h.workspace, 1, APPROVER.capabilities);
    assert.equal(initialized.error, undefined);
    // Nothing is put to a client that has not said it is ready: a round trip later, still no question.
    client.request(2, 'model/list', {});
    await client.response(2);
    assert.ok(!client.stdout.includes('"method":"approve"'), 'asked before initialized');
    client.notify('initialized', {});
    assert.equal((await asked).kind, 'trust');
  });

  test('a client that cannot approve does not start it', async () => {
    const { h } = await withServers({}, [{ text: 'done' }], {}, { capabilities: {} });
    project(h);
    const { h: h2, close } = await restartIn(h.workspace, {});
    after(close);
    const listed = await settled(h2, 'proj');
    assert.equal(listed.state, 'untrusted');
    assert.match(String(listed.error), /cannot ask a person/);
  });
});

/** A second server on the same workspace (so it reads the .mcp.json written there). */
async function restartIn(workspace: string, capabilities: Json = APPROVER.capabilities) {
  const { WireClient } = await import('./helpers/wire.ts');
  const client = new WireClient([], { ANTHROPIC_API_KEY: CANARY_KEY });
  const approvals: Json[] = [];
  client.handle('approve', (params) => {
    approvals.push(params);
    return { decision: 'allow' };
  });
  let id = 1;
  const initialized = await client.initialize(workspace, id++, capabilities);
  assert.equal(initialized.error, undefined);
  const h = {
    client,
    nextId: () => ++id,
  } as unknown as Awaited<ReturnType<typeof start>>;
  const close = async () => {
    client.child.kill('SIGKILL');
    await client.exited;
  };
  return { h, approvals, close };
}
