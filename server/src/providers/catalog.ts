/**
 * The models Santra knows by name: their size, their price and their quirks, as data. A model the
 * catalog does not list still works on a known provider, with a guessed spec.
 *
 * Figures are the vendors' published ones as found on their pricing and model pages (checked
 * 2026-11 against stored copies of those pages); entries marked "unverified" are best estimates.
 * Prices are US dollars per million tokens; long-context surcharges are not modelled.
 */
import { findPreset, presetCompat } from './presets.ts';
import type { ModelCompat, ModelPricing, ModelSpec, WireApi } from './types.ts';

/** Context window assumed for a model the catalog does not list. */
const GUESSED_CONTEXT_WINDOW = 128_000;
/** Output cap assumed for an unlisted model: low enough that every current server accepts it. */
const GUESSED_MAX_OUTPUT = 8_192;

/**
 * OpenAI's reasoning models (o-series, gpt-5) reject `max_tokens` and want a `developer` prompt on
 * Chat Completions; their reasoning is carried by the Responses API, which they are spoken to
 * through (see `wireFor`).
 */
const OPENAI_REASONING: Partial<ModelCompat> = {
  maxTokensField: 'max_completion_tokens',
  systemRole: 'developer',
  reasoning: 'reasoning_items',
};

/**
 * OpenAI's models from gpt-5.6 on cache at breakpoints (`prompt_cache_breakpoint`,
 * `prompt_cache_options`): a prefix is matched exactly at one, so a prefix other requests share
 * is marked (cache-plan.ts). Their cache writes are charged.
 */
const OPENAI_BREAKPOINTS: Partial<ModelCompat> = { ...OPENAI_REASONING, promptCaching: true };

/**
 * The wire API a model is spoken to through on a provider of `api`: an OpenAI model whose reasoning
 * comes as reasoning items uses the Responses API — unless the endpoint is a compatible server
 * (`chatOnly`), which may not serve it.
 */
function wireFor(api: WireApi, compat: ModelCompat, chatOnly: boolean): WireApi {
  return api === 'openai' && !chatOnly && compat.reasoning === 'reasoning_items' ? 'openai-responses' : api;
}

/**
 * Quirks of model families the catalog cannot list one by one: an unlisted id that matches takes
 * them (after the provider's defaults, before the user's overrides). OpenAI's o-series and every
 * GPT from 5 on are reasoning models.
 */
const FAMILY_PATTERNS: ReadonlyArray<{ provider: string; pattern: RegExp; compat: Partial<ModelCompat> }> = [
  { provider: 'openai', pattern: /^gpt-(5\.([6-9]|\d{2,})|[6-9]|\d{2,})/, compat: OPENAI_BREAKPOINTS },
  { provider: 'openai', pattern: /^(o\d|gpt-([5-9]|\d{2,}))/, compat: OPENAI_REASONING },
  // OpenRouter relays Claude's prompt cache when asked with Anthropic's markers.
  { provider: 'openrouter', pattern: /^anthropic\//, compat: { cacheControlParts: true } },
];

/** Claude models before 4.6 take a thinking budget rather than adaptive thinking. */
const BUDGET_THINKING: Partial<ModelCompat> = { thinkingMode: 'budget' };

function entry(
  provider: string,
  id: string,
  contextWindow: number,
  maxOutputTokens: number,
  pricing: ModelPricing | undefined,
  compat: Partial<ModelCompat> = {},
): ModelSpec {
  const api: WireApi = findPreset(provider)?.api ?? 'openai';
  const spec: ModelSpec = {
    provider,
    id,
    api,
    contextWindow,
    maxOutputTokens,
    compat: Object.freeze({ ...presetCompat(provider, api), ...compat }),
  };
  if (pricing !== undefined) spec.pricing = Object.freeze(pricing);
  return Object.freeze(spec);
}

const price = (input: number, output: number, cacheRead?: number, cacheWrite?: number): ModelPricing => ({
  input,
  output,
  ...(cacheRead === undefined ? {} : { cacheRead }),
  ...(cacheWrite === undefined ? {} : { cacheWrite }),
});

/** Every model Santra knows by name. Cache writes are Anthropic's 5-minute rate. */
export const CATALOG: readonly ModelSpec[] = Object.freeze([
  // Anthropic: platform.claude.com/docs/en/about-claude/pricing and the model pages (2026-11).
  // The current lineup thinks adaptively (the preset's default); 4.5 and earlier take a budget.
  // Sonnet 5.5 cache reads went from $0.20 to $0.10 on 2026-10-07. Haiku 5.5 costs more for
  // prompts over 100k tokens ($0.50/$2.50); the lower band is listed. Opus 4.1 is retired on the
  // Anthropic API (still served on Bedrock and Vertex); sonnet-4-5 retires on 2026-11-30. Both are
  // kept for existing configs.
  entry('anthropic', 'claude-fable-5-1', 1_000_000, 128_000, price(10, 50, 0.25, 12.5)),
  entry('anthropic', 'claude-opus-5-5', 1_000_000, 128_000, price(4, 20, 0.2, 5)),
  entry('anthropic', 'claude-sonnet-5-5', 1_000_000, 128_000, price(2, 10, 0.1, 2.5)),
  entry('anthropic', 'claude-haiku-5-5', 1_000_000, 128_000, price(0.1, 0.5, 0.01, 0.125)),
  entry('anthropic', 'claude-opus-5', 1_000_000, 128_000, price(5, 25, 0.5, 6.25)),
  entry('anthropic', 'claude-sonnet-5', 1_000_000, 128_000, price(2, 10, 0.2, 2.5)),
  entry('anthropic', 'claude-sonnet-4-6', 200_000, 64_000, price(3, 15, 0.3, 3.75)),
  entry('anthropic', 'claude-opus-4-5', 200_000, 64_000, price(5, 25, 0.5, 6.25), BUDGET_THINKING),
  entry('anthropic', 'claude-opus-4-1', 200_000, 32_000, price(15, 75, 1.5, 18.75), BUDGET_THINKING),
  entry('anthropic', 'claude-sonnet-4-5', 200_000, 64_000, price(3, 15, 0.3, 3.75), BUDGET_THINKING),
  entry('anthropic', 'claude-haiku-4-5', 200_000, 64_000, price(1, 5, 0.1, 1.25), BUDGET_THINKING),
  entry('anthropic', 'claude-3-5-haiku-latest', 200_000, 8_192, price(0.8, 4, 0.08, 1), {
    reasoning: 'none',
  }),

  // OpenAI: developers.openai.com/api/docs/pricing (cached input = cacheRead). GPT-6.1 Sol and
  // Terra (2026-09/10): 1.05M window (922k of input), 30-minute cache writes charged, prompts over
  // 272k tokens dearer (not modelled). gpt-5's 400k window is 272k of input plus 128k of output.
  entry('openai', 'gpt-6.1-sol', 1_050_000, 128_000, price(2, 10, 0.1, 2.5), OPENAI_BREAKPOINTS),
  entry('openai', 'gpt-6.1-terra', 1_050_000, 128_000, price(1, 5, 0.05, 1.25), OPENAI_BREAKPOINTS),
  entry('openai', 'gpt-5', 400_000, 128_000, price(1.25, 10, 0.125), OPENAI_REASONING),
  entry('openai', 'gpt-5-mini', 400_000, 128_000, price(0.25, 2, 0.025), OPENAI_REASONING),
  entry('openai', 'gpt-5-nano', 400_000, 128_000, price(0.05, 0.4, 0.005), OPENAI_REASONING),
  entry('openai', 'gpt-4.1', 1_047_576, 32_768, price(2, 8, 0.5)),
  entry('openai', 'gpt-4.1-mini', 1_047_576, 32_768, price(0.4, 1.6, 0.1)),
  entry('openai', 'gpt-4o', 128_000, 16_384, price(2.5, 10, 1.25)),
  entry('openai', 'gpt-4o-mini', 128_000, 16_384, price(0.15, 0.6, 0.075)),
  entry('openai', 'o3', 200_000, 100_000, price(2, 8, 0.5), OPENAI_REASONING),
  entry('openai', 'o4-mini', 200_000, 100_000, price(1.1, 4.4, 0.275), OPENAI_REASONING),

  // Groq: console.groq.com/docs/models (2025-2026). gpt-oss streams a `reasoning` delta field.
  entry('groq', 'llama-3.3-70b-versatile', 131_072, 32_768, price(0.59, 0.79), { reasoning: 'none' }),
  entry('groq', 'moonshotai/kimi-k2-instruct', 131_072, 16_384, price(1, 3), { reasoning: 'none' }),
  entry('groq', 'openai/gpt-oss-120b', 131_072, 65_536, price(0.15, 0.6), { reasoning: 'reasoning_content' }),
  entry('groq', 'qwen/qwen3-32b', 131_072, 40_960, price(0.29, 0.59), { reasoning: 'think_tags' }),

  // Together: together.ai/pricing. Output caps are unverified (2026-11): Together bounds output by
  // the context left rather than publishing a cap.
  entry('together', 'deepseek-ai/DeepSeek-R1', 163_840, 32_768, price(3, 7), { reasoning: 'think_tags' }),
  entry('together', 'meta-llama/Llama-3.3-70B-Instruct-Turbo', 131_072, 16_384, price(0.88, 0.88), {
    reasoning: 'none',
  }),

  // OpenRouter relays the upstream price. The DeepSeek-R1 price varies with the host OpenRouter
  // picks: unverified (2026-11).
  entry('openrouter', 'anthropic/claude-sonnet-5.5', 1_000_000, 128_000, price(2, 10, 0.1, 2.5), {
    cacheControlParts: true,
  }),
  entry('openrouter', 'deepseek/deepseek-r1', 163_840, 32_768, price(0.4, 2), {
    reasoning: 'reasoning_content',
  }),
]);

/** A configured provider as `resolveModel` needs it. */
export interface ProviderModels {
  api: WireApi;
  /** Overrides applied last, over the catalog's and the preset's flags. */
  compat?: Partial<ModelCompat>;
  /** Model ids this provider serves: a bare id listed here is routed to it. */
  models?: readonly string[];
  /**
   * The `openai` provider pointed at another server (OPENAI_BASE_URL, or a `baseUrl` in the file):
   * it may not serve the Responses API, so its models use Chat Completions.
   */
  chatOnly?: boolean;
}

export interface ResolveModelOptions {
  /** Serves bare ids that are not Anthropic models (set when OPENAI_BASE_URL redirects `openai`). */
  defaultProvider?: string;
  providers?: Record<string, ProviderModels>;
}

/**
 * Resolves a model reference: "provider/model" (provider = a preset id, or any configured provider
 * id), or a bare model id looked up in the catalog (anthropic ids win for "claude-*", openai for
 * "gpt-*"/"o3"/"o4-*"). An unknown model on a known provider gets a guessed spec (`guessed: true`)
 * from the preset's compat defaults — or those of its catalog family, so `gpt-5.1` behaves like
 * `gpt-5`, or of a family pattern, so `gpt-7` is a reasoning model — a 128k context window and no
 * pricing. Dated ids (`-20250929`, `-2024-08-06`) and
 * `-latest` aliases match their catalog entry. Returns undefined only when the provider cannot be
 * determined.
 */
export function resolveModel(ref: string, options: ResolveModelOptions = {}): ModelSpec | undefined {
  const trimmed = ref.trim();
  if (trimmed === '') return undefined;
  const slash = trimmed.indexOf('/');
  if (slash > 0) {
    const provider = trimmed.slice(0, slash);
    const id = trimmed.slice(slash + 1);
    // Otherwise the slash belongs to the model id, as in "moonshotai/kimi-k2-instruct".
    if (id !== '' && apiOf(provider, options) !== undefined) return onProvider(provider, id, options);
  }
  const provider = providerOfBareId(trimmed, options);
  return provider === undefined ? undefined : onProvider(provider, trimmed, options);
}

function apiOf(provider: string, options: ResolveModelOptions): WireApi | undefined {
  return options.providers?.[provider]?.api ?? findPreset(provider)?.api;
}

function providerOfBareId(id: string, options: ResolveModelOptions): string | undefined {
  for (const [provider, config] of Object.entries(options.providers ?? {})) {
    if (config.models?.includes(id)) return provider;
  }
  const listedOn = CATALOG.filter((spec) => sameModel(spec.id, id)).map((spec) => spec.provider);
  if (id.startsWith('claude-') || listedOn.includes('anthropic')) return 'anthropic';
  const fallback = options.defaultProvider;
  if (fallback !== undefined && apiOf(fallback, options) !== undefined) return fallback;
  if (/^(gpt-|o\d)/.test(id) && (listedOn.length === 0 || listedOn.includes('openai'))) return 'openai';
  return listedOn[0];
}

function onProvider(provider: string, id: string, options: ResolveModelOptions): ModelSpec | undefined {
  const api = apiOf(provider, options);
  if (api === undefined) return undefined;
  const overrides = options.providers?.[provider]?.compat ?? {};
  const chatOnly = options.providers?.[provider]?.chatOnly === true;
  const listed = CATALOG.find(
    (spec) => spec.provider === provider && spec.api === api && sameModel(spec.id, id),
  );
  if (listed !== undefined) {
    const compat = { ...listed.compat, ...overrides };
    return { ...listed, id, api: wireFor(api, compat, chatOnly), compat };
  }
  const family = familyOf(provider, api, id);
  const pattern = FAMILY_PATTERNS.find((entry) => entry.provider === provider && entry.pattern.test(id));
  const compat = {
    ...(family?.compat ?? { ...presetCompat(provider, api), ...pattern?.compat }),
    ...overrides,
  };
  return {
    provider,
    id,
    api: wireFor(api, compat, chatOnly),
    contextWindow: GUESSED_CONTEXT_WINDOW,
    maxOutputTokens: GUESSED_MAX_OUTPUT,
    compat,
    guessed: true,
  };
}

const VERSION_SUFFIX = /-(latest|\d{8}|\d{4}-\d{2}-\d{2})$/;

function sameModel(catalogId: string, id: string): boolean {
  return catalogId === id || catalogId.replace(VERSION_SUFFIX, '') === id.replace(VERSION_SUFFIX, '');
}

/** The longest listed id that `id` extends at a separator: `gpt-5.1` → `gpt-5`, `o3-pro` → `o3`. */
function familyOf(provider: string, api: WireApi, id: string): ModelSpec | undefined {
  let best: ModelSpec | undefined;
  for (const spec of CATALOG) {
    if (spec.provider !== provider || spec.api !== api || !id.startsWith(spec.id)) continue;
    if (!'.-:'.includes(id.charAt(spec.id.length))) continue;
    if (best === undefined || spec.id.length > best.id.length) best = spec;
  }
  return best;
}

/** Token counts of one or more responses; `inputTokens` EXCLUDES cached tokens. */
export interface UsageCounts {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/**
 * Cost in USD of the usage at the model's prices (cache reads/writes at their own prices, or at
 * the input price when the catalog has none; input tokens here EXCLUDE cached ones); 0 when
 * pricing is unknown. Not rounded.
 */
export function costUsd(spec: ModelSpec, usage: UsageCounts): number {
  const pricing = spec.pricing;
  if (pricing === undefined) return 0;
  const total =
    usage.inputTokens * pricing.input +
    usage.outputTokens * pricing.output +
    usage.cacheReadTokens * (pricing.cacheRead ?? pricing.input) +
    usage.cacheWriteTokens * (pricing.cacheWrite ?? pricing.input);
  return total / 1_000_000;
}

/**
 * "$0.0123" style: 2 decimals from $1 ("$1.50"), 4 decimals from a cent ("$0.0123"), and below a
 * cent 4 significant digits without trailing zeros ("$0.00042", "$0.001235").
 */
export function formatUsd(amount: number): string {
  if (!Number.isFinite(amount) || amount === 0) return '$0.00';
  if (amount < 0) return `-${formatUsd(-amount)}`;
  if (Number(amount.toFixed(4)) >= 1) return `$${amount.toFixed(2)}`;
  if (Number(amount.toPrecision(4)) >= 0.01) return `$${amount.toFixed(4)}`;
  // toFixed avoids the exponent toPrecision uses below 1e-6; the digits come from toPrecision.
  const rounded = Number(amount.toPrecision(4));
  const decimals = Math.min(20, 3 - Math.floor(Math.log10(rounded)));
  return `$${rounded.toFixed(decimals).replace(/0+$/, '')}`;
}

/** Token estimate where a provider reports no usage: ceil(chars / 6). */
export function estimateTokens(chars: number): number {
  return chars > 0 ? Math.ceil(chars / 6) : 0;
}
