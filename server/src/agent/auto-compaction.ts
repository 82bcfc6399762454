/**
 * Auto-compaction: before a prompt runs, a conversation that has grown past `agent.compactAt` of
 * the model's context window is compacted first (compaction.ts), and the run says so in `status`
 * phases.
 *
 * Its size is what the provider reported for the root agent's last model call — input tokens,
 * cached ones included, so the system prompt and the tools count too — plus an estimate of what
 * joined the conversation after that call. Without a report (a session loaded from the store, a
 * conversation replaced since) it is all estimated, at characters / 4.
 *
 * A run that passes the threshold in its middle (many tool calls) is not compacted there: its
 * turns cannot be cut between a tool call and its result, and the run's own prompt must stay
 * word for word. Its last model call's report is above the threshold, though, so the next prompt
 * compacts first — and keeps fewer turns, or none, when the last ones alone are too large.
 */
import type { Usage } from '#protocol';
import { type ChatMessage, userText } from '../providers/messages.ts';
import type { StreamFn } from '../providers/stream.ts';
import type { ModelSpec, ProviderEndpoint } from '../providers/types.ts';
import type { Session } from '../sessions/store.ts';
import { groupDigits } from '../support/numbers.ts';
import { compactSession, DEFAULT_KEEP_TURNS, estimateTokens, isSummary, splitIndex } from './compaction.ts';
import type { BudgetAccount } from './budget-ledger.ts';
import type { AgentEvent } from './events.ts';
import type { ConversationPrefix } from './summary-request.ts';

/** The root agent's last model call: its input as the provider counted it, and what it was sent. */
interface Report {
  inputTokens: number;
  inputMessages: number;
  /** The first and last message sent: the report holds while the conversation still starts with them. */
  first: ChatMessage | undefined;
  last: ChatMessage | undefined;
}

const reports = new WeakMap<Session, Report>();

/** Remembers what the root agent's model call was sent (run-prompt calls it for each). */
export function noteModelCall(session: Session, inputMessages: number, usage: Usage): void {
  if (usage.estimated === true) return;
  reports.set(session, {
    inputTokens: usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
    inputMessages,
    first: session.messages[0],
    last: session.messages[inputMessages - 1],
  });
}

/**
 * What the provider counted as the input of the root agent's last model call, and how many
 * messages it was sent, while the conversation still starts with them; undefined otherwise.
 */
export function reportedInput(session: Session): { tokens: number; messages: number } | undefined {
  const report = reports.get(session);
  const { messages } = session;
  const holds =
    report !== undefined &&
    report.inputMessages <= messages.length &&
    messages[0] === report.first &&
    messages[report.inputMessages - 1] === report.last;
  return holds ? { tokens: report.inputTokens, messages: report.inputMessages } : undefined;
}

/** The conversation's size in tokens as the next model call would be sent it. */
export function contextTokens(session: Session): { tokens: number; reported: boolean } {
  const report = reportedInput(session);
  const { messages } = session;
  if (report === undefined) return { tokens: estimateTokens(messages), reported: false };
  return { tokens: report.tokens + estimateTokens(messages.slice(report.messages)), reported: true };
}

export interface AutoCompaction {
  session: Session;
  model: ModelSpec;
  endpoint: ProviderEndpoint;
  stream: StreamFn;
  /** `agent.compactAt`: the share of the context window, in (0, 1]. */
  compactAt: number;
  maxOutputTokens: number;
  /** The prompt about to run (it joins the conversation after the compaction). */
  nextPrompt: string;
  signal: AbortSignal;
  emit: (event: AgentEvent) => void;
  /** What the conversation's requests share besides its messages, to ask for the summary inside it. */
  prefix?: ConversationPrefix;
  /** The run's account for a compaction: the summary is paid from the session's budget. */
  budget?: BudgetAccount;
  /** Runs before the summary is asked for: the user's PreCompact hooks (trigger `auto`). */
  beforeCompact?: () => Promise<void>;
  /** Runs once the conversation is compacted: the user's SessionStart hooks (source `compact`). */
  afterCompact?: () => Promise<void>;
}

/** Compacts the session first when its conversation has passed `compactAt` of the window. */
export async function compactIfNeeded(auto: AutoCompaction): Promise<void> {
  const { session, model, emit } = auto;
  const size = contextTokens(session).tokens + estimateTokens([userText(auto.nextPrompt)]);
  const threshold = auto.compactAt * model.contextWindow;
  if (size < threshold) return;
  const keepTurns = turnsToKeep(session.messages, threshold / 4);
  const share = Math.round((size / model.contextWindow) * 100);
  emit({
    type: 'status',
    text: `The conversation is about ${groupDigits(size)} tokens, ${share}% of ${model.id}'s context window of ${groupDigits(model.contextWindow)} (compaction starts at ${Math.round(auto.compactAt * 100)}%): summarising its older part before this prompt.`,
  });
  await auto.beforeCompact?.();
  const result = await compactSession({
    session,
    model,
    endpoint: auto.endpoint,
    stream: auto.stream,
    keepTurns,
    maxOutputTokens: auto.maxOutputTokens,
    signal: auto.signal,
    onWarning: (text) => emit({ type: 'status', level: 'warning', text }),
    onSpend: (spend) => emit({ type: 'usage', spend }),
    ...(auto.prefix === undefined ? {} : { prefix: auto.prefix }),
    ...(auto.budget === undefined ? {} : { budget: auto.budget }),
  });
  switch (result.outcome) {
    case 'compacted': {
      const kept =
        keepTurns === 0
          ? 'nothing kept word for word'
          : `the last ${plural(keepTurns, 'turn')} kept word for word`;
      emit({
        type: 'status',
        text: `Compacted the conversation: ${plural(result.messagesBefore, 'message')} (about ${groupDigits(result.tokensBefore)} tokens) became a summary, ${kept} — ${plural(result.messagesAfter, 'message')}, about ${groupDigits(result.tokensAfter)} tokens; about ${groupDigits(Math.max(0, result.tokensBefore - result.tokensAfter))} tokens saved.`,
      });
      await auto.afterCompact?.();
      return;
    }
    case 'too_little':
      emit({
        type: 'status',
        level: 'warning',
        text: `The conversation is near the context window, but there is nothing older than the last turns to summarise; the prompt runs as it is.`,
      });
      return;
    case 'failed':
      // A cancelled run says so itself once the loop sees its signal.
      if (result.failure.kind === 'cancelled' || auto.signal.aborted) return;
      emit({
        type: 'status',
        level: 'warning',
        text: `Could not compact the conversation: ${result.failure.message} The history is unchanged and this prompt runs with all of it.`,
      });
      return;
    default: {
      const exhaustive: never = result;
      throw new Error(`unknown compaction result ${JSON.stringify(exhaustive)}`);
    }
  }
}

/**
 * As many of the last turns (up to the default) as leave something to summarise and stay within
 * `maxKept` tokens together; 0 when even the last one is larger — it is then summarised too.
 */
function turnsToKeep(messages: readonly ChatMessage[], maxKept: number): number {
  for (let turns = DEFAULT_KEEP_TURNS; turns > 0; turns--) {
    const split = splitIndex(messages, turns);
    const summarisable = messages.slice(0, split).some((message) => !isSummary(message));
    if (summarisable && estimateTokens(messages.slice(split)) <= maxKept) return turns;
  }
  return 0;
}

function plural(count: number, noun: string): string {
  return `${groupDigits(count)} ${noun}${count === 1 ? '' : 's'}`;
}
