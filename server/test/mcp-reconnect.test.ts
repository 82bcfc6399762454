/**
 * An MCP server that goes away or changes (mcp/manager.ts): a stdio server that crashed is
 * started again by the next call of one of its tools (at once after the first crash, then after a
 * wait that doubles), and a server that says its tools changed (`notifications/tools/list_changed`)
 * is listed again, its new tool offered from the next prompt. Real servers over stdio
 * (helpers/mcp-servers.ts), the built server, the fake provider.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { backoffMs } from '../src/mcp/manager.ts';
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
const call = (id: string, name: string, args: Json = {}) => ({ toolCalls: [{ id, name, args }] });

async function list(h: Awaited<ReturnType<typeof start>>): Promise<Json> {
  const id = h.nextId();
  h.client.request(id, 'mcp/list', {});
  return (((await h.client.response(id)).result as Json).servers as Json[])[0] as Json;
}

async function connected(turns: Parameters<typeof start>[1]) {
  const h = await start(
    'anthropic',
    turns,
    {},
    {
      mcpServers: {
        tools: { command: process.execPath, args: [MCP_SERVERS_SCRIPT, 'tools'], policy: 'allow' },
      },
    },
    { capabilities: { approve: true, ask: true } },
  );
  writeFileSync(join(h.workspace, '.agents/mcp_tester.json'), JSON.stringify(MCP_TESTER));
  for (let i = 0; ; i++) {
    const server = await list(h);
    if (server.state === 'connected') return h;
    assert.ok(i < 500 && server.state === 'connecting', JSON.stringify(server));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const resultOf = (phases: Json[], id: string) =>
  phases.find((p) => p.type === 'tool_result' && p.toolCallId === id);

describe('a crashed MCP server', () => {
  test('is started again by the next call; a second crash waits before the next start', async () => {
    const h = await connected([
      call('c1', 'mcp__tools__crash'),
      call('c2', 'mcp__tools__echo', { text: 'back' }),
      call('c3', 'mcp__tools__crash'),
      call('c4', 'mcp__tools__crash'),
      call('c5', 'mcp__tools__echo', { text: 'too soon' }),
      { text: 'done' },
    ]);
    const { response, phases } = await h.prompt({ text: 'go', agent: 'mcp_tester' });
    assert.equal((response.result as Json).status, 'completed');
    assert.equal(resultOf(phases, 'c1')?.status, 'error');
    const back = resultOf(phases, 'c2');
    assert.equal(back?.status, 'ok', JSON.stringify(back));
    assert.match(String(back?.output), /echo: back/);
    assert.equal(resultOf(phases, 'c3')?.status, 'error');
    // c4 started it again at once and it crashed again, with no call working in between: the
    // next start waits a second.
    assert.equal(resultOf(phases, 'c4')?.status, 'error');
    const soon = resultOf(phases, 'c5');
    assert.equal(soon?.status, 'error');
    assert.match(String(soon?.output), /started again by a call after 1 s/);
    const server = await list(h);
    assert.equal(server.state, 'failed');
    assert.match(String(server.error), /the next call of one of its tools starts it again/);
    assert.ok((server.tools as Json[]).length > 0, 'its tools stay offered');
  });

  test('the wait: none after one crash, then 1 s doubling up to a minute', () => {
    assert.deepEqual([1, 2, 3, 4, 8, 20].map(backoffMs), [0, 1000, 2000, 4000, 60_000, 60_000]);
  });
});

describe('a server whose tools change', () => {
  test('list_changed: the new tool is listed and offered from the next prompt', async () => {
    const h = await connected([
      call('g1', 'mcp__tools__grow'),
      { text: 'grown' },
      call('g2', 'mcp__tools__grown'),
      { text: 'ran' },
    ]);
    await h.prompt({ text: 'grow', agent: 'mcp_tester' });
    for (let i = 0; ; i++) {
      const server = await list(h);
      if ((server.tools as Json[]).some((t) => t.name === 'mcp__tools__grown')) break;
      assert.ok(i < 200, `the new tool was never listed: ${JSON.stringify(server.tools)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const { phases } = await h.prompt({ text: 'use it', agent: 'mcp_tester' });
    const offered = JSON.stringify((h.fake.requests[2]?.body as Json).tools);
    assert.match(offered, /mcp__tools__grown/);
    assert.match(String(resultOf(phases, 'g2')?.output), /grown ran/);
  });
});
