/**
 * The connection in-process, over a linked pair of streams: handler wiring, cancellation,
 * server-to-client requests, shutdown and end of input, with a runtime built for the test.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { type ConnectionEnd, serve } from '../src/connection/connection.ts';
import { FrameParser } from '../src/connection/framing.ts';
import { createLogger } from '../src/log.ts';
import { ProtocolFault } from '../src/protocol-fault.ts';
import type { ClientChannel, Runtime } from '../src/runtime-contract.ts';

const workspace = mkdtempSync(join(tmpdir(), 'santra-conn-'));
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
const approval: ApproveParams = {
  kind: 'command',
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
            try {
              return result(JSON.stringify(await channel.approve(approval, signal)));
            } catch (error) {
              return result(`rejected: ${(error as Error).message}`);
            }
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

function linked(options: { maxConcurrentRequests?: number } = {}) {
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
    assert.match(outcome.output, /^rejected:/);
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

/** Raw frames over the linked pair, for what a well-behaved client library never sends. */
function rawPair(maxConcurrentRequests?: number) {
  const pair = linked(maxConcurrentRequests === undefined ? {} : { maxConcurrentRequests });
  const messages: Array<Record<string, unknown>> = [];
  const parser = new FrameParser();
  pair.toClient.on('data', (chunk: Buffer) => {
    for (const event of parser.push(chunk))
      if (event.type === 'frame') messages.push(JSON.parse(event.body.toString()) as Record<string, unknown>);
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
  send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: initParams });
  return { ...pair, send, response, messages };
}

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
});
