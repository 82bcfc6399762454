/**
 * The connection in-process, in raw frames: cancelling a run that waits on the client, end of
 * input, oversized messages, duplicate ids and the concurrency limit.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PromptResult } from '#protocol';
import { answers, ended, oversized, type Raw, rawPair, result, until } from './helpers/connection-pair.ts';

describe('cancelling a run that waits on the client (§6.3)', () => {
  for (const method of ['approve', 'ask'] as const) {
    for (const client of ['never answers', 'answers late', 'answers with an error'] as const) {
      test(`a prompt cancelled during ${method} is answered at once when the client ${client}`, async () => {
        const { send, response, fromServer, events, messages } = rawPair();
        await response('init');
        send({ jsonrpc: '2.0', id: 1, method: 'prompt', params: { text: method } });
        const request = await fromServer(method);
        send({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id: 1 } });
        await fromServer('$/cancelRequest', (m) => (m.params as Raw).id === request.id);
        if (client === 'answers with an error') {
          send({
            jsonrpc: '2.0',
            id: request.id,
            error: { code: -32800, message: `${method} was cancelled` },
          });
        }
        const answer = await response(1);
        assert.equal((answer.result as PromptResult).status, 'cancelled');
        // The wait on the client ended with the run's own abort, not with anything the client sent.
        assert.deepEqual(events, [`${method} sent`, `${method} failed: prompt cancelled`]);
        if (client === 'answers late') send({ jsonrpc: '2.0', id: request.id, result: answers[method] });
        send({ jsonrpc: '2.0', id: 2, method: 'prompt', params: { text: 'still serving' } });
        assert.deepEqual((await response(2)).result, result('still serving'));
        assert.ok(!events.includes(`${method} answered`), 'a late answer changes nothing');
        assert.deepEqual(
          messages.filter((m) => m.id === null),
          [],
          'a late answer is not treated as an error',
        );
      });
    }
  }

  test('shutdown while approve is pending answers the prompt (cancelled) before shutdown', async () => {
    const { send, response, fromServer, all } = rawPair();
    await response('init');
    send({ jsonrpc: '2.0', id: 1, method: 'prompt', params: { text: 'approve' } });
    const request = await fromServer('approve');
    send({ jsonrpc: '2.0', id: 2, method: 'shutdown' });
    assert.equal((await response(2)).result, null);
    const order = all.filter((m) => m.method === undefined || m.method === '$/cancelRequest');
    assert.deepEqual(
      order.slice(1).map((m) => (m.method === undefined ? `response ${String(m.id)}` : 'cancel')),
      ['cancel', 'response 1', 'response 2'],
    );
    assert.equal(((order[2] as Raw).result as PromptResult).status, 'cancelled');
    assert.deepEqual(((order[1] as Raw).params as Raw).id, request.id);
  });

  test('end of input while approve is pending answers the prompt (cancelled), then ends', async () => {
    const { send, response, fromServer, toServer, server, all } = rawPair();
    await response('init');
    send({ jsonrpc: '2.0', id: 1, method: 'prompt', params: { text: 'approve' } });
    await fromServer('approve');
    toServer.end();
    assert.deepEqual(await ended(server), { reason: 'input_closed', exitCode: 1 });
    const answer = all.find((m) => m.id === 1 && m.method === undefined);
    assert.equal((answer?.result as PromptResult | undefined)?.status, 'cancelled');
  });
});

describe('end of input (§3.5)', () => {
  test('requests received before the input closed are answered before the connection ends', async () => {
    const { send, toServer, server, all } = rawPair();
    // Sent with the initialize, before any of it was handled, as `printf … | santra-server` does.
    send({ jsonrpc: '2.0', id: 'p', method: 'prompt', params: { text: 'slow' } });
    toServer.end();
    assert.deepEqual(await ended(server), { reason: 'input_closed', exitCode: 1 });
    const init = all.find((m) => m.id === 'init');
    assert.ok(
      (init?.result as { capabilities?: unknown } | undefined)?.capabilities,
      'initialize is answered',
    );
    const prompt = all.find((m) => m.id === 'p');
    assert.equal((prompt?.error as { code: number } | undefined)?.code, -32800, 'the prompt is cancelled');
  });
});

describe('oversized messages, in and out (§1.4)', () => {
  test('an oversized request is answered MessageTooLarge with its id when its first bytes show it', async () => {
    const { toServer, response } = rawPair();
    await response('init');
    toServer.write(oversized('{"jsonrpc":"2.0","id":7,"method":"prompt","params":{"text":'));
    const tooLarge = await response(7);
    assert.equal(tooLarge.error?.code, -33001);
    assert.deepEqual(tooLarge.error?.data, { retryable: false, limit: 1 << 20, size: (1 << 20) + 72 });
    toServer.write(oversized('{"jsonrpc":"2.0","method":"prompt","params":{"text":', '},"id":8}'));
    assert.equal((await response(null)).error?.code, -33001, 'an id after a nested value is not read');
  });

  test('an oversized request reusing an id in flight is answered with id null', async () => {
    const { toServer, send, response, events } = rawPair();
    await response('init');
    send({ jsonrpc: '2.0', id: 8, method: 'prompt', params: { text: 'slow' } });
    await until(() => events.includes('slow started'), 'slow prompt');
    toServer.write(oversized('{"jsonrpc":"2.0","id":8,"method":"prompt","params":{"text":'));
    assert.equal((await response(null)).error?.code, -33001);
    send({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id: 8 } });
    assert.equal((await response(8)).error?.code, -32800);
  });

  test('an oversized answer to approve fails that approve instead of leaving it waiting', async () => {
    const { toServer, send, response, fromServer } = rawPair();
    await response('init');
    send({ jsonrpc: '2.0', id: 1, method: 'prompt', params: { text: 'approve' } });
    const request = await fromServer('approve');
    toServer.write(
      oversized(`{"jsonrpc":"2.0","id":${request.id},"result":{"decision":"allow","pad":`, '}}'),
    );
    const outcome = (await response(1)).result as PromptResult;
    assert.match(
      outcome.output,
      /^rejected: the client's answer could not be read: message of \d+ bytes exceeds/,
    );
  });

  test('a Content-Length beyond the skip cap ends the connection at once with exit code 3', async () => {
    const { toServer, response, server, send, all } = rawPair(undefined, { maxSkipBytes: 4 << 20 });
    await response('init');
    toServer.write('Content-Length: 99999999999\r\n\r\n');
    send({ jsonrpc: '2.0', id: 2, method: 'prompt', params: { text: 'never read' } });
    assert.deepEqual(await ended(server), { reason: 'framing_error', exitCode: 3 });
    const notice = await response(null);
    assert.equal(notice.error?.code, -33001);
    assert.match(
      notice.error?.message ?? '',
      /Content-Length 99999999999 exceeds 4194304 bytes.*closing the connection/,
    );
    const data = notice.error?.data as { limit?: number; size?: number } | undefined;
    assert.equal(data?.size, 99999999999, 'MessageTooLarge says what was announced');
    assert.equal(typeof data?.limit, 'number', 'and the limit');
    assert.equal(all.filter((m) => m.id === 2).length, 0);
  });

  test('a response over the limit is never sent: the client gets InternalError with the same id', async () => {
    const { send, response } = rawPair();
    await response('init');
    send({ jsonrpc: '2.0', id: 1, method: 'prompt', params: { text: 'huge' } });
    const failure = await response(1);
    assert.equal(failure.error?.code, -32603);
    assert.match(failure.error?.message ?? '', /over this server's maxMessageBytes \(1048576\)/);
    const data = failure.error?.data as { retryable: boolean; limit: number; size: number };
    assert.deepEqual({ ...data, size: 0 }, { retryable: false, limit: 1 << 20, size: 0 });
    assert.ok(data.size > 2 << 20);
  });

  test('a notification over the limit is dropped, later ones are sent; an approve over it fails', async () => {
    const { send, response, messages } = rawPair();
    await response('init');
    send({ jsonrpc: '2.0', id: 1, method: 'prompt', params: { text: 'huge phase' } });
    assert.deepEqual((await response(1)).result, result('done'));
    assert.deepEqual(
      messages.filter((m) => m.method === 'phase').map((m) => (m.params as { text: string }).text),
      ['small'],
    );
    send({ jsonrpc: '2.0', id: 2, method: 'prompt', params: { text: 'approve huge' } });
    const outcome = (await response(2)).result as PromptResult;
    assert.match(
      outcome.output,
      /^rejected: approve could not be sent: \d{7} bytes is over maxMessageBytes \(1048576\)$/,
    );
    assert.equal(messages.filter((m) => m.method === 'approve').length, 0);
  });
});

describe('connection robustness (raw frames, in-process)', () => {
  test('a request reusing an in-flight id gets DuplicateRequestId; the first is unaffected', async () => {
    const { send, response, events } = rawPair();
    await response('init');
    send({ jsonrpc: '2.0', id: 5, method: 'prompt', params: { text: 'slow' } });
    while (!events.includes('slow started')) await new Promise((resolve) => setTimeout(resolve, 5));
    send({ jsonrpc: '2.0', id: 5, method: 'prompt', params: { text: 'second' } });
    const duplicate = await response(5);
    assert.equal(duplicate.error?.code, -33002);
    assert.match(duplicate.error?.message ?? '', /already in use/);
    send({ jsonrpc: '2.0', id: '5', method: 'prompt', params: { text: 'same id as a string' } });
    assert.equal((await response('5')).error?.code, -33002);
    send({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id: 5 } });
    assert.equal((await response(5)).error?.code, -32800);
    send({ jsonrpc: '2.0', id: 5, method: 'prompt', params: { text: 'reused after answer' } });
    assert.deepEqual((await response(5)).result, result('reused after answer'));
  });

  test('requests beyond the concurrency limit get ServerBusy at once', async () => {
    const { send, response, events } = rawPair(2);
    await response('init');
    send({ jsonrpc: '2.0', id: 1, method: 'prompt', params: { text: 'slow' } });
    send({ jsonrpc: '2.0', id: 2, method: 'prompt', params: { text: 'slow' } });
    while (events.filter((event) => event === 'slow started').length < 2)
      await new Promise((r) => setTimeout(r, 5));
    send({ jsonrpc: '2.0', id: 3, method: 'prompt', params: { text: 'one too many' } });
    const busy = await response(3);
    assert.equal(busy.error?.code, -33003);
    assert.deepEqual(busy.error?.data, { retryable: true, limit: 2 });
    send({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id: 1 } });
    await response(1);
    send({ jsonrpc: '2.0', id: 4, method: 'prompt', params: { text: 'room again' } });
    assert.deepEqual((await response(4)).result, result('room again'));
  });

  test('shutdown is never refused as ServerBusy, even with every slot taken', async () => {
    const { send, response, events } = rawPair(1);
    await response('init');
    send({ jsonrpc: '2.0', id: 1, method: 'prompt', params: { text: 'slow' } });
    while (!events.includes('slow started')) await new Promise((r) => setTimeout(r, 5));
    send({ jsonrpc: '2.0', id: 2, method: 'shutdown' });
    assert.equal((await response(2)).result, null);
    assert.equal((await response(1)).error?.code, -32800, 'the running prompt was cancelled by shutdown');
  });

  test('$/cancelRequest names the id as a number or a string: 2 and "2" are the same id (§2.3)', async () => {
    const { send, response, events } = rawPair();
    await response('init');
    send({ jsonrpc: '2.0', id: 2, method: 'prompt', params: { text: 'slow' } });
    send({ jsonrpc: '2.0', id: '3', method: 'prompt', params: { text: 'slow' } });
    while (events.filter((event) => event === 'slow started').length < 2)
      await new Promise((r) => setTimeout(r, 5));
    send({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id: '2' } });
    const first = await response(2);
    assert.equal(first.error?.code, -32800);
    send({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id: 3 } });
    const second = await response('3');
    assert.equal(second.error?.code, -32800);
  });
});
