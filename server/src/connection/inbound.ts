/**
 * The gate between stdin and vscode-jsonrpc: strict framing, JSON and envelope checks, and request
 * bookkeeping. Everything vscode-jsonrpc would mishandle is answered here, and only well-formed
 * messages reach the connection:
 * - unparseable JSON → ParseError (id null), and reading goes on;
 * - non-objects, batches, bad ids → InvalidRequest;
 * - an oversized frame → MessageTooLarge, its bytes skipped unread; the answer carries the
 *   request's id when the first bytes of the body show it (`leadingId`), null otherwise;
 * - responses (to the server's `approve` and `ask`) → `onResponse`, never vscode-jsonrpc, which
 *   would keep a cancelled request waiting for them;
 * - a request reusing the id of one still in flight → DuplicateRequestId (vscode-jsonrpc would
 *   silently overwrite the first in its queue);
 * - more requests in flight than allowed → ServerBusy (never `shutdown`, which must always be
 *   able to end a busy connection);
 * - `$/cancelRequest` names the id as the client wrote it in the request (`"2"` cancels request
 *   `2`), since vscode-jsonrpc keys running requests by the raw id;
 * - a header that desynchronises the stream, or announces a body too large even to skip →
 *   `onFatal`, and nothing more is read.
 */

import {
  AbstractMessageReader,
  type DataCallback,
  Disposable,
  type Message,
  type MessageWriter,
} from 'vscode-jsonrpc/node';
import { type ErrorName, errorInfo } from '#protocol';
import {
  classifyMessage,
  isMessageId,
  leadingId,
  type MessageId,
  type ResponseEnvelope,
} from './envelope.ts';
import { FrameParser, type FramingLimits } from './framing.ts';

export interface ErrorResponse {
  jsonrpc: '2.0';
  id: MessageId | null;
  error: { code: number; message: string; data: { retryable: boolean; [key: string]: unknown } };
}

export function errorResponse(
  id: MessageId | null,
  name: ErrorName,
  message: string,
  extra: Record<string, unknown> = {},
): ErrorResponse {
  const info = errorInfo(name);
  return {
    jsonrpc: '2.0',
    id,
    error: { code: info.code, message, data: { retryable: info.retryable, ...extra } },
  };
}

export interface GateOptions extends FramingLimits {
  maxConcurrentRequests: number;
  /** Writes a response the gate produced itself (never counted as answering a tracked request). */
  send(response: ErrorResponse): void;
  /** A response from the client to one of the server's requests. */
  onResponse(response: ResponseEnvelope): void;
  /** The client's response to the server's request `id` was too large to read. */
  onOversizedResponse(id: MessageId, detail: string): void;
  /** The stream cannot be read on; the gate has stopped reading. */
  /** `size`: with `too_large`, the Content-Length that was announced. */
  onFatal(detail: string, reason: 'malformed_header' | 'too_large', size?: number): void;
  warn(message: string): void;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Keys requests as vscode-jsonrpc's queue does, so `1` and `"1"` count as the same id. */
const idKey = (id: MessageId): string => String(id);

export class GatedMessageReader extends AbstractMessageReader {
  readonly #input: NodeJS.ReadableStream;
  readonly #options: GateOptions;
  readonly #parser: FrameParser;
  /** Ids of unanswered client requests, by `idKey`, as the requests carried them. */
  readonly #inFlight = new Map<string, MessageId>();
  #waiters: Array<{ atMost: number; wake: () => void }> = [];
  #closed = false;

  constructor(input: NodeJS.ReadableStream, options: GateOptions) {
    super();
    this.#input = input;
    this.#options = options;
    this.#parser = new FrameParser(options);
  }

  /** Ids of client requests that have not been answered yet. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Called by the writer when a response to a client request goes out. */
  answered(id: MessageId): void {
    this.#inFlight.delete(idKey(id));
    const waiting = this.#waiters;
    this.#waiters = waiting.filter((waiter) => waiter.atMost < this.#inFlight.size);
    for (const waiter of waiting) if (waiter.atMost >= this.#inFlight.size) waiter.wake();
  }

  /** Resolves once at most `atMost` client requests are unanswered. */
  inFlightAtMost(atMost: number): Promise<void> {
    if (this.#inFlight.size <= atMost) return Promise.resolve();
    return new Promise((wake) => this.#waiters.push({ atMost, wake }));
  }

  listen(callback: DataCallback): Disposable {
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      for (const event of this.#parser.push(bytes)) {
        switch (event.type) {
          case 'frame':
            this.#deliver(event.body, callback);
            break;
          case 'skipping':
            this.#options.warn(
              `skipping ${event.detail}, unread; it is answered MessageTooLarge once its first bytes arrive`,
            );
            break;
          case 'rejected':
            if (event.reason === 'too_large')
              this.#rejectTooLarge(event.detail, event.contentLength, event.prefix);
            else
              this.#options.send(errorResponse(null, 'ParseError', `Unreadable message: ${event.detail}.`));
            break;
          case 'fatal':
            this.#stop();
            this.#options.onFatal(event.detail, event.reason, event.contentLength);
            break;
          default: {
            const exhaustive: never = event;
            throw new Error(`unknown frame event ${JSON.stringify(exhaustive)}`);
          }
        }
      }
    };
    const onEnd = () => {
      if (this.#closed) return;
      this.#closed = true;
      if (!this.#parser.idle)
        this.#options.warn('input closed in the middle of a message; the partial message was dropped');
      this.fireClose();
    };
    const onError = (error: Error) => this.fireError(error);
    this.#input.on('data', onData);
    this.#input.on('end', onEnd);
    this.#input.on('close', onEnd);
    this.#input.on('error', onError);
    this.#stop = () => {
      this.#input.off('data', onData);
      if ('pause' in this.#input) this.#input.pause();
    };
    return Disposable.create(() => {
      this.#input.off('data', onData);
      this.#input.off('end', onEnd);
      this.#input.off('close', onEnd);
      this.#input.off('error', onError);
    });
  }

  #stop: () => void = () => {};

  /** Answers an oversized message with the id its first bytes show, if they show one safely. */
  #rejectTooLarge(detail: string, size: number, prefix: Buffer): void {
    const leading = leadingId(prefix);
    if (leading?.kind === 'response') this.#options.onOversizedResponse(leading.id, detail);
    // An id still in flight would make this answer look like the answer to that request.
    const id = leading?.kind === 'request' && !this.#inFlight.has(idKey(leading.id)) ? leading.id : null;
    this.#options.send(
      errorResponse(id, 'MessageTooLarge', `Message too large: ${detail}. It was skipped unread.`, {
        limit: this.#options.maxMessageBytes,
        size,
      }),
    );
  }

  #deliver(body: Buffer, callback: DataCallback): void {
    let value: unknown;
    try {
      value = JSON.parse(utf8.decode(body));
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      this.#options.send(
        errorResponse(null, 'ParseError', `Parse error: the message body is not valid JSON (${detail}).`),
      );
      return;
    }
    const envelope = classifyMessage(value);
    switch (envelope.kind) {
      case 'invalid':
        if (envelope.answer) {
          this.#options.send(
            errorResponse(envelope.id, 'InvalidRequest', `Invalid request: ${envelope.reason}.`),
          );
        } else {
          this.#options.warn(`ignored an invalid notification: ${envelope.reason}`);
        }
        return;
      case 'request': {
        const { id } = envelope.message;
        if (this.#inFlight.has(idKey(id))) {
          this.#options.send(
            errorResponse(
              id,
              'DuplicateRequestId',
              `Request id ${JSON.stringify(id)} is already in use by a request that has not been answered yet; send this request again with a fresh id.`,
            ),
          );
          return;
        }
        // `shutdown` is never refused: it is how a client ends a connection that is busy.
        if (
          envelope.message.method !== 'shutdown' &&
          this.#inFlight.size >= this.#options.maxConcurrentRequests
        ) {
          this.#options.send(
            errorResponse(
              id,
              'ServerBusy',
              `Server busy: ${this.#inFlight.size} requests are in flight (limit ${this.#options.maxConcurrentRequests}); retry when one has been answered.`,
              { limit: this.#options.maxConcurrentRequests },
            ),
          );
          return;
        }
        this.#inFlight.set(idKey(id), id);
        callback(envelope.message);
        return;
      }
      case 'notification': {
        const { method, params } = envelope.message;
        // vscode-jsonrpc reads `params.id` of a cancel notification unguarded.
        if (method === '$/cancelRequest' && !isMessageId((params as { id?: unknown } | undefined)?.id)) {
          this.#options.warn('ignored $/cancelRequest without a valid "id" (an integer or a string)');
          return;
        }
        if (method === '$/cancelRequest') {
          // vscode-jsonrpc finds the request by its raw id; `1` and `"1"` are the same id (§2.3).
          const cancelId = (params as { id: MessageId }).id;
          const asSent = this.#inFlight.get(idKey(cancelId));
          if (asSent !== undefined && asSent !== cancelId) {
            callback({ ...envelope.message, params: { ...(params as object), id: asSent } } as Message);
            return;
          }
        }
        callback(envelope.message);
        return;
      }
      case 'response':
        this.#options.onResponse(envelope.message);
        return;
      default: {
        const exhaustive: never = envelope;
        throw new Error(`unknown envelope ${JSON.stringify(exhaustive)}`);
      }
    }
  }
}

/** Wraps the stream writer so that every response to a client request releases its id in the gate. */
export function answeringWriter(inner: MessageWriter, gate: GatedMessageReader): MessageWriter {
  return {
    onError: inner.onError,
    onClose: inner.onClose,
    end: () => inner.end(),
    dispose: () => inner.dispose(),
    write(message: Message): Promise<void> {
      const m = message as { id?: unknown; method?: unknown };
      if (m.method === undefined && isMessageId(m.id)) gate.answered(m.id);
      return inner.write(message);
    },
  };
}
