/**
 * The providers Santra knows out of the box: where they live, which key they read, and what their
 * models do when the catalog says nothing more specific. Vendor quirks stay data here, so the
 * provider and agent code never branch on a vendor's name.
 */
import type { ModelCompat, WireApi } from './types.ts';

/** A built-in provider: its endpoint, its key variable and the compat defaults of its models. */
export interface ProviderPreset {
  id: string;
  name: string;
  api: WireApi;
  baseUrl: string;
  /** The environment variable holding the key (absent for local servers). */
  keyEnv?: string;
  needsKey: boolean;
  /** The model used when this provider is the one configured and no model is named. */
  defaultModel: string;
  /** Defaults for this provider's models that the catalog does not list (over `BASE_COMPAT`). */
  compat: Partial<ModelCompat>;
}

/**
 * What each wire API can be assumed to do when nothing else is known. The `openai` entry is the
 * conservative floor for an unknown OpenAI-compatible server: `stream_options` and
 * `parallel_tool_calls` are left out (a strict server rejects unknown fields, and a server that
 * reports usage anyway is still read), and `<think>` tags are split out because open reasoning
 * models served raw emit them in the text.
 */
export const BASE_COMPAT: Readonly<Record<WireApi, Readonly<ModelCompat>>> = {
  anthropic: {
    nativeTools: true,
    reasoning: 'anthropic_thinking',
    streamUsage: false,
    maxTokensField: 'max_tokens',
    systemRole: 'system',
    parallelToolCalls: false,
    promptCaching: true,
    autoCacheControl: true,
    promptCacheKey: false,
    cacheControlParts: false,
    // Every Claude model released since 4.6 thinks adaptively; older ones are listed as `budget`.
    thinkingMode: 'adaptive',
  },
  openai: {
    nativeTools: true,
    reasoning: 'think_tags',
    streamUsage: false,
    maxTokensField: 'max_tokens',
    systemRole: 'system',
    parallelToolCalls: false,
    promptCaching: false,
    autoCacheControl: false,
    promptCacheKey: false,
    cacheControlParts: false,
    thinkingMode: 'budget',
  },
  // The Responses API is OpenAI's own: native tools, parallel calls. A model asks for reasoning
  // only when it is known to reason (the catalog's OpenAI reasoning models): others refuse it.
  'openai-responses': {
    nativeTools: true,
    reasoning: 'none',
    streamUsage: true,
    maxTokensField: 'max_completion_tokens',
    systemRole: 'developer',
    parallelToolCalls: true,
    promptCaching: false,
    autoCacheControl: false,
    // A compatible server may serve the Responses API too (vLLM, Ollama); OpenAI's own preset says so.
    promptCacheKey: false,
    cacheControlParts: false,
    thinkingMode: 'budget',
  },
};

/**
 * Local servers. `stream_options.include_usage` is honoured by Ollama since 0.5.2 (Dec 2024), by
 * LM Studio since 0.3.18 (Jul 2025) and by vLLM; an older server ignores the field. Reasoning
 * models served by them mostly print `<think>` blocks in the text.
 */
const LOCAL_COMPAT: Partial<ModelCompat> = { streamUsage: true, reasoning: 'think_tags' };

export const PRESETS: readonly ProviderPreset[] = [
  {
    id: 'anthropic',
    name: 'Anthropic',
    api: 'anthropic',
    baseUrl: 'https://api.anthropic.com',
    keyEnv: 'ANTHROPIC_API_KEY',
    needsKey: true,
    defaultModel: 'claude-sonnet-5-5',
    compat: {},
  },
  {
    id: 'openai',
    name: 'OpenAI',
    api: 'openai',
    baseUrl: 'https://api.openai.com/v1',
    keyEnv: 'OPENAI_API_KEY',
    needsKey: true,
    defaultModel: 'gpt-6.1-sol',
    // Reasoning models (o-series, gpt-5) get `max_completion_tokens`/`developer` from their catalog
    // family. A server OPENAI_BASE_URL points at is not sent `prompt_cache_key` (config.ts).
    compat: { reasoning: 'none', streamUsage: true, parallelToolCalls: true, promptCacheKey: true },
  },
  {
    id: 'groq',
    name: 'Groq',
    api: 'openai',
    baseUrl: 'https://api.groq.com/openai/v1',
    keyEnv: 'GROQ_API_KEY',
    needsKey: true,
    defaultModel: 'openai/gpt-oss-120b',
    // Groq's default `reasoning_format` for open reasoning models is `raw`: <think> in the text.
    compat: { reasoning: 'think_tags', streamUsage: true, parallelToolCalls: true },
  },
  {
    id: 'together',
    name: 'Together AI',
    api: 'openai',
    baseUrl: 'https://api.together.xyz/v1',
    keyEnv: 'TOGETHER_API_KEY',
    needsKey: true,
    defaultModel: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
    // Together's DeepSeek-R1 streams its reasoning as <think> text (docs.together.ai, 2025).
    compat: { reasoning: 'think_tags' },
  },
  {
    id: 'fireworks',
    name: 'Fireworks AI',
    api: 'openai',
    baseUrl: 'https://api.fireworks.ai/inference/v1',
    keyEnv: 'FIREWORKS_API_KEY',
    needsKey: true,
    defaultModel: 'accounts/fireworks/models/llama-v3p3-70b-instruct',
    compat: { reasoning: 'think_tags' },
  },
  {
    id: 'perplexity',
    name: 'Perplexity',
    api: 'openai',
    baseUrl: 'https://api.perplexity.ai',
    keyEnv: 'PERPLEXITY_API_KEY',
    needsKey: true,
    defaultModel: 'sonar-pro',
    // Sonar has no tool calling; Santra falls back to its text tool-call protocol.
    compat: { nativeTools: false, reasoning: 'think_tags' },
  },
  {
    id: 'nvidia',
    name: 'NVIDIA NIM',
    api: 'openai',
    baseUrl: 'https://integrate.api.nvidia.com/v1',
    keyEnv: 'NVIDIA_API_KEY',
    needsKey: true,
    defaultModel: 'meta/llama-3.3-70b-instruct',
    compat: { reasoning: 'think_tags' },
  },
  {
    id: 'openrouter',
    name: 'OpenRouter',
    api: 'openai',
    baseUrl: 'https://openrouter.ai/api/v1',
    keyEnv: 'OPENROUTER_API_KEY',
    needsKey: true,
    defaultModel: 'anthropic/claude-sonnet-5.5',
    // OpenRouter normalises every upstream's reasoning into a `reasoning` delta field and always
    // reports usage; it accepts both `stream_options` and `parallel_tool_calls`.
    compat: { reasoning: 'reasoning_content', streamUsage: true, parallelToolCalls: true },
  },
  {
    id: 'ollama',
    name: 'Ollama',
    api: 'openai',
    baseUrl: 'http://127.0.0.1:11434/v1',
    needsKey: false,
    defaultModel: 'qwen2.5-coder',
    compat: LOCAL_COMPAT,
  },
  {
    id: 'lmstudio',
    name: 'LM Studio',
    api: 'openai',
    baseUrl: 'http://127.0.0.1:1234/v1',
    needsKey: false,
    defaultModel: 'qwen2.5-coder-7b-instruct',
    compat: LOCAL_COMPAT,
  },
  {
    id: 'vllm',
    name: 'vLLM',
    api: 'openai',
    baseUrl: 'http://127.0.0.1:8000/v1',
    needsKey: false,
    defaultModel: 'Qwen/Qwen2.5-Coder-32B-Instruct',
    compat: LOCAL_COMPAT,
  },
];

/** The preset with this id, or undefined. */
export function findPreset(id: string): ProviderPreset | undefined {
  return PRESETS.find((preset) => preset.id === id);
}

/** The compat a provider's unlisted models start from: the API's floor under the preset's defaults. */
export function presetCompat(providerId: string, api: WireApi): ModelCompat {
  const preset = findPreset(providerId);
  return { ...BASE_COMPAT[api], ...(preset?.api === api ? preset.compat : {}) };
}
