/**
 * What the interactive UI needs from santra-server, and its implementation over the protocol
 * client `santra -p` uses (client/session.ts: one client layer under both front ends). The UI
 * depends on the `Backend` interface only, so its tests can drive it without a server.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import type { ParamsOf, Phase, PromptResult, ProviderInfo, ResultOf, SandboxInfo } from '#protocol';
import { serverPathFor, startServer } from '../client/server-process.ts';
import { PrintError, ServerSession } from '../client/session.ts';
import type { Interactions } from './interactions.ts';
import { TEXT_FRAME_MS } from './ui-state.ts';

export interface Backend {
  /**
   * The methods the server offers (`initialize`'s capabilities.methods), or undefined when the
   * session does not report them; commands that need an optional method are then not offered.
   */
  readonly methods: ReadonlySet<string> | undefined;
  /**
   * Each provider's default model (`provider/model`), by provider id, as `initialize` reports
   * them: what the first-run setup offers first.
   */
  readonly defaultModels: ReadonlyMap<string, string>;
  /** The providers that need no API key (ProviderInfo.needsKey false): local servers. */
  readonly keyless: ReadonlySet<string>;
  /** The server's OS sandbox (initialize's capabilities.sandbox), for /status; absent: not said. */
  readonly sandbox?: SandboxInfo;
  prompt(params: ParamsOf<'prompt'>): Promise<PromptResult>;
  /** Cancels the running prompt ($/cancelRequest); its answer still comes, with status cancelled. */
  cancelPrompt(): void;
  models(): Promise<ResultOf<'model/list'>>;
  sessions(limit?: number): Promise<ResultOf<'session/list'>>;
  /** With `afterSeq`, the session's saved phases above it come again through onPhase first. */
  resume(sessionId: string, afterSeq?: number): Promise<ResultOf<'session/resume'>>;
  agents(): Promise<ResultOf<'agents/list'>>;
  /** The optional methods (model/set, session/compact, session/undo, session/export), result checked. */
  request: ServerSession['request'];
  close(): Promise<void>;
  kill(): void;
}

export interface BackendOptions {
  serverPath: string;
  workspaceRoot: string;
  clientVersion: string;
  interactions: Interactions;
  onPhase: (phase: Phase) => void;
  /** The server process, when the caller started it early. */
  server?: ChildProcessWithoutNullStreams;
}

/** Starts santra-server (unless given) and opens the conversation. Rejects with a PrintError. */
export async function startBackend(options: BackendOptions): Promise<Backend> {
  const path = serverPathFor(options.serverPath, process.env).path;
  const server = options.server ?? startServer(path, options.workspaceRoot);
  if (server === undefined) {
    throw new PrintError(
      `santra: santra-server was not found at ${path}; run npm run build, or point SANTRA_SERVER at a server`,
    );
  }
  const session = new ServerSession({
    server,
    workspaceRoot: options.workspaceRoot,
    clientName: 'santra-tui',
    clientVersion: options.clientVersion,
    // Streamed text is drawn TEXT_FRAME_MS apart at most: deltas closer than that may come merged.
    capabilities: { approve: true, ask: true, diffs: true, textIntervalMs: TEXT_FRAME_MS },
    approvals: options.interactions,
    verbose: false,
    stderr: process.stderr,
    onPhase: (_raw, phase) => {
      if (phase !== undefined) options.onPhase(phase);
    },
  });
  try {
    const { capabilities } = await session.initialize();
    const backend = adapt(
      session,
      new Set(capabilities.methods),
      defaultModelsOf(capabilities.providers),
      new Set(capabilities.providers.filter((provider) => provider.needsKey === false).map((p) => p.id)),
    );
    return capabilities.sandbox === undefined ? backend : { ...backend, sandbox: capabilities.sandbox };
  } catch (error) {
    // A server it cannot use is still ended politely (shutdown, exit), and killed only if it lingers.
    await session.close();
    throw error;
  }
}

/**
 * provider id → `provider/model` of its default model (ProviderInfo.defaultModel); a provider
 * without one (an endpoint serving its own models) is absent, and the setup starts on its first.
 */
function defaultModelsOf(providers: readonly ProviderInfo[]): Map<string, string> {
  const defaults = new Map<string, string>();
  for (const provider of providers)
    if (provider.defaultModel !== undefined)
      defaults.set(provider.id, `${provider.id}/${provider.defaultModel}`);
  return defaults;
}

function adapt(
  session: ServerSession,
  methods: ReadonlySet<string>,
  defaultModels: ReadonlyMap<string, string>,
  keyless: ReadonlySet<string>,
): Backend {
  return {
    methods,
    defaultModels,
    keyless,
    prompt: (params) => session.prompt(params),
    cancelPrompt: () => session.cancelPrompt(),
    models: () => session.models(),
    sessions: (limit) => session.sessions(limit),
    resume: (sessionId, afterSeq) => session.resume(sessionId, afterSeq),
    agents: () => session.agents(),
    request: (method, params) => session.request(method, params),
    close: () => session.close(),
    kill: () => session.kill(),
  };
}
