/**
 * Command output in bounded memory. A command may print gigabytes; what the model needs is how it
 * started and how it ended, so a capture keeps the first 40% and the last 60% of its limit and
 * counts what fell in between. Cuts never split a UTF-8 character.
 */
import { charBoundaryPrefix, charBoundarySuffix } from '../../support/utf8-cut.ts';

const HEAD_SHARE = 0.4;

/** Text kept from a stream, with what was cut already stated in it. */
export interface CapturedText {
  text: string;
  /** Bytes the stream produced. */
  totalBytes: number;
  /** Bytes left out of `text`. */
  cutBytes: number;
}

/** Collects a stream's bytes, keeping at most `limit` of them (head and tail). */
export class OutputCapture {
  readonly #headLimit: number;
  readonly #tailLimit: number;
  readonly #head: Buffer[] = [];
  #headBytes = 0;
  readonly #tail: Buffer[] = [];
  #tailBytes = 0;
  #total = 0;

  constructor(limit: number) {
    this.#headLimit = Math.floor(limit * HEAD_SHARE);
    this.#tailLimit = Math.max(0, limit - this.#headLimit);
  }

  get totalBytes(): number {
    return this.#total;
  }

  push(chunk: Buffer): void {
    this.#total += chunk.length;
    let rest = chunk;
    if (this.#headBytes < this.#headLimit) {
      const take = Math.min(this.#headLimit - this.#headBytes, rest.length);
      // A copy, so the head does not pin a whole 64 KiB chunk for a few bytes.
      this.#head.push(Buffer.from(rest.subarray(0, take)));
      this.#headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0 || this.#tailLimit === 0) return;
    this.#tail.push(rest);
    this.#tailBytes += rest.length;
    while (this.#tail.length > 1 && this.#tailBytes - (this.#tail[0]?.length ?? 0) >= this.#tailLimit) {
      this.#tailBytes -= this.#tail.shift()?.length ?? 0;
    }
    const excess = this.#tailBytes - this.#tailLimit;
    const first = this.#tail[0];
    if (excess > 0 && first !== undefined) {
      this.#tail[0] = first.subarray(excess);
      this.#tailBytes -= excess;
    }
  }

  /** The kept text cut down to `budget` bytes (at most the limit), with a line saying how much was cut. */
  text(budget: number): CapturedText {
    const head = Buffer.concat(this.#head);
    const tail = Buffer.concat(this.#tail);
    const total = this.#total;
    const dropped = total - head.length - tail.length;
    if (total <= budget && dropped === 0) {
      return { text: Buffer.concat([head, tail]).toString('utf8'), totalBytes: total, cutBytes: 0 };
    }
    const headWant = Math.floor(Math.max(0, budget) * HEAD_SHARE);
    const tailWant = Math.max(0, budget - headWant);
    const first = atLineEnd(charBoundaryPrefix(head, Math.min(headWant, head.length)));
    // Nothing was dropped when the tail is short, so the end of the data is head + tail.
    const source = tailWant <= tail.length ? tail : Buffer.concat([head, tail]);
    const last = atLineStart(charBoundarySuffix(source, Math.min(tailWant, source.length)));
    const cutBytes = total - first.length - last.length;
    const marker = `${first.length > 0 && !endsWithNewline(first) ? '\n' : ''}[… ${cutBytes} bytes of output cut …]\n`;
    return { text: first.toString('utf8') + marker + last.toString('utf8'), totalBytes: total, cutBytes };
  }
}

/**
 * How many bytes of each of two streams to show within `limit` in total: each keeps what it has
 * when both fit; otherwise a short one keeps all of it and the longer gets the rest.
 */
export function splitBudget(limit: number, a: number, b: number): [number, number] {
  if (a + b <= limit) return [a, b];
  const half = Math.floor(limit / 2);
  if (a <= half) return [a, limit - a];
  if (b <= half) return [limit - b, b];
  return [half, limit - half];
}

// Cutting at a line break reads better, when one is near the cut (within a fifth of the part).
function atLineEnd(part: Buffer): Buffer {
  const newline = part.lastIndexOf(0x0a);
  return newline >= part.length * 0.8 ? part.subarray(0, newline + 1) : part;
}

function atLineStart(part: Buffer): Buffer {
  const newline = part.indexOf(0x0a);
  return newline !== -1 && newline < part.length * 0.2 ? part.subarray(newline + 1) : part;
}

function endsWithNewline(buffer: Buffer): boolean {
  return buffer.length > 0 && buffer[buffer.length - 1] === 0x0a;
}
