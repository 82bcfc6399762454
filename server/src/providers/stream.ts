import type { RunErrorCode, Usage } from '#protocol';
import type { AssistantBlock, ChatMessage } from './messages.ts';
import type { Effort, ModelSpec, ProviderEndpoint } from './types.ts';

/** A tool as offered to a model: its JSON Schema comes from the tool's zod schema. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface ModelRequest {
  model: ModelSpec;
  system: string;
  messages: readonly ChatMessage[];
  tools: readonly ToolDefinition[];
  maxOutputTokens: number;
  /** Extended thinking budget, for models that support it. */
  thinkingBudget?: number;
  /** How hard an adaptive-thinking model works; unset: its default. */
  effort?: Effort;
  signal: AbortSignal;
  /**
   * Which agent turn asks: set by the agent loop, ignored by the wire APIs. A replay
   * (sessions/recorded-model.ts) answers from the recording by it.
   */
  caller?: ModelCaller;
  /** What the caller knows that lets the provider's prompt cache pay (cache-plan.ts). */
  cache?: CacheHints;
}

/**
 * Hints for the provider's prompt cache: which conversation a request continues, and how much of
 * it other agents share.
 */
export interface CacheHints {
  /**
   * Names the line of requests that extend each other (a session's agents of one role): OpenAI's
   * `prompt_cache_key`, which routes them to the machines holding their prefix.
   */
  key: string;
  /**
   * The leading messages other agents share word for word (a sub-agent's inherited history): a
   * breakpoint at their end lets a sibling read them from the cache.
   */
  sharedPrefix?: number;
}

/** An agent's model call within a run: its n-th turn, from 1. */
export interface ModelCaller {
  runId: string;
  agentId: string;
  turn: number;
}

/**
 * Why a model stopped: it finished (`end_turn`), wants its tool calls run (`tool_use`), was cut off
 * at the output limit or where the context window filled (`max_tokens`), or declined (`refusal`:
 * Anthropic's stop reason, OpenAI's `refusal` delta or `content_filter` finish).
 */
export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'refusal' | 'other';

/**
 * Why a model call failed: the protocol's error codes that come from a provider, or from the
 * budget that would not pay for the call (the others, `max_turns` and `model_unavailable`, come
 * from the run).
 */
export type FailureKind = Exclude<RunErrorCode, 'max_turns' | 'model_unavailable'>;

/** A failed model call, described for the user and for the retry policy. */
export interface ProviderFailure {
  kind: FailureKind;
  provider: string;
  status?: number;
  /** What happened and what to do about it. Never contains a key. */
  message: string;
  /** The same request may succeed later. */
  retryable: boolean;
  /** How long the provider asked us to wait, from its headers. */
  retryAfterMs?: number;
}

/** The normalised event vocabulary every provider emits. */
export type StreamEvent =
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; text: string }
  /** A progress line the model wrote (`<status>` markup, text-protocol/stream.ts). */
  | { type: 'status'; text: string }
  | { type: 'tool_call_delta'; id: string; name: string; argsDelta: string }
  | {
      type: 'done';
      content: AssistantBlock[];
      stopReason: StopReason;
      /** What the provider said about the stop, e.g. a refusal's category and explanation. */
      stopDetail?: string;
      usage: Usage;
    }
  | { type: 'error'; failure: ProviderFailure }
  /** A failed attempt that will be retried after `delayMs` (emitted by the resilience layer only). */
  | {
      type: 'retrying';
      failure: ProviderFailure;
      attempt: number;
      maxAttempts: number;
      delayMs: number;
      /** The most the remaining attempts can take, if the provider never answers. */
      giveUpWithinMs: number;
    }
  /** No first response yet after `elapsedMs`; the attempt is given up at `limitMs` (resilience layer only). */
  | { type: 'waiting'; elapsedMs: number; limitMs: number };

/**
 * One model call, streamed. Contract: never throws once invoked; yields deltas and ends with
 * exactly one `done` or `error` event. A stream that ends without the API's final event is an
 * `incomplete` error, not success. Aborting `request.signal` ends it with a `cancelled` error.
 */
export type StreamFn = (endpoint: ProviderEndpoint, request: ModelRequest) => AsyncIterable<StreamEvent>;

export const EMPTY_USAGE: Usage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
};

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    ...(a.reasoningTokens !== undefined || b.reasoningTokens !== undefined
      ? { reasoningTokens: (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0) }
      : {}),
    ...(a.estimated || b.estimated ? { estimated: true } : {}),
  };
}

/**
 * The share of the prompt read from the provider's cache: cache reads over every input token
 * (uncached, read and written). Undefined when nothing was sent.
 */
export function cacheHitRatio(usage: Usage): number | undefined {
  const input = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  return input === 0 ? undefined : usage.cacheReadTokens / input;
}
