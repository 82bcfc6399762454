/**
 * A server connection in-process over a linked pair of streams, with a runtime built for the
 * tests: the client library's side (`started`) and raw frames (`rawPair`) for what a
 * well-behaved client never sends.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import {
  createMessageConnection,
  type MessageConnection,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node';
import type { ApproveParams, PromptResult } from '#protocol';
import { tempDir } from '../../../scripts/temp-dirs.ts';
import { type ConnectionEnd, serve } from '../../src/connection/connection.ts';
import { FrameParser } from '../../src/connection/framing.ts';
import { createLogger } from '../../src/support/log.ts';
import { ProtocolFault } from '../../src/support/protocol-fault.ts';
import type { ClientChannel, Runtime } from '../../src/runtime/contract.ts';

export const workspace = tempDir('santra-conn-');
export const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
export const result = (output: string): PromptResult => ({
  runId: 'r',
  sessionId: 's',
  status: 'completed',
  output,
  usage,
  costUsd: 0,
  sessionUsage: usage,
  sessionCostUsd: 0,
});
export const approval: Extract<ApproveParams, { kind: 'command' }> = {
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
export function testRuntime() {
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

export function linked(options: { maxConcurrentRequests?: number; maxSkipBytes?: number } = {}) {
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

export function client(toServer: PassThrough, toClient: PassThrough): MessageConnection {
  const connection = createMessageConnection(
    new StreamMessageReader(toClient),
    new StreamMessageWriter(toServer),
  );
  connection.listen();
  return connection;
}

export const initParams = {
  protocolVersion: '0.1.0',
  clientInfo: { name: 'in-process' },
  workspaceRoot: workspace,
  capabilities: { approve: true },
};

export async function rejection(promise: Promise<unknown>): Promise<ResponseError<{ retryable: boolean }>> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ResponseError) return error;
    throw error;
  }
  assert.fail('expected an error response');
}

export async function started() {
  const pair = linked();
  const connection = client(pair.toServer, pair.toClient);
  const init = await connection.sendRequest<{
    capabilities: { methods: string[] };
  }>('initialize', initParams);
  return { ...pair, connection, init };
}

export type Raw = Record<string, unknown>;

/** Raw frames over the linked pair, for what a well-behaved client library never sends. */
export function rawPair(maxConcurrentRequests?: number, options: { maxSkipBytes?: number } = {}) {
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
export function ended(server: { ended: Promise<ConnectionEnd> }, ms = 3000): Promise<ConnectionEnd> {
  return Promise.race([
    server.ended,
    new Promise<never>((_resolve, reject) =>
      setTimeout(() => reject(new Error(`the connection did not end within ${ms} ms`)), ms).unref(),
    ),
  ]);
}

export async function until(check: () => boolean, what: string, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`no ${what} within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** An over-limit frame (the linked server accepts 1 MiB) whose body starts with `head`. */
export function oversized(head: string, tail = '}'): Buffer {
  const body = Buffer.from(`${head}"${'x'.repeat((1 << 20) + 10)}"${tail}`);
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]);
}

export const answers = { approve: { decision: 'allow' }, ask: { answer: 'tabs' } } as const;
