/**
 * The model fallback chain: the run's model first, then the user's `fallbackModels` (the config's,
 * or the prompt's own list), each with a cooldown after it fails. When a model call fails with an
 * error that another model can answer — overloaded, a server error after the retries, a rate limit
 * whose wait is too long, a provider that cannot be reached — the turn is made again on the next
 * model of the chain, whatever its provider: the conversation is provider-neutral (messages.ts) and
 * each provider converts it to its wire API, thinking written under another model included.
 *
 * What another model would fail on too does not fall back: a refused answer (a stop reason, not a
 * failure), a bad request, a key rejected by the provider every model left in the chain is on, a
 * prompt too large for every model left. And a turn whose answer the user already saw in part is
 * not made again: that ends the turn as it always did.
 *
 * The cooldowns are the process's, shared by every run and agent: a model that just failed is not
 * tried again on the next turn, or by the next prompt, before its cooldown ends — 30 s after a
 * first failure, doubling with each failure after it up to 30 min, forgotten at its first success.
 */
import type { ResolvedConfig } from '../config/config.ts';
import { RETRYABLE_KINDS } from '../providers/resilience.ts';
import type { ProviderFailure } from '../providers/stream.ts';
import type { ModelSpec, ProviderEndpoint } from '../providers/types.ts';
import { selectModel } from './model-selection.ts';

/** A model the chain may call: its ref as the user wrote it resolved to provider/id, its spec, its endpoint. */
export interface ModelChoice {
  ref: string;
  model: ModelSpec;
  endpoint: ProviderEndpoint;
}

export interface CooldownOptions {
  /** The cooldown after a model's first failure; each failure after it doubles it. */
  baseMs: number;
  /** The longest cooldown. */
  maxMs: number;
  now: () => number;
}

export const DEFAULT_COOLDOWN: CooldownOptions = {
  baseMs: 30_000,
  maxMs: 30 * 60_000,
  now: () => Date.now(),
};

/** Per-model cooldowns: exponential in the failures since the model's last success. */
export class ModelCooldowns {
  readonly #options: CooldownOptions;
  readonly #entries = new Map<string, { failures: number; untilMs: number }>();

  constructor(options: Partial<CooldownOptions> = {}) {
    this.#options = { ...DEFAULT_COOLDOWN, ...options };
  }

  /** Counts a failure of `ref` and starts (or lengthens) its cooldown; returns when it ends. */
  failed(ref: string): number {
    const failures = (this.#entries.get(ref)?.failures ?? 0) + 1;
    const wait = Math.min(this.#options.maxMs, this.#options.baseMs * 2 ** (failures - 1));
    const untilMs = this.#options.now() + wait;
    this.#entries.set(ref, { failures, untilMs });
    return untilMs;
  }

  /** A model that answered is trusted again at once. */
  succeeded(ref: string): void {
    this.#entries.delete(ref);
  }

  /** When the cooldown of `ref` ends, or undefined when it is not cooling down. */
  coolingUntil(ref: string): number | undefined {
    const until = this.#entries.get(ref)?.untilMs;
    return until !== undefined && until > this.#options.now() ? until : undefined;
  }
}

/** The cooldowns of this process: every run and agent of the server shares them. */
export const PROCESS_COOLDOWNS = new ModelCooldowns();

/** Failures of the model or its provider at the moment, which another model can answer instead. */
const TRANSIENT = RETRYABLE_KINDS;

/** Failures of the account at one provider: a model of another provider can answer. */
const PROVIDER_ACCOUNT = new Set<ProviderFailure['kind']>(['auth', 'permission', 'billing']);

/** How providers say a request is larger than the model's context window (a 400). */
const TOO_LARGE =
  /prompt is too long|context length|context window|maximum context|too many (input )?tokens|input is too long|request too large/i;

/**
 * Whether `candidate` may answer in place of `failed` after `failure`: for a transient failure any
 * other model may; for a rejected key or a spent quota only one of another provider; for a model
 * the provider does not know, any other; for a prompt too large, only a model with a larger
 * context window. Nothing else falls back: another model would fail the same way.
 */
export function canAnswerInstead(
  failure: ProviderFailure,
  failed: ModelChoice,
  candidate: ModelChoice,
): boolean {
  if (candidate.ref === failed.ref) return false;
  if (TRANSIENT.has(failure.kind) || failure.kind === 'not_found') return true;
  if (PROVIDER_ACCOUNT.has(failure.kind)) return candidate.endpoint.id !== failed.endpoint.id;
  if (failure.kind === 'bad_request' && TOO_LARGE.test(failure.message))
    return candidate.model.contextWindow > failed.model.contextWindow;
  return false;
}

/** What the chain decided after a failure: the model to try next and the line that says so. */
export interface Fallback {
  next: ModelChoice;
  notice: string;
}

/** One run's chain of models, over the process's cooldowns. */
export class FallbackChain {
  readonly #choices: readonly ModelChoice[];
  readonly #cooldowns: ModelCooldowns;

  /** `choices`: the run's model first, then its fallbacks, each once. */
  constructor(choices: readonly ModelChoice[], cooldowns: ModelCooldowns = PROCESS_COOLDOWNS) {
    const seen = new Set<string>();
    this.#choices = choices.filter((choice) => !seen.has(choice.ref) && seen.add(choice.ref));
    this.#cooldowns = cooldowns;
  }

  get choices(): readonly ModelChoice[] {
    return this.#choices;
  }

  /** Whether there is anything to fall back to. */
  get hasFallbacks(): boolean {
    return this.#choices.length > 1;
  }

  /**
   * The model a turn starts on: the first of the chain that is not cooling down (the run's own
   * model again once its cooldown ends); when every one is, the one whose cooldown ends first.
   */
  pick(): ModelChoice {
    const ready = this.#choices.find((choice) => this.#cooldowns.coolingUntil(choice.ref) === undefined);
    if (ready !== undefined) return ready;
    return this.#choices.reduce((a, b) =>
      (this.#cooldowns.coolingUntil(a.ref) ?? 0) <= (this.#cooldowns.coolingUntil(b.ref) ?? 0) ? a : b,
    );
  }

  /** A call on `choice` answered: its cooldown is forgotten. */
  succeeded(choice: ModelChoice): void {
    this.#cooldowns.succeeded(choice.ref);
  }

  /**
   * A call on `failed` failed with `failure`: starts its cooldown (when the failure is the model's
   * or its provider's, not the request's) and returns the model to make the turn on instead, or
   * undefined when no model of the chain can answer it.
   */
  after(failed: ModelChoice, failure: ProviderFailure): Fallback | undefined {
    if (failure.kind === 'cancelled') return undefined;
    const cooling =
      TRANSIENT.has(failure.kind) || PROVIDER_ACCOUNT.has(failure.kind) || failure.kind === 'not_found';
    if (cooling) this.#cooldowns.failed(failed.ref);
    const next = this.#choices.find(
      (choice) =>
        canAnswerInstead(failure, failed, choice) && this.#cooldowns.coolingUntil(choice.ref) === undefined,
    );
    if (next === undefined) return undefined;
    return { next, notice: fallbackNotice(failed, failure, next) };
  }

  /** The line that says a turn starts on another model than the last one because `from` is cooling down. */
  resumeNotice(from: ModelChoice, to: ModelChoice): string {
    const until = this.#cooldowns.coolingUntil(from.ref);
    if (until === undefined) return `Back on ${to.ref}: its cooldown after a failure has ended.`;
    return `Continuing on ${to.ref}: ${from.ref} failed recently and is not tried again before ${clock(until)}.`;
  }
}

/** One line: which model failed and why (its first sentence), and which one answers now. */
function fallbackNotice(failed: ModelChoice, failure: ProviderFailure, next: ModelChoice): string {
  const why = failure.message.split(/(?<=\.)\s/)[0] ?? failure.message;
  return `Falling back to ${next.ref}: ${failed.ref} failed (${why.replace(/\.$/, '')}).`;
}

function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19) + ' UTC';
}

/**
 * The chain of a run: its model, then each of `refs` that can be used (known, with a key). A ref
 * that cannot is left out, and said why in `skipped`, so a typo in the list is seen at once rather
 * than on the day the first model fails.
 */
export function fallbackChain(
  config: ResolvedConfig,
  first: ModelChoice,
  refs: readonly string[],
  cooldowns: ModelCooldowns = PROCESS_COOLDOWNS,
): { chain: FallbackChain; skipped: string[] } {
  const choices: ModelChoice[] = [first];
  const skipped: string[] = [];
  for (const ref of refs) {
    const selection = selectModel(config, ref);
    if (selection.ok) choices.push(selection);
    else skipped.push(`The fallback model ${ref} cannot be used, so it is left out: ${selection.message}`);
  }
  return { chain: new FallbackChain(choices, cooldowns), skipped };
}
