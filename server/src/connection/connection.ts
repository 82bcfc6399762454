/**
 * The one place that speaks JSON-RPC: it wires the transport (the gate of inbound.ts,
 * vscode-jsonrpc, the frame writer) to the lifecycle (lifecycle.ts), the dispatch of requests to
 * the runtime (dispatch.ts) and the requests the server sends (client-requests.ts). Handlers below
 * it receive typed, validated params and an AbortSignal, and know nothing of the wire.
 */

import { createMessageConnection } from 'vscode-jsonrpc/node';
import { errorMessage } from '../support/errno.ts';
import type { Logger } from '../support/log.ts';
import type { Runtime } from '../runtime/contract.ts';
import { ClientRequests, clientChannel } from './client-requests.ts';
import { requestDispatcher } from './dispatch.ts';
import { DEFAULT_FRAMING_LIMITS, type FramingLimits } from './framing.ts';
import { answeringWriter, type ErrorResponse, errorResponse, GatedMessageReader } from './inbound.ts';
import { type ConnectionEnd, ConnectionLifecycle } from './lifecycle.ts';
import { FrameWriter } from './writer.ts';

export type { ConnectionEnd } from './lifecycle.ts';

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

export const EXIT_CODE_FRAMING_ERROR = 3;

export interface ServerConnection {
  /** Resolves once, when the connection has ended and the runtime has shut down. */
  readonly ended: Promise<ConnectionEnd>;
}

export function serve(options: ServeOptions): ServerConnection {
  const { runtime, log, limits } = options;
  // Every frame goes out through this writer: responses (via vscode-jsonrpc), phases, the server's
  // own requests. Awaiting its last write before the process exits means no answer is cut off.
  const writer = new FrameWriter(options.output, limits.maxMessageBytes, log);
  const write = (message: Parameters<FrameWriter['write']>[0]) => writer.write(message);
  const requests = new ClientRequests(write, log);
  const send = (message: ErrorResponse) => {
    write(message).catch((error: unknown) => log.error(`could not write a message: ${errorMessage(error)}`));
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
      void lifecycle.end({ reason: 'framing_error', exitCode: EXIT_CODE_FRAMING_ERROR });
    },
    warn: (message) => log.warn(message),
  });
  const connection = createMessageConnection(reader, answeringWriter(writer, reader), {
    error: (message) => log.error(message),
    warn: (message) => log.warn(message),
    info: (message) => log.debug(message),
    log: (message) => log.debug(message),
  });
  const lifecycle = new ConnectionLifecycle({
    runtime,
    inbound: reader,
    drained: () => writer.drained(),
    closeClientRequests: (reason) => requests.close(reason),
    dispose: () => connection.dispose(),
    log,
    graceMs: options.shutdownGraceMs ?? 3000,
  });
  const client = clientChannel(requests, write, () => lifecycle.state === 'ended', log);

  connection.onRequest(requestDispatcher({ lifecycle, runtime, client, limits, log }));
  connection.onNotification((method) => {
    if (method === 'exit') {
      void lifecycle.exit();
    } else if (method === 'initialized' && lifecycle.state === 'running') {
      log.debug('client sent initialized');
      runtime.initialized?.();
    } else {
      log.debug(`ignored notification ${method} (state ${lifecycle.state})`);
    }
  });
  connection.onClose(() => void lifecycle.inputEnded());
  connection.onError(([error]) => log.warn(`connection error: ${errorMessage(error)}`));
  connection.listen();
  return { ended: lifecycle.ended };
}
