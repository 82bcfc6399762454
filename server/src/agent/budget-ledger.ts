/**
 * The live ledger of a run's spending. Every model call reserves its worst case before it is made —
 * its input as if none of it were cached, the most output it may produce — and settles at what the
 * provider reported once it ends. A call the budget cannot pay is not made: it waits while calls in
 * flight hold the money it needs, is made with a smaller output cap when that fits, and otherwise
 * the user is asked to raise the budget (or, with no one to ask, the call is refused). So the money
 * spent stays within the budget, whatever the agents do in parallel.
 *
 * Two limits may be in force: the run's (the prompt's `maxBudgetUsd`, else `budget.perRunUsd`) and
 * the session's (`budget.perSessionUsd`, against everything the session spent). Agents are accounts
 * in a tree: a sub-agent spends from the same run budget as its parent, so it gets at most what
 * remains of its parent's, and the spend of an agent and those under it can be read per subtree.
 */
import type { BudgetStatus, Usage } from '#protocol';
import { costUsd } from '../providers/catalog.ts';
import { inputTokensHigh, messageTokensHigh, outputTokenCeiling } from '../providers/request-size.ts';
import { addUsage, cacheHitRatio, EMPTY_USAGE, type ModelRequest } from '../providers/stream.ts';
import type { ModelSpec } from '../providers/types.ts';

/** A call is made with a lowered output cap only if the cap stays at least this. */
export const MIN_OUTPUT_TOKENS = 1_024;

export interface Limit {
  scope: BudgetStatus['scope'];
  limitUsd: number;
}

/** What a spent budget asks the user: the budget, and what the call it cannot pay may cost. */
export interface BudgetQuestion {
  agentId: string;
  status: BudgetStatus;
  neededUsd: number;
}

export interface LedgerOptions {
  model: ModelSpec;
  limits: readonly Limit[];
  /** What the session had spent before this run. */
  sessionSpentUsd: number;
  /**
   * Puts a spent budget to the user: resolves with the new limit, or undefined to stop. Absent:
   * a spent budget stops the run.
   */
  askToRaise?: (question: BudgetQuestion, signal: AbortSignal) => Promise<number | undefined>;
  /** Says why a call was refused, with what to do about it (the budget's scope and figures). */
  refusalMessage: (question: BudgetQuestion) => string;
}

/** What one model spent of a run. */
export interface ModelSpend {
  /** provider/id */
  model: string;
  usage: Usage;
  costUsd: number;
}

function modelRef(model: ModelSpec): string {
  return `${model.provider}/${model.id}`;
}

/** What a model call cost, and where the run and the session stand after it (a `usage` phase). */
export interface SpendReport {
  usage: Usage;
  costUsd: number;
  /** The model that made the call, when it is not the run's own (a fallback model). */
  model?: string;
  runUsage: Usage;
  runCostUsd: number;
  sessionCostUsd: number;
  cacheHitRatio?: number;
  budget?: BudgetStatus;
}

export type Reservation =
  | { ok: true; request: ModelRequest; settle(usage: Usage): SpendReport }
  | { ok: false; cancelled: boolean; message: string };

/** One agent's side of the ledger. */
export interface BudgetAccount {
  /** Reserves the worst case of `request`; resolves once it is reserved, or refused. */
  reserve(request: ModelRequest, signal: AbortSignal): Promise<Reservation>;
}

interface Account {
  parentId: string | undefined;
  /** Counted against the session's budget only (a compaction before the run). */
  sessionOnly: boolean;
  usage: Usage;
  costUsd: number;
  /** The input the provider counted for this account's last call, and the messages it was sent. */
  lastInput?: { tokens: number; messages: number };
}

type Decision =
  | { kind: 'go'; request: ModelRequest; worstUsd: number }
  | { kind: 'wait' }
  | { kind: 'short'; question: BudgetQuestion };

export class SpendLedger {
  readonly #options: LedgerOptions;
  readonly #limits: Limit[];
  readonly #accounts = new Map<string, Account>();
  #runUsage: Usage = EMPTY_USAGE;
  #runCostUsd = 0;
  /** Spent outside the run's agents (compaction): the session's, not the run's. */
  #sessionExtraUsd = 0;
  #reservedUsd = 0;
  readonly #byModel = new Map<string, { usage: Usage; costUsd: number }>();
  #reservedRunUsd = 0;
  /** Why the budget stopped the run: once one call is refused, every later one is. */
  #stopped: string | undefined;
  #question: Promise<void> | undefined;
  #waiters: Array<() => void> = [];

  constructor(options: LedgerOptions) {
    this.#options = options;
    this.#limits = options.limits.map((limit) => ({ ...limit }));
  }

  /**
   * The account of `agentId`, under `parentId` for a sub-agent; `lastInput`: what the provider
   * counted of the conversation it continues (a session's root agent), to reserve its first call
   * from that count rather than from an estimate of the whole.
   */
  account(
    agentId: string,
    options: { parentId?: string; sessionOnly?: boolean; lastInput?: Account['lastInput'] } = {},
  ): BudgetAccount {
    if (!this.#accounts.has(agentId)) {
      this.#accounts.set(agentId, {
        parentId: options.parentId,
        sessionOnly: options.sessionOnly === true,
        usage: EMPTY_USAGE,
        costUsd: 0,
        ...(options.lastInput === undefined ? {} : { lastInput: options.lastInput }),
      });
    }
    return { reserve: (request, signal) => this.#reserve(agentId, request, signal) };
  }

  get runUsage(): Usage {
    return this.#runUsage;
  }

  get runCostUsd(): number {
    return this.#runCostUsd;
  }

  /**
   * The run's usage and cost per model (provider/id), in the order the models were first called;
   * more than one entry only when a fallback model answered some calls (agent/fallback.ts).
   */
  get byModel(): ModelSpend[] {
    return [...this.#byModel.entries()].map(([model, spend]) => ({ model, ...spend }));
  }

  #countByModel(model: ModelSpec, usage: Usage, cost: number): void {
    const ref = modelRef(model);
    const before = this.#byModel.get(ref) ?? { usage: EMPTY_USAGE, costUsd: 0 };
    this.#byModel.set(ref, { usage: addUsage(before.usage, usage), costUsd: before.costUsd + cost });
  }

  /** Usage and cost of `agentId` and every agent it started, directly or not. */
  subtree(agentId: string): { usage: Usage; costUsd: number } {
    let usage = EMPTY_USAGE;
    let cost = 0;
    for (const [id, account] of this.#accounts) {
      if (!this.#descends(id, agentId)) continue;
      usage = addUsage(usage, account.usage);
      cost += account.costUsd;
    }
    return { usage, costUsd: cost };
  }

  /** The budget nearest to being spent, when one is in force. */
  status(): BudgetStatus | undefined {
    let nearest: BudgetStatus | undefined;
    for (const limit of this.#limits) {
      const status = { ...limit, spentUsd: this.#spent(limit.scope) };
      if (nearest === undefined || room(status) < room(nearest)) nearest = status;
    }
    return nearest;
  }

  #descends(id: string, ancestor: string): boolean {
    for (let current: string | undefined = id; current !== undefined;) {
      if (current === ancestor) return true;
      current = this.#accounts.get(current)?.parentId;
    }
    return false;
  }

  #spent(scope: Limit['scope']): number {
    return scope === 'run'
      ? this.#runCostUsd
      : this.#options.sessionSpentUsd + this.#sessionExtraUsd + this.#runCostUsd;
  }

  async #reserve(agentId: string, request: ModelRequest, signal: AbortSignal): Promise<Reservation> {
    const account = this.#accounts.get(agentId) as Account;
    for (;;) {
      if (signal.aborted) return { ok: false, cancelled: true, message: 'cancelled' };
      if (this.#stopped !== undefined) return { ok: false, cancelled: false, message: this.#stopped };
      const decision = this.#decide(agentId, account, request);
      if (decision.kind === 'go') return this.#hold(account, decision);
      if (decision.kind === 'wait') await this.#settled(signal);
      else if (!(await this.#raise(decision, signal))) {
        if (signal.aborted) return { ok: false, cancelled: true, message: 'cancelled' };
        this.#stopped ??= this.#options.refusalMessage(decision.question);
      }
    }
  }

  /** Whether `request` can be made now (perhaps with less output), must wait, or cannot be paid. */
  #decide(agentId: string, account: Account, request: ModelRequest): Decision {
    // Each call at its own model's prices: a fallback model's (agent/fallback.ts) may differ.
    const pricing = request.model.pricing;
    if (pricing === undefined || this.#limits.length === 0) return { kind: 'go', request, worstUsd: 0 };
    const inputUsd =
      (this.#inputTokens(account, request) * Math.max(pricing.input, pricing.cacheWrite ?? 0)) / 1e6;
    const outputUsd = (tokens: number) => (tokens * pricing.output) / 1e6;
    const worstUsd = inputUsd + outputUsd(outputTokenCeiling(request));
    const limits = this.#limits.filter((limit) => !account.sessionOnly || limit.scope === 'session');
    const reserved = (limit: Limit) => (limit.scope === 'run' ? this.#reservedRunUsd : this.#reservedUsd);
    const free = Math.min(...limits.map((limit) => limit.limitUsd - this.#spent(limit.scope)), Infinity);
    const roomNow = Math.min(
      ...limits.map((limit) => limit.limitUsd - this.#spent(limit.scope) - reserved(limit)),
      Infinity,
    );
    if (worstUsd <= roomNow) return { kind: 'go', request, worstUsd };
    // Calls in flight hold what this one needs: it waits for them rather than shrinking.
    if (this.#reservedUsd > 0 && worstUsd <= free) return { kind: 'wait' };
    const lowered = lowerOutput(request, (roomNow - inputUsd) / (pricing.output / 1e6));
    if (lowered !== undefined)
      return { kind: 'go', request: lowered, worstUsd: inputUsd + outputUsd(outputTokenCeiling(lowered)) };
    if (
      this.#reservedUsd > 0 &&
      lowerOutput(request, (free - inputUsd) / (pricing.output / 1e6)) !== undefined
    )
      return { kind: 'wait' };
    const tightest = limits.reduce((a, b) =>
      a.limitUsd - this.#spent(a.scope) <= b.limitUsd - this.#spent(b.scope) ? a : b,
    );
    return {
      kind: 'short',
      question: {
        agentId,
        status: { ...tightest, spentUsd: this.#spent(tightest.scope) },
        neededUsd: worstUsd,
      },
    };
  }

  /** Input tokens of the call, high: the provider's count of the last call plus what was added. */
  #inputTokens(account: Account, request: ModelRequest): number {
    const last = account.lastInput;
    if (last !== undefined && request.messages.length >= last.messages)
      return last.tokens + messageTokensHigh(request.messages.slice(last.messages));
    return inputTokensHigh(request);
  }

  #hold(account: Account, decision: Extract<Decision, { kind: 'go' }>): Reservation {
    const held = decision.worstUsd;
    this.#reservedUsd += held;
    if (!account.sessionOnly) this.#reservedRunUsd += held;
    let settled = false;
    return {
      ok: true,
      request: decision.request,
      settle: (usage) => {
        if (!settled) {
          settled = true;
          this.#reservedUsd -= held;
          if (!account.sessionOnly) this.#reservedRunUsd -= held;
          this.#record(account, decision.request, usage);
          for (const wake of this.#waiters.splice(0)) wake();
        }
        return this.#report(decision.request.model, usage);
      },
    };
  }

  #record(account: Account, request: ModelRequest, usage: Usage): void {
    const cost = costUsd(request.model, usage);
    // A call that failed before the provider took it (nothing counted) is no model's share.
    const counted = usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    if (!account.sessionOnly && counted > 0) this.#countByModel(request.model, usage, cost);
    account.usage = addUsage(account.usage, usage);
    account.costUsd += cost;
    if (usage.estimated !== true)
      account.lastInput = {
        tokens: usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
        messages: request.messages.length,
      };
    if (account.sessionOnly) {
      this.#sessionExtraUsd += cost;
      return;
    }
    this.#runUsage = addUsage(this.#runUsage, usage);
    this.#runCostUsd += cost;
  }

  #report(model: ModelSpec, usage: Usage): SpendReport {
    const ratio = cacheHitRatio(this.#runUsage);
    const budget = this.status();
    const own = model.id === this.#options.model.id && model.provider === this.#options.model.provider;
    return {
      usage,
      costUsd: costUsd(model, usage),
      ...(own ? {} : { model: modelRef(model) }),
      runUsage: this.#runUsage,
      runCostUsd: this.#runCostUsd,
      sessionCostUsd: this.#spent('session'),
      ...(ratio === undefined ? {} : { cacheHitRatio: ratio }),
      ...(budget === undefined ? {} : { budget }),
    };
  }

  /** Resolves when a reservation is settled, or the signal aborts. */
  #settled(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.#waiters.push(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /**
   * Asks to raise the budget `decision` found spent, one question at a time: a call refused while
   * another question is open waits for its answer. Resolves true when the budget was raised.
   */
  async #raise(decision: Extract<Decision, { kind: 'short' }>, signal: AbortSignal): Promise<boolean> {
    if (this.#question !== undefined) {
      await this.#question;
      return this.#stopped === undefined;
    }
    const ask = this.#options.askToRaise;
    if (ask === undefined) return false;
    let raised = false;
    this.#question = (async () => {
      const limit = await ask(decision.question, signal).catch(() => undefined);
      const current = this.#limits.find((candidate) => candidate.scope === decision.question.status.scope);
      if (limit !== undefined && current !== undefined && limit > current.limitUsd) {
        current.limitUsd = limit;
        raised = true;
      } else this.#stopped ??= this.#options.refusalMessage(decision.question);
    })();
    await this.#question;
    this.#question = undefined;
    return raised;
  }
}

function room(status: BudgetStatus): number {
  return status.limitUsd - status.spentUsd;
}

/**
 * `request` with its output cap lowered so that its output ceiling is at most `tokens`, or
 * undefined when that leaves less than MIN_OUTPUT_TOKENS of answer.
 */
function lowerOutput(request: ModelRequest, tokens: number): ModelRequest | undefined {
  if (!Number.isFinite(tokens)) return undefined;
  // What the provider adds on top of the answer (thinking room), whatever the answer's cap.
  const extra = outputTokenCeiling({ ...request, maxOutputTokens: 0 });
  const answer = Math.min(request.maxOutputTokens, Math.floor(tokens) - extra);
  return answer >= MIN_OUTPUT_TOKENS ? { ...request, maxOutputTokens: answer } : undefined;
}
