/**
 * The editor's context of a prompt (§7.1.1) end to end: the built server over stdio, the real
 * Anthropic SDK, a fake provider on loopback. What the model is sent is read from the request the
 * fake provider received.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { suiteHarnesses } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();

const FILE = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n');

/** The text of the last user message the model was sent (without the note on where and when). */
function lastUserText(body: Json): string {
  const messages = body.messages as Array<{ role: string; content: Array<{ type: string; text?: string }> }>;
  const last = messages.filter((m) => m.role === 'user').at(-1);
  return (last?.content ?? [])
    .filter((block) => block.text?.startsWith('<environment>') !== true)
    .map((block) => block.text ?? '')
    .join('');
}

describe('prompt context', () => {
  test('selections arrive numbered below the prompt, with the cursor, open files and diagnostics', async () => {
    const h = await start('anthropic', [{ text: 'ok' }]);
    mkdirSync(join(h.workspace, 'src'));
    writeFileSync(join(h.workspace, 'src/a.ts'), FILE);
    writeFileSync(join(h.workspace, 'src/b.ts'), 'other');
    const { response } = await h.prompt({
      text: 'explain this',
      context: {
        files: [
          {
            path: 'src/a.ts',
            focused: true,
            cursor: { line: 12, column: 3 },
            selections: [{ start: { line: 11 }, end: { line: 13 } }],
          },
          { path: join(h.workspace, 'src/b.ts') },
        ],
        diagnostics: [
          {
            path: 'src/a.ts',
            range: { start: { line: 12, column: 5 }, end: { line: 12, column: 9 } },
            severity: 'error',
            message: "Type 'string' is not assignable\nto type 'number'.",
            source: 'ts',
            code: 2322,
          },
        ],
      },
    });
    assert.equal((response.result as Json).status, 'completed');
    const text = lastUserText(h.fake.requests[0]?.body as Json);
    assert.ok(text.startsWith('explain this\n\n<editor_context>'), text);
    assert.match(text, /The file in view: src\/a\.ts, the cursor at line 12, column 3\./);
    assert.match(text, /Selected, 11–13:\n +11│ line 11\n +12│ line 12\n +13│ line 13\n/);
    assert.doesNotMatch(text, /line 14/, 'only the selected lines');
    assert.match(text, /Open: src\/b\.ts\./, 'an absolute path inside the workspace is shown relative to it');
    assert.match(
      text,
      /- src\/a\.ts:12:5 error \(ts 2322\): Type 'string' is not assignable to type 'number'\./,
    );
    assert.ok(text.endsWith('</editor_context>'));
  });

  test('a focused file without a selection sends the lines around the cursor', async () => {
    const h = await start('anthropic', [{ text: 'ok' }]);
    writeFileSync(join(h.workspace, 'a.txt'), FILE);
    await h.prompt({
      text: 'what is here?',
      context: { files: [{ path: 'a.txt', focused: true, cursor: { line: 30 } }] },
    });
    const text = lastUserText(h.fake.requests[0]?.body as Json);
    assert.match(text, /Around the cursor:\n +20│ line 20\n/);
    assert.match(text, /40│ line 40/);
    assert.doesNotMatch(text, /19│/);
  });

  test("the editor's unsaved buffer is what the model sees, when the client lends it", async () => {
    const h = await start('anthropic', [{ text: 'ok' }], {}, undefined, {
      capabilities: { fs: { readTextFile: true } },
    });
    writeFileSync(join(h.workspace, 'a.txt'), 'on disk\n');
    h.client.handle('fs/readTextFile', () => ({ text: 'unsaved in the editor\n' }));
    await h.prompt({
      text: 'look',
      context: { files: [{ path: 'a.txt', selections: [{ start: { line: 1 }, end: { line: 1 } }] }] },
    });
    const text = lastUserText(h.fake.requests[0]?.body as Json);
    assert.match(text, / 1│ unsaved in the editor/);
    assert.doesNotMatch(text, /on disk/);
  });

  test('a path outside the workspace, or a backwards range, is refused with InvalidParams naming the field', async () => {
    const h = await start('anthropic', [{ text: 'never sent' }]);
    const outside = await h.prompt({ text: 'x', context: { files: [{ path: '/etc/passwd' }] } });
    const error = outside.response.error as Json;
    assert.equal(error.code, -32602);
    assert.match(error.message as string, /params\.context\.files\[0\]\.path/);
    const diagnostic = await h.prompt({
      text: 'x',
      context: {
        diagnostics: [
          {
            path: '../up.ts',
            range: { start: { line: 1 }, end: { line: 1 } },
            severity: 'hint',
            message: 'm',
          },
        ],
      },
    });
    assert.match(
      (diagnostic.response.error as Json).message as string,
      /params\.context\.diagnostics\[0\]\.path/,
    );
    const backwards = await h.prompt({
      text: 'x',
      context: { files: [{ path: 'a.txt', selections: [{ start: { line: 5 }, end: { line: 2 } }] }] },
    });
    assert.equal((backwards.response.error as Json).code, -32602);
    assert.match((backwards.response.error as Json).message as string, /end is before start/);
    assert.equal(h.fake.requests.length, 0, 'no model call for a refused prompt');
  });

  test('the context is recorded with the prompt, and the session resumes with it in the conversation', async () => {
    const h = await start('anthropic', [{ text: 'first' }, { text: 'second' }]);
    writeFileSync(join(h.workspace, 'a.txt'), FILE);
    const first = await h.prompt({
      text: 'one',
      context: { files: [{ path: 'a.txt', selections: [{ start: { line: 2 }, end: { line: 2 } }] }] },
    });
    const sessionId = (first.response.result as Json).sessionId;
    await h.prompt({ text: 'two', sessionId });
    const second = h.fake.requests[1]?.body as Json;
    const firstUser = (second.messages as Array<{ role: string; content: Array<{ text?: string }> }>)[0];
    assert.match(firstUser?.content.map((b) => b.text ?? '').join('') ?? '', /2│ line 2/);
    const id = h.nextId();
    h.client.request(id, 'session/export', { sessionId, format: 'json' });
    const exported = (await h.client.response(id)).result as Json;
    const records = exported.records as Json[];
    const prompt = records.find((r) => r.type === 'prompt' && r.text === 'one');
    assert.deepEqual(prompt?.context, {
      files: [{ path: 'a.txt', selections: [{ start: { line: 2 }, end: { line: 2 } }] }],
    });
  });
});
