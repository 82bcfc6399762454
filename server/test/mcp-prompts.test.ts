/**
 * MCP prompts and resources in Santra prompts (mcp/prompts.ts, mcp/resource-tool.ts): a prompt
 * text `/mcp__<server>__<prompt> args` runs the MCP prompt and the model gets its text; a mention
 * `@server:uri` attaches the resource; `read_mcp_resource` reads and lists resources. Against the
 * SDK's server side over stdio (helpers/mcp-servers.ts) and the fake provider, whose recorded
 * requests show what the model got.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { MCP_RESOURCE_TOOL } from '../src/agent/tool-names.ts';
import { promptArguments, resourceMentions, splitWords } from '../src/mcp/prompts.ts';
import { READ_RESOURCE_TOOL } from '../src/mcp/resource-tool.ts';
import { MCP_SERVERS_SCRIPT } from './helpers/mcp-servers.ts';
import { suiteHarnesses, TESTER } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();
const MCP_TESTER = {
  ...TESTER,
  id: 'mcp_tester',
  name: 'MCP tester',
  toolNames: [...TESTER.toolNames, 'mcp__*', 'read_mcp_resource'],
};

async function connected(turns: Parameters<typeof start>[1]) {
  const h = await start(
    'anthropic',
    turns,
    {},
    { mcpServers: { tools: { command: process.execPath, args: [MCP_SERVERS_SCRIPT, 'tools'] } } },
    { capabilities: { approve: true, ask: true } },
  );
  writeFileSync(join(h.workspace, '.agents/mcp_tester.json'), JSON.stringify(MCP_TESTER));
  h.client.handle('approve', () => ({ decision: 'allow' }));
  for (let i = 0; ; i++) {
    const id = h.nextId();
    h.client.request(id, 'mcp/list', {});
    const server = (((await h.client.response(id)).result as Json).servers as Json[])[0];
    if (server?.state === 'connected') return h;
    assert.ok(i < 500 && server?.state === 'connecting', JSON.stringify(server));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const firstRequest = (h: Awaited<ReturnType<typeof start>>) => JSON.stringify(h.fake.requests[0]?.body);

describe('MCP prompts as slash commands', () => {
  test('/mcp__tools__greet Ada: the model gets the text the MCP prompt returns', async () => {
    const h = await connected([{ text: 'Hello, Ada!' }]);
    const { response } = await h.prompt({ text: '/mcp__tools__greet Ada Lovelace', agent: 'mcp_tester' });
    assert.equal((response.result as Json).status, 'completed', JSON.stringify(response));
    assert.match(firstRequest(h), /Say hello to Ada Lovelace\./);
    assert.doesNotMatch(firstRequest(h), /\/mcp__tools__greet/);
  });

  test('a missing argument or an unknown prompt is refused, saying what to type', async () => {
    const h = await connected([]);
    const missing = await h.prompt({ text: '/mcp__tools__greet', agent: 'mcp_tester' });
    assert.equal(
      (missing.response.error as Json | undefined)?.code,
      -32602,
      JSON.stringify(missing.response),
    );
    assert.match(
      String((missing.response.error as Json).message),
      /\/mcp__tools__greet needs <who>: \/mcp__tools__greet <who>/,
    );
    const unknown = await h.prompt({ text: '/mcp__tools__nope x', agent: 'mcp_tester' });
    assert.match(
      String((unknown.response.error as Json | undefined)?.message),
      /\/mcp__tools__nope is not a prompt of a connected MCP server; \/mcp lists them: \/mcp__tools__greet/,
    );
    assert.equal(h.fake.requests.length, 0, 'no model call for a refused prompt');
  });

  test('the words of a command: quotes keep spaces, extra words join the last argument', () => {
    assert.deepEqual(splitWords(`src/a.ts "two words" 'x y'`), ['src/a.ts', 'two words', 'x y']);
    const spec = {
      name: 'review',
      arguments: [
        { name: 'file', required: true },
        { name: 'focus', required: false },
      ],
    };
    assert.deepEqual(promptArguments('/p', spec, 'a.ts security and speed'), {
      file: 'a.ts',
      focus: 'security and speed',
    });
    assert.deepEqual(promptArguments('/p', spec, 'a.ts'), { file: 'a.ts' });
    assert.throws(() => promptArguments('/p', { name: 'x' }, 'extra'), /\/p takes no arguments, got "extra"/);
  });
});

describe('MCP resources', () => {
  test('@tools:notes://today in a prompt attaches the resource, marked as coming from the server', async () => {
    const h = await connected([{ text: 'Milk.' }]);
    await h.prompt({ text: 'What do my notes say? @tools:notes://today.', agent: 'mcp_tester' });
    assert.match(
      firstRequest(h),
      /<mcp_resource server=\\"tools\\" uri=\\"notes:\/\/today\\">\\nRemember the milk\.\\n<\/mcp_resource>/,
    );
  });

  test('read_mcp_resource reads by URI and lists without one, unasked', async () => {
    const h = await connected([
      { toolCalls: [{ id: 'r1', name: 'read_mcp_resource', args: { server: 'tools' } }] },
      {
        toolCalls: [{ id: 'r2', name: 'read_mcp_resource', args: { server: 'tools', uri: 'notes://today' } }],
      },
      { toolCalls: [{ id: 'r3', name: 'read_mcp_resource', args: { server: 'nope', uri: 'x://y' } }] },
      { text: 'Read.' },
    ]);
    const { phases } = await h.prompt({ text: 'read my notes', agent: 'mcp_tester' });
    const result = (id: string) => phases.find((p) => p.type === 'tool_result' && p.toolCallId === id);
    assert.match(String(result('r1')?.output), /notes:\/\/today {2}notes \(text\/plain\) — Today's notes\./);
    assert.equal(result('r2')?.output, 'Remember the milk.');
    assert.equal(result('r3')?.status, 'error');
    assert.match(
      String(result('r3')?.output),
      /the MCP server "nope" is not connected or offers no resources|there is no MCP server "nope"/,
    );
    assert.ok(!phases.some((p) => p.type === 'approve'));
  });

  test('an agent that lists MCP tools (mcp__*) gets read_mcp_resource too', () => {
    assert.equal(MCP_RESOURCE_TOOL, READ_RESOURCE_TOOL);
  });

  test('only mentions of connected servers with resources count; punctuation is not the URI', () => {
    assert.deepEqual(resourceMentions('see @docs:file://a.md, and mail@x:y or @other:z', ['docs']), [
      { mention: '@docs:file://a.md', server: 'docs', uri: 'file://a.md' },
    ]);
  });
});
