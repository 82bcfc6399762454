/**
 * Strict LSP base-protocol framing (`Content-Length: N\r\n\r\n<N bytes>`), as a pure byte parser.
 *
 * vscode-jsonrpc's own reader buffers a frame of any size and, on a malformed header, either
 * throws inside its data handler or reads on from a desynchronised position. This parser instead:
 * - rejects a frame larger than `maxMessageBytes` before buffering it, discarding exactly its
 *   bytes so the stream stays in sync (the caller answers MessageTooLarge);
 * - treats any header it cannot trust (no Content-Length, `2abc`, `-1`, a line that is not
 *   `Name: value`, an endless header section) as fatal, because after it no frame boundary can
 *   be found again. The caller closes the connection with a distinct exit code.
 */

export interface FramingLimits {
  /** Largest body accepted, in bytes. */
  maxMessageBytes: number;
  /** Largest header section (everything before the blank line), in bytes. */
  maxHeaderBytes: number;
}

export const DEFAULT_FRAMING_LIMITS: FramingLimits = {
  maxMessageBytes: 16 * 1024 * 1024,
  maxHeaderBytes: 8 * 1024,
};

export type FrameEvent =
  /** A complete frame body. */
  | { type: 'frame'; body: Buffer }
  /** A well-framed body that was discarded unread; the stream is still in sync. */
  | { type: 'rejected'; reason: 'too_large' | 'unsupported_charset'; contentLength: number; detail: string }
  /** The stream cannot be trusted any more; no further events follow. */
  | { type: 'fatal'; detail: string };

const HEADER_END = Buffer.from('\r\n\r\n', 'latin1');
const HEADER_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ \t]*(.*?)[ \t]*$/;
const DECIMAL = /^\d{1,15}$/;

type State =
  | { mode: 'header'; buffer: Buffer }
  | { mode: 'body'; length: number; chunks: Buffer[]; received: number }
  | { mode: 'discard'; remaining: number }
  | { mode: 'failed' };

export class FrameParser {
  #state: State = { mode: 'header', buffer: Buffer.alloc(0) };
  readonly #limits: FramingLimits;

  constructor(limits: Partial<FramingLimits> = {}) {
    this.#limits = { ...DEFAULT_FRAMING_LIMITS, ...limits };
  }

  /** Feeds bytes in; returns the events they complete, in order. */
  push(data: Buffer): FrameEvent[] {
    const events: FrameEvent[] = [];
    let rest = data;
    while (rest.length > 0) {
      const state = this.#state;
      switch (state.mode) {
        case 'failed':
          return events;
        case 'header':
          rest = this.#readHeader(state, rest, events);
          break;
        case 'body':
          rest = this.#readBody(state, rest, events);
          break;
        case 'discard': {
          const skipped = Math.min(state.remaining, rest.length);
          state.remaining -= skipped;
          rest = rest.subarray(skipped);
          if (state.remaining === 0) this.#state = { mode: 'header', buffer: Buffer.alloc(0) };
          break;
        }
        default: {
          const exhaustive: never = state;
          throw new Error(`unknown framing state ${JSON.stringify(exhaustive)}`);
        }
      }
    }
    return events;
  }

  /** True when the parser stopped at a frame boundary (no partial frame pending). */
  get idle(): boolean {
    return this.#state.mode === 'header' && this.#state.buffer.length === 0;
  }

  #readHeader(state: { buffer: Buffer }, data: Buffer, events: FrameEvent[]): Buffer {
    const previous = state.buffer.length;
    const buffer = previous === 0 ? data : Buffer.concat([state.buffer, data]);
    // Resume the search just before the old end, in case the terminator straddles two chunks.
    const end = buffer.indexOf(HEADER_END, Math.max(0, previous - HEADER_END.length + 1));
    if (end === -1) {
      if (buffer.length > this.#limits.maxHeaderBytes) {
        this.#fail(
          events,
          `header section exceeds ${this.#limits.maxHeaderBytes} bytes without a blank line`,
        );
        return Buffer.alloc(0);
      }
      state.buffer = Buffer.from(buffer);
      return Buffer.alloc(0);
    }
    if (end > this.#limits.maxHeaderBytes) {
      this.#fail(events, `header section exceeds ${this.#limits.maxHeaderBytes} bytes`);
      return Buffer.alloc(0);
    }
    const parsed = parseHeaders(buffer.toString('latin1', 0, end));
    const rest = buffer.subarray(end + HEADER_END.length);
    if (typeof parsed === 'string') {
      this.#fail(events, parsed);
      return Buffer.alloc(0);
    }
    const { contentLength, charset } = parsed;
    const rejection =
      contentLength > this.#limits.maxMessageBytes
        ? ({
            reason: 'too_large',
            detail: `message of ${contentLength} bytes exceeds the limit of ${this.#limits.maxMessageBytes} bytes`,
          } as const)
        : charset !== undefined && !/^utf-?8$/i.test(charset)
          ? ({
              reason: 'unsupported_charset',
              detail: `Content-Type charset "${charset}" is not supported; send utf-8`,
            } as const)
          : undefined;
    if (rejection !== undefined) events.push({ type: 'rejected', contentLength, ...rejection });
    if (contentLength === 0) {
      if (rejection === undefined) events.push({ type: 'frame', body: Buffer.alloc(0) });
      this.#state = { mode: 'header', buffer: Buffer.alloc(0) };
    } else if (rejection !== undefined) {
      this.#state = { mode: 'discard', remaining: contentLength };
    } else {
      this.#state = { mode: 'body', length: contentLength, chunks: [], received: 0 };
    }
    return rest;
  }

  #readBody(
    state: { length: number; chunks: Buffer[]; received: number },
    data: Buffer,
    events: FrameEvent[],
  ) {
    const needed = state.length - state.received;
    const take = data.subarray(0, needed);
    state.chunks.push(take);
    state.received += take.length;
    if (state.received === state.length) {
      events.push({ type: 'frame', body: state.chunks.length === 1 ? take : Buffer.concat(state.chunks) });
      this.#state = { mode: 'header', buffer: Buffer.alloc(0) };
    }
    return data.subarray(take.length);
  }

  #fail(events: FrameEvent[], detail: string): void {
    this.#state = { mode: 'failed' };
    events.push({ type: 'fatal', detail });
  }
}

/** Parses a header section; returns an error description when it cannot be trusted. */
function parseHeaders(section: string): { contentLength: number; charset?: string } | string {
  let contentLength: number | undefined;
  let charset: string | undefined;
  for (const line of section.split('\r\n')) {
    const match = HEADER_LINE.exec(line);
    if (match === null) return `malformed header line ${JSON.stringify(truncate(line))}`;
    const name = (match[1] ?? '').toLowerCase();
    const value = match[2] ?? '';
    if (name === 'content-length') {
      if (!DECIMAL.test(value)) {
        return `Content-Length ${JSON.stringify(truncate(value))} is not a non-negative decimal integer`;
      }
      const length = Number(value);
      if (contentLength !== undefined && contentLength !== length)
        return 'conflicting Content-Length headers';
      contentLength = length;
    } else if (name === 'content-type') {
      const param = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(value);
      if (param !== null) charset = param[1];
    }
  }
  if (contentLength === undefined) return 'header section has no Content-Length';
  return charset === undefined ? { contentLength } : { contentLength, charset };
}

function truncate(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
