/**
 * A compaction's summary asked for inside the conversation itself: the same model, system prompt,
 * tools and thinking as the requests that built it, its messages word for word, and one more user
 * message asking for the summary. Its prefix is then the one those requests cached, so the
 * provider reads nearly all of it from its cache and only the question is new — where a fresh
 * request (compaction.ts's transcript) is written to the cache whole.
 *
 * What the root agent's requests were like is remembered per session while this server runs (run
 * -prompt.ts notes it at each run); a compaction after a restart, under another model, or of a
 * conversation too large to send whole uses the transcript instead.
 */
import { type ChatMessage, userText } from '../providers/messages.ts';
import type { CacheHints, ModelRequest, ToolDefinition } from '../providers/stream.ts';
import type { Effort, ModelSpec } from '../providers/types.ts';
import type { Session } from '../sessions/store.ts';

/** What a conversation's requests share besides its messages, as the root agent sent them. */
export interface ConversationPrefix {
  modelId: string;
  system: string;
  tools: readonly ToolDefinition[];
  thinkingBudget?: number;
  effort?: Effort;
  cache?: CacheHints;
}

/** The share of the context window a summary request in the conversation may fill. */
const MAX_WINDOW_SHARE = 0.9;

const prefixes = new WeakMap<Session, ConversationPrefix>();

/** Notes what the root agent's requests in `session` are like (run-prompt.ts, at each run). */
export function rememberPrefix(session: Session, prefix: ConversationPrefix): void {
  prefixes.set(session, prefix);
}

/** What the root agent's requests in `session` were like, if under `model`. */
export function rememberedPrefix(session: Session, model: ModelSpec): ConversationPrefix | undefined {
  const prefix = prefixes.get(session);
  return prefix?.modelId === model.id ? prefix : undefined;
}

/**
 * The summary request at the end of `older`, or undefined when the conversation with its answer
 * would not fit the model's context window.
 */
export function inConversationRequest(options: {
  prefix: ConversationPrefix;
  older: readonly ChatMessage[];
  /** Tokens of `older` and the question, as compaction estimates them. */
  tokens: number;
  ask: string;
  model: ModelSpec;
  maxOutputTokens: number;
}): Omit<ModelRequest, 'signal'> | undefined {
  const { prefix, model } = options;
  const messages = [...options.older, userText(options.ask)];
  const fixed = Math.ceil((prefix.system.length + JSON.stringify(prefix.tools).length) / 4);
  const size = fixed + options.tokens + options.maxOutputTokens + (prefix.thinkingBudget ?? 0);
  if (size > model.contextWindow * MAX_WINDOW_SHARE) return undefined;
  return {
    model,
    system: prefix.system,
    messages,
    tools: prefix.tools,
    maxOutputTokens: options.maxOutputTokens,
    ...(prefix.thinkingBudget === undefined ? {} : { thinkingBudget: prefix.thinkingBudget }),
    ...(prefix.effort === undefined ? {} : { effort: prefix.effort }),
    ...(prefix.cache === undefined ? {} : { cache: prefix.cache }),
  };
}
