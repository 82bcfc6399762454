/**
 * The client library (protocol-spec/client) against a scripted server on a pipe: the messages a
 * real server sent (protocol-spec/examples, recordings of the real server) and the ones a broken
 * or odd server could send. Each test checks what the library does that a client would otherwise
 * write itself: results checked, errors typed, the server's requests checked and answered with the
 * right code, cancellation sent.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { afterEach, describe, test } from 'node:test';
import {
  type CancellationToken,
  createMessageConnection,
  type MessageConnection,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node';
import { JsonRpcErrorCodes, type Phase, PROTOCOL_VERSION, SantraErrorCodes } from '../src/index.ts';
import {
  Declined,
  IncompatibleVersion,
  InvalidResult,
  ProtocolClient,
  ProtocolError,
  Withdrawn,
} from '../client/index.ts';

interface Example {
  from?: 'client' | 'server';
  message?: { method?: string; result?: unknown; params?: unknown };
}

/** The first message of a recorded example that matches. */
function recorded(file: string, match: (example: Example) => boolean): Example['message'] {
  const lines = readFileSync(new URL(`../examples/${file}`, import.meta.url), 'utf8').split('\n');
  for (const line of lines) {
    if (line.trim() === '') continue;
    const example = JSON.parse(line) as Example;
    if (match(example)) return example.message;
  }
  throw new Error(`no such message in ${file}`);
}

const INITIALIZE_RESULT = recorded(
  'lifecycle.jsonl',
  (e) =>
    e.from === 'server' && typeof (e.message?.result as { serverInfo?: unknown })?.serverInfo === 'object',
)?.result as { protocolVersion: string };
const APPROVE_PARAMS = recorded('prompt.jsonl', (e) => e.message?.method === 'approve')?.params as object;

const INITIALIZE = {
  protocolVersion: PROTOCOL_VERSION,
  clientInfo: { name: 'client-test' },
  workspaceRoot: '/work',
  capabilities: { approve: true, ask: true },
};

/** A client and a scripted server on two pipes. */
function pair(options?: ConstructorParameters<typeof ProtocolClient>[1]) {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const server = createMessageConnection(
    new StreamMessageReader(toServer),
    new StreamMessageWriter(toClient),
  );
  const notifications: string[] = [];
  server.onNotification((method: string) => {
    notifications.push(method);
  });
  server.listen();
  let wire = '';
  toServer.on('data', (chunk: Buffer) => (wire += chunk.toString('utf8')));
  const client = ProtocolClient.overStreams(toClient, toServer, options);
  open.push({ client, server });
  return { client, server, notifications, sent: () => wire };
}

const open: { client: ProtocolClient; server: MessageConnection }[] = [];
afterEach(() => {
  for (const { client, server } of open.splice(0)) {
    client.dispose();
    server.dispose();
  }
});

describe('the client library', () => {
  test('initialize: the recorded result is accepted, then `initialized` is sent', async () => {
    const { client, server, notifications } = pair();
    server.onRequest('initialize', () => INITIALIZE_RESULT);
    const result = await client.initialize(INITIALIZE);
    assert.equal(result.protocolVersion, INITIALIZE_RESULT.protocolVersion);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(notifications, ['initialized']);
  });

  test('initialize: a server of another MAJOR.MINOR is refused, and `initialized` is not sent', async () => {
    const { client, server, notifications } = pair();
    server.onRequest('initialize', () => ({ ...INITIALIZE_RESULT, protocolVersion: '9.0.0' }));
    const error = await client.initialize(INITIALIZE).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(error instanceof IncompatibleVersion);
    assert.equal(error.serverVersion, '9.0.0');
    assert.equal(error.code, SantraErrorCodes.UnsupportedProtocolVersion);
    assert.deepEqual(notifications, []);
  });

  test('a result that does not match the method table is InvalidResult, naming the field', async () => {
    const { client, server } = pair();
    server.onRequest('model/list', () => ({ models: 'all of them' }));
    await assert.rejects(
      client.request('model/list', {}),
      (error: unknown) =>
        error instanceof InvalidResult &&
        /model\/list/.test(error.message) &&
        /result\.models/.test(error.message),
    );
  });

  test("the server's error is a ProtocolError with its code, message and data", async () => {
    const { client, server } = pair();
    server.onRequest(
      'session/resume',
      () => new ResponseError(-33002, 'no session ses_x', { sessionId: 'ses_x' }),
    );
    await assert.rejects(client.request('session/resume', { sessionId: 'ses_x' }), (error: unknown) => {
      assert.ok(error instanceof ProtocolError && !(error instanceof InvalidResult));
      assert.equal(error.code, -33002);
      assert.equal(error.message, 'no session ses_x');
      assert.deepEqual(error.data, { sessionId: 'ses_x' });
      return true;
    });
  });

  test('a signal cancels the request with $/cancelRequest; the server still answers', async () => {
    const { client, server } = pair();
    let cancelled = false;
    server.onRequest('session/list', (_params: unknown, token: CancellationToken) => {
      return new Promise((resolve) => {
        token.onCancellationRequested(() => {
          cancelled = true;
          resolve({ sessions: [], warnings: [] });
        });
      });
    });
    const controller = new AbortController();
    const answer = client.request('session/list', {}, controller.signal);
    setTimeout(() => controller.abort(), 20);
    assert.deepEqual(await answer, { sessions: [], warnings: [] });
    assert.equal(cancelled, true);
  });

  test("the server's approve: the recorded params reach the handler, its answer goes back", async () => {
    const { client, server } = pair();
    let seen: unknown;
    client.serve('approve', async (params) => {
      seen = params;
      return { decision: 'allow' };
    });
    assert.deepEqual(await server.sendRequest('approve', APPROVE_PARAMS), { decision: 'allow' });
    assert.deepEqual(seen, APPROVE_PARAMS);
  });

  test('params that do not match are InvalidParams naming the field; the handler never runs', async () => {
    const { client, server } = pair();
    let ran = false;
    client.serve('approve', async () => {
      ran = true;
      return { decision: 'allow' };
    });
    await assert.rejects(
      server.sendRequest('approve', { ...APPROVE_PARAMS, kind: 'launch_missiles' }),
      (error: unknown) => {
        assert.ok(error instanceof ResponseError);
        assert.equal(error.code, JsonRpcErrorCodes.InvalidParams);
        assert.match(error.message, /Invalid params for approve: params\.kind/);
        return true;
      },
    );
    assert.equal(ran, false);
  });

  test('Declined is RequestFailed with its words; Withdrawn is RequestCancelled; a crash is RequestFailed and reported', async () => {
    const failures: string[] = [];
    const { client, server } = pair({ onHandlerError: (method) => failures.push(method) });
    const outcomes: Array<() => never> = [
      () => {
        throw new Declined('the person said no');
      },
      () => {
        throw new Withdrawn('gone');
      },
      () => {
        throw new TypeError('boom');
      },
    ];
    let next = 0;
    client.serve('ask', async () => (outcomes[next++] as () => never)());
    const ask = { sessionId: 's', runId: 'r', agentId: 'a', toolCallId: 't', prompt: 'Which?' };
    const codes: Array<[number, string]> = [];
    for (let i = 0; i < outcomes.length; i++) {
      await server.sendRequest('ask', ask).then(
        () => assert.fail('answered'),
        (error: ResponseError<unknown>) => codes.push([error.code, error.message]),
      );
    }
    assert.deepEqual(codes, [
      [JsonRpcErrorCodes.RequestFailed, 'the person said no'],
      [JsonRpcErrorCodes.RequestCancelled, 'ask was cancelled'],
      [JsonRpcErrorCodes.RequestFailed, 'the client could not answer ask: boom'],
    ]);
    assert.deepEqual(failures, ['ask']);
  });

  test('phases are parsed; one this version does not know arrives as undefined with its raw form', async () => {
    const seen: Array<[Phase | undefined, unknown]> = [];
    const { server } = pair({ onPhase: (phase, raw) => seen.push([phase, raw]) });
    const base = { runId: 'r', sessionId: 's', agentId: 'a', seq: 1 };
    await server.sendNotification('phase', { ...base, type: 'text', text: 'Hi' });
    await server.sendNotification('phase', { ...base, seq: 2, type: 'hologram' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(seen.length, 2);
    assert.equal(seen[0]?.[0]?.type, 'text');
    assert.equal(seen[1]?.[0], undefined);
    assert.equal((seen[1]?.[1] as { type: string }).type, 'hologram');
  });
});

describe('what goes on the wire', () => {
  test('shutdown is sent without params (not [null]), then exit', async () => {
    const { client, server, notifications, sent } = pair();
    server.onRequest('shutdown', () => null);
    await client.shutdown();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const shutdown = sent()
      .split(/Content-Length: \d+\r\n\r\n/)
      .find((body) => body.includes('"shutdown"'));
    assert.ok(shutdown !== undefined);
    assert.equal(Object.hasOwn(JSON.parse(shutdown) as object, 'params'), false, shutdown);
    assert.deepEqual(notifications, ['exit']);
  });
});
