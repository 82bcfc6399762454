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
  /**
   * Largest oversized body that is skipped rather than treated as fatal, in bytes. A larger
   * Content-Length ends the connection. `maxMessageBytes` is never fatal, even if larger.
   */
  maxSkipBytes: number;
}

export const DEFAULT_FRAMING_LIMITS: FramingLimits = {
  maxMessageBytes: 16 * 1024 * 1024,
  maxHeaderBytes: 8 * 1024,
  maxSkipBytes: 1024 * 1024 * 1024,
};

/** How much of a rejected body is kept, for the caller to read a request id from. */
export const REJECTED_PREFIX_BYTES = 512;

export type FrameEvent =
  /** A complete frame body. */
  | { type: 'frame'; body: Buffer }
  /**
   * A body too large to accept is being skipped; `rejected` follows once its first bytes are in.
   * Nothing to answer yet: this lets the caller say why the input seems to stall.
   */
  | { type: 'skipping'; contentLength: number; detail: string }
  /**
   * A well-framed body that is discarded unread; the stream stays in sync. `prefix` holds its
   * first bytes (up to `REJECTED_PREFIX_BYTES`, the whole body if shorter).
   */
  | {
      type: 'rejected';
      reason: 'too_large' | 'unsupported_charset';
      contentLength: number;
      detail: string;
      prefix: Buffer;
    }
  /**
   * The stream cannot be trusted any more; no further events follow. With `too_large`,
   * `contentLength` is what the header announced.
   */
  | { type: 'fatal'; reason: 'malformed_header' | 'too_large'; detail: string; contentLength?: number };

type Rejection = Pick<Extract<FrameEvent, { type: 'rejected' }>, 'reason' | 'contentLength' | 'detail'>;

const HEADER_END = Buffer.from('\r\n\r\n', 'latin1');
const HEADER_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ \t]*(.*?)[ \t]*$/;
const DECIMAL = /^\d+$/;

type State =
  | { mode: 'header'; buffer: Buffer }
  | { mode: 'body'; length: number; chunks: Buffer[]; received: number }
  /** `prefix` collects the first bytes until the rejection is reported, then is dropped. */
  | { mode: 'discard'; remaining: number; rejection: Rejection; prefix: Buffer[] | undefined; kept: number }
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
        case 'discard':
          rest = this.#discard(state, rest, events);
          break;
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
      // A line that cannot be a header is untrusted at once, not once a blank line comes: a client
      // that sends bare JSON lines (no headers at all) is answered instead of waited on forever.
      const bad = firstBadHeaderLine(buffer);
      if (bad !== undefined) {
        this.#fail(events, `malformed header line ${JSON.stringify(truncate(bad))}`);
        return Buffer.alloc(0);
      }
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
    const hardCap = Math.max(this.#limits.maxSkipBytes, this.#limits.maxMessageBytes);
    if (contentLength > hardCap) {
      this.#fail(
        events,
        `Content-Length ${parsed.digits} exceeds ${hardCap} bytes, the most the server will skip (maxMessageBytes is ${this.#limits.maxMessageBytes})`,
        'too_large',
        contentLength,
      );
      return Buffer.alloc(0);
    }
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
    if (rejection !== undefined) {
      if (rejection.reason === 'too_large')
        events.push({ type: 'skipping', contentLength, detail: rejection.detail });
      const state: State = {
        mode: 'discard',
        remaining: contentLength,
        rejection: { contentLength, ...rejection },
        prefix: [],
        kept: 0,
      };
      this.#state = state;
      // A zero-length body (possible with a bad charset) is complete at once.
      this.#discard(state, Buffer.alloc(0), events);
    } else if (contentLength === 0) {
      events.push({ type: 'frame', body: Buffer.alloc(0) });
      this.#state = { mode: 'header', buffer: Buffer.alloc(0) };
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

  /** Skips a rejected body in constant memory, reporting it once its first bytes are in. */
  #discard(state: Extract<State, { mode: 'discard' }>, data: Buffer, events: FrameEvent[]): Buffer {
    const skipped = Math.min(state.remaining, data.length);
    state.remaining -= skipped;
    if (state.prefix !== undefined) {
      const wanted = Math.min(state.rejection.contentLength, REJECTED_PREFIX_BYTES);
      const keep = data.subarray(0, Math.min(skipped, wanted - state.kept));
      if (keep.length > 0) {
        // Copied, so the caller's (possibly large) chunk is not retained.
        state.prefix.push(Buffer.from(keep));
        state.kept += keep.length;
      }
      if (state.kept === wanted) {
        events.push({ type: 'rejected', ...state.rejection, prefix: Buffer.concat(state.prefix) });
        state.prefix = undefined;
      }
    }
    if (state.remaining === 0) this.#state = { mode: 'header', buffer: Buffer.alloc(0) };
    return data.subarray(skipped);
  }

  #fail(
    events: FrameEvent[],
    detail: string,
    reason: 'malformed_header' | 'too_large' = 'malformed_header',
    contentLength?: number,
  ): void {
    this.#state = { mode: 'failed' };
    events.push({ type: 'fatal', reason, detail, ...(contentLength === undefined ? {} : { contentLength }) });
  }
}

/** The first complete line of an unfinished header section that is not `Name: value`, if any. */
function firstBadHeaderLine(buffer: Buffer): string | undefined {
  const complete = buffer.lastIndexOf(0x0a);
  if (complete === -1) return undefined;
  for (const raw of buffer.toString('latin1', 0, complete).split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line !== '' && !HEADER_LINE.test(line)) return line;
  }
  return undefined;
}

/** Parses a header section; returns an error description when it cannot be trusted. */
function parseHeaders(section: string): { contentLength: number; digits: string; charset?: string } | string {
  let contentLength: number | undefined;
  let lengthDigits = '';
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
      // Leading zeros aside, more than 16 digits is beyond any cap (and beyond exact doubles).
      const digits = value.replace(/^0+(?=\d)/, '');
      const length = digits.length > 16 ? Number.POSITIVE_INFINITY : Number(digits);
      if (contentLength !== undefined && (contentLength !== length || lengthDigits !== digits))
        return 'conflicting Content-Length headers';
      contentLength = length;
      lengthDigits = digits;
    } else if (name === 'content-type') {
      const param = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(value);
      if (param !== null) charset = param[1];
    }
  }
  if (contentLength === undefined) return 'header section has no Content-Length';
  const digits = truncate(lengthDigits);
  return charset === undefined ? { contentLength, digits } : { contentLength, digits, charset };
}

function truncate(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
