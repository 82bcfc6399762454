/**
 * The budgets of one prompt's run, from the prompt and the config, and what a spent one says: the
 * message that ends a run it stopped (with what to raise), and the question that asks the user to
 * raise it instead, for a client that answers questions.
 */
import type { AskParams } from '#protocol';
import type { ResolvedConfig } from '../config/config.ts';
import { formatUsd } from '../providers/catalog.ts';
import type { ModelSpec } from '../providers/types.ts';
import { type BudgetQuestion, type Limit, SpendLedger } from './budget-ledger.ts';

export interface RunBudgetOptions {
  model: ModelSpec;
  /** The prompt's `maxBudgetUsd`: the run's limit instead of the config's. */
  promptLimitUsd?: number;
  budget: ResolvedConfig['budget'];
  configFile: string;
  sessionSpentUsd: number;
  sessionId: string;
  runId: string;
  /** Puts a question to the user and resolves with the answer; absent when the client cannot. */
  ask?: (params: AskParams, signal: AbortSignal) => Promise<string>;
  /** Says something to the user about the budget (a status line). */
  say: (text: string) => void;
}

/** The ledger of a run, with its limits in force. */
export function runLedger(options: RunBudgetOptions): SpendLedger {
  const limits: Limit[] = [];
  const perRun = options.promptLimitUsd ?? options.budget.perRunUsd;
  if (perRun !== undefined) limits.push({ scope: 'run', limitUsd: perRun });
  if (options.budget.perSessionUsd !== undefined)
    limits.push({ scope: 'session', limitUsd: options.budget.perSessionUsd });
  const ask = options.ask;
  let asked = 0;
  return new SpendLedger({
    model: options.model,
    limits,
    sessionSpentUsd: options.sessionSpentUsd,
    refusalMessage: (question) => refusalMessage(question, options),
    ...(ask === undefined
      ? {}
      : {
          askToRaise: async (question, signal) => {
            const answer = await ask(budgetAsk(question, options, `budget_${++asked}`), signal);
            const limit = parseLimit(answer);
            if (limit !== undefined && limit > question.status.limitUsd)
              options.say(`The ${whose(question)} budget was raised to ${formatUsd(limit)}.`);
            return limit;
          },
        }),
  });
}

/** Whether a spent budget can be kept at all: a model without prices costs "$0" whatever it spends. */
export function budgetUnenforceable(
  options: Pick<RunBudgetOptions, 'model' | 'promptLimitUsd' | 'budget'>,
): boolean {
  const limited =
    options.promptLimitUsd !== undefined ||
    options.budget.perRunUsd !== undefined ||
    options.budget.perSessionUsd !== undefined;
  return limited && options.model.pricing === undefined;
}

function whose(question: BudgetQuestion): string {
  return question.status.scope === 'run' ? "run's" : "session's";
}

/** Why the run stopped, and what to raise to go on. */
function refusalMessage(question: BudgetQuestion, options: RunBudgetOptions): string {
  const { status, neededUsd } = question;
  const spent = `${formatUsd(status.spentUsd)} spent of ${formatUsd(status.limitUsd)}`;
  const next = `the next model call (${question.agentId}) could cost up to ${formatUsd(neededUsd)}`;
  if (status.scope === 'session')
    return `The session's budget cannot pay for more: ${spent} (its runs and compactions together), and ${next}, so the run stopped. Raise budget.perSessionUsd in ${options.configFile}, or start a new session.`;
  const raise =
    options.promptLimitUsd !== undefined
      ? "raise the prompt's budget (santra -p --max-budget-usd)"
      : `raise budget.perRunUsd in ${options.configFile}`;
  return `The run's budget cannot pay for more: ${spent}, and ${next}, so the run stopped. To go on, ${raise} and continue the session.`;
}

/** The question that asks the user to raise a spent budget (§7.6). */
function budgetAsk(question: BudgetQuestion, options: RunBudgetOptions, toolCallId: string): AskParams {
  const { status, neededUsd } = question;
  const suggested = Math.ceil(Math.max(status.limitUsd * 2, status.spentUsd + neededUsd * 2) * 100) / 100;
  const scope = status.scope === 'run' ? 'This run' : 'This session';
  return {
    sessionId: options.sessionId,
    runId: options.runId,
    agentId: question.agentId,
    toolCallId,
    header: 'Budget',
    prompt: `${scope} has spent ${formatUsd(status.spentUsd)} of its ${formatUsd(status.limitUsd)} budget, and the next model call (${question.agentId}) could cost up to ${formatUsd(neededUsd)}. Raise the budget to go on, or stop the run?`,
    options: [
      { label: `Raise to $${suggested.toFixed(2)}`, value: suggested.toFixed(2) },
      { label: 'Stop the run', value: 'stop' },
    ],
    budget: { ...status, neededUsd },
  };
}

/** An answer as a new limit in US dollars ("2.00", "$5", "5 USD"), or undefined to stop. */
export function parseLimit(answer: string): number | undefined {
  const match = /^\$?\s*(\d+(?:\.\d+)?)\s*(?:\$|usd|dollars?)?$/i.exec(answer.trim());
  const value = match === null ? Number.NaN : Number(match[1]);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}
