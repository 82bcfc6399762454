/**
 * search_mcp_tools (mcp/tool-search.ts): when the MCP tools' schemas would take more than
 * `mcp.toolSearchShare` of the model's context, the model gets the search tool instead of them;
 * a tool it found is offered from the next request on and runs as any other MCP call (approved).
 * Against a real MCP server with 100 tools (helpers/mcp-servers.ts) and the fake provider, whose
 * recorded requests show what the model was offered.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import * as z from 'zod';
import {
  find,
  LoadedTools,
  MCP_SEARCH_TOOL,
  schemaTokens,
  searchNeeded,
  withToolSearch,
} from '../src/mcp/tool-search.ts';
import { MCP_SEARCH_TOOL as AGENTS_NAME } from '../src/agent/tool-names.ts';
import { defineTool, type Tool } from '../src/tools/types.ts';
import { MCP_SERVERS_SCRIPT } from './helpers/mcp-servers.ts';
import { suiteHarnesses, TESTER } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();
const MCP_TESTER = {
  ...TESTER,
  id: 'mcp_tester',
  name: 'MCP tester',
  toolNames: [...TESTER.toolNames, 'mcp__*'],
};

function tool(name: string, description: string): Tool {
  return defineTool({
    name,
    kind: 'execute',
    description,
    parameters: z.looseObject({}),
    inputSchema: { type: 'object', properties: { id: { type: 'number', description: 'x'.repeat(200) } } },
    execute: async () => ({ output: name, summary: name }),
  });
}

const TOOLS = [
  tool('mcp__github__create_issue', 'Create an issue in a repository.'),
  tool('mcp__github__list_issues', 'List the issues of a repository.'),
  tool('mcp__db__query', 'Run a read-only SQL query against the database.'),
  tool('mcp__db__create_table', 'Create a table.'),
];

/** The names of the tools a recorded provider request offered. */
function offered(request: { body: unknown } | undefined): string[] {
  return (((request?.body as Json | undefined)?.tools ?? []) as Json[]).map((t) => String(t.name));
}

describe('when the search is offered', () => {
  test('past the share of the context; share 0 always, 1 never; no MCP tool, no search', () => {
    const tokens = schemaTokens(TOOLS);
    assert.ok(tokens > 200 && tokens < 1000, String(tokens));
    assert.equal(searchNeeded(TOOLS, 200_000, 0.1), false);
    assert.equal(searchNeeded(TOOLS, tokens * 10 - 1, 0.1), true);
    assert.equal(searchNeeded(TOOLS, 200_000, 0), true);
    assert.equal(searchNeeded(TOOLS, 10, 1), false);
    assert.equal(searchNeeded([], 10, 0), false);
    assert.equal(MCP_SEARCH_TOOL, AGENTS_NAME, "the agents' tool lists name the same tool");
  });

  test("a query's words rank names above servers above descriptions; select: takes exact names", () => {
    assert.deepEqual(
      find(TOOLS, 'create issue', 5).map((t) => t.name),
      ['mcp__github__create_issue', 'mcp__github__list_issues', 'mcp__db__create_table'],
    );
    assert.deepEqual(
      find(TOOLS, 'sql', 5).map((t) => t.name),
      ['mcp__db__query'],
    );
    assert.deepEqual(
      find(TOOLS, 'create', 1).map((t) => t.name),
      ['mcp__github__create_issue'],
    );
    assert.deepEqual(find(TOOLS, 'weather', 5), []);
    assert.deepEqual(
      find(TOOLS, 'select: mcp__db__query, mcp__nope', 5).map((t) => t.name),
      ['mcp__db__query'],
    );
  });

  test('deferred until found, then offered; the search lists every name and returns the schemas', async () => {
    const loaded = new LoadedTools();
    const [search, ...deferred] = withToolSearch(TOOLS, loaded);
    assert.equal(search?.name, MCP_SEARCH_TOOL);
    assert.match(search?.description ?? '', /mcp__db__create_table/);
    assert.ok(deferred.every((t) => t.deferred?.() === true));
    const result = await search?.execute({ query: 'sql query' }, {} as never);
    assert.match(result?.output ?? '', /"name":"mcp__db__query".*"input_schema"/);
    assert.deepEqual(
      deferred.filter((t) => t.deferred?.() === false).map((t) => t.name),
      ['mcp__db__query'],
    );
    const none = await search?.execute({ query: 'weather' }, {} as never);
    assert.match(none?.output ?? '', /No MCP tool matches "weather"/);
  });
});

describe('search_mcp_tools in a run, with a 100-tool server', () => {
  async function withMany(share: number, turns: Parameters<typeof start>[1]) {
    const h = await start(
      'anthropic',
      turns,
      {},
      {
        mcpServers: { gh: { command: process.execPath, args: [MCP_SERVERS_SCRIPT, 'many', '100'] } },
        mcp: { toolSearchShare: share },
      },
      { capabilities: { approve: true, ask: true } },
    );
    writeFileSync(join(h.workspace, '.agents/mcp_tester.json'), JSON.stringify(MCP_TESTER));
    const approvals: Json[] = [];
    h.client.handle('approve', (params) => {
      approvals.push(params);
      return { decision: 'allow' };
    });
    for (let i = 0; ; i++) {
      const id = h.nextId();
      h.client.request(id, 'mcp/list', {});
      const list = (await h.client.response(id)).result as Json;
      const gh = (list.servers as Json[])[0];
      if (gh?.state === 'connected') return { h, approvals, list };
      assert.ok(i < 500 && gh?.state === 'connecting', JSON.stringify(gh));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  test('the model finds a tool, it is offered from the next request on, and its call is approved', async () => {
    const { h, approvals, list } = await withMany(0.01, [
      { toolCalls: [{ id: 's1', name: MCP_SEARCH_TOOL, args: { query: 'close milestone' } }] },
      { toolCalls: [{ id: 'c1', name: 'mcp__gh__close_milestone', args: { owner: 'o', repo: 'r', id: 3 } }] },
      { text: 'Closed.' },
    ]);
    assert.equal(list.toolSearch, true, 'mcp/list says the tools are searched');
    const { response, phases } = await h.prompt({ text: 'close milestone 3', agent: 'mcp_tester' });
    assert.equal((response.result as Json).status, 'completed');
    const first = offered(h.fake.requests[0]);
    assert.ok(first.includes(MCP_SEARCH_TOOL), first.join(', '));
    assert.ok(!first.some((name) => name.startsWith('mcp__gh__')), 'no MCP schema was sent up front');
    assert.match(
      JSON.stringify(h.fake.requests[0]?.body),
      /mcp__gh__close_milestone/,
      'the search tool names it',
    );
    const second = offered(h.fake.requests[1]);
    assert.ok(second.includes('mcp__gh__close_milestone'), second.join(', '));
    assert.ok(second.filter((name) => name.startsWith('mcp__gh__')).length <= 5);
    const call = phases.find((p) => p.type === 'tool_result' && p.toolCallId === 'c1');
    assert.equal(call?.status, 'ok', JSON.stringify(call));
    assert.deepEqual(
      approvals.map((a) => [a.kind, a.tool]),
      [['mcp_tool', 'close_milestone']],
    );
    assert.match(JSON.stringify(h.fake.requests[2]?.body), /close_milestone.*\\"id\\":3/);
    // Found once, offered for the session's later prompts too.
    await h.prompt({ text: 'again', agent: 'mcp_tester' }).catch(() => undefined);
    assert.ok(offered(h.fake.requests[3]).includes('mcp__gh__close_milestone'));
  });

  test('under the share, every schema is offered and no search tool', async () => {
    const { h, list } = await withMany(1, [{ text: 'Nothing to do.' }]);
    assert.equal(list.toolSearch, false);
    await h.prompt({ text: 'hello', agent: 'mcp_tester' });
    const names = offered(h.fake.requests[0]);
    assert.equal(names.filter((name) => name.startsWith('mcp__gh__')).length, 100);
    assert.ok(!names.includes(MCP_SEARCH_TOOL));
  });
});
