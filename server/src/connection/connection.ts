/**
 * The one place that speaks JSON-RPC. It owns the transport (the gate, vscode-jsonrpc), the LSP
 * lifecycle (initialize → initialized … shutdown → exit), params validation against the method
 * table, and the mapping of faults to error responses. Handlers below it receive typed, validated
 * params and an AbortSignal, and know nothing of the wire.
 */

import {
  type CancellationToken,
  createMessageConnection,
  type Message,
  ResponseError,
} from 'vscode-jsonrpc/node';
import type * as z from 'zod';
import {
  ApproveResult,
  AskResult,
  FsReadTextFileResult,
  FsWriteTextFileResult,
  errorInfo,
  type InitializeResult,
  isMethodName,
  type MethodName,
  methods,
  type Phase,
  PROTOCOL_VERSION,
  type ServerCapabilities,
  TerminalRunResult,
} from '#protocol';
import type { Logger } from '../support/log.ts';
import { ProtocolFault } from '../support/protocol-fault.ts';
import type { ClientChannel, Runtime, RuntimeRequestName } from '../runtime/contract.ts';
import { ClientRequests } from './client-requests.ts';
import { DEFAULT_FRAMING_LIMITS, type FramingLimits } from './framing.ts';
import { answeringWriter, type ErrorResponse, errorResponse, GatedMessageReader } from './inbound.ts';
import { parseParams } from './params.ts';
import { negotiateVersion } from './version-negotiation.ts';
import { FrameWriter } from './writer.ts';

export interface ConnectionLimits extends Omit<FramingLimits, 'maxSkipBytes'> {
  maxConcurrentRequests: number;
  /** Oversized bodies up to this size are skipped; a larger Content-Length ends the connection. */
  maxSkipBytes?: number;
}

export interface ServeOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  runtime: Runtime;
  limits: ConnectionLimits;
  log: Logger;
  /**
   * How long `shutdown` and a closed input wait for running requests to be answered, and then for
   * the runtime to finish saving, in ms (each).
   */
  shutdownGraceMs?: number;
}

/** Why the connection ended, and the process exit code that goes with it. */
export interface ConnectionEnd {
  reason: 'exit' | 'input_closed' | 'framing_error';
  /** 0 after `shutdown`; 1 without it; 3 when the framing could not be trusted. */
  exitCode: 0 | 1 | 3;
}

export const EXIT_CODE_FRAMING_ERROR = 3;

type LifecycleState = 'awaiting_initialize' | 'initializing' | 'running' | 'shut_down' | 'ended';

const LIFECYCLE_METHODS: readonly MethodName[] = [
  'initialize',
  'initialized',
  'shutdown',
  'exit',
  '$/cancelRequest',
];

export interface ServerConnection {
  /** Resolves once, when the connection has ended and the runtime has shut down. */
  readonly ended: Promise<ConnectionEnd>;
}

export function serve(options: ServeOptions): ServerConnection {
  const { runtime, log, limits } = options;
  const grace = options.shutdownGraceMs ?? 3000;
  // Every frame goes out through this writer: responses (via vscode-jsonrpc), phases, the server's
  // own requests. Awaiting its last write before the process exits means no answer is cut off.
  const writer = new FrameWriter(options.output, limits.maxMessageBytes, log);
  const requests = new ClientRequests((message) => writer.write(message), log);
  const send = (message: ErrorResponse) => {
    writer
      .write(message)
      .catch((error: unknown) => log.error(`could not write a message: ${describe(error)}`));
  };
  const reader = new GatedMessageReader(options.input, {
    ...limits,
    maxSkipBytes: limits.maxSkipBytes ?? DEFAULT_FRAMING_LIMITS.maxSkipBytes,
    send,
    onResponse: (response) => requests.settle(response),
    onOversizedResponse: (id, detail) => {
      if (requests.failAnswer(id, detail))
        log.warn(`the client's answer to request ${id} was skipped: ${detail}`);
    },
    onFatal: (detail, reason, size) => {
      log.error(
        `framing error: ${detail}; ${reason === 'too_large' ? 'the server will not wait for that many bytes' : 'the message stream cannot be resynchronised'}, closing (exit code ${EXIT_CODE_FRAMING_ERROR})`,
      );
      send(
        errorResponse(
          null,
          reason === 'too_large' ? 'MessageTooLarge' : 'ParseError',
          `Framing error: ${detail}. The server is closing the connection.`,
          // As for a skipped message: the limit a message must stay under, and what was announced
          // (a length too long for a number is reported as the largest exact one).
          reason === 'too_large' && size !== undefined
            ? { limit: limits.maxMessageBytes, size: Math.min(size, Number.MAX_SAFE_INTEGER) }
            : {},
        ),
      );
      void end({ reason: 'framing_error', exitCode: EXIT_CODE_FRAMING_ERROR });
    },
    warn: (message) => log.warn(message),
  });
  const connection = createMessageConnection(reader, answeringWriter(writer, reader), {
    error: (message) => log.error(message),
    warn: (message) => log.warn(message),
    info: (message) => log.debug(message),
    log: (message) => log.debug(message),
  });

  let state: LifecycleState = 'awaiting_initialize';
  /** Set when stdin has ended: requests already received are still answered, all cancelled. */
  let inputClosed = false;
  const running = new Set<AbortController>();
  let runtimeStopped: Promise<void> | undefined;
  let resolveEnded: (end: ConnectionEnd) => void = () => {};
  const ended = new Promise<ConnectionEnd>((resolve) => {
    resolveEnded = resolve;
  });

  function abortRunning(reason: string): void {
    for (const controller of running) controller.abort(new Error(reason));
  }

  /**
   * Resolves once at most `atMost` client requests are unanswered, or after the grace period.
   * Cancelled runs answer within a second (§6.2); the grace period only bounds a stuck handler.
   */
  async function answered(atMost: number, occasion: string): Promise<void> {
    await withTimeout(reader.inFlightAtMost(atMost), grace).catch(() =>
      log.warn(`${reader.inFlight - atMost} request(s) still unanswered ${grace} ms after ${occasion}`),
    );
  }

  /** Aborts all running requests and lets the runtime save its state, at most once and within the grace period. */
  function stopRuntime(): Promise<void> {
    if (runtimeStopped === undefined) {
      abortRunning('server shutting down');
      runtimeStopped = withTimeout(runtime.shutdown(), grace).catch((error: unknown) => {
        log.error(`runtime shutdown failed: ${describe(error)}`);
      });
    }
    return runtimeStopped;
  }

  async function end(result: ConnectionEnd): Promise<void> {
    if (state === 'ended') return;
    state = 'ended';
    await stopRuntime();
    await withTimeout(writer.drained(), grace).catch(() => log.warn('output did not drain before exit'));
    requests.close('the connection has ended');
    connection.dispose();
    resolveEnded(result);
  }

  /**
   * End of input: the requests already received are still answered — each cancelled, since no
   * answer to an `approve` can arrive any more — before the connection ends (§3.5).
   */
  async function inputEnded(): Promise<void> {
    if (inputClosed || state === 'ended') return;
    inputClosed = true;
    abortRunning('the client closed its input');
    requests.close('the client closed its input, so no answer can arrive');
    await answered(0, 'the input closed');
    await end({ reason: 'input_closed', exitCode: state === 'shut_down' ? 0 : 1 });
  }

  const client: ClientChannel = {
    phase: (params: Phase) => {
      if (state === 'ended') return;
      writer
        .write({ jsonrpc: '2.0', method: 'phase', params } as Message)
        .catch((error: unknown) => log.warn(`phase not sent: ${describe(error)}`));
    },
    approve: (params, signal) => clientRequest('approve', params, ApproveResult, signal),
    ask: (params, signal) => clientRequest('ask', params, AskResult, signal),
    readTextFile: (params, signal) => clientRequest('fs/readTextFile', params, FsReadTextFileResult, signal),
    writeTextFile: (params, signal) =>
      clientRequest('fs/writeTextFile', params, FsWriteTextFileResult, signal),
    runTerminal: (params, signal) => clientRequest('terminal/run', params, TerminalRunResult, signal),
  };

  async function clientRequest<T extends z.ZodType>(
    method: MethodName,
    params: unknown,
    schema: T,
    signal: AbortSignal,
  ): Promise<z.output<T>> {
    const result = await requests.send(method, params, signal);
    // An answer that raced the cancellation changes nothing.
    signal.throwIfAborted();
    const parsed = schema.safeParse(result);
    if (!parsed.success) {
      throw new Error(
        `the client answered ${method} with an invalid result: ${parsed.error.issues.map((i) => i.message).join('; ')}`,
      );
    }
    return parsed.data;
  }

  async function initialize(params: unknown): Promise<InitializeResult> {
    if (state !== 'awaiting_initialize') {
      throw new ProtocolFault(
        'InvalidRequest',
        'initialize was already sent on this connection; it may be sent once.',
      );
    }
    const parsed = parseParams('initialize', methods.initialize.params, params);
    const protocolVersion = negotiateVersion(parsed.protocolVersion);
    state = 'initializing';
    try {
      const fromRuntime = await runtime.initialize(parsed, client);
      const capabilities: ServerCapabilities = {
        methods: [...LIFECYCLE_METHODS, ...(Object.keys(runtime.handlers) as MethodName[]), ...runtime.sends],
        ...fromRuntime,
        limits: {
          maxMessageBytes: limits.maxMessageBytes,
          maxConcurrentRequests: limits.maxConcurrentRequests,
        },
      };
      if (state === 'initializing') state = 'running';
      log.info(
        `initialized for ${parsed.clientInfo.name} in ${parsed.workspaceRoot} (protocol ${protocolVersion})`,
      );
      return { protocolVersion, serverInfo: runtime.serverInfo, capabilities };
    } catch (error) {
      if (state === 'initializing') state = 'awaiting_initialize';
      throw error;
    }
  }

  /** Cancels what runs, lets every other request be answered first (§3.3), then saves. */
  async function shutdown(): Promise<null> {
    state = 'shut_down';
    abortRunning('server shutting down');
    await answered(1, 'shutdown');
    await stopRuntime();
    return null;
  }

  async function dispatch(method: string, params: unknown, token: CancellationToken): Promise<unknown> {
    if (state === 'shut_down' || state === 'ended') {
      throw new ProtocolFault(
        'InvalidRequest',
        `${method} was sent after shutdown; only the exit notification is accepted now.`,
      );
    }
    if (method === 'initialize') return initialize(params);
    if (state !== 'running') {
      throw new ProtocolFault(
        'ServerNotInitialized',
        `${method} was sent before initialize completed; send initialize first.`,
      );
    }
    if (method === 'shutdown') return shutdown();
    const handled = handledRequest(method);
    const handler = runtime.handlers[handled] as
      ((params: unknown, context: { signal: AbortSignal }) => Promise<unknown>) | undefined;
    if (handler === undefined) {
      throw new ProtocolFault(
        'MethodNotFound',
        `${method} is part of protocol ${PROTOCOL_VERSION} but this server does not implement it yet; see initialize's capabilities.methods.`,
      );
    }
    const value = parseParams(method, methods[handled].params, params);
    // Received before the input closed but not started: cancelled without starting, since a
    // handler handed an already-aborted signal might not look at it before doing its work.
    if (inputClosed)
      throw new ProtocolFault('RequestCancelled', `${method} was cancelled: the client closed its input.`);
    const controller = new AbortController();
    running.add(controller);
    const subscription = token.onCancellationRequested(() =>
      controller.abort(new Error(`${method} cancelled`)),
    );
    if (token.isCancellationRequested) controller.abort(new Error(`${method} cancelled`));
    try {
      return await handler(value, { signal: controller.signal });
    } catch (error) {
      if (error instanceof ProtocolFault || !controller.signal.aborted) throw error;
      throw new ProtocolFault('RequestCancelled', `${method} was cancelled.`);
    } finally {
      subscription.dispose();
      running.delete(controller);
    }
  }

  /** Narrows a method name to a client-to-server request the runtime may handle, or throws MethodNotFound. */
  function handledRequest(method: string): RuntimeRequestName {
    if (!isMethodName(method)) {
      throw new ProtocolFault(
        'MethodNotFound',
        `Unknown method ${method}; initialize lists the methods this server handles.`,
      );
    }
    const spec = methods[method];
    if (spec.kind !== 'request' || spec.direction === 'server_to_client') {
      throw new ProtocolFault(
        'MethodNotFound',
        `${method} is a ${spec.direction.replaceAll('_', '-')} ${spec.kind}, not a request a client may send.`,
      );
    }
    return method as RuntimeRequestName;
  }

  connection.onRequest(async (method, params, token) => {
    try {
      return await dispatch(method, params, token);
    } catch (error) {
      return toResponseError(error, method, log);
    }
  });

  connection.onNotification((method) => {
    if (method === 'exit') {
      void end({ reason: 'exit', exitCode: state === 'shut_down' ? 0 : 1 });
    } else if (method === 'initialized' && state === 'running') {
      log.debug('client sent initialized');
    } else {
      log.debug(`ignored notification ${method} (state ${state})`);
    }
  });

  connection.onClose(() => void inputEnded());
  connection.onError(([error]) => log.warn(`connection error: ${describe(error)}`));
  connection.listen();
  return { ended };
}

function toResponseError(error: unknown, method: string, log: Logger): ResponseError<unknown> {
  if (error instanceof ProtocolFault) {
    const info = errorInfo(error.errorName);
    return new ResponseError(info.code, error.message, { retryable: info.retryable, ...error.data });
  }
  log.error(
    `internal error in ${method}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  const info = errorInfo('InternalError');
  return new ResponseError(
    info.code,
    `Internal error in ${method}: ${describe(error)}. The server keeps running; see its log for details.`,
    {
      retryable: info.retryable,
    },
  );
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not finish within ${ms} ms`)), ms);
    timer.unref();
    promise.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
