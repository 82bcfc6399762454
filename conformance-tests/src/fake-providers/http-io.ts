/**
 * The byte-level I/O of the fake providers' HTTP server: reading a request body, sending a JSON
 * answer, waiting without outliving the request, and writing SSE in batches with backpressure.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/** Pending output is written once it reaches this size, so unpaced streams go out in few writes. */
const FLUSH_BYTES = 16 * 1024;

/** Waits `ms`; false when `signal` aborted first (the client left or the fake is closing). */
export async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed || res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Buffers SSE text and writes it in batches, waiting for each batch to reach the socket. */
export class SseWriter {
  #pending = '';
  readonly #res: ServerResponse;
  readonly #signal: AbortSignal;

  constructor(res: ServerResponse, signal: AbortSignal) {
    this.#res = res;
    this.#signal = signal;
  }

  get full(): boolean {
    return this.#pending.length >= FLUSH_BYTES;
  }

  write(data: string): void {
    this.#pending += data;
  }

  /** Resolves once the batch was handed to the socket, or at once when the request is gone. */
  async flush(): Promise<void> {
    if (this.#pending === '' || this.#signal.aborted || this.#res.destroyed) return;
    const chunk = this.#pending;
    this.#pending = '';
    await new Promise<void>((resolve) => {
      const done = () => {
        this.#signal.removeEventListener('abort', done);
        resolve();
      };
      this.#signal.addEventListener('abort', done, { once: true });
      this.#res.write(chunk, done);
    });
  }
}
