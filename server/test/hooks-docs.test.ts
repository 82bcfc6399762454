/**
 * docs/hooks.md's examples, copied from Claude Code's documentation, run unchanged against the
 * built server: each `<!-- hooks-example: name -->` JSON block becomes the config's hooks, each
 * `<!-- hooks-script: path -->` block is written to that path in the workspace (executable), and
 * a fake model makes the calls the example is about. So an example in the page cannot silently
 * stop working — and the page cannot lose one this test expects.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { suiteHarnesses } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const PAGE = fileURLToPath(new URL('../../docs/hooks.md', import.meta.url));
const start = suiteHarnesses();

/** The page's marked blocks: `hooks-example` JSON by name, `hooks-script` text by path. */
function markedBlocks(markdown: string): { examples: Map<string, Json>; scripts: Map<string, string> } {
  const examples = new Map<string, Json>();
  const scripts = new Map<string, string>();
  const pattern = /<!-- hooks-(example|script): (\S+) -->\n```\w*\n([\s\S]*?)\n```/g;
  for (const [, kind, name, body] of markdown.matchAll(pattern)) {
    if (kind === 'example') examples.set(name as string, JSON.parse(body as string) as Json);
    else scripts.set(name as string, `${body as string}\n`);
  }
  return { examples, scripts };
}

const { examples, scripts } = markedBlocks(readFileSync(PAGE, 'utf8'));
const call = (id: string, name: string, args: Json) => ({ toolCalls: [{ id, name, args }] });
const resultOf = (phases: Json[], id: string) =>
  phases.find((p) => p.type === 'tool_result' && p.toolCallId === id);

async function withExample(name: string, turns: Parameters<typeof start>[1]) {
  const example = examples.get(name);
  assert.ok(example !== undefined, `docs/hooks.md has no example "${name}"`);
  const h = await start('anthropic', turns, {}, example, {
    capabilities: { approve: true, ask: true, diffs: true },
  });
  for (const [path, text] of scripts) {
    const file = join(h.workspace, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    chmodSync(file, 0o755);
  }
  h.client.handle('approve', () => ({ decision: 'allow' }));
  return h;
}

describe("docs/hooks.md: Claude Code's examples, unchanged", () => {
  test('the page holds the examples and scripts this test runs', () => {
    assert.deepEqual([...examples.keys()], ['protect-files', 'bash-validator', 'user-prompt-submit']);
    assert.deepEqual(
      [...scripts.keys()],
      ['.claude/hooks/bash_command_validator.py', '.claude/hooks/user_prompt_submit.py'],
    );
  });

  test('protect files: a write to .env is blocked, one to another file goes through', async () => {
    const h = await withExample('protect-files', [
      call('w1', 'write_file', { path: '.env', content: 'TOKEN=x\n' }),
      call('w2', 'write_file', { path: 'notes.txt', content: 'fine\n' }),
      { text: 'done' },
    ]);
    const { phases } = await h.prompt({ text: 'go' });
    assert.equal(resultOf(phases, 'w1')?.status, 'error');
    assert.equal(existsSync(join(h.workspace, '.env')), false);
    assert.equal(resultOf(phases, 'w2')?.status, 'ok');
    assert.equal(readFileSync(join(h.workspace, 'notes.txt'), 'utf8'), 'fine\n');
  });

  test('Bash validator: grep is blocked with its message for the model, ls runs', async () => {
    const h = await withExample('bash-validator', [
      call('c1', 'run_command', { command: 'grep -r TODO .' }),
      call('c2', 'run_command', { command: 'ls' }),
      { text: 'done' },
    ]);
    const { phases } = await h.prompt({ text: 'go' });
    assert.equal(resultOf(phases, 'c1')?.status, 'error');
    assert.match(String(resultOf(phases, 'c1')?.output), /Use 'rg' \(ripgrep\) instead of 'grep'/);
    assert.equal(resultOf(phases, 'c2')?.status, 'ok');
  });

  test('UserPromptSubmit: a prompt with a secret is blocked; another gets the current time as context', async () => {
    const h = await withExample('user-prompt-submit', [{ text: 'done' }]);
    const blocked = await h.prompt({ text: 'deploy with password: hunter2' });
    assert.equal((blocked.response.result as Json).status, 'error');
    assert.match(
      String(blocked.phases.find((p) => p.type === 'error')?.message),
      /Security policy violation: Prompt contains potential secrets/,
    );
    assert.equal(h.fake.requests.length, 0, 'the blocked prompt reached no model');
    const { response } = await h.prompt({ text: 'what time is it?' });
    assert.equal((response.result as Json).status, 'completed');
    assert.match(JSON.stringify((h.fake.requests[0]?.body as Json).messages), /Current time: \d{4}-/);
  });
});
