/**
 * What the interactive UI needs from santra-server, and its implementation over the protocol
 * client `santra -p` uses (print/session.ts: one client layer under both front ends). The UI
 * depends on the `Backend` interface only, so its tests can drive it without a server.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { InitializeResult, type ParamsOf, type Phase, type PromptResult, type ResultOf } from '#protocol';
import { serverPathFor, startServer } from '../print/server-process.ts';
import { PrintError, ServerSession } from '../print/session.ts';
import type { Interactions } from './interactions.ts';

export interface Backend {
  /**
   * The methods the server offers (`initialize`'s capabilities.methods), or undefined when the
   * session does not report them; commands that need an optional method are then not offered.
   */
  readonly methods: ReadonlySet<string> | undefined;
  prompt(params: ParamsOf<'prompt'>): Promise<PromptResult>;
  /** Cancels the running prompt ($/cancelRequest); its answer still comes, with status cancelled. */
  cancelPrompt(): void;
  models(): Promise<ResultOf<'model/list'>>;
  sessions(limit?: number): Promise<ResultOf<'session/list'>>;
  resume(sessionId: string): Promise<ResultOf<'session/resume'>>;
  agents(): Promise<ResultOf<'agents/list'>>;
  /** A request the session has no method for (model/set, session/compact, session/undo…), when it can send one. */
  request?: (method: string, params: unknown) => Promise<unknown>;
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
    clientVersion: options.clientVersion,
    capabilities: { approve: true, ask: true, diffs: true },
    approvals: options.interactions,
    verbose: false,
    stderr: process.stderr,
    onPhase: (_raw, phase) => {
      if (phase !== undefined) options.onPhase(phase);
    },
  });
  try {
    // ServerSession.initialize() resolves with nothing today; when it hands back the result, the
    // server's methods are known here without a change to this file.
    const answer: unknown = await session.initialize();
    const parsed = InitializeResult.safeParse(answer);
    const methods = parsed.success ? new Set(parsed.data.capabilities.methods) : undefined;
    return adapt(session, methods);
  } catch (error) {
    session.kill();
    throw error;
  }
}

function adapt(session: ServerSession, methods: ReadonlySet<string> | undefined): Backend {
  // Likewise a generic request method, once the session has one (see the report of issue 12).
  const generic = (session as unknown as { request?: (method: string, params: unknown) => Promise<unknown> })
    .request;
  return {
    methods,
    prompt: (params) => session.prompt(params),
    cancelPrompt: () => session.cancelPrompt(),
    models: () => session.models(),
    sessions: (limit) => session.sessions(limit),
    resume: (sessionId) => session.resume(sessionId),
    agents: () => session.agents(),
    ...(typeof generic === 'function' ? { request: generic.bind(session) } : {}),
    close: () => session.close(),
    kill: () => session.kill(),
  };
}
