/**
 * The agent runtime behind the protocol: configuration, sessions, models and the prompt handler.
 * It knows nothing of JSON-RPC; the connection hands it typed params and an AbortSignal. The
 * handlers live beside it, one module per group of methods, and share what it holds (state.ts).
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type InitializeParams,
  type PhaseType,
  PhaseType as PhaseTypeSchema,
  type ProviderInfo,
  type SandboxInfo,
} from '#protocol';
import { isConfigured, selectModel } from '../agent/model-selection.ts';
import { openSessionStorage } from '../sessions/open-storage.ts';
import { SessionStore } from '../sessions/store.ts';
import { type Recording, recordedModelStream } from '../sessions/recorded-model.ts';
import { sessionHandlers } from './session-handlers.ts';
import { importHandler } from './import-handler.ts';
import { undoHandlers } from './undo.ts';
import { rewindHandlers } from './rewind-handler.ts';
import { eventHandler } from './event-handler.ts';
import { compactHandler } from './compact-handler.ts';
import { modelHandlers } from './model-handlers.ts';
import { promptHandler } from './prompt-handler.ts';
import { configDir, loadConfigLenient, type ResolvedConfig } from '../config/config.ts';
import type { Logger, Redactor } from '../support/log.ts';
import { ProtocolFault } from '../support/protocol-fault.ts';
import { CATALOG } from '../providers/catalog.ts';
import { PRESETS } from '../providers/presets.ts';
import { streamModel } from '../providers/registry.ts';
import { RateLimiter, type ResilienceOptions, withResilience } from '../providers/resilience.ts';
import type { ClientChannel, Runtime } from './contract.ts';
import { FileTracker } from '../workspace/file-tracker.ts';
import { Workspace } from '../workspace/workspace.ts';
import { SANTRA_VERSION } from '../support/version.ts';
import { probeSandbox, type SandboxStatus } from '../sandbox/probe.ts';
import { RuntimeState, type Tooling } from './state.ts';
import { contextWindowFor, mcpHandler } from './mcp-handler.ts';
import { hooksHandler } from './hooks-handler.ts';
import { SkillsAndMemory } from './skills-memory.ts';
import type { SkillLibrary } from '../tools/load-skill.ts';
import { LiveRelay, subscribeHandlers } from './subscribe-handler.ts';
import { openLiveBus } from '../sessions/live-bus.ts';
import { McpManager } from '../mcp/manager.ts';
import type { McpServerDefinition } from '../config/mcp-schema.ts';
import { ProjectTrust } from '../approval/project-trust.ts';
import { Hooks } from '../hooks/hooks.ts';
import { SessionLifecycle } from '../hooks/session-hooks.ts';
import { scrubEnvironment } from '../tools/commands/env.ts';

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
  /** MCP servers an editor passes for its session (ACP), besides the config's. */
  editorMcpServers?: Record<string, McpServerDefinition>;
}

/** Every phase type this server sends: all the protocol defines. */
const PHASE_TYPES: PhaseType[] = [...PhaseTypeSchema.options];

/** The tools and the approval gate, loaded after `initialize` has been answered. */
const loadTooling = () => import('./tooling.ts');

export function createRuntime(options: RuntimeOptions): Runtime {
  const { log, redactor, env } = options;
  const state = new RuntimeState(options);
  const stream =
    options.replay === undefined
      ? withResilience(streamModel, new RateLimiter(), options.resilience)
      : recordedModelStream(options.replay, { workspaceRoot: () => state.initialized?.workspaceRoot });
  const files = new FileTracker();
  const runs = new Set<Promise<unknown>>();
  // Skills and memory (§7.9, §7.10): read from the workspace and the config dir on each request.
  const knowledge = new SkillsAndMemory({ state, env, redactor, log });
  const ready = () => state.ready();
  // Whether the OS sandbox works here: asked once, while `initialize` reads the config.
  let probed: Promise<SandboxStatus> | undefined;
  const sandboxStatus = () => (probed ??= probeSandbox({ env }));
  // The MCP servers, started in the background after `initialize` (mcp/manager.ts).
  let mcp: McpManager | undefined;
  /** The MCP servers, started now if the client sent a request before its `initialized`. */
  const startedMcp = () => {
    mcp?.start();
    return mcp;
  };
  /** Trust in what the project supplies (its MCP servers, its hooks), made at `initialize`. */
  let trust: ProjectTrust | undefined;
  /** Sessions run here, offered live to subscribers (§10.11); made at `initialize`. */
  let live: LiveRelay | undefined;
  /** The client itself: what a subscription sends to, not the sessions' live channels. */
  let ownClient: ClientChannel | undefined;

  /** The sessions begun here, for their SessionStart and SessionEnd hooks. */
  const lifecycle = new SessionLifecycle();
  /** The user's hooks, once `initialize` has loaded the config. */
  const userHooks = async () => (state.initialized === undefined ? undefined : (await state.tools()).hooks);
  const prompting = promptHandler({
    state,
    stream,
    redactor,
    env,
    runs,
    mcp: startedMcp,
    knowledge,
    lifecycle,
  });
  // Events into sessions (§10.14): a turn one starts is a prompt like any other.
  const events = eventHandler({
    ready,
    relay: () => live,
    prompt: (params, signal) => prompting.prompt(params, { signal }),
    log,
  });

  return {
    serverInfo: { name: 'santra-server', version: SANTRA_VERSION },
    sends: ['phase', 'approve', 'ask', 'fs/readTextFile', 'fs/writeTextFile', 'terminal/run'],
    handlers: refreshing(() => state.refresh(), {
      ...sessionHandlers(ready, {
        lifecycle,
        hooks: userHooks,
        release: async (sessionId) => live?.release(sessionId),
        warn: (text) => log.warn(text),
      }),
      ...importHandler(ready),
      ...compactHandler(
        () => state.configured(),
        stream,
        () => state.defaultModel,
        async () => (await state.tools()).hooks,
        lifecycle,
      ),
      ...undoHandlers(ready, { files, configDir: configDir(env) }),
      ...rewindHandlers(ready, { files, configDir: configDir(env) }),
      ...prompting,
      ...events.handlers,
      ...knowledge.handlers(),
      ...hooksHandler(userHooks),
      ...mcpHandler(startedMcp, () => {
        const config = state.initialized?.config;
        return config !== undefined && mcp !== undefined
          ? mcp.toolSearch(contextWindowFor(config, state.defaultModel))
          : false;
      }),
      ...modelHandlers(state, { env, redactor }),
      ...subscribeHandlers({
        storage: () => ready().sessions.storage,
        relay: () => live,
        client: () => ownClient ?? ready().client,
        capabilities: () => ready().capabilities,
        log,
      }),
    }),
    async initialize(params: InitializeParams, connection: ClientChannel) {
      await assertDirectory(params.workspaceRoot);
      const sandbox = sandboxStatus();
      // A broken file does not stop the server: what can be used of it lists sessions and models,
      // prompts say what to fix (model/list says it too), and a fixed file is read again.
      const loaded = await loadConfigLenient(env);
      const config = state.useConfig(loaded, loaded.config.file);
      const workspace = await Workspace.open(params.workspaceRoot, [
        ...config.workspace.allowedDirs,
        ...(options.allowedDirs ?? []),
      ]);
      const sessions = new SessionStore({
        storage: openSessionStorage({
          store: config.sessions.store,
          sessionsDir: join(configDir(env), 'sessions'),
          workspaceRoot: workspace.root,
          redact: (line) => redactor.apply(line),
          log,
        }),
        workspaceRoot: workspace.root,
        log,
      });
      ownClient = connection;
      live = new LiveRelay(
        connection,
        openLiveBus({
          store: config.sessions.store,
          liveDir: join(configDir(env), 'live'),
          log,
          ...(config.sessions.liveToken === undefined ? {} : { token: config.sessions.liveToken }),
        }),
        log,
      );
      live.onEvent = (sessionId, message) => events.receive(sessionId, message);
      // Everything the runtime sends goes by the sessions' live channels too.
      const client = live.channel;
      state.begin(
        {
          config,
          workspaceRoot: workspace.root,
          client,
          sessions,
          workspace,
          capabilities: params.capabilities,
        },
        // Built from the config in use at the time: after the file changed, built again.
        (current) =>
          buildTooling(current, {
            workspace,
            files,
            client,
            params,
            options,
            sandbox,
            trust: () => trust,
            skills: knowledge.library(),
          }),
      );
      // Loaded when first needed, or in the background shortly after `initialize` has been
      // answered (not before: evaluating it would hold up the response).
      setTimeout(() => void state.tools().catch(() => {}), 25).unref();
      // One trust store for the project's MCP servers and hooks: one lock, one memory of refusals.
      trust = new ProjectTrust({
        configDir: configDir(env),
        approve:
          params.capabilities.approve === true ? (request, s) => client.approve(request, s) : undefined,
      });
      mcp = new McpManager({
        userServers: config.mcpServers,
        ...(options.editorMcpServers === undefined ? {} : { editorServers: options.editorMcpServers }),
        configFile: config.file,
        readProject: config.mcp.projectServers,
        workspaceRoot: workspace.root,
        env,
        log,
        redactor,
        // Trust in a project's servers is a person's: only a client that can approve may ask one.
        trust,
        canAsk: params.capabilities.approve === true,
        toolSearchShare: config.mcp.toolSearchShare,
      });
      // Started once the client has the answer to `initialize` (its `initialized`, or a request
      // after it): a trust question must not come before it.
      if (params.model !== undefined) {
        const selection = selectModel(config, params.model);
        if (!selection.ok) throw new ProtocolFault('ModelUnavailable', selection.message);
        state.defaultModel = selection.ref;
      }
      return {
        phaseTypes: PHASE_TYPES,
        providers: providerInfos(config),
        sandbox: sandboxInfo(await sandbox, config.sandbox),
      };
    },
    initialized() {
      mcp?.start();
    },
    async shutdown() {
      const sessions = state.initialized?.sessions;
      sessions?.abortAll('server shutting down');
      // SessionEnd hooks of the sessions this server ran, bounded by each hook's own timeout.
      const hooks = await userHooks().catch(() => undefined);
      if (hooks !== undefined)
        await lifecycle.endAll(hooks, {
          signal: new AbortController().signal,
          warn: (text) => log.warn(text),
        });
      await Promise.allSettled([...runs, mcp?.close()]);
      knowledge.close();
      await sessions?.close();
      await live?.close();
      log.debug('runtime shut down');
    },
  };
}

/** The tools and the context they execute in, for `config`. */
async function buildTooling(
  config: ResolvedConfig,
  parts: {
    workspace: Workspace;
    files: FileTracker;
    client: ClientChannel;
    params: InitializeParams;
    options: RuntimeOptions;
    sandbox: Promise<SandboxStatus>;
    trust: () => ProjectTrust | undefined;
    skills: SkillLibrary;
  },
): Promise<Tooling> {
  const { allTools, toolContexts, toolPolicyProblems } = await loadTooling();
  const { options } = parts;
  const every = allTools();
  const warnings = toolPolicyProblems(config.tools.policy, every, config.file);
  for (const warning of warnings) options.log.warn(warning);
  const hooks = userHooks(config, parts.workspace.root, options, parts.trust());
  return {
    warnings,
    hooks,
    toolContext: toolContexts({
      workspace: parts.workspace,
      files: parts.files,
      client: parts.client,
      capabilities: parts.params.capabilities,
      autoApprove: options.autoApprove === true,
      config,
      configDir: configDir(options.env),
      env: options.env,
      tools: every,
      log: options.log,
      sandboxStatus: parts.sandbox,
      hooks,
      skills: parts.skills,
    }),
    // Tools the config denies are not offered at all; custom agents may still name them.
    tools: every.filter((tool) => config.tools.policy[tool.name] !== 'deny'),
    every,
  };
}

/** The user's hooks for this config: its `hooks`, and the project's once trusted. */
function userHooks(
  config: ResolvedConfig,
  workspaceRoot: string,
  options: RuntimeOptions,
  trust: ProjectTrust | undefined,
): Hooks {
  return new Hooks({
    user: config.hooks,
    userFile: config.file,
    workspaceRoot,
    // What run_command gets: provider keys and KEY/TOKEN/SECRET variables removed.
    env: scrubEnvironment(options.env, {
      allow: config.tools.allowEnv,
      remove: Object.values(config.providers).flatMap((provider) =>
        provider.keyEnv === undefined ? [] : [provider.keyEnv],
      ),
    }),
    failClosed: config.hooksFailClosed,
    ...(trust === undefined ? {} : { trust }),
    warn: (message) => options.log.warn(message),
  });
}

/** What `initialize` says of the sandbox: whether it works, and what commands run under. */
export function sandboxInfo(status: SandboxStatus, settings: ResolvedConfig['sandbox']): SandboxInfo {
  const common = { autoRun: settings.autoRun, allowedDomains: settings.allowedDomains };
  if (!status.available)
    return {
      available: false,
      profile: 'danger-full-access',
      ...common,
      problem: status.problem,
      fix: status.fix,
    };
  const notes =
    status.relayProblem !== undefined && settings.allowedDomains.length > 0 ? [status.relayProblem] : [];
  return {
    available: true,
    mechanism: status.mechanism,
    profile: settings.profile,
    ...common,
    ...(notes.length === 0 ? {} : { notes }),
  };
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
