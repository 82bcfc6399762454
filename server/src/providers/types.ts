/**
 * The provider layer's vocabulary: one interface for every wire API, one stream of normalised
 * events, and vendor quirks as data (`ModelCompat`), never as branches in the agent loop.
 */

/**
 * The wire APIs Santra speaks: Anthropic's Messages API, OpenAI's Chat Completions (and every
 * compatible server), and OpenAI's Responses API (its reasoning models' API).
 */
export type WireApi = 'anthropic' | 'openai' | 'openai-responses';
export const WIRE_APIS = ['anthropic', 'openai', 'openai-responses'] as const satisfies readonly WireApi[];

/** How hard a model that thinks adaptively works: Anthropic's `output_config.effort` levels. */
export const EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
export type Effort = (typeof EFFORTS)[number];

/** Per-model quirks of a provider, as data. */
export interface ModelCompat {
  /** The model calls tools natively; when false Santra uses the text tool-call protocol. */
  nativeTools: boolean;
  /**
   * How the model's reasoning arrives: Anthropic thinking blocks, a `reasoning_content` (or
   * `reasoning`) delta field, `<think>` tags in the text, the Responses API's reasoning items
   * (summaries shown, encrypted content sent back), or not at all.
   */
  reasoning: 'anthropic_thinking' | 'reasoning_content' | 'think_tags' | 'reasoning_items' | 'none';
  /** The endpoint honours `stream_options: {include_usage: true}` (OpenAI-compatible only). */
  streamUsage: boolean;
  /** Name of the output-length field (OpenAI's newer models want `max_completion_tokens`). */
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /** Role used for the system prompt (OpenAI reasoning models want `developer`). */
  systemRole: 'system' | 'developer';
  /** The endpoint accepts `parallel_tool_calls`. */
  parallelToolCalls: boolean;
  /**
   * The endpoint takes cache breakpoints (cache-plan.ts): Anthropic's `cache_control` on the tools,
   * the system prompt and the conversation; OpenAI's `prompt_cache_breakpoint` on content parts
   * (gpt-5.6 and later, with `prompt_cache_options`).
   */
  promptCaching: boolean;
  /**
   * Anthropic: the request-level `cache_control`, with which the API itself places the moving
   * breakpoint on the last block. A compatible server may not know the field; without it Santra
   * marks the last block itself, to the same effect.
   */
  autoCacheControl: boolean;
  /**
   * OpenAI: the endpoint takes `prompt_cache_key`, which routes the requests of one conversation
   * to the machines that hold its prefix. OpenAI's own API only: a compatible server may refuse a
   * field it does not know.
   */
  promptCacheKey: boolean;
  /**
   * OpenAI-compatible wire: the endpoint relays to Claude and takes Anthropic's `cache_control` on
   * content parts (OpenRouter's `anthropic/*` models), placed as cache-plan.ts plans Anthropic's.
   * Without it such a relay caches nothing and every turn pays for the whole history again.
   */
  cacheControlParts: boolean;
  /**
   * How Anthropic thinking is asked for. `budget`: `{type: 'enabled', budget_tokens}` when a budget
   * is configured (Claude 4.5 and earlier). `adaptive`: always `{type: 'adaptive', display:
   * 'summarized'}`, the model deciding how much to think (Claude 4.6 and later; the 5.x models
   * reject budgets, and without `display` their thinking, and the text between tool calls, is
   * sent empty).
   */
  thinkingMode: 'budget' | 'adaptive';
}

/**
 * Whether a model is asked to call tools with the text protocol (markup in its answer) instead of
 * natively. Only the OpenAI-compatible provider offers it; a model's tool calls are taken from
 * this one channel.
 */
export function usesTextToolProtocol(model: Pick<ModelSpec, 'api' | 'compat'>): boolean {
  return model.api === 'openai' && !model.compat.nativeTools;
}

/** Prices in US dollars per million tokens. */
export interface ModelPricing {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** A model Santra knows: where it is served, how big it is, what it costs, how it behaves. */
export interface ModelSpec {
  /** Provider id, e.g. `anthropic`, `openai`, `groq`, `ollama`. */
  provider: string;
  /** Model id as the provider names it. */
  id: string;
  api: WireApi;
  contextWindow: number;
  maxOutputTokens: number;
  /** Unknown for local or unlisted models. */
  pricing?: ModelPricing;
  compat: ModelCompat;
  /** True when the entry was synthesised for a model the catalog does not list. */
  guessed?: boolean;
}

/** A provider endpoint with its credentials, resolved from config and environment. */
export interface ProviderEndpoint {
  /** Provider id, e.g. `anthropic`, `openai`, `groq`, `custom`. */
  id: string;
  name: string;
  api: WireApi;
  baseUrl: string;
  /** Never logged, never sent to clients. */
  apiKey?: string;
  /** The environment variable the key is read from, for error messages (`set GROQ_API_KEY`). */
  keyEnv?: string;
  /** Local servers (Ollama, LM Studio, vLLM) need no key. */
  needsKey: boolean;
}
