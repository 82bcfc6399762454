/**
 * What `santra -p` writes: the answer on stdout in one of three formats, and one-line summaries of
 * what the agents do on stderr. Nothing here knows about processes or JSON-RPC.
 */
import { Phase, type PromptResult } from '#protocol';
import type { OutputFormat } from './args.ts';

/** Receives a run's phases and result and writes them to stdout in one format. */
export interface Output {
  /** A `phase` notification: `raw` as received, `phase` when it matched the schema (unknown types do not). */
  phase(raw: unknown, phase: Phase | undefined): void;
  /** The `prompt` result. */
  result(result: PromptResult): void;
  /** Called at the end, whether or not a result came; calling it again does nothing. */
  finish(): void;
  /** Ends the answer's current line, so a line on stderr sharing the terminal starts on its own. */
  breakLine(): void;
}

/** Creates the writer for `format`; `write` puts text on stdout. */
export function createOutput(format: OutputFormat, write: (text: string) => void): Output {
  switch (format) {
    case 'text':
      return textOutput(write);
    case 'json':
      return {
        phase: () => {},
        result: (result) => write(`${JSON.stringify(result)}\n`),
        finish: () => {},
        breakLine: () => {},
      };
    case 'stream-json':
      return {
        phase: (raw) => write(`${JSON.stringify(raw)}\n`),
        result: (result) => write(`${JSON.stringify({ type: 'result', ...result })}\n`),
        finish: () => {},
        breakLine: () => {},
      };
    default: {
      const exhaustive: never = format;
      throw new Error(`unknown output format ${String(exhaustive)}`);
    }
  }
}

/**
 * The root agent's answer, as it streams; sub-agents' text is their business, not the answer. An
 * answer that did not stream as text (a server that sends no deltas, or an agent that finished with
 * task_completed or set_output after talking about its plan) is printed once, at the end.
 */
function textOutput(write: (text: string) => void): Output {
  let streamed = '';
  let atLineStart = true;
  const emit = (text: string) => {
    if (text === '') return;
    write(text);
    streamed += text;
    atLineStart = text.endsWith('\n');
  };
  return {
    phase: (_raw, phase) => {
      if (phase?.type === 'text' && phase.parentAgentId === undefined) emit(phase.text);
    },
    result: (result) => {
      if (streamed === '') return emit(result.output);
      // A run that did not complete answers with what it had streamed so far.
      const answer = result.output.trim();
      if (result.status !== 'completed' || answer === '' || streamed.trimEnd().endsWith(answer)) return;
      if (!atLineStart) emit('\n');
      emit(`${answer}\n`);
    },
    finish: () => {
      if (!atLineStart) write('\n');
      atLineStart = true;
    },
    breakLine: () => {
      if (!atLineStart) write('\n');
      atLineStart = true;
    },
  };
}

/** Parses a `phase` notification's params; undefined for a type this client does not know (§4.4). */
export function parsePhase(raw: unknown): Phase | undefined {
  const parsed = Phase.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

/** The message for an `error` phase, as shown on stderr: on one line, but never cut (it says what to do). */
export function errorLine(phase: Extract<Phase, { type: 'error' }>): string {
  const details = [phase.provider, phase.httpStatus, phase.code].filter((part) => part !== undefined);
  const where = details.length > 0 ? ` (${details.join(' ')})` : '';
  return `santra: error${agentLabel(phase)}: ${oneLine(phase.message, MAX_ERROR_LINE)}${where}`;
}

/**
 * What a command-line user can do about an error the server describes in protocol-neutral words:
 * the commands that list models and agents, and what to do when the run hit its turn limit.
 */
export function cliHint(phase: Extract<Phase, { type: 'error' }>): string | undefined {
  if (phase.code === 'model_unavailable')
    return 'santra: `santra models` lists the models you can use (`--model provider/model`).';
  if (phase.code === 'max_turns')
    return 'santra: santra -p cannot continue a run yet; run it again with a narrower task, or raise agent.maxTurnsPerRun in the config.';
  if (phase.code === 'budget')
    return 'santra: the run stopped at its budget (exit code 4); santra -p --continue --max-budget-usd <more> "…" goes on with the session.';
  // The other codes' messages say what to do already.
  return undefined;
}

/** A one-line summary of a phase for --verbose, or undefined for phases that are not summarised. */
export function verboseLine(phase: Phase): string | undefined {
  const who = agentLabel(phase);
  switch (phase.type) {
    case 'status':
      return phase.level === 'warning'
        ? `!${who} ${oneLine(phase.text, MAX_ERROR_LINE)}`
        : `·${who} ${oneLine(phase.text)}`;
    case 'tool_call':
      return `→${who} ${oneLine(phase.summary ?? `${phase.toolName} ${JSON.stringify(phase.args)}`)}`;
    case 'tool_result':
      return `←${who} ${phase.toolName} ${phase.status}: ${oneLine(phase.summary)}`;
    case 'section':
      return `▸${who} ${oneLine(phase.title)}`;
    case 'complete':
      return phase.parentAgentId === undefined ? undefined : `✓${who} ${phase.status}`;
    case 'usage':
      return `$${who} ${spendLine(phase)}`;
    case 'event':
      return `✉${who} event from ${phase.source}: ${oneLine(phase.text)}`;
    case 'text':
    case 'thinking':
    case 'error':
      // Text is the answer itself; thinking is too long for a line; errors are always shown.
      return undefined;
    default: {
      const exhaustive: never = phase;
      throw new Error(`unknown phase ${JSON.stringify(exhaustive)}`);
    }
  }
}

/** What to say on stderr about how a run ended, or undefined when there is nothing to add. */
/** "$0.0123": sub-cent amounts keep four significant digits, larger ones two decimals. */
export function formatUsd(amount: number): string {
  if (amount === 0) return '$0';
  if (amount >= 0.01) return `$${amount.toFixed(2)}`;
  return `$${Number(amount.toPrecision(4)).toString()}`;
}

/** "44% cached": the share of input tokens read from the provider's cache; empty when it reported none. */
export function cachedShare(usage: PromptResult['usage']): string {
  const cached = usage.cacheReadTokens + usage.cacheWriteTokens;
  // A provider that reports no cache at all (most local servers) is not said to miss it.
  return cached === 0
    ? ''
    : `${Math.floor((usage.cacheReadTokens / (usage.inputTokens + cached)) * 100)}% cached`;
}

/** A model call's spend for --verbose: the call, the run so far, the budget. */
function spendLine(phase: Extract<Phase, { type: 'usage' }>): string {
  const share = cachedShare(phase.runUsage);
  const budget =
    phase.budget === undefined
      ? ''
      : ` · ${phase.budget.scope} budget ${formatUsd(phase.budget.spentUsd)} of ${formatUsd(phase.budget.limitUsd)}`;
  return `${formatUsd(phase.costUsd)} this call · run ${formatUsd(phase.runCostUsd)}${share === '' ? '' : ` (${share})`}${budget}`;
}

/** The run's tokens and cost, and the session's, for --verbose. */
export function usageLine(result: PromptResult): string {
  const tokens = (usage: PromptResult['usage']) => {
    const input = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    const share = cachedShare(usage);
    const parts = `${input.toLocaleString('en-US')} in${share === '' ? '' : ` (${share})`}, ${usage.outputTokens.toLocaleString('en-US')} out`;
    return usage.estimated ? `~${parts} (estimated)` : parts;
  };
  const budget =
    result.budget === undefined
      ? ''
      : ` · ${result.budget.scope} budget ${formatUsd(result.budget.spentUsd)} of ${formatUsd(result.budget.limitUsd)}`;
  // A run a fallback model answered in part says what each model spent (§8.4).
  const byModel =
    result.modelUsage === undefined
      ? ''
      : ` (${result.modelUsage.map((share) => `${share.model}: ${tokens(share.usage)}, ${formatUsd(share.costUsd)}`).join('; ')})`;
  return `santra: ${tokens(result.usage)} tokens, ${formatUsd(result.costUsd)}${byModel} · session ${tokens(result.sessionUsage)}, ${formatUsd(result.sessionCostUsd)}${budget}`;
}

export function statusLine(result: PromptResult, sawErrorPhase: boolean): string | undefined {
  switch (result.status) {
    case 'completed':
      if (result.stopReason === 'max_tokens')
        return 'santra: the answer is incomplete: the model stopped at its output limit (exit code 3); ask it to continue, or raise agent.maxOutputTokens';
      if (result.stopReason === 'refusal') return 'santra: the model declined to answer (exit code 3)';
      return undefined;
    case 'error':
      return sawErrorPhase ? undefined : 'santra: the run ended with an error (the server sent no details)';
    case 'interrupted':
      return "santra: the run was interrupted: the model's stream broke off; the output so far is kept";
    case 'cancelled':
      return 'santra: the run was cancelled';
    default: {
      const exhaustive: never = result.status;
      throw new Error(`unknown status ${String(exhaustive)}`);
    }
  }
}

const MAX_LINE = 200;
/** Errors and warnings explain what to do; they are cut only when absurdly long. */
const MAX_ERROR_LINE = 2000;

/** Collapses whitespace runs (newlines included) and cuts the text to fit one terminal line. */
export function oneLine(text: string, max = MAX_LINE): string {
  const line = visible(text).replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * Makes control characters visible (except newline and tab), so that what a model or a server
 * says cannot move the cursor or recolour the user's terminal.
 */
export function visible(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (char) => {
    const code = char.charCodeAt(0);
    return code < 0x20 ? `^${String.fromCharCode(code + 64)}` : `\\x${code.toString(16)}`;
  });
}

function agentLabel(phase: Phase): string {
  return phase.parentAgentId === undefined ? '' : ` [${phase.agentRole ?? phase.agentId}]`;
}
