/**
 * The agent runtime behind the protocol: configuration, sessions, models and the prompt handler.
 * It knows nothing of JSON-RPC; the connection hands it typed params and an AbortSignal.
 */
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type ClientCapabilities,
  type InitializeParams,
  type PhaseType,
  PhaseType as PhaseTypeSchema,
  type ProviderInfo,
} from '#protocol';
import { BUILTIN_AGENTS } from '../agent/builtin-agents.ts';
import { loadCustomAgents } from '../agent/custom-agents.ts';
import { loadProjectInstructions } from '../agent/project-instructions.ts';
import { openSession, runPrompt } from '../agent/run-prompt.ts';
import { isConfigured, listModels, selectModel } from '../agent/model-selection.ts';
import { openSessionStorage } from '../sessions/open-storage.ts';
import { storePassword } from '../sessions/keyv-connection.ts';
import { SessionStore } from '../sessions/store.ts';
import { type Recording, replayStream } from '../sessions/replay.ts';
import { replayConfig } from './replay-config.ts';
import { sessionHandlers } from './session-handlers.ts';
import { undoHandlers } from './undo.ts';
import { compactHandler } from './compact.ts';
import { configDir, loadConfig, loadConfigLenient, type ResolvedConfig } from '../config/config.ts';
import { setupConfig } from './config-setup.ts';
import type { Logger, Redactor } from '../support/log.ts';
import { ProtocolFault } from '../support/protocol-fault.ts';
import { CATALOG } from '../providers/catalog.ts';
import { PRESETS } from '../providers/presets.ts';
import { streamModel } from '../providers/registry.ts';
import { RateLimiter, type ResilienceOptions, withResilience } from '../providers/resilience.ts';
import type { ClientChannel, Runtime } from './contract.ts';
import type { Tool, ToolContextSource } from '../tools/types.ts';
import { FileTracker } from '../workspace/file-tracker.ts';
import { Workspace } from '../workspace/workspace.ts';
import { SANTRA_VERSION } from '../support/version.ts';

export interface RuntimeOptions {
  log: Logger;
  redactor: Redactor;
  env: NodeJS.ProcessEnv;
  resilience?: Partial<ResilienceOptions>;
  /** --auto-approve: gated actions that would be asked are allowed without a client. */
  autoApprove?: boolean;
  /** --allow-dir: directories outside the workspace the tools may use, besides the config's. */
  allowedDirs?: readonly string[];
  /** --replay: every model call is answered from this recording; no provider is ever called. */
  replay?: Recording;
}

/** Every phase type this server sends: all the protocol defines. */
const PHASE_TYPES: PhaseType[] = [...PhaseTypeSchema.options];

interface Tooling {
  toolContext: ToolContextSource;
  /** The tools offered. */
  tools: Tool[];
  /** Every tool, including those the config denies. */
  every: Tool[];
  /** Settings that do nothing (a misspelt tool in tools.policy…), shown with every prompt. */
  warnings: string[];
}

/** The tools and the approval gate, loaded after `initialize` has been answered. */
const loadTooling = () => import('./tooling.ts');

export function createRuntime(options: RuntimeOptions): Runtime {
  const { log, redactor } = options;
  const stream =
    options.replay === undefined
      ? withResilience(streamModel, new RateLimiter(), options.resilience)
      : replayStream(options.replay, { workspaceRoot: () => state?.workspaceRoot });
  const files = new FileTracker();
  const runs = new Set<Promise<unknown>>();
  let state:
    | {
        config: ResolvedConfig;
        workspaceRoot: string;
        client: ClientChannel;
        sessions: SessionStore;
        workspace: Workspace;
        capabilities: ClientCapabilities;
      }
    | undefined;
  /** What is wrong with the config file, while it is broken: prompts are refused until it is fixed. */
  let configError: string | undefined;
  /** The config file as last read (mtime, size, inode), to read it again when it changes. */
  let configStamp = '';
  let defaultModel: string | undefined;
  /** The tools, built from the config when first needed, and again after the config changed. */
  let tooling: Promise<Tooling> | undefined;
  let buildTooling: (() => Promise<Tooling>) | undefined;
  const tools = () => {
    if (buildTooling === undefined) throw new Error('runtime used before initialize');
    return (tooling ??= buildTooling());
  };

  /** A config as loaded, made ready for use: its secrets redacted everywhere, a --replay applied. */
  const prepared = (loaded: ResolvedConfig): ResolvedConfig => {
    for (const endpoint of Object.values(loaded.providers)) redactor.add(endpoint.apiKey);
    if (loaded.sessions.store !== undefined) redactor.add(storePassword(loaded.sessions.store));
    if (loaded.tools.webSearch !== undefined && 'apiKey' in loaded.tools.webSearch)
      redactor.add(loaded.tools.webSearch.apiKey);
    return options.replay === undefined ? loaded : replayConfig(loaded, options.replay.models);
  };

  const ready = () => {
    if (state === undefined) throw new Error('runtime used before initialize');
    return state;
  };
  /** The state, for what needs a config the person meant: refused while the file is broken. */
  const configured = () => {
    if (configError !== undefined)
      throw new ProtocolFault(
        'ModelUnavailable',
        `${configError}\nFix the file and try again: Santra reads it again on the next request, no restart needed.`,
      );
    return ready();
  };

  /** Takes the config as loaded (or what could be used of a broken one) into use. */
  const useConfig = (loaded: Awaited<ReturnType<typeof loadConfigLenient>>, file: string) => {
    configStamp = stampOf(file);
    configError = loaded.problem === undefined ? undefined : redactor.apply(loaded.problem.message);
    if (configError !== undefined) log.error(configError);
    return prepared(loaded.config);
  };

  /**
   * Reads the config file again when it changed since it was read (a fix, an edit): the next
   * request after a fix is served without a restart. The tools are built again with it; the
   * session store and the workspace's allowed directories keep what the server started with.
   */
  const refresh = async () => {
    if (state === undefined || stampOf(state.config.file) === configStamp) return;
    const config = useConfig(await loadConfigLenient(options.env), state.config.file);
    state = { ...state, config };
    tooling = undefined;
    log.info(
      configError === undefined
        ? `read ${config.file} again`
        : `${config.file} changed and is still not usable`,
    );
  };

  return {
    serverInfo: { name: 'santra-server', version: SANTRA_VERSION },
    sends: ['phase', 'approve', 'ask', 'fs/readTextFile', 'fs/writeTextFile', 'terminal/run'],
    handlers: refreshing(refresh, {
      ...sessionHandlers(ready),
      ...compactHandler(configured, stream, () => defaultModel),
      ...undoHandlers(ready, { files, configDir: configDir(options.env) }),
      async prompt(params, { signal }) {
        const { config, workspaceRoot, client, sessions } = configured();
        // A shared store that cannot be reached refuses the prompt: its session would not be saved.
        await sessions.storage.ready?.();
        const { toolContext, tools: offered, every, warnings } = await tools();
        const run = runPrompt(
          {
            sessions,
            config,
            defaultModel,
            workspaceRoot,
            toolContext,
            loadAgents: () =>
              loadCustomAgents(workspaceRoot, {
                tools: every,
                builtInIds: BUILTIN_AGENTS.map((agent) => agent.id),
              }),
            loadInstructions: (startDir) =>
              loadProjectInstructions({
                workspaceRoot,
                configDir: configDir(options.env),
                ...(startDir === undefined ? {} : { startDir }),
              }),
            swarm: {
              maxDepth: config.agent.maxDepth,
              maxParallel: config.agent.maxParallelAgents,
              subAgentTimeoutMs: config.agent.subAgentTimeoutSeconds * 1000,
            },
            stream,
            tools: offered,
            configWarnings: warnings,
            sendPhase: (phase) => client.phase(phase),
            coalesceMs: textBatchMs(config.stream.coalesceMs, ready().capabilities),
            redactor,
          },
          params,
          signal,
        );
        runs.add(run);
        void run.finally(() => runs.delete(run)).catch(() => {});
        return run;
      },
      async 'model/list'(params) {
        const { config, sessions } = ready();
        // An unknown session is refused (UnknownSession), as model/set refuses it.
        const session =
          params?.sessionId === undefined ? undefined : (await sessions.open(params.sessionId)).session;
        const current = session?.model ?? defaultModel ?? config.model;
        const selection = current === '' ? undefined : selectModel(config, current);
        return {
          current: selection?.ok ? selection.ref : current,
          models: listModels(config),
          ...(configError === undefined ? {} : { configProblem: configError }),
        };
      },
      'config/setup': (params) =>
        setupConfig(params, {
          env: options.env,
          redactor,
          current: () => ready().config,
          reload: async () => prepared(await loadConfig(options.env)),
          use: (config, model) => {
            state = { ...ready(), config };
            defaultModel = model;
          },
        }),
      async 'agents/list'() {
        const { workspaceRoot } = ready();
        const custom = await loadCustomAgents(workspaceRoot, {
          tools: (await tools()).every,
          builtInIds: BUILTIN_AGENTS.map((agent) => agent.id),
        });
        return {
          agents: [...BUILTIN_AGENTS, ...custom.agents].map((agent) => ({
            id: agent.id,
            name: agent.name,
            description: agent.description,
            tools: agent.toolNames,
            canBeSpawned: agent.canBeSpawned,
            source: agent.source,
          })),
          problems: custom.problems,
        };
      },
      async 'model/set'(params) {
        const { config, sessions } = configured();
        const session =
          params.sessionId === undefined ? undefined : await openSession(sessions, params.sessionId);
        const selection = selectModel(config, params.model);
        if (!selection.ok) throw new ProtocolFault('ModelUnavailable', selection.message);
        if (session !== undefined) {
          session.model = selection.ref;
          session.record({ type: 'model', model: selection.ref, at: new Date().toISOString() });
        } else defaultModel = selection.ref;
        return { model: selection.ref };
      },
    }),
    async initialize(params: InitializeParams, client: ClientChannel) {
      await assertDirectory(params.workspaceRoot);
      // A broken file does not stop the server: what can be used of it lists sessions and models,
      // prompts say what to fix (model/list says it too), and a fixed file is read again.
      const loaded = await loadConfigLenient(options.env);
      const config = useConfig(loaded, loaded.config.file);
      const workspace = await Workspace.open(params.workspaceRoot, [
        ...config.workspace.allowedDirs,
        ...(options.allowedDirs ?? []),
      ]);
      // Loaded when first needed, or in the background shortly after `initialize` has been
      // answered (not before: evaluating it would hold up the response). Built from the config in
      // use at the time: after the file changed, built again.
      buildTooling = () =>
        loadTooling().then(({ allTools, toolContexts, toolPolicyProblems }) => {
          const config = ready().config;
          const every = allTools();
          const warnings = toolPolicyProblems(config.tools.policy, every, config.file);
          for (const warning of warnings) log.warn(warning);
          return {
            warnings,
            toolContext: toolContexts({
              workspace,
              files,
              client,
              capabilities: params.capabilities,
              autoApprove: options.autoApprove === true,
              config,
              configDir: configDir(options.env),
              env: options.env,
              tools: every,
              log,
            }),
            // Tools the config denies are not offered at all; custom agents may still name them.
            tools: every.filter((tool) => config.tools.policy[tool.name] !== 'deny'),
            every,
          };
        });
      const sessions = new SessionStore({
        storage: openSessionStorage({
          store: config.sessions.store,
          sessionsDir: join(configDir(options.env), 'sessions'),
          workspaceRoot: workspace.root,
          redact: (line) => redactor.apply(line),
          log,
        }),
        workspaceRoot: workspace.root,
        log,
      });
      state = {
        config,
        workspaceRoot: workspace.root,
        client,
        sessions,
        workspace,
        capabilities: params.capabilities,
      };
      setTimeout(() => void tools().catch(() => {}), 25).unref();
      if (params.model !== undefined) {
        const selection = selectModel(config, params.model);
        if (!selection.ok) throw new ProtocolFault('ModelUnavailable', selection.message);
        defaultModel = selection.ref;
      }
      return { phaseTypes: PHASE_TYPES, providers: providerInfos(config) };
    },
    async shutdown() {
      state?.sessions.abortAll('server shutting down');
      await Promise.allSettled([...runs]);
      await state?.sessions.close();
      log.debug('runtime shut down');
    },
  };
}

/** The config file's identity as last changed: mtime, size and inode ('' when there is none). */
function stampOf(file: string): string {
  try {
    const info = statSync(file);
    return `${info.mtimeMs}:${info.size}:${info.ino}`;
  } catch {
    return '';
  }
}

/** Every handler, run after `before` (the config read again when it changed). */
function refreshing<T extends object>(before: () => Promise<void>, handlers: T): T {
  return Object.fromEntries(
    Object.entries(handlers).map(([method, handler]) => [
      method,
      async (...args: unknown[]) => {
        await before();
        return (handler as (...args: unknown[]) => unknown)(...args);
      },
    ]),
  ) as T;
}

function providerInfos(config: ResolvedConfig): ProviderInfo[] {
  return Object.values(config.providers).map((endpoint) => ({
    id: endpoint.id,
    name: endpoint.name,
    configured: isConfigured(endpoint),
    needsKey: endpoint.needsKey,
    ...defaultModelOf(config, endpoint.id),
    models: CATALOG.filter((spec) => spec.provider === endpoint.id).map((spec) => ({
      id: spec.id,
      contextWindow: spec.contextWindow,
    })),
  }));
}

/** A preset's default model, unless it is pointed at another server (whose models only it knows). */
function defaultModelOf(config: ResolvedConfig, providerId: string): { defaultModel?: string } {
  if (config.defaultProvider === providerId) return {};
  const model = PRESETS.find((preset) => preset.id === providerId)?.defaultModel;
  return model === undefined ? {} : { defaultModel: model };
}

async function assertDirectory(path: string): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  const problem =
    info === undefined ? 'does not exist' : info.isDirectory() ? undefined : 'is not a directory';
  if (problem !== undefined) {
    throw new ProtocolFault(
      'InvalidParams',
      `Invalid params for initialize: params.workspaceRoot: ${path} ${problem}.`,
      {
        issues: [{ path: 'params.workspaceRoot', message: `${path} ${problem}` }],
      },
    );
  }
}

/** A client draws streamed text this often at most, whatever it declares: longer would look stuck. */
const MAX_CLIENT_TEXT_INTERVAL_MS = 100;

/**
 * How long the later deltas of a turn are held to be merged: the configured window, or the
 * client's drawing interval (§7.2, SANTRA-PHASE-008, at most 100 ms) when that is longer — a
 * client that draws every 50 ms gains nothing from being woken every 8.
 */
function textBatchMs(configured: number, capabilities: ClientCapabilities): number {
  // 0 is the user's own choice: every delta at once.
  if (configured === 0) return 0;
  return Math.max(configured, Math.min(capabilities.textIntervalMs ?? 0, MAX_CLIENT_TEXT_INTERVAL_MS));
}
