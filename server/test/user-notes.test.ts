/**
 * The model is told what the person did between its turns (built server, fake providers): an
 * answer they stopped goes into the history marked as stopped, and file changes they undid are
 * named on the next request — whichever client did it, since both are session operations.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { suiteHarnesses } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();
const CLIENT = { capabilities: { approve: true, ask: true, diffs: true }, args: ['--auto-approve'] };
const result = (response: Json) => response.result as Json;

/** The conversation of an Anthropic request, a line per text block: `role: text`. */
function conversation(request: { body: Json } | undefined): string[] {
  return ((request?.body.messages as Json[]) ?? []).flatMap((message) =>
    (message.content as Json[])
      .filter((block) => block.type === 'text')
      .map((block) => `${String(message.role)}: ${String(block.text)}`),
  );
}

describe('the model is told what the user did', () => {
  test('an answer stopped mid-stream is in the history as stopped, not as a finished answer', async () => {
    const h = await start('anthropic', [
      { text: ['The first half '], fault: { kind: 'stall', afterEvents: 4 } },
      { text: 'Fine.' },
    ]);
    const id = h.nextId();
    h.client.request(id, 'prompt', { text: 'Write a long answer', agent: 'tester' });
    await h.client.next((m) => m.method === 'phase' && (m.params as Json).type === 'text');
    h.client.notify('$/cancelRequest', { id });
    const stopped = await h.client.response(id);
    assert.equal(result(stopped).status, 'cancelled');
    await h.prompt({ text: 'Now something else', sessionId: result(stopped).sessionId });
    const lines = conversation(h.fake.requests[1]);
    assert.deepEqual(lines.slice(-3, -1), [
      'assistant: The first half ',
      'user: [The user stopped your answer above before it was finished; it is incomplete, and nothing after it was done.]',
    ]);
    assert.equal(lines.at(-1), 'user: Now something else');
  });

  test('a request stopped before any answer says so; OpenAI-compatible servers get one user turn', async () => {
    const h = await start('openai', [{ fault: { kind: 'stall', afterEvents: 0 } }, { text: 'Fine.' }]);
    const id = h.nextId();
    h.client.request(id, 'prompt', { text: 'First question', agent: 'tester' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    h.client.notify('$/cancelRequest', { id });
    const stopped = await h.client.response(id);
    await h.prompt({ text: 'Second question', sessionId: result(stopped).sessionId });
    const messages = (h.fake.requests.at(-1)?.body.messages as Json[])
      .filter((m) => m.role !== 'system')
      // The note on where and when the user writes (agent/system-prompt.ts) is not this test's.
      .map((m) => ({
        ...m,
        content: String(m.content).replace(/<environment>\n[^]*?\n<\/environment>\n\n/, ''),
      }));
    // Turns alternate for strict chat templates: the first question, the note and the new
    // message are one user turn.
    assert.deepEqual(messages, [
      {
        role: 'user',
        content:
          'First question\n\n[The user stopped this request before you answered it.]\n\nSecond question',
      },
    ]);
  });

  test('after session/undo the next request names what was undone', async () => {
    const h = await start(
      'anthropic',
      [
        { toolCalls: [{ name: 'write_file', args: { path: 'made.txt', content: 'new\n' } }] },
        { text: 'Created made.txt.' },
        { text: 'Understood.' },
      ],
      {},
      undefined,
      CLIENT,
    );
    const first = await h.prompt({ text: 'Create made.txt' });
    const sessionId = result(first.response).sessionId;
    assert.equal(existsSync(join(h.workspace, 'made.txt')), true);
    const undoId = h.nextId();
    h.client.request(undoId, 'session/undo', { sessionId });
    const undone = await h.client.response(undoId);
    assert.deepEqual(
      ((undone.result as Json).changes as Json[]).map((c) => [c.path, c.outcome]),
      [['made.txt', 'restored']],
    );
    assert.equal(existsSync(join(h.workspace, 'made.txt')), false);
    await h.prompt({ text: 'What did you do?', sessionId });
    const lines = conversation(h.fake.requests.at(-1));
    assert.ok(
      lines.includes(
        'user: [The user undid file changes made in this session. The files are now as follows, whatever was said above:\n- made.txt (created) was deleted]',
      ),
      lines.join('\n'),
    );
    assert.equal(lines.at(-1), 'user: What did you do?');
  });
});
