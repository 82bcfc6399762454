/**
 * Compaction: the older part of a session's conversation is replaced by a summary the model
 * writes, and the last few user turns stay word for word. This file is what a compaction does;
 * when a prompt compacts first, because the conversation nears the model's context window, is
 * auto-compaction.ts; the protocol's `session/compact` is runtime/compact-handler.ts, which holds
 * the session (sessions/occupancy.ts) and maps the outcome to its result.
 *
 * The `compaction` record is written only once the summary is complete, and the live conversation
 * is replaced only after that: a model call that fails or is cancelled, or a server that dies
 * while the model writes, leaves the old history in force, in memory and in the session file.
 *
 * The summary is asked for inside the conversation where it can be (summary-request.ts: the
 * provider reads the conversation from its cache), else in a fresh request holding it as a
 * transcript; one that the provider refuses as malformed or too long, or that answers with a tool
 * call instead, is asked for again as a transcript.
 */
import type { Usage } from '#protocol';
import { costUsd } from '../providers/catalog.ts';
import { type ChatMessage, userText } from '../providers/messages.ts';
import {
  addUsage,
  EMPTY_USAGE,
  type ModelRequest,
  type ProviderFailure,
  type StreamFn,
} from '../providers/stream.ts';
import type { ModelSpec, ProviderEndpoint } from '../providers/types.ts';
import { COMPACTION_AGENT } from '../sessions/records.ts';
import type { Session } from '../sessions/store.ts';
import type { BudgetAccount, SpendReport } from './budget-ledger.ts';
import { type ConversationPrefix, inConversationRequest, rememberedPrefix } from './summary-request.ts';

/** User turns kept word for word when the caller does not say. */
export const DEFAULT_KEEP_TURNS = 2;

/**
 * The first line of the message that stands for the summarised conversation. It tells the model
 * what it is reading, and lets a later compaction recognise it (it is not a user turn).
 */
export const SUMMARY_HEADER =
  '[Summary of the earlier conversation, written when it was compacted to save context. The messages after this one are word for word.]';

/** Most output tokens the summary may take (less if the model or the config allows less). */
const SUMMARY_MAX_TOKENS = 8_192;
/** A tool's output is summarised from its beginning and end: it is the bulk of a coding session. */
const TOOL_OUTPUT_CHARS = 4_000;
const TOOL_ARGS_CHARS = 1_000;

/** What a summary must hold, and how it is written: said by both ways of asking for one. */
const SUMMARY_NEEDS = `- The user's task and goals, and any change of plan; quote the user where the exact words matter.
- Decisions taken and why, and approaches that were tried and failed.
- Every file read, created, changed, moved or deleted, with its current state: what was changed in it, what is still to do. Keep names that matter exactly: paths, functions, types, commands, settings.
- Commands run whose results still matter (tests passing or failing, errors and their messages).
- Open problems, errors not yet fixed, and the next steps.
- The user's preferences and instructions: style, tools, things to do or never do.

Be specific and factual; leave out small talk and tool output that no longer matters; invent nothing. If the conversation begins with an earlier summary, merge it into yours. Write in the language of the conversation. Answer with the summary only, in Markdown with short sections.`;

const SUMMARY_PROMPT = `You summarise the earlier part of a conversation between a user and a coding agent. The agent continues the work with your summary in place of that part, so it must hold everything the agent still needs:

${SUMMARY_NEEDS}`;

/** The question that ends the conversation when the summary is asked for inside it. */
const IN_CONVERSATION_ASK = `[Compaction: the conversation above is about to be replaced by a summary, to save context. Stop the task here: call no tool, and answer with the summary alone. It must hold everything you will still need to carry on:

${SUMMARY_NEEDS}]`;

export interface CompactionRequest {
  session: Session;
  model: ModelSpec;
  endpoint: ProviderEndpoint;
  /** The runtime's resilient stream, as a prompt's model calls use it. */
  stream: StreamFn;
  /** User turns kept word for word; 0 summarises everything. */
  keepTurns: number;
  /** The config's output cap per model call. */
  maxOutputTokens: number;
  signal: AbortSignal;
  /** Told of a retry or a slow provider while the summary is written (a prompt shows it as a status). */
  onWarning?(text: string): void;
  /**
   * What the conversation's requests share besides its messages, to ask for the summary inside it;
   * default: what this server remembers of the session's last run under the model.
   */
  prefix?: ConversationPrefix;
  /** The account the summary is paid from, when a budget applies (a prompt's compaction). */
  budget?: BudgetAccount;
  /** Told what the summary cost (a prompt shows it as a `usage` phase). */
  onSpend?(spend: SpendReport): void;
}

export type CompactionResult =
  | {
      outcome: 'compacted';
      messagesBefore: number;
      messagesAfter: number;
      /** Estimated tokens of the conversation before and after (chars / 4). */
      tokensBefore: number;
      tokensAfter: number;
      usage: Usage;
      costUsd: number;
    }
  /** Nothing before the kept turns but, at most, an earlier summary. */
  | { outcome: 'too_little'; messagesBefore: number }
  /** The model call failed or was cancelled: nothing was written, the history is as it was. */
  | { outcome: 'failed'; messagesBefore: number; failure: ProviderFailure };

export function isSummary(message: ChatMessage): boolean {
  const first = message.content[0];
  return message.role === 'user' && first?.type === 'text' && first.text.startsWith(SUMMARY_HEADER);
}

/**
 * Where the user turns start: a user message of the user's own text — not tool results (so the
 * conversation is never cut between a tool call and its result), not a summary.
 */
export function turnStarts(messages: readonly ChatMessage[]): number[] {
  const starts: number[] = [];
  messages.forEach((message, index) => {
    if (
      message.role === 'user' &&
      message.content.length > 0 &&
      message.content.every((block) => block.type === 'text') &&
      !isSummary(message)
    )
      starts.push(index);
  });
  return starts;
}

/**
 * The index the kept part starts at: the start of the `keepTurns`-th user turn from the end
 * (the end itself for 0). With fewer turns than that, everything is kept (0).
 */
export function splitIndex(messages: readonly ChatMessage[], keepTurns: number): number {
  if (keepTurns <= 0) return messages.length;
  const starts = turnStarts(messages);
  return starts.length < keepTurns ? 0 : (starts[starts.length - keepTurns] ?? 0);
}

/** Tokens of `messages`, estimated as characters / 4 (no tokenizer: one per provider would be needed). */
export function estimateTokens(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === 'text' || block.type === 'thinking') chars += block.text.length;
      else if (block.type === 'tool_call') chars += block.name.length + block.argsText.length;
      else chars += block.output.length;
    }
  }
  return Math.ceil(chars / 4);
}

export async function compactSession(request: CompactionRequest): Promise<CompactionResult> {
  const { session } = request;
  const messagesBefore = session.messages.length;
  const split = splitIndex(session.messages, request.keepTurns);
  const older = session.messages.slice(0, split);
  const kept = session.messages.slice(split);
  if (!older.some((message) => !isSummary(message))) return { outcome: 'too_little', messagesBefore };

  const summarised = await summarise(request, older, kept.length > 0);
  if ('failure' in summarised) return { outcome: 'failed', messagesBefore, failure: summarised.failure };
  const summary = userText(`${SUMMARY_HEADER}\n\n${summarised.text}`);
  const cost = costUsd(request.model, summarised.usage);
  // The model's answer, for a replay (sessions/recorded-model.ts), then the compaction record: once that
  // is saved the summary is the history, in this server and the next.
  session.record({
    type: 'model_output',
    runId: COMPACTION_AGENT,
    agentId: COMPACTION_AGENT,
    turn: 1,
    inputMessages: summarised.sent,
    content: [{ type: 'text', text: summarised.text }],
    stopReason: 'end_turn',
    usage: summarised.usage,
  });
  session.record({
    type: 'compaction',
    summary,
    kept,
    usage: summarised.usage,
    costUsd: cost,
    at: new Date().toISOString(),
  });
  const tokensBefore = estimateTokens(session.messages);
  const after = [summary, ...kept];
  session.messages.splice(0, session.messages.length, ...after);
  session.usage = addUsage(session.usage, summarised.usage);
  session.costUsd += cost;
  return {
    outcome: 'compacted',
    messagesBefore,
    messagesAfter: after.length,
    tokensBefore,
    tokensAfter: estimateTokens(after),
    usage: summarised.usage,
    costUsd: cost,
  };
}

type Summarised =
  { text: string; usage: Usage; sent: number } | { failure: ProviderFailure; fallBack: boolean };

/**
 * The summary of `older`: asked for inside the conversation where it can be, else (or when that
 * request is refused as malformed or too long, or answered with a tool call) as a transcript.
 */
async function summarise(
  request: CompactionRequest,
  older: readonly ChatMessage[],
  /** Turns follow the summary word for word (none: the summary is all the agent will have). */
  keeps: boolean,
): Promise<Exclude<Summarised, { fallBack: boolean }> | { failure: ProviderFailure }> {
  const attempts = summaryRequests(request, older, keeps);
  for (const [index, attempt] of attempts.entries()) {
    const outcome = await askForSummary(request, attempt);
    if ('text' in outcome || !outcome.fallBack || index === attempts.length - 1) return outcome;
  }
  throw new Error('no summary request');
}

/** The ways to ask for the summary of `older`, in the order they are tried. */
function summaryRequests(
  request: CompactionRequest,
  older: readonly ChatMessage[],
  keeps: boolean,
): Omit<ModelRequest, 'signal'>[] {
  const { model } = request;
  const maxOutputTokens = Math.min(request.maxOutputTokens, model.maxOutputTokens, SUMMARY_MAX_TOKENS);
  const follows = keeps
    ? 'The latest turns follow your summary word for word, so concentrate on what they cannot tell.'
    : 'The agent will have nothing but your summary, so end with where the work stands now.';
  const prefix = request.prefix ?? rememberedPrefix(request.session, model);
  const ask = `${IN_CONVERSATION_ASK}\n\n${follows}`;
  const inside =
    prefix === undefined
      ? undefined
      : inConversationRequest({
          prefix,
          older,
          tokens: estimateTokens([...older, userText(ask)]),
          ask,
          model,
          maxOutputTokens,
        });
  // Room for the transcript: the window less the answer and the prompt, in characters (4 a token),
  // with a quarter to spare for what the estimate gets wrong.
  const budget = Math.max(8_000, Math.floor((model.contextWindow - maxOutputTokens - 2_000) * 4 * 0.75));
  const question = keeps
    ? `Summarise this conversation. It is the older part of a longer one: ${follows.replace('The latest', 'the latest')}`
    : `Summarise this conversation. ${follows}`;
  const transcript = {
    model,
    system: SUMMARY_PROMPT,
    messages: [
      userText(`${question}\n\n<conversation>\n${renderTranscript(older, budget)}\n</conversation>`),
    ],
    tools: [],
    maxOutputTokens,
  };
  return inside === undefined ? [transcript] : [inside, transcript];
}

/** One model call that answers with a summary, paid from the budget when one applies. */
async function askForSummary(
  request: CompactionRequest,
  asked: Omit<ModelRequest, 'signal'>,
): Promise<Summarised> {
  const full: ModelRequest = {
    ...asked,
    signal: request.signal,
    // A replay answers it from the compaction outputs of the recording, in order.
    caller: { runId: COMPACTION_AGENT, agentId: COMPACTION_AGENT, turn: 1 },
  };
  const reservation = await request.budget?.reserve(full, request.signal);
  if (reservation?.ok === false) {
    const kind = reservation.cancelled ? 'cancelled' : 'budget';
    return {
      failure: { kind, provider: request.endpoint.id, retryable: false, message: reservation.message },
      fallBack: false,
    };
  }
  let outcome: Summarised | undefined;
  try {
    outcome = await streamSummary(request, reservation?.request ?? full);
  } finally {
    const spend = reservation?.settle(
      'text' in (outcome ?? {}) ? (outcome as { usage: Usage }).usage : EMPTY_USAGE,
    );
    if (spend !== undefined) request.onSpend?.(spend);
  }
  return outcome;
}

/** Streams the summary call; its text, or why it cannot be used. */
async function streamSummary(request: CompactionRequest, call: ModelRequest): Promise<Summarised> {
  const { endpoint } = request;
  const failed = (failure: ProviderFailure, fallBack = false): Summarised => ({ failure, fallBack });
  for await (const event of request.stream(endpoint, call)) {
    if (event.type === 'error') return failed(event.failure, event.failure.kind === 'bad_request');
    if (event.type === 'retrying')
      request.onWarning?.(
        `${event.failure.message} Retrying the summary (attempt ${event.attempt + 1} of ${event.maxAttempts}).`,
      );
    if (event.type === 'waiting')
      request.onWarning?.(
        `${endpoint.name} has not started the summary yet (${Math.round(event.elapsedMs / 1000)} s).`,
      );
    if (event.type !== 'done') continue;
    // A summary cut off or refused would replace the conversation with less than it holds.
    if (event.stopReason === 'max_tokens' || event.stopReason === 'refusal') {
      return failed({
        kind: event.stopReason === 'max_tokens' ? 'output_limit' : 'stream_error',
        provider: endpoint.id,
        retryable: false,
        message:
          event.stopReason === 'max_tokens'
            ? `${endpoint.name} cut the summary off at the output limit (${call.maxOutputTokens} tokens), so it was not used.`
            : `${endpoint.name} declined to write the summary${event.stopDetail === undefined ? '' : ` (${event.stopDetail})`}, so it was not used.`,
      });
    }
    const text = event.content
      .filter((block) => block.type === 'text')
      .map((block) => block.text)
      .join('')
      .trim();
    if (text === '') {
      const called = event.content.some((block) => block.type === 'tool_call');
      return failed(
        {
          kind: 'stream_error',
          provider: endpoint.id,
          retryable: true,
          message: `${endpoint.name} answered the summary request ${called ? 'with a tool call instead of' : 'without'} any text.`,
        },
        called,
      );
    }
    return { text, usage: event.usage, sent: call.messages.length };
  }
  return failed({
    kind: 'incomplete',
    provider: endpoint.id,
    retryable: true,
    message: `${endpoint.name}: the summary stream ended without a result.`,
  });
}

/**
 * The conversation as plain text, so the summary request is the same for every provider whatever
 * tool calls and results it holds. Tool outputs and arguments are cut to their ends; a transcript
 * longer than `budget` characters loses its middle (the task is at the start, the state at the end).
 */
export function renderTranscript(messages: readonly ChatMessage[], budget: number): string {
  const parts: string[] = [];
  for (const message of messages) {
    for (const block of message.content) {
      switch (block.type) {
        case 'text':
          if (block.text.trim() !== '')
            parts.push(`[${isSummary(message) ? 'earlier summary' : message.role}]\n${block.text}`);
          break;
        case 'thinking':
          // The reasoning that led somewhere shows in what followed it.
          break;
        case 'tool_call':
          parts.push(`[assistant called ${block.name}]\n${clip(block.argsText, TOOL_ARGS_CHARS)}`);
          break;
        case 'tool_result':
          parts.push(
            `[result of ${block.toolName}${block.isError ? ', an error' : ''}]\n${clip(block.output, TOOL_OUTPUT_CHARS)}`,
          );
          break;
        default: {
          const exhaustive: never = block;
          throw new Error(`unknown block ${JSON.stringify(exhaustive)}`);
        }
      }
    }
  }
  return clip(parts.join('\n\n'), budget, 0.25);
}

/** `text` cut to about `max` characters: `head` of them from its start, the rest from its end. */
function clip(text: string, max: number, head = 0.5): string {
  if (text.length <= max) return text;
  const start = Math.floor(max * head);
  const end = max - start;
  return `${text.slice(0, start)}\n[… ${text.length - max} characters left out …]\n${text.slice(text.length - end)}`;
}
