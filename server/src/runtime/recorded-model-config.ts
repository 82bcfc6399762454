/**
 * The configuration of a replaying server (`santra-server --replay FILE`): the recording answers
 * every model call, so the providers it ran on are selectable with no key and no network. Each
 * becomes a stub endpoint at an address that never resolves (RFC 2606 `.invalid`), which nothing
 * calls anyway: the runtime's stream is the replay (sessions/recorded-model.ts), never a wire API. Every
 * other provider is unconfigured, keys dropped, so no real provider can be chosen.
 */
import type { ResolvedConfig } from '../config/config.ts';
import type { ProviderEndpoint } from '../providers/types.ts';

export const REPLAY_BASE_URL = 'http://replay.invalid';

/** `config` with the recording's providers stubbed and its first model the default. */
export function recordedModelConfig(config: ResolvedConfig, models: readonly string[]): ResolvedConfig {
  const recorded = new Set(models.map((ref) => ref.slice(0, Math.max(0, ref.indexOf('/')))));
  const providers: Record<string, ProviderEndpoint> = {};
  for (const endpoint of Object.values(config.providers)) {
    const { apiKey: _dropped, ...rest } = endpoint;
    providers[endpoint.id] = { ...rest, baseUrl: REPLAY_BASE_URL, needsKey: !recorded.has(endpoint.id) };
  }
  for (const id of recorded) {
    // A provider of the recording's config that this one lacks: its wire API does not matter here.
    if (id !== '' && providers[id] === undefined)
      providers[id] = { id, name: id, api: 'openai', baseUrl: REPLAY_BASE_URL, needsKey: false };
  }
  // A replay calls no provider: memory's extraction after a run has nothing to answer it.
  return {
    ...config,
    providers,
    model: models[0] ?? config.model,
    memory: { ...config.memory, autoExtract: false },
  };
}
