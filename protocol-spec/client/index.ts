/**
 * The typed client of the Santra protocol: one peer's side of a connection to a Santra server,
 * with every request and answer checked against the method table (`methods.ts`). The TUI, `santra
 * -p` and the editor adapters (`santra acp`, `santra lsp`) are clients through it; a third-party
 * client in TypeScript can be too — it needs this folder, protocol-spec/src and vscode-jsonrpc.
 *
 * What it does, so that no client writes it again: `initialize` then `initialized`, refusing a
 * server of an incompatible version; `request` of any client-to-server method, its result parsed
 * with the method's schema; cancellation through an AbortSignal (`$/cancelRequest`); `phase`
 * notifications parsed; the server's requests (`approve`, `ask`, `fs/*`, `terminal/run`) served
 * with their params checked, a handler's refusal or withdrawal answered with the right error code
 * (§2.4); and the orderly end, `shutdown` then `exit`.
 *
 * What it does not do: start or stop a process, or decide what a failure means to a person. Its
 * errors are typed (ProtocolError and its kinds) so each client words them for its own people.
 */
import type { Readable, Writable } from 'node:stream';
import {
  type CancellationToken,
  CancellationTokenSource,
  createMessageConnection,
  ErrorCodes,
  type MessageConnection,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node';
import {
  type ClientRequestName,
  type InitializeResult,
  isCompatibleVersion,
  JsonRpcErrorCodes,
  SantraErrorCodes,
  methods,
  type ParamsOf,
  Phase,
  type ResultOf,
  type ServerRequestName,
} from '../src/index.ts';

/** The server answered a request with an error (§2.4): its code, message and data. */
export class ProtocolError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

/** The server answered, but not with what the method table says it answers. */
export class InvalidResult extends ProtocolError {
  readonly method: string;

  constructor(method: string, detail: string) {
    super(
      JsonRpcErrorCodes.InternalError,
      `${method}: the server's result does not match the protocol (${detail})`,
    );
    this.method = method;
  }
}

/** The connection broke before the answer came: the server went away, or its pipe did. */
export class ConnectionLost extends ProtocolError {}

/** The server speaks a protocol version this client cannot (§4.3). */
export class IncompatibleVersion extends ProtocolError {
  readonly serverVersion: string;

  constructor(clientVersion: string, serverVersion: string) {
    super(
      SantraErrorCodes.UnsupportedProtocolVersion,
      `the server speaks protocol ${serverVersion}, this client ${clientVersion}`,
    );
    this.serverVersion = serverVersion;
  }
}

/** Thrown by a handler: the person (or the client) would not or could not answer. RequestFailed, with this message. */
export class Declined extends Error {}

/** Thrown by a handler: the question is gone (the server or the person withdrew it). RequestCancelled. */
export class Withdrawn extends Error {}

/** Answers one of the server's requests; `signal` aborts when the server cancels it. */
export type RequestHandler<M extends ServerRequestName> = (
  params: ParamsOf<M>,
  signal: AbortSignal,
) => Promise<ResultOf<M>>;

export interface ProtocolClientOptions {
  /** Each `phase` notification: parsed, or undefined when it does not match the protocol (a newer type). */
  onPhase?: (phase: Phase | undefined, raw: unknown) => void;
  /** A handler failed with something other than Declined or Withdrawn: for the client's log. */
  onHandlerError?: (method: ServerRequestName, error: unknown) => void;
}

const TRANSPORT_ERRORS: ReadonlySet<number> = new Set([
  ErrorCodes.MessageWriteError,
  ErrorCodes.MessageReadError,
  ErrorCodes.PendingResponseRejected,
  ErrorCodes.ConnectionInactive,
]);

export class ProtocolClient {
  readonly #connection: MessageConnection;
  readonly #options: ProtocolClientOptions;

  /** A client over a connection that is not listening yet; it starts listening. */
  constructor(connection: MessageConnection, options: ProtocolClientOptions = {}) {
    this.#connection = connection;
    this.#options = options;
    connection.onNotification('phase', (raw: unknown) => {
      const parsed = Phase.safeParse(raw);
      options.onPhase?.(parsed.success ? parsed.data : undefined, raw);
    });
    // A transport error surfaces as ConnectionLost on the requests it breaks.
    connection.onError(() => {});
    connection.listen();
  }

  /** A client over a server's stdout (`input`) and stdin (`output`), with LSP-style framing (§1). */
  static overStreams(input: Readable, output: Writable, options?: ProtocolClientOptions): ProtocolClient {
    return new ProtocolClient(
      createMessageConnection(new StreamMessageReader(input), new StreamMessageWriter(output)),
      options,
    );
  }

  /**
   * Opens the connection: `initialize`, then `initialized`. Rejects with IncompatibleVersion when
   * the server chose a version this client does not speak, or as `request` does.
   */
  async initialize(params: ParamsOf<'initialize'>): Promise<InitializeResult> {
    const result = await this.request('initialize', params);
    if (!isCompatibleVersion(params.protocolVersion, result.protocolVersion))
      throw new IncompatibleVersion(params.protocolVersion, result.protocolVersion);
    await this.#connection.sendNotification('initialized', {});
    return result;
  }

  /**
   * A request of the method table, its result parsed with the method's schema. `signal` cancels
   * it (`$/cancelRequest`); the server still answers (§3.3). Rejects with ProtocolError (the
   * server's error), InvalidResult or ConnectionLost.
   */
  async request<M extends ClientRequestName>(
    method: M,
    params: ParamsOf<M>,
    signal?: AbortSignal,
  ): Promise<ResultOf<M>> {
    const cancel = signal === undefined ? undefined : new CancellationTokenSource();
    const onAbort = () => cancel?.cancel();
    signal?.addEventListener('abort', onAbort);
    if (signal?.aborted === true) cancel?.cancel();
    let raw: unknown;
    try {
      // A method without params (`shutdown`) is sent without them: vscode-jsonrpc would send [null].
      // It takes a CancellationToken as the last argument.
      const args: unknown[] = [
        ...(params === undefined ? [] : [params]),
        ...(cancel === undefined ? [] : [cancel.token]),
      ];
      raw = await this.#connection.sendRequest(method, ...args);
    } catch (error) {
      throw asProtocolError(error);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      cancel?.dispose();
    }
    const parsed = methods[method].result.safeParse(raw);
    if (!parsed.success) throw new InvalidResult(method, describeIssues(parsed.error.issues, 'result'));
    return parsed.data as ResultOf<M>;
  }

  /**
   * Serves one of the server's requests from now on: params parsed with the method's schema
   * (InvalidParams when they do not match), then `handler`. A handler that throws Withdrawn, or
   * whose request the server cancelled, is answered RequestCancelled; Declined, RequestFailed with
   * its message; anything else, RequestFailed, and `onHandlerError` hears of it.
   */
  serve<M extends ServerRequestName>(method: M, handler: RequestHandler<M>): void {
    this.#connection.onRequest(method, async (raw: unknown, token: CancellationToken) => {
      const params = methods[method].params.safeParse(raw);
      if (!params.success) {
        return new ResponseError(
          JsonRpcErrorCodes.InvalidParams,
          `Invalid params for ${method}: ${describeIssues(params.error.issues, 'params')}`,
          { retryable: false },
        );
      }
      const signal = abortOn(token);
      try {
        return await handler(params.data as ParamsOf<M>, signal);
      } catch (error) {
        if (error instanceof Withdrawn || signal.aborted) {
          return new ResponseError(JsonRpcErrorCodes.RequestCancelled, `${method} was cancelled`, {
            retryable: true,
          });
        }
        if (!(error instanceof Declined)) this.#options.onHandlerError?.(method, error);
        const message = error instanceof Error ? error.message : String(error);
        return new ResponseError(
          JsonRpcErrorCodes.RequestFailed,
          error instanceof Declined ? message : `the client could not answer ${method}: ${message}`,
          { retryable: false },
        );
      }
    });
  }

  /** The orderly end (§3.4): `shutdown`, then `exit`. Rejects as `request` does. */
  async shutdown(): Promise<void> {
    await this.request('shutdown', undefined);
    await this.#connection.sendNotification('exit');
  }

  /** Stops listening and frees the connection; pending requests reject with ConnectionLost. */
  dispose(): void {
    this.#connection.dispose();
  }
}

function asProtocolError(error: unknown): ProtocolError {
  if (error instanceof ResponseError) {
    return TRANSPORT_ERRORS.has(error.code)
      ? new ConnectionLost(error.code, error.message)
      : new ProtocolError(error.code, error.message, error.data);
  }
  return new ConnectionLost(
    JsonRpcErrorCodes.InternalError,
    error instanceof Error ? error.message : String(error),
  );
}

function describeIssues(issues: readonly { path: PropertyKey[]; message: string }[], root: string): string {
  return issues.map((issue) => `${[root, ...issue.path.map(String)].join('.')}: ${issue.message}`).join('; ');
}

function abortOn(token: CancellationToken): AbortSignal {
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort();
  else token.onCancellationRequested(() => controller.abort());
  return controller.signal;
}
