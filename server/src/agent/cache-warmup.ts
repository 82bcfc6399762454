/**
 * Sub-agents of one role started by one spawn share the start of every request: the same tools,
 * system prompt and inherited history, byte for byte (providers/cache-plan.ts puts a breakpoint at
 * its end). A provider can serve that prefix from its cache only once the first request's answer
 * has begun — requests sent together all write it, at the price of a write each. So the first
 * sibling's first call goes at once, and the others' first calls wait for its first event (or its
 * end, or WARM_UP_LIMIT_MS): they then read the prefix instead of writing it again.
 */
import type { StreamEvent, StreamFn } from '../providers/stream.ts';

/** The longest a sibling waits for the first one's answer to begin. */
export const WARM_UP_LIMIT_MS = 10_000;

export class PrefixWarmUp {
  readonly #leaders = new Map<string, Promise<void>>();
  readonly #limitMs: number;

  /** `limitMs` 0: no sibling waits (a provider without a prompt cache). */
  constructor(limitMs = WARM_UP_LIMIT_MS) {
    this.#limitMs = limitMs;
  }

  /** The stream the next sub-agent of `role` uses: the first leads, the others follow it. */
  streamFor(role: string, stream: StreamFn): StreamFn {
    if (this.#limitMs <= 0) return stream;
    const leader = this.#leaders.get(role);
    if (leader !== undefined) return this.#follower(leader, stream);
    let begun = () => {};
    this.#leaders.set(role, new Promise<void>((resolve) => (begun = resolve)));
    return leading(stream, begun);
  }

  /** A stream whose first call waits until `leader` has begun (or the limit, or an abort). */
  #follower(leader: Promise<void>, stream: StreamFn): StreamFn {
    let first = true;
    const limitMs = this.#limitMs;
    return async function* (endpoint, request): AsyncGenerator<StreamEvent> {
      if (first) {
        first = false;
        await waitFor(leader, limitMs, request.signal);
      }
      yield* stream(endpoint, request);
    };
  }
}

/** A stream that calls `begun` once its first call's answer has begun, or ended. */
function leading(stream: StreamFn, begun: () => void): StreamFn {
  return async function* (endpoint, request): AsyncGenerator<StreamEvent> {
    try {
      for await (const event of stream(endpoint, request)) {
        // A notice that the provider is slow is no answer yet.
        if (event.type !== 'waiting') begun();
        yield event;
      }
    } finally {
      begun();
    }
  };
}

function waitFor(leader: Promise<void>, limitMs: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, limitMs);
    signal.addEventListener('abort', done, { once: true });
    void leader.then(done);
  });
}
