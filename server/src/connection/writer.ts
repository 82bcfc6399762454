/**
 * The one writer of stdout frames. It serialises each message once, frames it, and keeps the
 * promise of the latest write so the connection can flush before the process exits.
 *
 * It is also the last guard of `capabilities.limits.maxMessageBytes` on the way out: a client may
 * refuse anything larger, so nothing larger is ever sent. Outputs are meant to be truncated long
 * before they get here; if one is not, that is a server bug, and the guard turns it into something
 * the client can still read: a response becomes an InternalError with the same id, a request
 * (`approve`, `ask`) fails on the server's side, a notification is dropped. Each is logged.
 */

import { AbstractMessageWriter, type Message, type MessageWriter } from 'vscode-jsonrpc/node';
import type { Logger } from '../support/log.ts';
import { isMessageId } from './envelope.ts';
import { errorResponse } from './inbound.ts';

const CRLF = '\r\n';

export class FrameWriter extends AbstractMessageWriter implements MessageWriter {
  readonly #output: NodeJS.WritableStream;
  readonly #maxMessageBytes: number;
  readonly #log: Logger;
  #lastWrite: Promise<void> = Promise.resolve();
  #errors = 0;

  constructor(output: NodeJS.WritableStream, maxMessageBytes: number, log: Logger) {
    super();
    this.#output = output;
    this.#maxMessageBytes = maxMessageBytes;
    this.#log = log;
    output.on('error', (error: Error) => this.fireError(error, undefined, ++this.#errors));
    output.on('close', () => this.fireClose());
  }

  /** Settles once every write so far has been handed to the output (or has failed). */
  drained(): Promise<void> {
    return this.#lastWrite;
  }

  write(message: Message): Promise<void> {
    const body = this.#fitting(message);
    if (body === undefined) return Promise.resolve();
    if (typeof body !== 'string') return Promise.reject(body);
    const frame = Buffer.from(
      `Content-Length: ${Buffer.byteLength(body, 'utf8')}${CRLF}${CRLF}${body}`,
      'utf8',
    );
    // Writes reach the stream in call order, so the latest one settles after every earlier one.
    const written = new Promise<void>((resolve, reject) => {
      this.#output.write(frame, (error?: Error | null) => {
        if (error === undefined || error === null) resolve();
        else reject(error);
      });
    });
    this.#lastWrite = written.catch(() => {});
    return written;
  }

  end(): void {
    this.#output.end();
  }

  /**
   * The body to send for `message`: its JSON if it fits, else the guard's replacement; undefined
   * when nothing is to be sent, an Error when the send must fail.
   */
  #fitting(message: Message): string | Error | undefined {
    const body = JSON.stringify(message);
    const size = Buffer.byteLength(body, 'utf8');
    if (size <= this.#maxMessageBytes) return body;
    const m = message as { id?: unknown; method?: unknown };
    const what =
      typeof m.method === 'string'
        ? `${m.method} ${isMessageId(m.id) ? 'request' : 'notification'}`
        : `response to ${JSON.stringify(m.id)}`;
    const excess = `a ${what} of ${size} bytes exceeds maxMessageBytes (${this.#maxMessageBytes})`;
    if (typeof m.method === 'string') {
      if (isMessageId(m.id)) {
        this.#log.error(`not sent: ${excess}; the request fails on the server's side`);
        return new Error(`${size} bytes is over maxMessageBytes (${this.#maxMessageBytes})`);
      }
      this.#log.error(`dropped: ${excess}`);
      return undefined;
    }
    this.#log.error(`replaced by InternalError: ${excess}`);
    return JSON.stringify(
      errorResponse(
        isMessageId(m.id) ? m.id : null,
        'InternalError',
        `Internal error: the response was ${size} bytes, over this server's maxMessageBytes (${this.#maxMessageBytes}), so it was not sent. This is a bug in the server; see its log.`,
        { limit: this.#maxMessageBytes, size },
      ),
    );
  }
}
