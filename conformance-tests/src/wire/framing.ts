/**
 * The LSP base-protocol framing as the conformance suite sees it: `encodeFrame` writes a frame, and
 * `FrameReader` reads what a server under test wrote, strictly. The suite's reader never repairs
 * a frame: bytes that are not a well-formed frame are a finding (§1.2, §1.5), reported with the
 * offending bytes, and the reader stops, because no later frame boundary can be trusted.
 */

export type ReadEvent =
  | { type: 'frame'; body: Buffer }
  /** Bytes that are not a frame; no event follows. */
  | { type: 'garbage'; detail: string; bytes: Buffer };

const HEADER_END = Buffer.from('\r\n\r\n', 'latin1');
const HEADER_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ \t]*(.*?)[ \t]*$/;
const MAX_HEADER_BYTES = 8 * 1024;

/** `Content-Length: N\r\n\r\n` and the body; a string body is encoded as UTF-8. */
export function encodeFrame(body: string | Buffer): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return Buffer.concat([Buffer.from(`Content-Length: ${bytes.length}\r\n\r\n`, 'latin1'), bytes]);
}

/** Reads frames from a byte stream; after a `garbage` event it reads nothing more. */
export class FrameReader {
  #buffer = Buffer.alloc(0);
  #bodyLength: number | undefined;
  #failed = false;

  push(chunk: Buffer): ReadEvent[] {
    if (this.#failed) return [];
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    const events: ReadEvent[] = [];
    for (;;) {
      const event = this.#bodyLength === undefined ? this.#readHeader() : this.#readBody();
      if (event === undefined) return events;
      events.push(event);
      if (event.type === 'garbage') {
        this.#failed = true;
        return events;
      }
    }
  }

  /** The bytes of an unfinished frame when the stream ended, if any. */
  get leftover(): Buffer {
    return this.#buffer;
  }

  #readHeader(): ReadEvent | undefined {
    const end = this.#buffer.indexOf(HEADER_END);
    if (end === -1) {
      if (this.#buffer.length > MAX_HEADER_BYTES)
        return this.#garbage('no end of the header section within 8 KiB');
      return undefined;
    }
    const lines = this.#buffer.subarray(0, end).toString('latin1').split('\r\n');
    let length: number | undefined;
    for (const line of lines) {
      const match = HEADER_LINE.exec(line);
      if (match === null) return this.#garbage(`header line ${JSON.stringify(line)} is not "Name: value"`);
      if ((match[1] as string).toLowerCase() !== 'content-length') continue;
      const value = match[2] as string;
      if (!/^\d+$/.test(value))
        return this.#garbage(`Content-Length ${JSON.stringify(value)} is not a decimal`);
      if (length !== undefined && length !== Number(value))
        return this.#garbage('conflicting Content-Length headers');
      length = Number(value);
    }
    if (length === undefined) return this.#garbage('a header section without Content-Length');
    this.#buffer = this.#buffer.subarray(end + HEADER_END.length);
    this.#bodyLength = length;
    return this.#readBody();
  }

  #readBody(): ReadEvent | undefined {
    const length = this.#bodyLength as number;
    if (this.#buffer.length < length) return undefined;
    const body = this.#buffer.subarray(0, length);
    this.#buffer = this.#buffer.subarray(length);
    this.#bodyLength = undefined;
    return { type: 'frame', body: Buffer.from(body) };
  }

  #garbage(detail: string): ReadEvent {
    const bytes = this.#buffer.subarray(0, 200);
    return { type: 'garbage', detail, bytes: Buffer.from(bytes) };
  }
}
