/**
 * Reads what a client writes, byte by byte, the way §1.2 describes a frame — not the way a
 * forgiving JSON-RPC library would — so a framing fault is recorded as evidence instead of being
 * repaired silently. A header that cannot be trusted (§1.3) ends the reading: no boundary is
 * guessed after it.
 */

/** One frame the client wrote. `body` is the raw bytes; `text` them as UTF-8 when valid. */
export interface Frame {
  headers: string[];
  body: Buffer;
  text: string | undefined;
  /** What was wrong with this frame's header or body encoding (§1.2). */
  faults: string[];
}

/** §1.3: a header section over 8 KiB is not trusted. */
const MAX_HEADER_BYTES = 8 * 1024;
const SEPARATOR = Buffer.from('\r\n\r\n');

type State = { kind: 'header' } | { kind: 'body'; frame: Frame; length: number } | { kind: 'broken' };

export class FrameReader {
  #buffer = Buffer.alloc(0);
  #state: State = { kind: 'header' };
  #ended = false;
  /** Faults that are not one frame's: an untrusted header, a partial frame at the end. */
  readonly faults: string[] = [];

  /** Adds bytes; returns the frames they completed. */
  push(chunk: Buffer): Frame[] {
    if (this.#state.kind === 'broken') return [];
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    const frames: Frame[] = [];
    for (;;) {
      const frame = this.#next();
      if (frame === undefined) return frames;
      frames.push(frame);
    }
  }

  /** The client closed its output: whatever is left is a partial frame. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#state.kind === 'broken' || (this.#state.kind === 'header' && this.#buffer.length === 0)) return;
    this.faults.push(
      `the output ended inside a frame (${this.#buffer.length} byte(s) of an unfinished ${this.#state.kind})`,
    );
  }

  #next(): Frame | undefined {
    const state = this.#state;
    switch (state.kind) {
      case 'broken':
        return undefined;
      case 'header':
        this.#readHeader();
        return this.#state.kind === 'body' ? this.#next() : undefined;
      case 'body': {
        if (this.#buffer.length < state.length) return undefined;
        const frame = state.frame;
        frame.body = this.#buffer.subarray(0, state.length);
        this.#buffer = this.#buffer.subarray(state.length);
        this.#state = { kind: 'header' };
        frame.text = decodeUtf8(frame.body);
        if (frame.text === undefined) frame.faults.push('the body is not valid UTF-8 (§1.2)');
        return frame;
      }
      default: {
        const exhaustive: never = state;
        throw new Error(`unknown reader state ${JSON.stringify(exhaustive)}`);
      }
    }
  }

  #readHeader(): void {
    const end = this.#buffer.indexOf(SEPARATOR);
    if (end === -1) {
      if (this.#buffer.length > MAX_HEADER_BYTES)
        this.#break('a header section over 8 KiB with no blank line');
      return;
    }
    if (end > MAX_HEADER_BYTES) return this.#break('a header section over 8 KiB');
    const lines = this.#buffer.subarray(0, end).toString('latin1').split('\r\n');
    this.#buffer = this.#buffer.subarray(end + SEPARATOR.length);
    const frame: Frame = { headers: lines, body: Buffer.alloc(0), text: undefined, faults: [] };
    const lengths: string[] = [];
    for (const line of lines) {
      const match = /^([^:\s]+):[ \t]*(.*)$/.exec(line);
      if (match === null)
        return this.#break(`a header line that is not "Name: value": ${JSON.stringify(line)}`);
      const [, name = '', value = ''] = match;
      if (name.toLowerCase() === 'content-length') lengths.push(value.trim());
      if (
        name.toLowerCase() === 'content-type' &&
        !/charset=utf-?8\b/i.test(value) &&
        /charset=/i.test(value)
      )
        frame.faults.push(`Content-Type names a charset other than utf-8: ${JSON.stringify(value)}`);
    }
    if (lengths.length === 0) return this.#break('a header section without Content-Length');
    if (new Set(lengths).size > 1)
      return this.#break(`conflicting Content-Length headers (${lengths.join(', ')})`);
    const length = lengths[0] as string;
    if (!/^\d+$/.test(length))
      return this.#break(`Content-Length ${JSON.stringify(length)} is not a decimal integer`);
    this.#state = { kind: 'body', frame, length: Number(length) };
  }

  #break(why: string): void {
    this.faults.push(`untrustworthy framing, reading stopped: ${why} (§1.2, §1.3)`);
    this.#state = { kind: 'broken' };
  }
}

/** Writes one message as a frame (§1.2). */
export function frame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]);
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(bytes: Buffer): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}
