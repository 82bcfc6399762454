/**
 * The HTTP plumbing of the fake providers: a node:http server on 127.0.0.1 that records every
 * request, picks the scripted turn it matches, and sends that turn through the API's dialect with
 * the turn's timing and fault. Nothing here knows a wire format.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { anthropicDialect } from './anthropic-sse.ts';
import { type Dialect, recordedEvents } from './dialect.ts';
import { pause, readBody, sendJson, SseWriter } from './http-io.ts';
import { openaiDialect } from './openai-sse.ts';
import { summarizeRequest } from './request-helpers.ts';
import { responsesDialect } from './responses-sse.ts';
import { planTurn, type WireEvent } from './turn-plan.ts';
import type { FakeApi, FakeFault, FakeProvider, FakeTurn, RecordedRequest } from './types.ts';

const DIALECTS: Record<FakeApi, Dialect> = {
  anthropic: anthropicDialect,
  openai: openaiDialect,
  'openai-responses': responsesDialect,
};

/** Headers that stop the SDKs from retrying an answer that no retry can change. */
const DO_NOT_RETRY = { 'x-should-retry': 'false' };

type StreamFault = Exclude<FakeFault, { kind: 'http_error' }>;

class FakeProviderServer implements FakeProvider {
  readonly api: FakeApi;
  readonly requests: RecordedRequest[] = [];
  readonly #dialect: Dialect;
  readonly #queue: { turn: FakeTurn; served: boolean }[] = [];
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #closing = new AbortController();
  #closed: Promise<void> | undefined;
  #url = '';
  #ordinal = 0;

  constructor(dialect: Dialect, turns: FakeTurn[]) {
    this.api = dialect.api;
    this.#dialect = dialect;
    this.push(...turns);
    this.#server = createServer((req, res) => {
      this.#answer(req, res).catch((error: unknown) => {
        if (res.headersSent) res.destroy();
        else
          sendJson(res, 500, this.#dialect.errorBody(500, `fake provider: internal error: ${String(error)}`));
      });
    });
    this.#server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
  }

  get url(): string {
    return this.#url;
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(0, '127.0.0.1', () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    const { port } = this.#server.address() as AddressInfo;
    this.#url = `http://127.0.0.1:${port}${this.#dialect.baseSuffix}`;
  }

  push(...turns: FakeTurn[]): void {
    for (const turn of turns) this.#queue.push({ turn, served: false });
  }

  pending(): number {
    return this.#queue.filter((entry) => !entry.served).length;
  }

  close(): Promise<void> {
    this.#closed ??= new Promise<void>((resolve) => {
      this.#closing.abort();
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
      for (const socket of this.#sockets) socket.destroy();
    });
    return this.#closed;
  }

  /** The first unserved (or repeating) turn that accepts `request`, marked served. */
  #take(request: RecordedRequest): FakeTurn | undefined {
    const index = this.#queue.findIndex(
      (entry) => (!entry.served || entry.turn.repeat === true) && (entry.turn.match?.(request) ?? true),
    );
    const entry = this.#queue[index];
    if (entry === undefined) return undefined;
    entry.served = true;
    if (entry.turn.repeat !== true) this.#queue.splice(index, 1);
    return entry.turn;
  }

  async #answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    let body: unknown = raw;
    let isJson = true;
    try {
      body = JSON.parse(raw);
    } catch {
      isJson = false;
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([name, value]) => [
        name,
        Array.isArray(value) ? value.join(', ') : (value ?? ''),
      ]),
    );
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const request: RecordedRequest = {
      method: req.method ?? 'GET',
      path,
      headers,
      body,
      receivedAt: Date.now(),
    };
    this.requests.push(request);

    const dialect = this.#dialect;
    if (request.method !== 'POST' || !dialect.paths.includes(path)) {
      const served = dialect.paths.map((p) => `POST ${p}`).join(' and ');
      const message = `fake provider: nothing is served at ${request.method} ${path}; the ${this.api} fake answers ${served}`;
      return sendJson(res, 404, dialect.errorBody(404, message), DO_NOT_RETRY);
    }
    if (!isJson) {
      const message = `fake provider: the request body is not JSON: ${JSON.stringify(raw.slice(0, 80))}`;
      return sendJson(res, 400, dialect.errorBody(400, message), DO_NOT_RETRY);
    }
    let turn: FakeTurn | undefined;
    try {
      turn = this.#take(request);
    } catch (error) {
      const message = `fake provider: a scripted turn's match() threw on ${summarizeRequest(request)}: ${String(error)}`;
      return sendJson(res, 500, dialect.errorBody(500, message), DO_NOT_RETRY);
    }
    if (turn === undefined) {
      const message =
        `fake provider: no scripted turn for this request (${summarizeRequest(request)}); ` +
        `${this.pending()} turns pending, none matched. Script one with push() or fix its match().`;
      return sendJson(res, 500, dialect.errorBody(500, message), DO_NOT_RETRY);
    }
    await this.#serve(turn, request, res);
  }

  async #serve(turn: FakeTurn, request: RecordedRequest, res: ServerResponse): Promise<void> {
    const ordinal = ++this.#ordinal;
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    const signal = AbortSignal.any([gone.signal, this.#closing.signal]);
    if (turn.firstByteDelayMs !== undefined && !(await pause(turn.firstByteDelayMs, signal))) return;

    const headers = this.#dialect.responseHeaders({ ordinal });
    const fault = turn.fault;
    if (fault?.kind === 'http_error') {
      const body = this.#dialect.errorBody(fault.status, fault.message, fault.errorType, fault.code);
      return sendJson(res, fault.status, body, { ...headers, ...fault.headers });
    }
    const streaming = (request.body as { stream?: unknown }).stream === true;
    if (turn.recorded !== undefined) {
      if (streaming) return this.#stream(turn, fault, recordedEvents(turn.recorded), res, headers, signal);
      const message =
        'fake provider: this turn is a recorded SSE body, and recorded turns only answer streaming ' +
        `requests; this one is not streaming (${summarizeRequest(request)}). Send stream: true or script the turn's fields.`;
      return sendJson(res, 500, this.#dialect.errorBody(500, message), { ...headers, ...DO_NOT_RETRY });
    }
    const plan = planTurn(turn, request, ordinal, this.#dialect.toolIdPrefix);
    if (streaming)
      await this.#stream(turn, fault, this.#dialect.streamEvents(plan, request), res, headers, signal);
    else this.#json(fault, this.#dialect.message(plan, request), res, headers);
  }

  /** Sends `events` as the 200 SSE answer, with the turn's timing and its fault in place. */
  async #stream(
    turn: FakeTurn,
    fault: StreamFault | undefined,
    events: Iterable<WireEvent>,
    res: ServerResponse,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<void> {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      ...headers,
    });
    res.flushHeaders();
    const writer = new SseWriter(res, signal);
    const tokensPerSecond = turn.generate?.tokensPerSecond ?? 0;
    let sent = 0;
    let paced = 0;
    let pacingStart = 0;
    for (const event of events) {
      if (signal.aborted) return;
      if (fault !== undefined && sent === fault.afterEvents)
        return this.#streamFault(fault, sent, writer, res);
      if (turn.chunkDelayMs !== undefined && sent > 0) {
        await writer.flush();
        if (!(await pause(turn.chunkDelayMs, signal))) return;
      }
      if (event.paced && tokensPerSecond > 0) {
        // Pace against a schedule rather than sleeping per token, so timer granularity does not
        // lower the rate: only sleep when at least a millisecond ahead of it.
        if (paced === 0) pacingStart = performance.now();
        const ahead = pacingStart + (paced++ * 1000) / tokensPerSecond - performance.now();
        if (ahead >= 1) {
          await writer.flush();
          if (!(await pause(ahead, signal))) return;
        }
      }
      writer.write(event.data);
      sent++;
      if (writer.full) await writer.flush();
    }
    // A fault placed at or past the end still happens, after the last event.
    if (fault !== undefined) return this.#streamFault(fault, sent, writer, res);
    await writer.flush();
    res.end();
  }

  /** Ends a stream with `fault`, after `sent` events. */
  async #streamFault(
    fault: StreamFault,
    sent: number,
    writer: SseWriter,
    res: ServerResponse,
  ): Promise<void> {
    await writer.flush();
    switch (fault.kind) {
      case 'drop':
        res.destroy();
        return;
      case 'malformed':
        writer.write(this.#dialect.malformedEvent());
        break;
      case 'error_event':
        writer.write(this.#dialect.errorEvent(fault.errorType, fault.message, sent));
        break;
      case 'truncate':
        break;
      case 'stall':
        // The socket stays open until the client gives up or close() destroys it.
        return;
      default: {
        const exhaustive: never = fault;
        throw new Error(`unknown fault ${JSON.stringify(exhaustive)}`);
      }
    }
    await writer.flush();
    res.end();
  }

  #json(
    fault: StreamFault | undefined,
    message: unknown,
    res: ServerResponse,
    headers: Record<string, string>,
  ): void {
    if (fault?.kind === 'error_event') {
      const status = this.#dialect.statusForErrorType(fault.errorType);
      return sendJson(res, status, this.#dialect.errorBody(status, fault.message, fault.errorType), headers);
    }
    if (fault === undefined) return sendJson(res, 200, message, headers);
    const text = JSON.stringify(message);
    const half = text.slice(0, Math.floor(text.length / 2));
    const jsonHeaders = { 'content-type': 'application/json', ...headers };
    switch (fault.kind) {
      case 'stall':
        res.writeHead(200, { ...jsonHeaders, 'content-length': Buffer.byteLength(text) });
        res.flushHeaders();
        return;
      case 'drop':
        res.writeHead(200, { ...jsonHeaders, 'content-length': Buffer.byteLength(text) });
        res.write(half, () => res.destroy());
        return;
      case 'malformed':
      case 'truncate':
        res.writeHead(200, { ...jsonHeaders, 'content-length': Buffer.byteLength(half) });
        res.end(half);
        return;
      default: {
        const exhaustive: never = fault;
        throw new Error(`unknown fault ${JSON.stringify(exhaustive)}`);
      }
    }
  }
}

/**
 * Starts a fake `api` provider on 127.0.0.1 (a free port) serving `turns`, in order or by their
 * `match`. A request no turn accepts gets HTTP 500 whose message starts "fake provider: no
 * scripted turn for this request" and summarises the request. Close it with `close()`.
 */
export async function startFakeProvider(api: FakeApi, turns: FakeTurn[] = []): Promise<FakeProvider> {
  const dialect = DIALECTS[api] as Dialect | undefined;
  if (dialect === undefined) {
    throw new Error(
      `startFakeProvider: unknown api ${JSON.stringify(api)}; use one of ${Object.keys(DIALECTS)
        .map((name) => `'${name}'`)
        .join(', ')}`,
    );
  }
  const provider = new FakeProviderServer(dialect, turns);
  await provider.listen();
  return provider;
}
