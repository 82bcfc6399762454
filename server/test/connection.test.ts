/**
 * The connection in-process, over a linked pair of streams: handler wiring, cancellation,
 * server-to-client requests, shutdown and end of input, with a runtime built for the test.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import {
  type CancellationToken,
  CancellationTokenSource,
  createMessageConnection,
  type MessageConnection,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node';
import type { ApproveParams, PromptResult } from '#protocol';
import { tempDir } from '../../scripts/temp-dirs.ts';
import { type ConnectionEnd, serve } from '../src/connection/connection.ts';
import { FrameParser } from '../src/connection/framing.ts';
import { createLogger } from '../src/support/log.ts';
import { ProtocolFault } from '../src/support/protocol-fault.ts';
import type { ClientChannel, Runtime } from '../src/runtime/contract.ts';

const workspace = tempDir('santra-conn-');
const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
const result = (output: string): PromptResult => ({
  runId: 'r',
  sessionId: 's',
  status: 'completed',
  output,
  usage,
  costUsd: 0,
  sessionUsage: usage,
  sessionCostUsd: 0,
});
const approval: Extract<ApproveParams, { kind: 'command' }> = {
  kind: 'command',
  sessionId: 's-1',
  runId: 'r',
  agentId: 'a',
  toolCallId: 't',
  toolName: 'run_command',
  command: 'ls',
  cwd: '/',
};

/** A runtime whose prompt handler does what the prompt text says. */
function testRuntime() {
  const events: string[] = [];
  let client: ClientChannel | undefined;
  /** Waits on the client like a gated action, and records what the answer led to. */
  const gated = async (what: string, signal: AbortSignal, request: () => Promise<unknown>) => {
    events.push(`${what} sent`);
    try {
      const answer = await request();
      events.push(`${what} answered`);
      return result(JSON.stringify(answer));
    } catch (error) {
      events.push(`${what} failed: ${(error as Error).message}`);
      if (signal.aborted) return { ...result(''), status: 'cancelled' as const };
      return result(`rejected: ${(error as Error).message}`);
    }
  };
  const runtime: Runtime = {
    serverInfo: { name: 'test-server', version: '9.9.9' },
    sends: ['phase', 'approve'],
    handlers: {
      async prompt(params, { signal }) {
        const channel = client as ClientChannel;
        switch (params.text) {
          case 'slow':
            events.push('slow started');
            await new Promise((_resolve, reject) =>
              signal.addEventListener('abort', () => reject(signal.reason as Error)),
            );
            return result('unreachable');
          case 'boom':
            throw new Error('kaboom');
          case 'fault':
            throw new ProtocolFault('InvalidParams', 'bad prompt', { issues: [] });
          case 'phases':
            for (let seq = 1; seq <= 3; seq++) {
              channel.phase({ type: 'text', text: `t${seq}`, runId: 'r', sessionId: 's', agentId: 'a', seq });
            }
            return result('done');
          case 'approve':
            return gated('approve', signal, () => channel.approve(approval, signal));
          case 'ask':
            return gated('ask', signal, () =>
              channel.ask(
                { sessionId: 's', runId: 'r', agentId: 'a', toolCallId: 'c', prompt: 'Tabs or spaces?' },
                signal,
              ),
            );
          case 'approve huge':
            return gated('approve', signal, () =>
              channel.approve({ ...approval, command: 'x'.repeat(2 << 20) }, signal),
            );
          case 'huge':
            return result('x'.repeat(2 << 20));
          case 'huge phase':
            channel.phase({
              type: 'text',
              text: 'x'.repeat(2 << 20),
              runId: 'r',
              sessionId: 's',
              agentId: 'a',
              seq: 1,
            });
            channel.phase({ type: 'text', text: 'small', runId: 'r', sessionId: 's', agentId: 'a', seq: 2 });
            return result('done');
          default:
            return result(params.text);
        }
      },
    },
    initialize(_params, channel) {
      client = channel;
      return Promise.resolve({ phaseTypes: ['text'], providers: [] });
    },
    shutdown() {
      events.push('runtime shutdown');
      return Promise.resolve();
    },
  };
  return { runtime, events };
}

function linked(options: { maxConcurrentRequests?: number; maxSkipBytes?: number } = {}) {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const { runtime, events } = testRuntime();
  const server = serve({
    input: toServer,
    output: toClient,
    runtime,
    log: createLogger(() => {}),
    limits: {
      maxMessageBytes: 1 << 20,
      maxHeaderBytes: 8192,
      maxConcurrentRequests: options.maxConcurrentRequests ?? 64,
      ...(options.maxSkipBytes === undefined ? {} : { maxSkipBytes: options.maxSkipBytes }),
    },
    shutdownGraceMs: 1000,
  });
  return { toServer, toClient, server, events };
}

function client(toServer: PassThrough, toClient: PassThrough): MessageConnection {
  const connection = createMessageConnection(
    new StreamMessageReader(toClient),
    new StreamMessageWriter(toServer),
  );
  connection.listen();
  return connection;
}

const initParams = {
  protocolVersion: '0.1.0',
  clientInfo: { name: 'in-process' },
  workspaceRoot: workspace,
  capabilities: { approve: true },
};

async function rejection(promise: Promise<unknown>): Promise<ResponseError<{ retryable: boolean }>> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ResponseError) return error;
    throw error;
  }
  assert.fail('expected an error response');
}

async function started() {
  const pair = linked();
  const connection = client(pair.toServer, pair.toClient);
  const init = await connection.sendRequest<{
    capabilities: { methods: string[] };
  }>('initialize', initParams);
  return { ...pair, connection, init };
}

describe('connection (in-process)', () => {
  test('initialize lists lifecycle, runtime and sent methods; handlers get validated params', async () => {
    const { connection, init } = await started();
    assert.deepEqual(init.capabilities.methods, [
      'initialize',
      'initialized',
      'shutdown',
      'exit',
      '$/cancelRequest',
      'prompt',
      'phase',
      'approve',
    ]);
    assert.deepEqual(await connection.sendRequest('prompt', { text: 'echo me' }), result('echo me'));
    const invalid = await rejection(connection.sendRequest('prompt', { text: 42 }));
    assert.equal(invalid.code, -32602);
    connection.dispose();
  });

  test('$/cancelRequest aborts the handler and is answered RequestCancelled', async () => {
    const { connection, events } = await started();
    const source = new CancellationTokenSource();
    const pending = connection.sendRequest('prompt', { text: 'slow' }, source.token);
    while (!events.includes('slow started')) await new Promise((resolve) => setTimeout(resolve, 5));
    source.cancel();
    const cancelled = await rejection(pending);
    assert.equal(cancelled.code, -32800);
    assert.equal(cancelled.data?.retryable, true);
    assert.deepEqual(await connection.sendRequest('prompt', { text: 'still here' }), result('still here'));
    connection.dispose();
  });

  test('a handler failure is InternalError and the server keeps serving; a fault keeps its code', async () => {
    const { connection } = await started();
    const internal = await rejection(connection.sendRequest('prompt', { text: 'boom' }));
    assert.equal(internal.code, -32603);
    assert.match(internal.message, /Internal error in prompt: kaboom/);
    const fault = await rejection(connection.sendRequest('prompt', { text: 'fault' }));
    assert.equal(fault.code, -32602);
    assert.deepEqual(fault.data, { retryable: false, issues: [] });
    assert.deepEqual(await connection.sendRequest('prompt', { text: 'ok' }), result('ok'));
    connection.dispose();
  });

  test('phases reach the client in order before the response', async () => {
    const { connection } = await started();
    const seen: string[] = [];
    connection.onNotification('phase', (params: { text: string }) => {
      seen.push(params.text);
    });
    await connection.sendRequest('prompt', { text: 'phases' });
    assert.deepEqual(seen, ['t1', 't2', 't3']);
    connection.dispose();
  });

  test('approve round trip: the decision is validated; an invalid answer becomes a rejection', async () => {
    const { connection } = await started();
    let answer: unknown = { decision: 'feedback', feedback: 'use ls -la' };
    connection.onRequest('approve', () => answer);
    assert.deepEqual(
      await connection.sendRequest('prompt', { text: 'approve' }),
      result('{"decision":"feedback","feedback":"use ls -la"}'),
    );
    answer = { decision: 'maybe' };
    const outcome = await connection.sendRequest<PromptResult>('prompt', { text: 'approve' });
    assert.match(outcome.output, /^rejected: the client answered approve with an invalid result/);
    connection.dispose();
  });

  test('cancelling a prompt cancels its pending approve on the wire', async () => {
    const { connection } = await started();
    let approveCancelled: () => void = () => {};
    const cancelledOnWire = new Promise<void>((resolve) => {
      approveCancelled = resolve;
    });
    let asked: () => void = () => {};
    const approveArrived = new Promise<void>((resolve) => {
      asked = resolve;
    });
    connection.onRequest('approve', (_params: unknown, token: CancellationToken) => {
      asked();
      return new Promise((resolve) => {
        token.onCancellationRequested(() => {
          approveCancelled();
          resolve({ decision: 'allow' });
        });
      });
    });
    const source = new CancellationTokenSource();
    const pending = connection.sendRequest('prompt', { text: 'approve' }, source.token);
    await approveArrived;
    source.cancel();
    await cancelledOnWire;
    const outcome = (await pending) as PromptResult;
    assert.equal(outcome.status, 'cancelled');
    connection.dispose();
  });

  test('shutdown aborts running requests, shuts the runtime down once, then refuses requests', async () => {
    const { connection, events, server } = await started();
    const slow = rejection(connection.sendRequest('prompt', { text: 'slow' }));
    while (!events.includes('slow started')) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(await connection.sendRequest('shutdown'), null);
    assert.equal((await slow).code, -32800);
    assert.equal((await rejection(connection.sendRequest('prompt', { text: 'late' }))).code, -32600);
    await connection.sendNotification('exit');
    assert.deepEqual(await server.ended, { reason: 'exit', exitCode: 0 } satisfies ConnectionEnd);
    assert.deepEqual(
      events.filter((event) => event === 'runtime shutdown'),
      ['runtime shutdown'],
    );
  });

  test('end of input cancels pending work, shuts the runtime down, and ends with code 1', async () => {
    const { toServer, connection, events, server } = await started();
    void connection.sendRequest('prompt', { text: 'slow' }).catch(() => {});
    while (!events.includes('slow started')) await new Promise((resolve) => setTimeout(resolve, 5));
    toServer.end();
    assert.deepEqual(await server.ended, { reason: 'input_closed', exitCode: 1 });
    assert.ok(events.includes('runtime shutdown'));
    connection.dispose();
  });
});

type Raw = Record<string, unknown>;

/** Raw frames over the linked pair, for what a well-behaved client library never sends. */
function rawPair(maxConcurrentRequests?: number, options: { maxSkipBytes?: number } = {}) {
  const pair = linked(maxConcurrentRequests === undefined ? options : { maxConcurrentRequests, ...options });
  const messages: Raw[] = [];
  /** Every message the server sent, in order, never consumed. */
  const all: Raw[] = [];
  const parser = new FrameParser();
  pair.toClient.on('data', (chunk: Buffer) => {
    for (const event of parser.push(chunk)) {
      if (event.type !== 'frame') continue;
      const message = JSON.parse(event.body.toString()) as Raw;
      messages.push(message);
      all.push(message);
    }
  });
  const send = (message: unknown) => {
    const body = Buffer.from(JSON.stringify(message));
    pair.toServer.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
  };
  const response = async (id: unknown) => {
    for (let i = 0; i < 400; i++) {
      const found = messages.find((m) => m.id === id && m.method === undefined);
      if (found) {
        messages.splice(messages.indexOf(found), 1);
        return found as {
          id: unknown;
          result?: unknown;
          error?: { code: number; message: string; data: unknown };
        };
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.fail(`no response to ${JSON.stringify(id)}; got ${JSON.stringify(messages)}`);
  };
  /** Waits for the server's own request (`approve`, `ask`), or its notification with these params. */
  const fromServer = async (method: string, match: (m: Raw) => boolean = (m) => m.id !== undefined) => {
    await until(() => messages.some((m) => m.method === method && match(m)), `the server's ${method}`);
    return messages.find((m) => m.method === method && match(m)) as Raw & { id: number };
  };
  send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: initParams });
  return { ...pair, send, response, messages, all, fromServer };
}

/** The connection's end, or a failure if it does not come within `ms` (the bug these tests catch is a hang). */
function ended(server: { ended: Promise<ConnectionEnd> }, ms = 3000): Promise<ConnectionEnd> {
  return Promise.race([
    server.ended,
    new Promise<never>((_resolve, reject) =>
      setTimeout(() => reject(new Error(`the connection did not end within ${ms} ms`)), ms).unref(),
    ),
  ]);
}

async function until(check: () => boolean, what: string, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`no ${what} within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** An over-limit frame (the linked server accepts 1 MiB) whose body starts with `head`. */
function oversized(head: string, tail = '}'): Buffer {
  const body = Buffer.from(`${head}"${'x'.repeat((1 << 20) + 10)}"${tail}`);
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]);
}

const answers = { approve: { decision: 'allow' }, ask: { answer: 'tabs' } } as const;

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
