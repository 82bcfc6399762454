/**
 * Santra's configuration: `config.json` in the config directory, overridden by the environment.
 * The file is optional; every error is a ConfigError whose message names the file and the field
 * and never quotes a key.
 */
import type { PermissionMode } from '#protocol';
import { resolveModel } from '../providers/catalog.ts';
import { PRESETS } from '../providers/presets.ts';
import type { Effort, ModelCompat, ModelSpec, ProviderEndpoint } from '../providers/types.ts';
import { redactUrls } from '../support/url-redaction.ts';
import type { KeySource } from './api-key.ts';
import { ConfigError } from './config-error.ts';
import { configFile, envValue, readConfigSource } from './config-file.ts';
import { salvageConfig, type SantraConfig, validateConfig } from './schema.ts';
import type { HooksConfig } from './hooks-schema.ts';
import type { McpServerDefinition } from './mcp-schema.ts';

export {
  type KeySource,
  PLAIN_ASCII,
  describeKeySource,
  keyProblem,
  unsendableCharacter,
} from './api-key.ts';
export { ConfigError } from './config-error.ts';
export { configDir, updateConfigFile } from './config-file.ts';
export type { SantraConfig } from './schema.ts';

/** The configuration in effect: the file's settings under the environment's, with defaults filled in. */
export interface ResolvedConfig {
  /** The config file path (it may not exist). */
  file: string;
  /**
   * The default model ref after env overrides; when neither says, the first configured provider's
   * default model (anthropic first, then openai, then the rest); '' when nothing is configured.
   */
  model: string;
  /**
   * Models a run continues on, in order, when its model fails with an error another model can
   * answer (agent/fallback.ts); absent or empty: none.
   */
  fallbackModels?: readonly string[];
  /** Every preset plus custom providers, with apiKey/baseUrl resolved (apiKey undefined when not set). */
  providers: Record<string, ProviderEndpoint>;
  /**
   * Where each provider's key was read from (providers without a key are absent), so a message
   * about a key names the setting to fix: `keyEnv` is only the variable it may come from.
   */
  keySources: Record<string, KeySource>;
  /** Compat overrides from the file (and for an `openai` redirected to another server). */
  providerCompat: Record<string, Partial<ModelCompat>>;
  /** Model ids listed per provider in the file: a bare id listed there is served by that provider. */
  providerModels: Record<string, readonly string[]>;
  /** Serves bare non-Anthropic model ids: `openai` when its base URL points away from OpenAI. */
  defaultProvider?: string;
  agent: {
    maxToolCallsPerResponse: number;
    maxTurnsPerRun: number;
    maxOutputTokens: number;
    thinkingBudgetTokens: number;
    /** Unset: the model's own default. */
    effort?: Effort;
    maxDepth: number;
    maxParallelAgents: number;
    subAgentTimeoutSeconds: number;
    /** A prompt first compacts a conversation past this share of the model's context window. */
    compactAt: number;
  };
  /** Spending limits in US dollars; absent: none. */
  budget: { perRunUsd?: number; perSessionUsd?: number };
  stream: { coalesceMs: number };
  workspace: { allowedDirs: string[] };
  /** `store`: the shared session store's URL (it may hold a password); absent: files. */
  /** `liveToken`: seals live-channel messages over a shared store (sessions/live-seal.ts). */
  sessions: { store?: string; liveToken?: string };
  tools: ToolsConfig;
  /** The mode a new session starts in; default `default` (approval/permission-mode.ts). */
  permissionMode: PermissionMode;
  /** The user's hooks, in Claude Code's schema (hooks/); empty: none. */
  hooks: HooksConfig;
  /** An erroring PreToolUse hook blocks its call. */
  hooksFailClosed: boolean;
  /** The memory files: whether facts are proposed after runs, and by which model (memory/). */
  memory: { autoExtract: boolean; model?: string };
  /** `session/event`: whether an event to an idle session starts a turn (docs/sessions.md). */
  events: { startTurns: boolean };
  /** The user's MCP servers, as written (`${VAR}` expanded only when one starts). */
  mcpServers: Record<string, McpServerDefinition>;
  mcp: { toolSearchShare: number; projectServers: boolean };
  /** The OS sandbox around commands (defaults: workspace-write, no network, autoRun off). */
  sandbox: {
    profile: 'read-only' | 'workspace-write' | 'danger-full-access';
    allowedDomains: string[];
    autoRun: boolean;
  };
}

export interface ToolsConfig {
  policy: Record<string, 'allow' | 'ask' | 'deny'>;
  denyCommands: string[];
  askCommands: string[];
  /** Undefined: the built-in read-only list. */
  readOnlyCommands?: string[];
  commandTimeoutSeconds: number;
  commandOutputLimitBytes: number;
  allowEnv: string[];
  /** web_fetch may reach loopback and private addresses. */
  allowPrivateNetwork: boolean;
  webSearch?: { provider: 'searxng'; url: string } | { provider: 'brave' | 'tavily'; apiKey: string };
}

const DEFAULTS = {
  agent: {
    maxToolCallsPerResponse: 8,
    maxTurnsPerRun: 50,
    maxOutputTokens: 16_384,
    thinkingBudgetTokens: 0,
    maxDepth: 3,
    maxParallelAgents: 4,
    subAgentTimeoutSeconds: 600,
    compactAt: 0.8,
  },
  stream: { coalesceMs: 8 },
} as const;

/** Reads `config.json` (if any) and applies the environment: the configuration in effect. */
export async function loadConfig(env: NodeJS.ProcessEnv): Promise<ResolvedConfig> {
  const file = configFile(env);
  const source = await readConfigSource(file);
  return resolveConfig(
    env,
    source === undefined ? {} : validateConfig(source.value, file, source.text),
    file,
  );
}

/**
 * The configuration, and what is wrong with the file when it cannot be used as it is: then the
 * configuration holds what can be used of it (salvageConfig) — enough to list sessions and models
 * while the person fixes the file — and `problem` says what to fix (file, line, field).
 */
export async function loadConfigLenient(
  env: NodeJS.ProcessEnv,
): Promise<{ config: ResolvedConfig; problem?: ConfigError }> {
  try {
    return { config: await loadConfig(env) };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const file = configFile(env);
    let salvaged: SantraConfig = {};
    try {
      salvaged = salvageConfig((await readConfigSource(file))?.value);
    } catch {
      // Unreadable or not JSON: nothing of it can be used.
    }
    try {
      return { config: resolveConfig(env, salvaged, file), problem: error };
    } catch {
      // The environment itself is wrong (a bad base URL variable): only the defaults are left.
      return { config: resolveConfig({}, {}, file), problem: error };
    }
  }
}

/**
 * The configuration in effect with `config` as the file's settings: what `loadConfig` returns once
 * the file is read, and what a change to the file would give before it is written.
 */
export function resolveConfig(env: NodeJS.ProcessEnv, config: SantraConfig, file: string): ResolvedConfig {
  const fileProviders = config.providers ?? {};
  const get = (name: string) => envValue(env, name);

  const providers: Record<string, ProviderEndpoint> = {};
  const keySources: Record<string, KeySource> = {};
  /** The first of `names` set in the environment, else the file's apiKey, remembering which. */
  const readKey = (id: string, names: Array<string | undefined>, fileKey: string | undefined) => {
    for (const name of names) {
      const value = name === undefined ? undefined : get(name);
      if (name !== undefined && value !== undefined) {
        keySources[id] = { env: name };
        return value;
      }
    }
    if (fileKey !== undefined) keySources[id] = { file, field: `providers.${id}.apiKey` };
    return fileKey;
  };
  for (const preset of PRESETS) {
    const entry = fileProviders[preset.id];
    const keyEnv = entry?.keyEnv ?? preset.keyEnv;
    const apiKey = readKey(preset.id, [preset.keyEnv, entry?.keyEnv], entry?.apiKey);
    const baseUrlEnv = BASE_URL_ENV[preset.id];
    const baseUrl =
      (baseUrlEnv === undefined ? undefined : envUrl(env, baseUrlEnv, file)) ??
      entry?.baseUrl ??
      preset.baseUrl;
    providers[preset.id] = endpoint({
      id: preset.id,
      name: entry?.name ?? endpointName(preset, baseUrl),
      api: entry?.api ?? preset.api,
      baseUrl,
      apiKey,
      keyEnv,
      needsKey: preset.needsKey,
    });
  }
  for (const [id, entry] of Object.entries(fileProviders)) {
    if (providers[id] !== undefined || entry.api === undefined || entry.baseUrl === undefined) continue;
    const apiKey = readKey(id, [entry.keyEnv], entry.apiKey);
    providers[id] = endpoint({
      id,
      name: entry.name ?? id,
      api: entry.api,
      baseUrl: entry.baseUrl,
      apiKey,
      keyEnv: entry.keyEnv,
      needsKey: entry.keyEnv !== undefined || entry.apiKey !== undefined,
    });
  }

  const providerCompat: Record<string, Partial<ModelCompat>> = {};
  const providerModels: Record<string, readonly string[]> = {};
  for (const [id, entry] of Object.entries(fileProviders)) {
    if (entry.compat !== undefined) providerCompat[id] = { ...entry.compat };
    if (entry.models !== undefined) providerModels[id] = [...entry.models];
  }

  // An `openai` pointed elsewhere (Ollama, vLLM, a proxy) serves every bare non-Anthropic id, needs
  // no key of its own, and may be running an open reasoning model that prints <think> blocks.
  const openai = providers.openai;
  const redirected = openai !== undefined && new URL(openai.baseUrl).hostname !== 'api.openai.com';
  if (openai !== undefined && redirected) {
    openai.needsKey = false;
    // A compatible server may refuse fields only OpenAI's API knows.
    providerCompat.openai = {
      reasoning: 'think_tags',
      promptCacheKey: false,
      promptCaching: false,
      ...providerCompat.openai,
    };
  }
  // An Anthropic-compatible server (a gateway, another vendor's endpoint) takes cache_control on
  // blocks, where the request-level one is newer: the last block is marked by Santra instead.
  const anthropic = providers.anthropic;
  if (anthropic !== undefined && new URL(anthropic.baseUrl).hostname !== 'api.anthropic.com')
    providerCompat.anthropic = { autoCacheControl: false, ...providerCompat.anthropic };

  const resolved: ResolvedConfig = {
    file,
    model: get('SANTRA_MODEL') ?? config.model ?? '',
    ...(config.fallbackModels === undefined ? {} : { fallbackModels: config.fallbackModels }),
    providers,
    keySources,
    providerCompat,
    providerModels,
    agent: { ...DEFAULTS.agent, ...config.agent },
    budget: { ...config.budget },
    stream: { ...DEFAULTS.stream, ...config.stream },
    workspace: { allowedDirs: config.workspace?.allowedDirs ?? [] },
    // SANTRA_SESSION_STORE: how `santra worker` gives the servers it starts the fleet's shared store.
    sessions: sessionStore(
      get('SANTRA_SESSION_STORE') ?? config.sessions?.store,
      get('SANTRA_LIVE_TOKEN') ?? config.sessions?.liveToken,
      file,
    ),
    permissionMode: config.permissionMode ?? 'default',
    hooks: config.hooks ?? {},
    hooksFailClosed: config.hooksFailClosed ?? false,
    memory: {
      // On unless turned off: a small, capped model call after a run (docs/memory.md).
      // SANTRA_MEMORY_AUTO_EXTRACT overrides the file, for one process (CI, scripts, tests).
      autoExtract:
        envSwitch(get('SANTRA_MEMORY_AUTO_EXTRACT'), 'SANTRA_MEMORY_AUTO_EXTRACT', file) ??
        config.memory?.autoExtract ??
        true,
      ...(config.memory?.model === undefined ? {} : { model: config.memory.model }),
    },
    // Off unless asked for: an event is untrusted, and a turn it starts spends the user's money.
    events: { startTurns: config.events?.startTurns ?? false },
    mcpServers: config.mcpServers ?? {},
    mcp: {
      toolSearchShare: config.mcp?.toolSearchShare ?? 0.1,
      projectServers: config.mcp?.projectServers ?? true,
    },
    sandbox: {
      profile: config.sandbox?.profile ?? 'workspace-write',
      allowedDomains: config.sandbox?.allowedDomains ?? [],
      autoRun: config.sandbox?.autoRun ?? false,
    },
    tools: {
      policy: config.tools?.policy ?? {},
      denyCommands: config.tools?.denyCommands ?? [],
      askCommands: config.tools?.askCommands ?? [],
      ...(config.tools?.readOnlyCommands === undefined
        ? {}
        : { readOnlyCommands: config.tools.readOnlyCommands }),
      commandTimeoutSeconds: config.tools?.commandTimeoutSeconds ?? 120,
      commandOutputLimitBytes: config.tools?.commandOutputLimitBytes ?? 30_000,
      allowEnv: config.tools?.allowEnv ?? [],
      allowPrivateNetwork: config.tools?.webFetch?.allowPrivateNetwork ?? false,
      ...(config.tools?.webSearch === undefined ? {} : { webSearch: config.tools.webSearch }),
    },
  };
  if (redirected) resolved.defaultProvider = 'openai';
  if (resolved.model === '') resolved.model = firstConfiguredModel(resolved, fileProviders);
  return resolved;
}

/** The environment variables that move a preset's endpoint. */
const BASE_URL_ENV: Record<string, string> = {
  anthropic: 'ANTHROPIC_BASE_URL',
  openai: 'OPENAI_BASE_URL',
};

/** An on/off environment variable: `1`, `true`, `on` or `0`, `false`, `off`; undefined when unset. */
function envSwitch(value: string | undefined, name: string, file: string): boolean | undefined {
  if (value === undefined) return undefined;
  const lower = value.toLowerCase();
  if (['1', 'true', 'on', 'yes'].includes(lower)) return true;
  if (['0', 'false', 'off', 'no'].includes(lower)) return false;
  throw new ConfigError(
    file,
    `The environment variable ${name} is ${JSON.stringify(value.slice(0, 20))}; set it to 1 (on) or 0 (off), or unset it to use the config file's setting.`,
    name,
  );
}

function envUrl(env: NodeJS.ProcessEnv, name: string, file: string): string | undefined {
  const value = envValue(env, name);
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    // The value is not repeated: a URL may carry credentials.
    throw new ConfigError(
      file,
      `The environment variable ${name} is not an http(s) URL; expected something like "http://127.0.0.1:11434/v1".`,
      name,
    );
  }
  return value;
}

/**
 * A preset pointed elsewhere (OPENAI_BASE_URL at Ollama, a proxy…) is named by where it goes, so
 * a message never blames OpenAI for a local server that is not running.
 */
function endpointName(preset: { name: string; baseUrl: string }, baseUrl: string): string {
  if (baseUrl.replace(/\/+$/, '') === preset.baseUrl.replace(/\/+$/, '')) return preset.name;
  // The host alone: never the user, password or query a URL may carry.
  let host = redactUrls(baseUrl);
  try {
    host = new URL(baseUrl).host;
  } catch {
    // envUrl and the config schema have checked it.
  }
  return `${preset.name}-compatible server at ${host}`;
}

function endpoint(fields: {
  id: string;
  name: string;
  api: ProviderEndpoint['api'];
  baseUrl: string;
  apiKey: string | undefined;
  keyEnv: string | undefined;
  needsKey: boolean;
}): ProviderEndpoint {
  const result: ProviderEndpoint = {
    id: fields.id,
    name: fields.name,
    api: fields.api,
    baseUrl: fields.baseUrl.replace(/\/+$/, ''),
    needsKey: fields.needsKey,
  };
  if (fields.apiKey !== undefined) result.apiKey = fields.apiKey;
  if (fields.keyEnv !== undefined) result.keyEnv = fields.keyEnv;
  return result;
}

/**
 * The default model of the first provider that is usable as configured: one with a key, or a
 * keyless one the file mentions (or `openai` redirected by its base URL). Anthropic first, then
 * OpenAI, then the other presets in order, then custom providers in file order.
 */
function firstConfiguredModel(
  config: ResolvedConfig,
  fileProviders: NonNullable<SantraConfig['providers']>,
): string {
  for (const provider of Object.values(config.providers)) {
    const mentioned = fileProviders[provider.id] !== undefined;
    const usable =
      provider.apiKey !== undefined ||
      (!provider.needsKey && (mentioned || config.defaultProvider === provider.id));
    if (!usable) continue;
    const preset = PRESETS.find((candidate) => candidate.id === provider.id);
    // `openai` pointed elsewhere (OPENAI_BASE_URL at Ollama, vLLM…) serves that server's models,
    // not OpenAI's default: only a model the file lists for it can be assumed.
    const redirected = config.defaultProvider === provider.id;
    const model = (redirected ? undefined : preset?.defaultModel) ?? config.providerModels[provider.id]?.[0];
    if (model !== undefined) return `${provider.id}/${model}`;
  }
  return '';
}

/** A built-in provider pointed at another server than its own (a compatible one). */
function isRedirected(provider: ProviderEndpoint): boolean {
  const preset = PRESETS.find((candidate) => candidate.id === provider.id);
  return preset !== undefined && provider.baseUrl !== preset.baseUrl.replace(/\/+$/, '');
}

/** Resolves a model reference (by default the configured model) with the configured providers. */
export function resolveConfiguredModel(
  config: ResolvedConfig,
  ref: string = config.model,
): ModelSpec | undefined {
  const providers = Object.fromEntries(
    Object.values(config.providers).map((provider) => {
      const compat = config.providerCompat[provider.id];
      const models = config.providerModels[provider.id];
      return [
        provider.id,
        {
          api: provider.api,
          ...(compat === undefined ? {} : { compat }),
          ...(models === undefined ? {} : { models }),
          ...(isRedirected(provider) ? { chatOnly: true } : {}),
        },
      ];
    }),
  );
  return resolveModel(ref, {
    providers,
    ...(config.defaultProvider === undefined ? {} : { defaultProvider: config.defaultProvider }),
  });
}

/**
 * A copy safe to log or show: every apiKey replaced by "…" plus its last 4 characters, and every
 * URL without the user, password or secret query values it may carry.
 */
export function redactConfig(config: ResolvedConfig): unknown {
  const copy = structuredClone(config);
  for (const provider of Object.values(copy.providers)) {
    if (provider.apiKey !== undefined) provider.apiKey = redactKey(provider.apiKey);
    provider.baseUrl = redactUrls(provider.baseUrl);
  }
  if (copy.sessions.store !== undefined) copy.sessions.store = redactUrls(copy.sessions.store);
  if (copy.tools.webSearch !== undefined) {
    if ('apiKey' in copy.tools.webSearch)
      copy.tools.webSearch.apiKey = redactKey(copy.tools.webSearch.apiKey);
    else copy.tools.webSearch.url = redactUrls(copy.tools.webSearch.url);
  }
  return copy;
}

/** Keys too short for their tail to be harmless show no characters at all. */
function redactKey(key: string): string {
  return key.length >= 12 ? `…${key.slice(-4)}` : '…';
}

/** `sessions` of the resolved config: a shared store's URL, or files; the live token. */
function sessionStore(
  store: string | undefined,
  liveToken: string | undefined,
  file: string,
): ResolvedConfig['sessions'] {
  // The file's value is checked by its schema; the environment's here, by the same rule.
  if (liveToken !== undefined && liveToken.length < 16)
    throw new ConfigError(
      file,
      'The environment variable SANTRA_LIVE_TOKEN is shorter than 16 characters; use a long random secret, such as the output of `openssl rand -hex 32`.',
      'SANTRA_LIVE_TOKEN',
    );
  return { ...(store === undefined ? {} : { store }), ...(liveToken === undefined ? {} : { liveToken }) };
}
