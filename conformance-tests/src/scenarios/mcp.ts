/**
 * §7.7 MCP servers and trust: a project's server starts only after a person trusted its exact
 * definition (asked again when it changes, never without a person), every call is asked with what
 * the MCP server will receive, and `mcp/list` answers at once.
 *
 * The MCP server is a small stdio program the scenario writes (newline-delimited JSON-RPC, the MCP
 * stdio transport): it notes in a file when it was started and each call it received, so a check
 * sees what really reached it, whatever the server under test says.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScenarioContext } from '../run/context.ts';
import type { Scenario } from '../run/runner.ts';
import type { Json, ServerUnderTest } from '../wire/peer.ts';
import { prompt, serverRequest, sleep, toolResults } from './helpers.ts';

/** The server's name in `.mcp.json`; its tool `echo` is offered as `mcp__conformance__echo`. */
const SERVER = 'conformance';
const ECHO = `mcp__${SERVER}__echo`;
const SETTLE_MS = 20_000;

const FIXTURE = `import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
const record = process.argv[2];
const note = (entry) => appendFileSync(record, JSON.stringify(entry) + '\\n');
note({ started: process.argv.slice(3) });
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\\n');
const echo = {
  name: 'echo',
  description: 'Returns the text it is given.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
};
createInterface({ input: process.stdin })
  .on('line', (line) => {
    let message;
    try { message = JSON.parse(line); } catch { return; }
    if (message.id === undefined) return;
    const { id, method, params } = message;
    if (method === 'initialize')
      send({ id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'conformance-fixture', version: '1' } } });
    else if (method === 'tools/list') send({ id, result: { tools: [echo] } });
    else if (method === 'tools/call') {
      note({ call: params });
      send({ id, result: { content: [{ type: 'text', text: 'echo: ' + String(params.arguments?.text) }] } });
    } else if (method === 'ping') send({ id, result: {} });
    else send({ id, error: { code: -32601, message: 'no method ' + method } });
  })
  .on('close', () => process.exit(0));
`;

interface Fixture {
  /** Each line the MCP server noted: `{started}` or `{call}`. */
  entries(): Json[];
  /** Writes `.mcp.json` with the server, `extraArgs` making a different definition. */
  define(extraArgs?: string[]): string;
}

function fixture(ctx: ScenarioContext): Fixture {
  const script = join(ctx.home, 'mcp-fixture.mjs');
  const record = join(ctx.home, 'mcp-fixture.jsonl');
  ctx.writeFile('mcp-fixture.mjs', FIXTURE, ctx.home);
  return {
    entries: () =>
      existsSync(record)
        ? readFileSync(record, 'utf8')
            .split('\n')
            .filter((line) => line !== '')
            .map((line) => JSON.parse(line) as Json)
        : [],
    define(extraArgs = []) {
      const text = `${JSON.stringify(
        { mcpServers: { [SERVER]: { command: process.execPath, args: [script, record, ...extraArgs] } } },
        null,
        2,
      )}\n`;
      ctx.writeFile('.mcp.json', text);
      return text;
    },
  };
}

/** `mcp/list`'s entry for the scenario's server, or undefined. */
async function listed(server: ServerUnderTest): Promise<{ response: Json; entry: Json | undefined }> {
  const response = await server.request('mcp/list', {});
  const servers = ((response.result as Json | undefined)?.servers ?? []) as Json[];
  return { response, entry: servers.find((s) => s.name === SERVER) };
}

/** Polls `mcp/list` until the server's state is no longer `connecting` or `needs_trust`. */
async function settled(server: ServerUnderTest): Promise<Json | undefined> {
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const { entry } = await listed(server);
    const state = entry?.state;
    if ((state !== 'connecting' && state !== 'needs_trust') || Date.now() > deadline) return entry;
    await sleep(50);
  }
}

async function shutdown(server: ServerUnderTest): Promise<void> {
  await server.request('shutdown');
  server.notify('exit');
  await server.waitForExit(10_000);
}

const trust: Scenario = {
  name: "mcp: a project's server starts only once its exact definition is trusted, and is asked again when it changes",
  profile: 'santra',
  covers: ['SANTRA-MCP-001', 'SANTRA-MCP-002', 'SANTRA-MCP-005'],
  async run(ctx) {
    const mcp = fixture(ctx);
    const written = mcp.define();

    // 1. Refused: never started, shown untrusted. The list is taken while the question is open.
    const first = await ctx.open();
    const refused = await serverRequest(first, 'approve');
    const asked = refused.params as Json;
    const started = Date.now();
    const early = await listed(first);
    const answeredIn = Date.now() - started;
    const beforeAnswer = mcp.entries().length;
    first.send({ jsonrpc: '2.0', id: refused.id, result: { decision: 'reject' } });
    const afterRefusal = await settled(first);
    await shutdown(first);

    // 2. Allowed: started after the answer, its tools listed.
    const second = await ctx.open();
    const allowedRequest = await serverRequest(second, 'approve');
    const notStartedYet = mcp.entries().length === 0;
    second.send({ jsonrpc: '2.0', id: allowedRequest.id, result: { decision: 'allow' } });
    const connected = await settled(second);
    await shutdown(second);
    const startedOnce = mcp.entries().filter((e) => e.started !== undefined).length;

    ctx.check(
      'SANTRA-MCP-001',
      asked.kind === 'trust' &&
        asked.protected === true &&
        asked.subject === 'mcp_server' &&
        asked.name === SERVER &&
        typeof asked.source === 'string' &&
        asked.source.endsWith('.mcp.json') &&
        typeof asked.definition === 'string' &&
        asked.definition.includes('mcp-fixture.mjs') &&
        beforeAnswer === 0 &&
        afterRefusal?.state === 'untrusted' &&
        notStartedYet &&
        connected?.state === 'connected' &&
        startedOnce === 1,
      `the trust request ${JSON.stringify(asked).slice(0, 400)}; the MCP server noted ${beforeAnswer} line(s) before the answer; after the refusal ${JSON.stringify(afterRefusal)}; started before the allow: ${!notStartedYet}; after the allow ${JSON.stringify(connected?.state)}, started ${startedOnce} time(s)`,
    );
    const tools = ((connected?.tools ?? []) as Json[]).map((t) => t.name);
    ctx.check(
      'SANTRA-MCP-005',
      early.entry !== undefined &&
        early.entry.state === 'needs_trust' &&
        answeredIn < 5_000 &&
        afterRefusal?.state === 'untrusted' &&
        typeof afterRefusal.error === 'string' &&
        tools.includes(ECHO),
      `mcp/list while the trust question was open (${answeredIn} ms): ${JSON.stringify(early.response.result ?? early.response.error).slice(0, 300)}; after the refusal ${JSON.stringify(afterRefusal)}; connected, its tools ${JSON.stringify(tools)}`,
    );

    // 3. The same definition: not asked again. 4. A changed one: asked again, `changed`.
    const third = await ctx.open();
    const unchanged = await settled(third);
    const askedAgain = third.received.filter((m) => m.method === 'approve').length;
    await shutdown(third);
    mcp.define(['--changed']);
    const fourth = await ctx.open();
    const changed = await serverRequest(fourth, 'approve');
    const changedParams = changed.params as Json;
    const startedBefore = mcp.entries().some((e) => JSON.stringify(e.started) === '["--changed"]');
    fourth.send({ jsonrpc: '2.0', id: changed.id, result: { decision: 'allow' } });
    const afterChange = await settled(fourth);
    ctx.check(
      'SANTRA-MCP-002',
      unchanged?.state === 'connected' &&
        askedAgain === 0 &&
        changedParams.kind === 'trust' &&
        changedParams.changed === true &&
        !startedBefore &&
        String(changedParams.definition).includes('--changed') &&
        afterChange?.state === 'connected',
      `the unchanged definition: ${askedAgain} approve request(s), ${JSON.stringify(unchanged?.state)}; the changed one: ${JSON.stringify(changedParams).slice(0, 300)}, started before the answer: ${startedBefore}, then ${JSON.stringify(afterChange?.state)}; .mcp.json first read ${JSON.stringify(written)}`,
    );
  },
};

const noPerson: Scenario = {
  name: "mcp: a client that cannot approve never starts a project's server",
  profile: 'santra',
  covers: ['SANTRA-MCP-003'],
  async run(ctx) {
    const mcp = fixture(ctx);
    mcp.define();
    const server = await ctx.open({ approve: false });
    const entry = await settled(server);
    const approvals = server.received.filter((m) => m.method === 'approve').length;
    ctx.check(
      'SANTRA-MCP-003',
      entry?.state === 'untrusted' &&
        typeof entry.error === 'string' &&
        entry.error.length > 0 &&
        approvals === 0 &&
        mcp.entries().length === 0,
      `mcp/list: ${JSON.stringify(entry)}; ${approvals} approve request(s); the MCP server noted ${JSON.stringify(mcp.entries())}`,
    );
  },
};

const calls: Scenario = {
  name: 'mcp: every call is asked with the server, the tool and the arguments the MCP server receives',
  profile: 'santra',
  covers: ['SANTRA-MCP-004'],
  async run(ctx) {
    const mcp = fixture(ctx);
    mcp.define();
    const server = await ctx.open();
    // The trust question may come before a handler could be set: it is answered as it comes.
    const trusted = await serverRequest(server, 'approve');
    server.send({ jsonrpc: '2.0', id: trusted.id, result: { decision: 'allow' } });
    const asked: Json[] = [];
    server.handle('approve', (message) => {
      const params = message.params as Json;
      asked.push(params);
      // The first call is allowed, the second refused.
      return { decision: asked.filter((p) => p.kind === 'mcp_tool').length === 1 ? 'allow' : 'reject' };
    });
    await settled(server);
    await ctx.script(
      { toolCalls: [{ name: ECHO, args: { text: 'first call' }, chunks: 1 }] },
      { toolCalls: [{ name: ECHO, args: { text: 'second call' }, chunks: 1 }] },
      { text: 'Done.' },
    );
    const run = await prompt(server, ctx.santra.executor('Echo twice'));
    const tools = asked.filter((p) => p.kind === 'mcp_tool');
    const received = mcp.entries().flatMap((e) => (e.call === undefined ? [] : [e.call as Json]));
    const results = toolResults(run.phases);
    ctx.check(
      'SANTRA-MCP-004',
      tools.length === 2 &&
        tools[0]?.server === SERVER &&
        tools[0]?.tool === 'echo' &&
        JSON.stringify(tools[0]?.arguments) === JSON.stringify({ text: 'first call' }) &&
        received.length === 1 &&
        received[0]?.name === 'echo' &&
        JSON.stringify(received[0]?.arguments) === JSON.stringify(tools[0]?.arguments) &&
        results[0]?.status === 'ok' &&
        (results[1]?.status === 'rejected' || results[1]?.status === 'error'),
      `mcp_tool requests ${JSON.stringify(tools).slice(0, 400)}; the MCP server received ${JSON.stringify(received)}; tool results ${JSON.stringify(results.map((r) => r.status))}`,
    );
  },
};

export const MCP: Scenario[] = [trust, noPerson, calls];
