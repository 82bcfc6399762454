/**
 * A tool's kind is what the runtime goes by: read-only calls of one response run at once, edits in
 * order; a tools.policy entry that names no tool, or asks about a tool that never asks, is said.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { defaultToolPolicy } from '../src/tools/tool-policy.ts';
import { allTools } from '../src/tools/registry.ts';
import { suiteHarnesses } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();
const order = (phases: Json[]) =>
  phases
    .filter((p) => p.type === 'tool_call' || p.type === 'tool_result')
    .map((p) =>
      `${p.type === 'tool_call' ? 'call' : 'result'} ${String(p.args === undefined ? '' : (p.args as Json).path)}`.trim(),
    );

describe('tool kinds', () => {
  test('the default policy allows exactly the read-only tools', () => {
    assert.deepEqual(Object.keys(defaultToolPolicy(allTools())).sort(), [
      'find_file',
      'get_file_info',
      'git_diff',
      'git_status',
      'grep_search',
      'list_dir',
      'load_skill',
      'read_file',
      'shell_read',
    ]);
  });

  test('read-only calls of one response run at once; edits run one after another', async () => {
    const h = await start(
      'anthropic',
      [
        {
          toolCalls: [
            { name: 'read_file', args: { path: 'a.txt' } },
            { name: 'read_file', args: { path: 'b.txt' } },
            { name: 'grep_search', args: { pattern: 'alpha' } },
          ],
        },
        {
          toolCalls: [
            { name: 'write_file', args: { path: 'c.txt', content: 'c' } },
            { name: 'write_file', args: { path: 'd.txt', content: 'd' } },
          ],
        },
        { text: 'done' },
      ],
      {},
      undefined,
      { capabilities: { approve: true } },
    );
    writeFileSync(join(h.workspace, 'a.txt'), 'alpha\n');
    writeFileSync(join(h.workspace, 'b.txt'), 'beta\n');
    h.client.handle('approve', () => ({ decision: 'allow' }));
    const { phases } = await h.prompt({ text: 'go' });
    const seen = order(phases);
    assert.deepEqual(seen.slice(0, 3), ['call a.txt', 'call b.txt', 'call undefined'], seen.join(' | '));
    assert.deepEqual(seen.slice(6), ['call c.txt', 'result', 'call d.txt', 'result'], seen.join(' | '));
    const results = (h.fake.requests[1]?.body.messages as Json[]).at(-1)?.content as Json[];
    assert.match(String(results[0]?.content), /alpha/);
    assert.match(String(results[1]?.content), /beta/);
  });

  test('a misspelt tool, or "ask" for a tool that never asks, is a warning naming the key', async () => {
    const h = await start(
      'anthropic',
      [{ text: 'ok' }],
      {},
      { tools: { policy: { run_comand: 'deny', read_file: 'ask' } } },
    );
    const { phases } = await h.prompt({ text: 'hi' });
    const warnings = phases
      .filter((p) => p.type === 'status' && p.level === 'warning')
      .map((p) => String(p.text));
    assert.ok(
      warnings.some((w) =>
        /^tools\.policy\.run_comand in .*config\.json: there is no tool "run_comand" \(did you mean run_command\?\)/.test(
          w,
        ),
      ),
      warnings.join('\n'),
    );
    assert.ok(
      warnings.some((w) => /^tools\.policy\.read_file in .* is "ask", but read_file never asks/.test(w)),
      warnings.join('\n'),
    );
  });
});
