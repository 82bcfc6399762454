/**
 * The retry, timeout and limiter policy on its own, with scripted StreamFns (our own interface,
 * not an SDK): the cases that need precise control of timing and concurrency.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RateLimiter, withResilience } from '../src/providers/resilience.ts';
import type { ModelRequest, ProviderFailure, StreamEvent, StreamFn } from '../src/providers/stream.ts';
import type { ModelSpec, ProviderEndpoint } from '../src/providers/types.ts';

const endpoint: ProviderEndpoint = {
  id: 'acme',
  name: 'Acme',
  api: 'openai',
  baseUrl: 'http://127.0.0.1:9',
  needsKey: false,
};
const model = {
  provider: 'acme',
  id: 'm',
  api: 'openai',
  contextWindow: 1000,
  maxOutputTokens: 100,
} as unknown as ModelSpec;
const request = (signal = new AbortController().signal): ModelRequest => ({
  model,
  system: '',
  messages: [],
  tools: [],
  maxOutputTokens: 100,
  signal,
});
const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };
const done: StreamEvent = { type: 'done', content: [], stopReason: 'end_turn', usage };
const failure = (kind: ProviderFailure['kind'], extra: Partial<ProviderFailure> = {}): StreamEvent => ({
  type: 'error',
  failure: { kind, provider: 'acme', retryable: true, message: `acme: ${kind}`, ...extra },
});

/** A StreamFn that plays one scripted attempt per call and records when each call started. */
function scripted(attempts: Array<(signal: AbortSignal) => AsyncGenerator<StreamEvent>>) {
  const calls: number[] = [];
  const fn: StreamFn = (_endpoint, req) => {
    calls.push(Date.now());
    const next = attempts.shift();
    if (next === undefined) throw new Error('no more scripted attempts');
    return next(req.signal);
  };
  return { fn, calls };
}

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const fast = { baseDelayMs: 5, maxWaitMs: 1000, firstActivityMs: 200, idleMs: 200, totalMs: 5000 };

describe('withResilience', () => {
  test('agents sharing a limiter wait out one 429 window instead of stampeding', async () => {
    const limiter = new RateLimiter();
    const a = scripted([
      async function* () {
        yield failure('rate_limit', { retryAfterMs: 300, status: 429 });
      },
      async function* () {
        yield done;
      },
    ]);
    const b = scripted([
      async function* () {
        yield done;
      },
    ]);
    const started = Date.now();
    const first = collect(withResilience(a.fn, limiter, fast)(endpoint, request()));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = collect(withResilience(b.fn, limiter, fast)(endpoint, request()));
    await Promise.all([first, second]);
    // Lower bounds: the limiter lets a call through only once the clock has passed the window's
    // end, so a busy machine can make these later, never earlier.
    assert.ok(
      (b.calls[0] as number) - started >= 290,
      `the second agent called after ${(b.calls[0] as number) - started} ms`,
    );
    assert.ok((a.calls[1] as number) - started >= 290);
  });

  test('a wait longer than the cap is reported, not slept', async () => {
    const { fn, calls } = scripted([
      async function* () {
        yield failure('rate_limit', { retryAfterMs: 3_600_000, status: 429 });
      },
    ]);
    const events = await collect(withResilience(fn, new RateLimiter(), fast)(endpoint, request()));
    assert.equal(calls.length, 1);
    const last = events.at(-1);
    assert.equal(last?.type, 'error');
    assert.match(
      last?.type === 'error' ? last.failure.message : '',
      /asks to wait 3600 s, more than Santra waits \(1 s\)/,
    );
  });

  test('no retry once text was shown; the partial turn ends in the error', async () => {
    const { fn, calls } = scripted([
      async function* () {
        yield { type: 'text_delta', text: 'half' };
        yield failure('network');
      },
    ]);
    const events = await collect(withResilience(fn, new RateLimiter(), fast)(endpoint, request()));
    assert.equal(calls.length, 1);
    assert.deepEqual(
      events.map((e) => e.type),
      ['text_delta', 'error'],
    );
  });

  test('tool-call deltas alone do not prevent a retry', async () => {
    const { fn, calls } = scripted([
      async function* () {
        yield { type: 'tool_call_delta', id: 'c1', name: 'think', argsDelta: '{"con' };
        yield failure('server', { status: 500 });
      },
      async function* () {
        yield done;
      },
    ]);
    const events = await collect(withResilience(fn, new RateLimiter(), fast)(endpoint, request()));
    assert.equal(calls.length, 2);
    assert.deepEqual(
      events.map((e) => e.type),
      ['tool_call_delta', 'retrying', 'done'],
    );
  });

  test('a call that never answers times out, is tried once more, and the failure says so', async () => {
    const hang = async function* (signal: AbortSignal): AsyncGenerator<StreamEvent> {
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      yield failure('cancelled', { retryable: false });
    };
    const { fn, calls } = scripted([hang, hang, hang, hang]);
    const events = await collect(withResilience(fn, new RateLimiter(), fast)(endpoint, request()));
    // A server silent twice is down: not four waits of the first-activity timeout.
    assert.equal(calls.length, 2);
    const retrying = events.find((event) => event.type === 'retrying');
    assert.ok(retrying?.type === 'retrying' && retrying.giveUpWithinMs <= retrying.delayMs + 200);
    const last = events.at(-1);
    assert.equal(last?.type === 'error' && last.failure.kind, 'timeout');
    assert.match(
      last?.type === 'error' ? last.failure.message : '',
      /no response within 0.2 s.*gave up after 2 attempts/,
    );
  });

  test('an attempt that answered, then stalled, does not count as silent', async () => {
    const stall = async function* (signal: AbortSignal): AsyncGenerator<StreamEvent> {
      yield { type: 'tool_call_delta', id: 'c', name: 'x', argsDelta: '' };
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      yield failure('cancelled', { retryable: false });
    };
    const { fn, calls } = scripted([stall, stall, stall, stall]);
    await collect(withResilience(fn, new RateLimiter(), fast)(endpoint, request()));
    assert.equal(calls.length, 4);
  });

  test('cancelling during a backoff ends at once as cancelled', async (t) => {
    // The clock stands still (mocked timers), so the 20 s backoff cannot run out during the test:
    // only the cancel can end it.
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const controller = new AbortController();
    const { fn, calls } = scripted([
      async function* () {
        yield failure('server', { status: 503, retryAfterMs: 20_000 });
      },
    ]);
    const stream = withResilience(fn, new RateLimiter(), { ...fast, maxWaitMs: 20_000 })(
      endpoint,
      request(controller.signal),
    )[Symbol.asyncIterator]();
    const retrying = await stream.next();
    assert.equal(!retrying.done && retrying.value.type === 'retrying' && retrying.value.delayMs, 20_000);
    const next = stream.next(); // the generator goes on into its backoff
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    // Aborting settles the backoff through promise jobs alone, which all run before the next
    // setImmediate; a backoff that ignored the signal would still be waiting for its timer.
    const settled = await Promise.race([
      next,
      new Promise<'still waiting'>((resolve) => setImmediate(() => resolve('still waiting'))),
    ]);
    assert.notEqual(settled, 'still waiting', 'the cancelled backoff is still waiting out its 20 s');
    const last = settled === 'still waiting' ? undefined : settled.value;
    assert.equal(last?.type === 'error' && last.failure.kind, 'cancelled');
    assert.equal((await stream.next()).done, true);
    assert.equal(calls.length, 1, 'no attempt after the cancel');
  });
});
