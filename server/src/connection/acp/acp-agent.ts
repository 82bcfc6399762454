/**
 * The ACP agent: the editor's requests (ACP v1, the SDK's stable entry point) handled by driving
 * Santra sessions. What each maps onto is in docs/editors/acp.md; in brief:
 *
 * initialize → capabilities (loadSession, list/resume/close, text and embedded-context prompts;
 *   no auth methods: keys come from the environment or Santra's config, as for every client)
 * session/new, load, resume → a Santra link on `cwd`; load replays the saved session
 * session/prompt → Santra `prompt`; session/cancel → `$/cancelRequest` of it
 * session/set_mode → the agent that runs each prompt; session/set_config_option → model/set
 *
 * The editor's file-system and terminal capabilities (initialize's `clientCapabilities.fs`,
 * `.terminal`) are lent to Santra: each session's link declares exactly those (protocol §7.5), so
 * reads see the editor's unsaved buffers, approved edits of existing files go into its buffers,
 * and approved commands run in its terminals (lent.ts). Santra still confines, approves and
 * records every change. Params the SDK's schemas reject are answered InvalidParams by the SDK
 * itself.
 */
import type { McpServerDefinition } from '../../runtime/contract.ts';
import { editorMcpServers } from './editor-mcp.ts';
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { JsonRpcErrorCodes, SantraErrorCodes } from '#protocol';
import type { AdapterOptions } from '../adapters/adapter.ts';
import { AcpSession, Busy } from './acp-session.ts';
import { lentCapabilities } from './lent.ts';
import { UnsupportedPrompt } from './prompt-text.ts';
import { type LentCapabilities, SantraClient, SantraRefused } from '../adapters/santra-client.ts';

const CLIENT_NAME = 'santra-acp';

export interface SantraAgent {
  app: acp.AgentApp;
  /** Ends every session (runs cancelled, sessions saved, links shut down). */
  closeAll(): Promise<void>;
}

export function createSantraAgent(options: Omit<AdapterOptions, 'input' | 'output'>): SantraAgent {
  const { log, serverVersion } = options;
  const sessions = new Map<string, AcpSession>();
  let editor: acp.AgentContext | undefined;
  let capabilities: acp.ClientCapabilities = {};

  /** A Santra link on `cwd`, lending it `lent` of the editor's (a session's link: what the editor offers). */
  const openClient = async (
    cwd: string,
    lent: LentCapabilities = {},
    mcpServers: Record<string, McpServerDefinition> = {},
  ) => {
    checkCwd(cwd);
    try {
      return await SantraClient.open({
        link: options.openLink(Object.keys(mcpServers).length === 0 ? undefined : { mcpServers }),
        log,
        workspaceRoot: cwd,
        clientName: CLIENT_NAME,
        clientVersion: serverVersion,
        tag: 'acp',
        lend: lent,
      });
    } catch (error) {
      throw acpError(error);
    }
  };

  /**
   * A session on a link of its own: the saved Santra session `id`, or with none a new one (Santra's
   * session/new), whose id the editor then uses, so the thread loads again after a restart.
   */
  const openSession = async (
    id: string | undefined,
    cwd: string,
    mcpServers: readonly acp.McpServer[] | undefined,
  ) => {
    if (editor === undefined) throw acp.RequestError.internalError(undefined, 'the connection is not open');
    const lent = lentCapabilities(capabilities);
    // The editor's MCP servers run in the session's runtime, as the person's own (editor-mcp.ts).
    const client = await openClient(cwd, lent, editorMcpServers(mcpServers));
    let sessionId = id;
    if (sessionId === undefined) {
      try {
        sessionId = (await run(() => client.request('session/new', {}))).session.sessionId;
      } catch (error) {
        await client.close();
        throw error;
      }
    }
    const session = new AcpSession({
      id: sessionId,
      cwd,
      client,
      context: editor,
      forms: capabilities.elicitation?.form != null,
      lent,
      log,
    });
    return session;
  };

  const find = (sessionId: string) => {
    const session = sessions.get(sessionId);
    if (session === undefined)
      throw new acp.RequestError(
        -32002,
        `unknown session "${sessionId}": start one with session/new, or load one that session/list reports`,
        { sessionId },
      );
    return session;
  };

  /** session/load and session/resume: continue a saved Santra session, replaying it or not. */
  const continueSession = async (
    sessionId: string,
    cwd: string,
    replay: boolean,
    mcpServers: readonly acp.McpServer[] | undefined,
  ) => {
    const open = sessions.get(sessionId);
    if (open !== undefined) {
      if (replay) await run(() => open.load(replay));
      return open.describe();
    }
    const session = await openSession(sessionId, cwd, mcpServers);
    try {
      await run(() => session.load(replay));
      const described = await session.describe();
      sessions.set(sessionId, session);
      return described;
    } catch (error) {
      await session.close();
      throw error;
    }
  };

  const app = acp
    .agent({ name: 'santra' })
    .onConnect((connection) => {
      editor = connection.client;
    })
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      capabilities = params.clientCapabilities ?? {};
      return {
        protocolVersion: acp.PROTOCOL_VERSION,
        agentInfo: { name: 'santra', title: 'Santra', version: serverVersion },
        authMethods: [],
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: false, audio: false, embeddedContext: true },
          // The editor's MCP servers are connected (editor-mcp.ts), over every transport Santra speaks.
          mcpCapabilities: { http: true, sse: true },
          sessionCapabilities: { list: {}, resume: {}, close: {} },
        },
      };
    })
    .onRequest(acp.methods.agent.authenticate, ({ params }) => {
      throw acp.RequestError.invalidParams(
        { methodId: params.methodId },
        'Santra offers no authentication methods: it reads provider keys from the environment (ANTHROPIC_API_KEY, OPENAI_API_KEY, …) or its config file',
      );
    })
    .onRequest(acp.methods.agent.session.new, async ({ params }) => {
      const session = await openSession(undefined, params.cwd, params.mcpServers);
      try {
        const described = await run(() => session.describe());
        sessions.set(session.id, session);
        return { sessionId: session.id, ...described };
      } catch (error) {
        await session.close();
        throw error;
      }
    })
    .onRequest(acp.methods.agent.session.load, async ({ params }) => {
      return continueSession(params.sessionId, params.cwd, true, params.mcpServers);
    })
    .onRequest(acp.methods.agent.session.resume, async ({ params }) => {
      return continueSession(params.sessionId, params.cwd, false, params.mcpServers);
    })
    .onRequest(acp.methods.agent.session.list, async ({ params }) => {
      const cwd = params.cwd ?? process.cwd();
      const client = await openClient(cwd);
      try {
        const listed = await run(() =>
          client.request('session/list', {
            ...(params.cursor == null ? {} : { cursor: params.cursor }),
            ...(params.cwd == null ? { allWorkspaces: true } : {}),
          }),
        );
        for (const warning of listed.warnings) log.warn(`acp: session/list: ${warning}`);
        return {
          sessions: listed.sessions.map((info) => ({
            sessionId: info.sessionId,
            cwd: info.workspaceRoot,
            title: info.title,
            updatedAt: info.updatedAt,
          })),
          ...(listed.nextCursor === undefined ? {} : { nextCursor: listed.nextCursor }),
        };
      } finally {
        await client.close();
      }
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
      const session = find(params.sessionId);
      return { stopReason: await run(() => session.prompt(params.prompt)) };
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    })
    .onRequest(acp.methods.agent.session.setMode, ({ params }) => {
      if (!find(params.sessionId).setMode(params.modeId))
        throw acp.RequestError.invalidParams(
          { modeId: params.modeId },
          `unknown mode "${params.modeId}": use "auto" or an agent id the session's modes list`,
        );
      return {};
    })
    .onRequest(acp.methods.agent.session.setConfigOption, async ({ params }) => {
      if (typeof params.value !== 'string')
        throw acp.RequestError.invalidParams({ configId: params.configId }, 'Santra has no boolean options');
      const value = params.value;
      const options = await run(() => find(params.sessionId).setModel(params.configId, value));
      if (typeof options === 'string')
        throw acp.RequestError.invalidParams({ configId: params.configId }, options);
      return { configOptions: options };
    })
    .onRequest(acp.methods.agent.session.close, async ({ params }) => {
      const session = find(params.sessionId);
      sessions.delete(params.sessionId);
      await session.close();
      return {};
    });

  return {
    app,
    closeAll: async () => {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((session) => session.close()));
    },
  };
}

/** ACP wants an absolute `cwd`; Santra needs it to be a directory it can work in. */
function checkCwd(cwd: string): void {
  const problem = !isAbsolute(cwd)
    ? 'is not an absolute path'
    : !isDirectory(cwd)
      ? 'is not an existing directory'
      : undefined;
  if (problem !== undefined)
    throw acp.RequestError.invalidParams(
      { cwd },
      `cwd "${cwd}" ${problem}: send the absolute path of the project directory`,
    );
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Runs a step of a request, turning Santra's refusals and the adapter's own into ACP errors. */
async function run<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw acpError(error);
  }
}

function acpError(error: unknown): acp.RequestError {
  if (error instanceof acp.RequestError) return error;
  if (error instanceof UnsupportedPrompt) return acp.RequestError.invalidParams(undefined, error.message);
  if (error instanceof Busy) return acp.RequestError.invalidRequest(undefined, error.message);
  if (error instanceof SantraRefused) {
    if (error.code === SantraErrorCodes.UnknownSession) return new acp.RequestError(-32002, error.message);
    if (error.code === JsonRpcErrorCodes.InvalidParams) return new acp.RequestError(-32602, error.message);
    return new acp.RequestError(error.code, error.message);
  }
  return acp.RequestError.internalError(undefined, error instanceof Error ? error.message : String(error));
}
