/**
 * Which model and endpoint serve a prompt, or a message saying what the user must set.
 */
import type { ModelEntry } from '#protocol';
import { type ResolvedConfig, resolveConfiguredModel } from '../config/config.ts';
import { CATALOG } from '../providers/catalog.ts';
import type { ModelSpec, ProviderEndpoint } from '../providers/types.ts';

export type ModelSelection =
  { ok: true; model: ModelSpec; endpoint: ProviderEndpoint; ref: string } | { ok: false; message: string };

export function isConfigured(endpoint: ProviderEndpoint | undefined): boolean {
  return endpoint !== undefined && (!endpoint.needsKey || endpoint.apiKey !== undefined);
}

export function selectModel(config: ResolvedConfig, ref: string): ModelSelection {
  if (ref === '') {
    return {
      ok: false,
      message: `No model is configured. Set ANTHROPIC_API_KEY or OPENAI_API_KEY (or another provider's key), or choose one with SANTRA_MODEL or "model" in ${config.file}.`,
    };
  }
  const model = resolveConfiguredModel(config, ref);
  if (model === undefined) {
    return {
      ok: false,
      message: `Unknown model "${ref}". Name it as provider/model (e.g. anthropic/claude-sonnet-4-5); model/list shows the known ones.`,
    };
  }
  const endpoint = config.providers[model.provider];
  if (endpoint === undefined)
    return { ok: false, message: `Unknown provider "${model.provider}" for model "${ref}".` };
  if (!isConfigured(endpoint)) {
    const where = endpoint.keyEnv === undefined ? '' : `set ${endpoint.keyEnv} or `;
    return {
      ok: false,
      message: `No API key for ${endpoint.name}: ${where}add providers.${endpoint.id}.apiKey to ${config.file}.`,
    };
  }
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
