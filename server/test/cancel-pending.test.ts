/**
 * Cancelling a run while the server waits on the client (§6.3), against the built server and a
 * fake model that calls write_file (→ `approve`) or ask_user (→ `ask`): the `prompt` is answered
 * without waiting for the client's answer to the cancelled request (when the client never answers,
 * or answers only after the prompt was answered), and nothing it answers late reaches the disk.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { FakeTurn } from '../../conformance-tests/src/fake-providers/index.ts';
import { suiteHarnesses } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();
const CLIENT = { capabilities: { approve: true, ask: true, diffs: true } };
const WRITE: FakeTurn = {
  toolCalls: [{ id: 't1', name: 'write_file', args: { path: 'a.txt', content: 'written\n' } }],
};
const ASK: FakeTurn = {
  toolCalls: [{ id: 'q1', name: 'ask_user', args: { prompt: 'Which file?' } }],
};
const turns = { approve: [WRITE, WRITE, { text: 'done' }], ask: [ASK, WRITE, { text: 'done' }] };
const lateAnswers = { approve: { decision: 'allow' }, ask: { answer: 'a.txt' } };

const isRequest = (method: string) => (m: Json) => m.method === method && m.id !== undefined;

describe('a run cancelled while approve or ask is pending (built server)', () => {
  for (const method of ['approve', 'ask'] as const) {
    for (const client of ['never answers', 'answers late', 'answers with an error'] as const) {
      test(`cancelled during ${method}: the prompt is answered without waiting for the client, which ${client}`, async () => {
        const h = await start('anthropic', turns[method], {}, undefined, CLIENT);
        const id = h.nextId();
        h.client.request(id, 'prompt', { text: 'go', agent: 'tester' });
        const request = await h.client.next(isRequest(method));
        h.client.notify('$/cancelRequest', { id });
        await h.client.next((m) => m.method === '$/cancelRequest' && (m.params as Json).id === request.id);
        if (client === 'answers with an error') {
          h.client.send({
            jsonrpc: '2.0',
            id: request.id,
            error: { code: -32800, message: `${method} was cancelled`, data: { retryable: true } },
          });
        }
        // Unless the client answered with an error just now, it has not answered at all: the prompt's
        // answer cannot have waited for it.
        const response = await h.client.response(id);
        assert.equal((response.result as Json).status, 'cancelled');
        if (client === 'answers late')
          h.client.send({ jsonrpc: '2.0', id: request.id, result: lateAnswers[method] });
        // The server serves on, and the late answer wrote nothing.
        const shutdownId = h.nextId();
        h.client.request(shutdownId, 'shutdown');
        assert.equal((await h.client.response(shutdownId)).result, null);
        assert.equal(existsSync(join(h.workspace, 'a.txt')), false, 'nothing was written');
        assert.equal(h.client.messages.filter(isRequest('approve')).length, 0, 'no further approve was sent');
      });
    }
  }

  test('shutdown while approve is pending: the prompt is answered (cancelled) before shutdown', async () => {
    const h = await start('anthropic', turns.approve, {}, undefined, CLIENT);
    const id = h.nextId();
    h.client.request(id, 'prompt', { text: 'go', agent: 'tester' });
    await h.client.next(isRequest('approve'));
    const shutdownId = h.nextId();
    h.client.request(shutdownId, 'shutdown');
    assert.equal((await h.client.response(shutdownId)).result, null);
    const prompt = h.client.messages.find((m) => m.id === id);
    assert.equal((prompt?.result as Json | undefined)?.status, 'cancelled', 'answered before shutdown');
    h.client.notify('exit');
    assert.equal((await h.client.exit()).code, 0);
    assert.equal(existsSync(join(h.workspace, 'a.txt')), false);
  });

  test('end of input while approve is pending: the prompt is answered (cancelled), then the server exits 1', async () => {
    const h = await start('anthropic', turns.approve, {}, undefined, CLIENT);
    const id = h.nextId();
    h.client.request(id, 'prompt', { text: 'go', agent: 'tester' });
    await h.client.next(isRequest('approve'));
    h.client.child.stdin.end();
    assert.equal((await h.client.exit(5_000)).code, 1);
    const prompt = h.client.messages.find((m) => m.id === id);
    assert.equal((prompt?.result as Json | undefined)?.status, 'cancelled');
    assert.equal(existsSync(join(h.workspace, 'a.txt')), false);
  });
});
