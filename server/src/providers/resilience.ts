/**
 * Retries, timeouts and a shared rate limiter around any StreamFn.
 * - A failed attempt is retried only while nothing visible has been produced: once text, thinking
 *   or a status line of the model's has streamed, the failure ends the turn (the loop keeps the
 *   partial output). Partial tool calls do not count — native deltas and `<tool_call>` markup
 *   alike are discarded on failure — so such an attempt is retried.
 * - 429s honour the provider's wait headers, but never wait longer than `maxWaitMs` (the SDKs
 *   would sleep whatever the header says); a longer demand is reported instead of retried.
 * - Every agent of the process shares one limiter, so parallel agents hitting 429 wait out the
 *   same window instead of stampeding.
 * - Timeouts: first activity, idle between events, and a hard cap per model call. An attempt that
 *   got no answer at all before its first-activity timeout is tried once more, not three times:
 *   a server that accepted the connection and stayed silent twice is down, and a person waits.
 */
import type { ProviderFailure, StreamEvent, StreamFn } from './stream.ts';

export interface ResilienceOptions {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Base of the exponential backoff (with equal jitter: half fixed, half random) when the provider gives no wait. */
  baseDelayMs: number;
  /** The longest single wait Santra accepts. */
  maxWaitMs: number;
  firstActivityMs: number;
  idleMs: number;
  totalMs: number;
  /** A first response slower than this is announced (a `waiting` event), once per attempt. */
  waitingNoticeMs: number;
}

export const DEFAULT_RESILIENCE: ResilienceOptions = {
  maxRetries: 3,
  baseDelayMs: 1000,
  maxWaitMs: 60_000,
  // A provider that is up answers within seconds (Anthropic's message_start, the Responses API's
  // response.created, a first chunk); a silent one is given this long, and one more try.
  firstActivityMs: 20_000,
  idleMs: 90_000,
  totalMs: 10 * 60_000,
  waitingNoticeMs: 10_000,
};

/** Per-provider "do not send before" times, shared by every agent of the process. */
export class RateLimiter {
  readonly #blockedUntil = new Map<string, number>();

  block(provider: string, untilMs: number): void {
    this.#blockedUntil.set(provider, Math.max(untilMs, this.#blockedUntil.get(provider) ?? 0));
  }

  /** Resolves when `provider` may be called; rejects when `signal` aborts first. */
  async ready(provider: string, signal: AbortSignal): Promise<void> {
    for (;;) {
      const wait = (this.#blockedUntil.get(provider) ?? 0) - Date.now();
      if (wait <= 0) return;
      await sleep(wait, signal);
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new Error('aborted'));
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Failures of the model or its provider at the moment: worth another try (or another model). */
export const RETRYABLE_KINDS: ReadonlySet<ProviderFailure['kind']> = new Set<ProviderFailure['kind']>([
  'rate_limit',
  'overloaded',
  'server',
  'network',
  'timeout',
  'incomplete',
  'stream_error',
]);

export function withResilience(
  stream: StreamFn,
  limiter: RateLimiter,
  options: Partial<ResilienceOptions> = {},
): StreamFn {
  const settings = { ...DEFAULT_RESILIENCE, ...options };
  return async function* (endpoint, request): AsyncGenerator<StreamEvent> {
    const maxAttempts = settings.maxRetries + 1;
    let silentAttempts = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        await limiter.ready(endpoint.id, request.signal);
      } catch {
        yield cancelled(endpoint.id);
        return;
      }
      let visible = false;
      let answered = false;
      let failure: ProviderFailure | undefined;
      for await (const event of attemptWithTimeouts(stream, endpoint, request, settings)) {
        if (event.type === 'error') {
          failure = event.failure;
          break;
        }
        if (event.type !== 'waiting') answered = true;
        // Only what the user has seen forbids a retry; partial tool calls are discarded.
        if (event.type === 'text_delta' || event.type === 'thinking_delta' || event.type === 'status')
          visible = true;
        yield event;
      }
      if (failure === undefined) return;
      if (failure.kind === 'rate_limit' && failure.retryAfterMs !== undefined) {
        limiter.block(endpoint.id, Date.now() + Math.min(failure.retryAfterMs, settings.maxWaitMs));
      }
      const delay = retryDelay(failure, attempt, settings);
      const silent = failure.kind === 'timeout' && !answered;
      if (silent) silentAttempts++;
      if (
        visible ||
        !failure.retryable ||
        !RETRYABLE_KINDS.has(failure.kind) ||
        attempt >= maxAttempts ||
        silentAttempts >= 2 ||
        delay === undefined
      ) {
        yield { type: 'error', failure: finalFailure(failure, attempt, delay, settings) };
        return;
      }
      yield {
        type: 'retrying',
        failure,
        attempt,
        maxAttempts,
        delayMs: delay,
        giveUpWithinMs: silent
          ? delay + settings.firstActivityMs
          : giveUpWithin(attempt, maxAttempts, delay, settings),
      };
      try {
        await sleep(delay, request.signal);
      } catch {
        yield cancelled(endpoint.id);
        return;
      }
    }
  };
}

/**
 * The most the attempts after `attempt` can take when the provider never answers: the waits
 * between them (at their ceilings) and each attempt's wait for a first response.
 */
function giveUpWithin(
  attempt: number,
  maxAttempts: number,
  delay: number,
  settings: ResilienceOptions,
): number {
  let total = delay;
  for (let next = attempt + 1; next <= maxAttempts; next++) {
    total += settings.firstActivityMs;
    if (next < maxAttempts) total += Math.min(settings.maxWaitMs, settings.baseDelayMs * 2 ** (next - 1));
  }
  return total;
}

/** The wait before the next attempt, or undefined when the provider asks for more than Santra accepts. */
function retryDelay(
  failure: ProviderFailure,
  attempt: number,
  settings: ResilienceOptions,
): number | undefined {
  if (failure.retryAfterMs !== undefined)
    return failure.retryAfterMs > settings.maxWaitMs ? undefined : failure.retryAfterMs;
  const ceiling = Math.min(settings.maxWaitMs, settings.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

function finalFailure(
  failure: ProviderFailure,
  attempts: number,
  delay: number | undefined,
  settings: ResilienceOptions,
): ProviderFailure {
  if (failure.retryable && delay === undefined && failure.retryAfterMs !== undefined) {
    return {
      ...failure,
      retryable: false,
      message: `${failure.message} The provider asks to wait ${Math.ceil(failure.retryAfterMs / 1000)} s, more than Santra waits (${settings.maxWaitMs / 1000} s); try again later.`,
    };
  }
  if (attempts > 1) return { ...failure, message: `${failure.message} (gave up after ${attempts} attempts)` };
  return failure;
}

function cancelled(provider: string): StreamEvent {
  return { type: 'error', failure: { kind: 'cancelled', provider, retryable: false, message: 'cancelled' } };
}

/** One attempt, aborted when it shows no activity in time; the abort is reported as a timeout. */
async function* attemptWithTimeouts(
  stream: StreamFn,
  endpoint: Parameters<StreamFn>[0],
  request: Parameters<StreamFn>[1],
  settings: ResilienceOptions,
): AsyncGenerator<StreamEvent> {
  const controller = new AbortController();
  let timedOut: string | undefined;
  const expire = (what: string) => () => {
    timedOut = what;
    controller.abort(new Error(what));
  };
  const onOuterAbort = () => controller.abort(request.signal.reason);
  request.signal.addEventListener('abort', onOuterAbort, { once: true });
  if (request.signal.aborted) controller.abort(request.signal.reason);
  const total = setTimeout(
    expire(`no complete answer within ${settings.totalMs / 1000} s`),
    settings.totalMs,
  );
  let idle = setTimeout(
    expire(`no response within ${settings.firstActivityMs / 1000} s`),
    settings.firstActivityMs,
  );
  const iterator = stream(endpoint, { ...request, signal: controller.signal })[Symbol.asyncIterator]();
  const started = Date.now();
  let first = true;
  try {
    for (;;) {
      const pending = iterator.next();
      // A slow first response is said, not waited out in silence: once, after waitingNoticeMs.
      if (first && settings.firstActivityMs > settings.waitingNoticeMs) {
        let timer: NodeJS.Timeout | undefined;
        const notice = new Promise<'notice'>((resolve) => {
          timer = setTimeout(() => resolve('notice'), settings.waitingNoticeMs);
        });
        const winner = await Promise.race([pending, notice]);
        clearTimeout(timer);
        if (winner === 'notice') {
          yield { type: 'waiting', elapsedMs: Date.now() - started, limitMs: settings.firstActivityMs };
        }
      }
      first = false;
      const step = await pending;
      if (step.done === true) break;
      const event = step.value;
      clearTimeout(idle);
      if (event.type === 'error' && timedOut !== undefined && !request.signal.aborted) {
        yield {
          type: 'error',
          failure: {
            kind: 'timeout',
            provider: endpoint.id,
            retryable: true,
            message: `${endpoint.name}: ${timedOut}.`,
          },
        };
        return;
      }
      yield event;
      if (event.type === 'done' || event.type === 'error') return;
      idle = setTimeout(expire(`the stream stalled for ${settings.idleMs / 1000} s`), settings.idleMs);
    }
  } finally {
    clearTimeout(idle);
    clearTimeout(total);
    request.signal.removeEventListener('abort', onOuterAbort);
    await iterator.return?.();
  }
}
