/**
 * Which model and endpoint serve a prompt, or a message saying what the user must set.
 */
import type { ModelEntry } from '#protocol';
import { keyProblem, type ResolvedConfig, resolveConfiguredModel } from '../config/config.ts';
import { redactUrls } from '../support/url-redaction.ts';
import { CATALOG } from '../providers/catalog.ts';
import { PRESETS } from '../providers/presets.ts';
import type { ModelSpec, ProviderEndpoint } from '../providers/types.ts';

export type ModelSelection =
  | { ok: true; model: ModelSpec; endpoint: ProviderEndpoint; ref: string }
  /** `code`: the error phase's code — no usable model, or a key that cannot be used. */
  | { ok: false; message: string; code: 'model_unavailable' | 'auth' };

export function isConfigured(endpoint: ProviderEndpoint | undefined): boolean {
  return endpoint !== undefined && (!endpoint.needsKey || endpoint.apiKey !== undefined);
}

export function selectModel(config: ResolvedConfig, ref: string): ModelSelection {
  const elsewhere =
    config.defaultProvider === undefined ? undefined : config.providers[config.defaultProvider];
  if (ref === '' && elsewhere !== undefined) {
    return {
      ok: false,
      code: 'model_unavailable',
      message: `The ${elsewhere.id} provider is set to ${redactUrls(elsewhere.baseUrl)}, and Santra cannot know which model that server serves. Name it: SANTRA_MODEL=<model> (e.g. SANTRA_MODEL=qwen2.5-coder for Ollama), or "model" in ${config.file}.`,
    };
  }
  if (ref === '') {
    return {
      ok: false,
      code: 'model_unavailable',
      message: `No model is configured. Set ANTHROPIC_API_KEY or OPENAI_API_KEY (or another provider's key), or choose one with SANTRA_MODEL or "model" in ${config.file}.`,
    };
  }
  const model = resolveConfiguredModel(config, ref);
  if (model === undefined) {
    const providers = [...new Set([...PRESETS.map((preset) => preset.id), ...Object.keys(config.providers)])];
    const slash = ref.indexOf('/');
    if (slash > 0) {
      return {
        ok: false,
        code: 'model_unavailable',
        message: `Unknown provider "${ref.slice(0, slash)}" in "${ref}". Known providers: ${providers.join(', ')}; or add your own under "providers" in ${config.file}.`,
      };
    }
    return {
      ok: false,
      code: 'model_unavailable',
      message: `Santra cannot tell which provider serves "${ref}". Name it as provider/model, e.g. anthropic/${CATALOG.find((spec) => spec.provider === 'anthropic')?.id ?? 'claude-sonnet-5-5'} or openai/${ref}. Known providers: ${providers.join(', ')}.`,
    };
  }
  const endpoint = config.providers[model.provider];
  if (endpoint === undefined)
    return {
      ok: false,
      code: 'model_unavailable',
      message: `Unknown provider "${model.provider}" for model "${ref}".`,
    };
  if (!isConfigured(endpoint)) {
    const where = endpoint.keyEnv === undefined ? '' : `set ${endpoint.keyEnv} or `;
    return {
      ok: false,
      code: 'auth',
      message: `No API key for ${endpoint.name}: ${where}add providers.${endpoint.id}.apiKey to ${config.file}.`,
    };
  }
  // Named by where the key came from: the variable that was read, or the config file's field.
  const source = config.keySources[endpoint.id];
  const bad =
    endpoint.apiKey === undefined || source === undefined
      ? undefined
      : keyProblem(endpoint.name, endpoint.apiKey, source);
  if (bad !== undefined) return { ok: false, code: 'auth', message: bad };
  return { ok: true, model, endpoint, ref: `${model.provider}/${model.id}` };
}

export function listModels(config: ResolvedConfig): ModelEntry[] {
  return CATALOG.map((spec) => ({
    ref: `${spec.provider}/${spec.id}`,
    provider: spec.provider,
    id: spec.id,
    contextWindow: spec.contextWindow,
    configured: isConfigured(config.providers[spec.provider]),
    ...(spec.pricing === undefined
      ? {}
      : { inputUsdPerMTok: spec.pricing.input, outputUsdPerMTok: spec.pricing.output }),
  }));
}
