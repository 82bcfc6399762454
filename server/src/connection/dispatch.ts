/**
 * From a client's request to the runtime's handler: the lifecycle's gates (initialize first, once;
 * nothing but `exit` after shutdown), the method table's params, a cancellable signal per request,
 * and faults turned into the error responses of §5.
 */

import { type CancellationToken, ResponseError } from 'vscode-jsonrpc/node';
import {
  errorInfo,
  type InitializeResult,
  isMethodName,
  type MethodName,
  methods,
  PROTOCOL_VERSION,
  type ServerCapabilities,
} from '#protocol';
import { errorMessage } from '../support/errno.ts';
import type { Logger } from '../support/log.ts';
import { ProtocolFault } from '../support/protocol-fault.ts';
import type { ClientChannel, Runtime, RuntimeRequestName } from '../runtime/contract.ts';
import type { ConnectionLifecycle } from './lifecycle.ts';
import { parseParams } from './params.ts';
import { negotiateVersion } from './version-negotiation.ts';

/** The methods the connection answers itself, whatever the runtime handles. */
const LIFECYCLE_METHODS: readonly MethodName[] = [
  'initialize',
  'initialized',
  'shutdown',
  'exit',
  '$/cancelRequest',
];

export interface DispatchParts {
  lifecycle: ConnectionLifecycle;
  runtime: Runtime;
  client: ClientChannel;
  /** The limits `initialize` advertises. */
  limits: { maxMessageBytes: number; maxConcurrentRequests: number };
  log: Logger;
}

export type Dispatch = (method: string, params: unknown, token: CancellationToken) => Promise<unknown>;

/** Answers each request with its result, or with the error response its fault maps to. */
export function requestDispatcher(parts: DispatchParts): Dispatch {
  const { lifecycle, runtime, log } = parts;

  async function dispatch(method: string, params: unknown, token: CancellationToken): Promise<unknown> {
    if (lifecycle.state === 'shut_down' || lifecycle.state === 'ended') {
      throw new ProtocolFault(
        'InvalidRequest',
        `${method} was sent after shutdown; only the exit notification is accepted now.`,
      );
    }
    if (method === 'initialize') return initialize(parts, params);
    if (lifecycle.state !== 'running') {
      throw new ProtocolFault(
        'ServerNotInitialized',
        `${method} was sent before initialize completed; send initialize first.`,
      );
    }
    if (method === 'shutdown') return lifecycle.shutdown();
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
    if (lifecycle.inputClosed)
      throw new ProtocolFault('RequestCancelled', `${method} was cancelled: the client closed its input.`);
    const controller = new AbortController();
    const run = lifecycle.started(controller);
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
      run.release();
    }
  }

  return async (method, params, token) => {
    try {
      return await dispatch(method, params, token);
    } catch (error) {
      return toResponseError(error, method, log);
    }
  };
}

async function initialize(parts: DispatchParts, params: unknown): Promise<InitializeResult> {
  const { lifecycle, runtime, client, limits, log } = parts;
  if (lifecycle.state !== 'awaiting_initialize') {
    throw new ProtocolFault(
      'InvalidRequest',
      'initialize was already sent on this connection; it may be sent once.',
    );
  }
  const parsed = parseParams('initialize', methods.initialize.params, params);
  const protocolVersion = negotiateVersion(parsed.protocolVersion);
  lifecycle.state = 'initializing';
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
    if (lifecycle.state === 'initializing') lifecycle.state = 'running';
    log.info(
      `initialized for ${parsed.clientInfo.name} in ${parsed.workspaceRoot} (protocol ${protocolVersion})`,
    );
    return { protocolVersion, serverInfo: runtime.serverInfo, capabilities };
  } catch (error) {
    if (lifecycle.state === 'initializing') lifecycle.state = 'awaiting_initialize';
    throw error;
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
    `Internal error in ${method}: ${errorMessage(error)}. The server keeps running; see its log for details.`,
    { retryable: info.retryable },
  );
}
