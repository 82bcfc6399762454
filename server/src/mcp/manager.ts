/**
 * The MCP servers of one Santra server: started in the background once `initialize` has been
 * answered, so a slow or hanging one never delays a prompt (its tools join the next prompt once
 * it is ready; its failure is told once, with the next prompt, and stays in `mcp/list`).
 *
 * A project's server (`.mcp.json`) is started only after a person trusted its exact definition
 * (approval/project-trust.ts); the question goes out right after `initialize`, so a terminal
 * user sees it at once. The user's own servers start unasked.
 */
import type { Revocation } from './oauth-revoke.ts';
import type { McpListResult, McpServerInfo } from '#protocol';
import type { ProjectTrust, TrustRequest } from '../approval/project-trust.ts';
import type { McpServerDefinition } from '../config/mcp-schema.ts';
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../support/errno.ts';
import type { Logger, Redactor } from '../support/log.ts';
import type { Tool } from '../tools/types.ts';
import { type Client, connectServer } from './connect.ts';
import { expandDefinition, type McpServerEntry, readDefinitions, transportOf } from './definitions.ts';
import type { McpCallResult } from './result.ts';
import { allPages, offeredTools, readCatalog } from './catalog.ts';
import { mcpToolName } from './tools.ts';
import { LoadedTools, searchNeeded, withToolSearch } from './tool-search.ts';
import {
  attachedResource,
  type McpPromptSpec,
  promptArguments,
  promptText,
  resourceMentions,
  resourceText,
} from './prompts.ts';
import { resourceTool } from './resource-tool.ts';
import { McpOAuth, needsSignIn } from './oauth.ts';

const DEFAULT_STARTUP_SECONDS = 30;
const DEFAULT_TOOL_SECONDS = 600;
/** The longest wait before a crashed server is started again. */
const MAX_BACKOFF_MS = 60_000;
/** The config's default (config.ts): a tenth of the context for MCP tool schemas at most. */
const DEFAULT_SEARCH_SHARE = 0.1;

export interface McpManagerOptions {
  userServers: Record<string, McpServerDefinition>;
  /** The editor's servers for this session (ACP): the person's own, as trusted as the config's. */
  editorServers?: Record<string, McpServerDefinition>;
  configFile: string;
  readProject: boolean;
  workspaceRoot: string;
  env: NodeJS.ProcessEnv;
  log: Logger;
  redactor: Redactor;
  trust: ProjectTrust;
  /**
   * Whether the client can put a trust question to a person (it declared `capabilities.approve`).
   * When it cannot, a project server's fate is known at once, so `mcp/list` shows it at once.
   */
  canAsk?: boolean;
  /** `mcp.toolSearchShare`: past this share of the context, the tools are found on demand. */
  toolSearchShare?: number;
}

interface ServerState {
  entry: McpServerEntry;
  info: McpServerInfo;
  client?: Client;
  tools: Tool[];
  /** Its prompts as listed, for `/mcp__<server>__<prompt>` (prompts.ts). */
  prompts: McpPromptSpec[];
  /** Whether it offers resources (read_mcp_resource, `@server:uri`). */
  resources: boolean;
  /** Crashes since its last call that worked: the wait before the next restart grows with them. */
  crashes: number;
  /** When a call may start it again after a crash (epoch ms). */
  retryAt: number;
  /** A restart under way, shared by the calls that wait for it. */
  restarting?: Promise<void>;
  /** A remote server's OAuth sign-in (oauth.ts); made at its first connection. */
  oauth?: McpOAuth;
}

export class McpManager {
  readonly #options: McpManagerOptions;
  readonly #servers = new Map<string, ServerState>();
  readonly #problems: string[] = [];
  /** Failures not yet told: each is told once, with the next prompt. */
  readonly #untold: string[] = [];
  /** Servers waiting for a sign-in not yet told: told with the URL current then, unless signed in meanwhile. */
  readonly #untoldSignIns = new Set<ServerState>();
  readonly #closing = new AbortController();
  /** The tools search_mcp_tools loaded: offered with every later request. */
  readonly #loaded = new LoadedTools();
  #started: Promise<void> | undefined;

  constructor(options: McpManagerOptions) {
    this.#options = options;
  }

  /** Reads the definitions and starts every server in the background. Never rejects; returns at once. */
  start(): void {
    this.#started ??= this.#startAll().catch((error: unknown) =>
      this.#options.log.error(`MCP servers could not be started: ${errorMessage(error)}`),
    );
  }

  /** Resolves once the definitions are read (not once servers are up): for `mcp/list` and tests. */
  async definitionsRead(): Promise<void> {
    this.start();
    await this.#started;
  }

  /** The tools of the servers connected now, denied ones left out. */
  tools(): Tool[] {
    return [...this.#servers.values()].flatMap((server) => server.tools);
  }

  /**
   * The tools to offer a model with `contextWindow` tokens: all of them, or, when their schemas
   * would take more than `mcp.toolSearchShare` of it, search_mcp_tools and the tools deferred
   * behind it (mcp/tool-search.ts).
   */
  offeredTools(contextWindow: number): Tool[] {
    const tools = this.tools();
    const resources = this.resourceServers().length === 0 ? [] : [resourceTool(this)];
    return [...resources, ...(this.toolSearch(contextWindow) ? withToolSearch(tools, this.#loaded) : tools)];
  }

  /** Whether the tools' schemas are too large to offer up front to a model with `contextWindow` tokens. */
  toolSearch(contextWindow: number): boolean {
    return searchNeeded(this.tools(), contextWindow, this.#options.toolSearchShare ?? DEFAULT_SEARCH_SHARE);
  }

  /**
   * The prompt as the model should get it: a `/mcp__<server>__<prompt> args` command replaced by
   * the text that MCP prompt returns, and each `@server:uri` mention of a connected server's
   * resource attached (prompts.ts). Rejects with a message for the user when the command names
   * no prompt of a connected server, or lacks an argument.
   */
  async expandPrompt(text: string, limit: number, signal: AbortSignal): Promise<string> {
    let expanded = text;
    const command = /^\s*(\/mcp__\S+)(?:\s+([\s\S]*))?$/.exec(text);
    if (command !== null)
      expanded = await this.#runPrompt(command[1] as string, command[2] ?? '', limit, signal);
    const servers = [...this.#servers.values()].filter((s) => s.resources && s.client !== undefined);
    const mentions = resourceMentions(
      text,
      servers.map((s) => s.entry.name),
    );
    const attached: string[] = [];
    for (const { server, uri } of mentions) {
      const body = await this.readResource(server, uri, limit, signal).catch(
        (error: unknown) => `[the resource could not be read: ${errorMessage(error)}]`,
      );
      attached.push(attachedResource(server, uri, body));
    }
    return attached.length === 0 ? expanded : `${expanded}\n\n${attached.join('\n\n')}`;
  }

  async #runPrompt(command: string, typed: string, limit: number, signal: AbortSignal): Promise<string> {
    const states = [...this.#servers.values()];
    const state = states.find((s) => s.info.prompts.includes(command));
    if (state === undefined) {
      const server = states.find((s) => command.startsWith(`/mcp__${s.entry.name}__`));
      throw new Error(
        server !== undefined && server.info.state !== 'connected'
          ? `${command}: the MCP server "${server.entry.name}" is ${server.info.state}${server.info.error === undefined ? '' : ` (${server.info.error})`}; see /mcp`
          : `${command} is not a prompt of a connected MCP server; /mcp lists them${server === undefined ? '' : `: ${server.info.prompts.join(', ') || `"${server.entry.name}" has none`}`}`,
      );
    }
    const spec = state.prompts.find((prompt) => `/${mcpToolName(state.entry.name, prompt.name)}` === command);
    const client = state.client;
    if (spec === undefined || client === undefined)
      throw new Error(`${command}: the MCP server "${state.entry.name}" is not running; see /mcp`);
    const args = promptArguments(command, spec, typed);
    const result = await client.getPrompt({ name: spec.name, arguments: args }, { signal });
    return promptText(result.messages, limit);
  }

  /** A resource of a connected server, as text for the model (bounded to `limit` bytes). */
  async readResource(server: string, uri: string, limit: number, signal: AbortSignal): Promise<string> {
    const state = this.#servers.get(server);
    if (state === undefined) throw new Error(`there is no MCP server "${server}"; /mcp lists them`);
    if (state.client === undefined || !state.resources)
      throw new Error(
        state.client === undefined
          ? `the MCP server "${server}" is ${state.info.state}; see /mcp`
          : `the MCP server "${server}" offers no resources`,
      );
    const result = await state.client.readResource({ uri }, { signal });
    return resourceText(result, limit);
  }

  /** The resources a connected server lists (its first pages), for read_mcp_resource without a URI. */
  async listResources(
    server: string,
    signal: AbortSignal,
  ): Promise<Array<{ uri: string; name: string; description?: string; mimeType?: string }>> {
    const state = this.#servers.get(server);
    if (state?.client === undefined || !state.resources)
      throw new Error(`the MCP server "${server}" is not connected or offers no resources; /mcp lists them`);
    const client = state.client;
    return allPages(async (cursor) => {
      const listed = await client.listResources(cursor === undefined ? {} : { cursor }, { signal });
      return { items: listed.resources, nextCursor: listed.nextCursor };
    });
  }

  /** The connected servers that offer resources, for read_mcp_resource. */
  resourceServers(): string[] {
    return [...this.#servers.values()]
      .filter((state) => state.resources && state.client !== undefined)
      .map((state) => state.entry.name);
  }

  /** Failures to tell the user once (with the next prompt), then forgotten here (`mcp/list` keeps them). */
  takeNotices(): string[] {
    for (const state of this.#servers.values())
      if (state.info.state === 'needs_auth' && state.client === undefined) void this.#retrySignIn(state);
    const signIns = [...this.#untoldSignIns]
      .filter((state) => state.info.state === 'needs_auth')
      .map(
        (state) =>
          `MCP server "${state.entry.name}": ${state.info.error ?? 'it needs you to sign in'}${state.info.authUrl === undefined ? '' : ` — ${state.info.authUrl}`}`,
      );
    this.#untoldSignIns.clear();
    return [...this.#untold.splice(0), ...signIns];
  }

  list(toolSearch: boolean): McpListResult {
    return {
      servers: [...this.#servers.values()].map((server) => structuredClone(server.info)),
      problems: [...this.#problems],
      toolSearch,
    };
  }

  /** Waits until no server is still connecting or waiting for trust (tests, `santra mcp list`). */
  async settled(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    await this.definitionsRead();
    while (
      [...this.#servers.values()].some(
        (s) => s.info.state === 'connecting' || s.info.state === 'needs_trust',
      ) &&
      Date.now() < deadline
    )
      await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /** Closes every connection; a stdio server's process is ended (the SDK signals it, then kills it). */
  async close(): Promise<void> {
    this.#closing.abort();
    await Promise.allSettled(
      [...this.#servers.values()].flatMap((server) => [
        ...(server.client === undefined ? [] : [server.client.close()]),
        ...(server.oauth === undefined ? [] : [server.oauth.close()]),
      ]),
    );
  }

  async #startAll(): Promise<void> {
    const { servers, problems } = await readDefinitions({
      userServers: this.#options.userServers,
      ...(this.#options.editorServers === undefined ? {} : { editorServers: this.#options.editorServers }),
      configFile: this.#options.configFile,
      workspaceRoot: this.#options.workspaceRoot,
      readProject: this.#options.readProject,
    });
    for (const problem of problems) {
      this.#problems.push(problem);
      this.#untold.push(problem);
    }
    for (const entry of servers) {
      const state: ServerState = {
        entry,
        tools: [],
        prompts: [],
        resources: false,
        crashes: 0,
        retryAt: 0,
        info: {
          name: entry.name,
          scope: entry.scope,
          source: entry.source,
          transport: transportOf(entry.definition),
          state:
            entry.definition.disabled === true
              ? 'disabled'
              : entry.scope === 'project'
                ? 'needs_trust'
                : 'connecting',
          tools: [],
          prompts: [],
          resources: 0,
        },
      };
      this.#servers.set(entry.name, state);
      if (state.info.state === 'disabled') continue;
      // Trust that needs no person (a stored decision; a client that cannot ask one) is settled
      // before the definitions count as read, so a list taken at once already shows it.
      if (entry.scope === 'project' && this.#options.canAsk === false) {
        if (!(await this.#trusted(state))) continue;
      } else if (
        entry.scope === 'project' &&
        (await this.#options.trust.isTrusted(this.#trustRequest(entry)))
      )
        state.info.state = 'connecting';
      void this.#bringUp(state);
    }
  }

  async #bringUp(state: ServerState): Promise<void> {
    if (state.entry.scope === 'project' && !(await this.#trusted(state))) return;
    await this.#connect(state);
  }

  /** Asks for trust when it is not given yet; false (and the server shown `untrusted`) when refused. */
  async #trusted(state: ServerState): Promise<boolean> {
    const decision = await this.#options.trust.ensure(this.#trustRequest(state.entry), {
      signal: this.#closing.signal,
      onStoreError: (message) => this.#options.log.warn(message),
    });
    if (!decision.trusted) {
      this.#fail(state, 'untrusted', decision.message);
      return false;
    }
    state.info.state = 'connecting';
    return true;
  }

  #trustRequest(entry: McpServerEntry): TrustRequest {
    return {
      subject: 'mcp_server',
      project: this.#options.workspaceRoot,
      source: entry.source,
      name: entry.name,
      definition: entry.definition,
    };
  }

  async #connect(state: ServerState): Promise<void> {
    const { entry } = state;
    const expanded = expandDefinition(entry.definition, this.#options.env);
    for (const secret of expanded.secrets) this.#options.redactor.add(secret);
    if (expanded.missing.length > 0)
      this.#options.log.warn(
        `MCP ${entry.name}: ${expanded.missing.map((name) => `\${${name}}`).join(', ')} not set in the environment; expanded to ""`,
      );
    const timeoutMs = (entry.definition.startupTimeoutSeconds ?? DEFAULT_STARTUP_SECONDS) * 1000;
    const signal = AbortSignal.any([this.#closing.signal, AbortSignal.timeout(timeoutMs)]);
    let client: Client;
    try {
      const authProvider = await this.#oauth(state, expanded.definition);
      client = await connectServer({
        name: entry.name,
        definition: expanded.definition,
        cwd: this.#options.workspaceRoot,
        signal,
        timeoutMs,
        log: this.#options.log,
        ...(authProvider === undefined ? {} : { authProvider }),
        onClose: () => this.#lost(state),
      });
    } catch (error) {
      if (this.#closing.signal.aborted) return;
      if (needsSignIn(error) && state.oauth?.authorizationUrl !== undefined) return this.#needsAuth(state);
      const timedOut = signal.aborted;
      this.#fail(
        state,
        'failed',
        timedOut
          ? `it did not finish starting within ${timeoutMs / 1000} s (raise startupTimeoutSeconds in its definition if it is just slow)`
          : errorMessage(error),
      );
      return;
    }
    if (this.#closing.signal.aborted) {
      await client.close().catch(() => {});
      return;
    }
    state.client = client;
    try {
      await this.#load(state, client, signal);
    } catch (error) {
      await client.close().catch(() => {});
      state.client = undefined;
      this.#fail(state, 'failed', `it connected but could not list its tools: ${errorMessage(error)}`);
      return;
    }
    this.#followChanges(state, client);
    state.info.state = 'connected';
    delete state.info.error;
    this.#options.log.info(`MCP ${entry.name}: connected, ${state.tools.length} tools`);
  }

  /**
   * A server that says its tools, prompts or resources changed (`notifications/*\/list_changed`)
   * is listed again: the new tools join the next prompt. A listing that fails keeps the old one.
   */
  #followChanges(state: ServerState, client: Client): void {
    const reload = (what: string) => () => {
      if (state.client !== client) return Promise.resolve();
      return this.#load(state, client, this.#closing.signal).then(
        () =>
          this.#options.log.info(
            `MCP ${state.entry.name}: its ${what} changed; ${state.tools.length} tools now`,
          ),
        (error: unknown) =>
          this.#options.log.warn(
            `MCP ${state.entry.name}: its ${what} changed, but listing them failed: ${errorMessage(error)}`,
          ),
      );
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, reload('tools'));
    client.setNotificationHandler(PromptListChangedNotificationSchema, reload('prompts'));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, reload('resources'));
  }

  /**
   * Calls a tool on the server, starting it again first when it crashed (or its connection
   * dropped): at once after the first crash, then after a wait that doubles with each crash
   * (up to a minute) until a call works again.
   */
  async #call(
    state: ServerState,
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<McpCallResult> {
    const client = state.client ?? (await this.#restart(state));
    let result: McpCallResult;
    try {
      result = await client.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout: timeoutMs,
        resetTimeoutOnProgress: true,
      });
    } catch (error) {
      // The refresh token was refused too (revoked, expired): the connection stays, waiting for
      // a new sign-in, which the next call then uses.
      if (!needsSignIn(error) || state.oauth?.authorizationUrl === undefined) throw error;
      this.#needsAuth(state, 'its sign-in expired or was revoked');
      throw new Error(state.info.error, { cause: error });
    }
    state.crashes = 0;
    if (state.info.state === 'needs_auth') this.#signedIn(state);
    return result;
  }

  /**
   * The OAuth provider of a remote server, made once. None for a local server, nor for one whose
   * definition sends its own `Authorization` header (the person handles its auth).
   */
  async #oauth(state: ServerState, definition: McpServerDefinition): Promise<McpOAuth | undefined> {
    if ('command' in definition) return undefined;
    if (Object.keys(definition.headers ?? {}).some((name) => name.toLowerCase() === 'authorization'))
      return undefined;
    state.oauth ??= await McpOAuth.create({
      server: state.entry.name,
      serverUrl: definition.url,
      settings: definition.oauth,
      env: this.#options.env,
      log: this.#options.log,
      redactor: this.#options.redactor,
      onAuthorizationUrl: (url) => {
        state.info.authUrl = url;
      },
      onSignedIn: () => this.#signedIn(state),
      onRefused: (why) => {
        state.info.error = `the sign-in was refused (${why}); ${signInHint(state.entry.name)}`;
        this.#untold.push(`MCP server "${state.entry.name}": ${state.info.error}`);
      },
    });
    return state.oauth;
  }

  /** A person must sign in: shown in `mcp/list` (with the URL) and told once with the next prompt. */
  #needsAuth(state: ServerState, why = 'it needs you to sign in'): void {
    const first = state.info.state !== 'needs_auth';
    state.info.state = 'needs_auth';
    state.info.error = `${why}: ${signInHint(state.entry.name)}`;
    if (!first) return;
    this.#options.log.warn(`MCP server "${state.entry.name}" ${why}`);
    this.#untoldSignIns.add(state);
    state.oauth?.watchForSignIn(() => void this.#retrySignIn(state));
  }

  /** The sign-in finished: a live connection goes on as it is; otherwise the server is connected now. */
  #signedIn(state: ServerState): void {
    state.oauth?.stopWatching();
    delete state.info.authUrl;
    if (state.client !== undefined) {
      state.info.state = 'connected';
      delete state.info.error;
      return;
    }
    if (state.restarting !== undefined || this.#closing.signal.aborted) return;
    void this.#reconnect(state);
  }

  /** Connects `state` again, as a restart, so that a call meanwhile waits for it (#restart). */
  #reconnect(state: ServerState): Promise<void> {
    state.info.state = 'connecting';
    delete state.info.error;
    state.restarting = this.#connect(state).finally(() => {
      state.restarting = undefined;
    });
    return state.restarting;
  }

  /** A server waiting for a sign-in that another Santra (`santra mcp login`) completed is connected. */
  async #retrySignIn(state: ServerState): Promise<void> {
    if (state.info.state !== 'needs_auth' || state.oauth === undefined) return;
    if (!(await state.oauth.signedInElsewhere()) || state.info.state !== 'needs_auth') return;
    this.#signedIn(state);
  }

  async #restart(state: ServerState): Promise<Client> {
    if (
      state.info.state === 'needs_auth' &&
      state.restarting === undefined &&
      (await state.oauth?.signedInElsewhere()) === true
    )
      this.#signedIn(state);
    if (state.restarting === undefined && state.info.state !== 'failed')
      throw new Error(`the server is not running (${state.info.error ?? state.info.state}); see /mcp`);
    const wait = state.retryAt - Date.now();
    if (wait > 0 && state.restarting === undefined)
      throw new Error(
        `the server stopped (${state.info.error ?? 'it exited'}); it is started again by a call after ${Math.ceil(wait / 1000)} s`,
      );
    state.restarting ??= (async () => {
      this.#options.log.info(`MCP ${state.entry.name}: starting it again (crash ${state.crashes})`);
      state.info.state = 'connecting';
      await this.#connect(state);
    })().finally(() => {
      state.restarting = undefined;
    });
    await state.restarting;
    if (state.client === undefined) {
      state.crashes++;
      state.retryAt = Date.now() + backoffMs(state.crashes);
      throw new Error(`it could not be started again: ${state.info.error ?? 'unknown error'}`);
    }
    return state.client;
  }

  /** Lists the server's tools (and counts its prompts and resources) and builds the tools. */
  async #load(state: ServerState, client: Client, signal: AbortSignal): Promise<void> {
    const { entry } = state;
    const catalog = await readCatalog(entry.name, client, signal);
    if (catalog.prompts !== undefined) {
      state.prompts = catalog.prompts;
      state.info.prompts = catalog.prompts.map((prompt) => `/${mcpToolName(entry.name, prompt.name)}`);
    }
    if (catalog.resources !== undefined) {
      state.resources = true;
      state.info.resources = catalog.resources;
    }
    const toolTimeoutMs = (entry.definition.toolTimeoutSeconds ?? DEFAULT_TOOL_SECONDS) * 1000;
    // Built aside, then swapped in: a prompt starting meanwhile sees the old list or the new one.
    const { tools, infos, skipped } = offeredTools(
      {
        server: entry.name,
        trusted: entry.scope === 'user',
        policy: (tool) => entry.definition.tools?.[tool] ?? entry.definition.policy ?? 'ask',
        call: (tool, args, callSignal) => this.#call(state, tool, args, callSignal, toolTimeoutMs),
      },
      catalog.tools,
    );
    state.tools = tools;
    state.info.tools = infos;
    if (skipped.length > 0)
      this.#options.log.warn(
        `MCP ${entry.name}: tools not offered, their names do not fit a model's tool names (letters, digits, _ and -, 64 at most with the mcp__${entry.name}__ prefix): ${skipped.join(', ')}`,
      );
  }

  /**
   * `mcp/logout`: forgets the OAuth sign-in of the remote server `name` (its tokens and registered
   * client, here and on disk) and closes its connection; it needs a sign-in again. Rejects, saying
   * why, for a server that is not there or keeps no sign-in (a local one, or one that sends its own
   * Authorization header).
   */
  async logout(
    name: string,
  ): Promise<{ server: McpServerInfo; signedOut: boolean; revocation?: Revocation }> {
    const state = this.#servers.get(name);
    if (state === undefined)
      throw new Error(
        `there is no MCP server "${name}"; the servers are ${[...this.#servers.keys()].join(', ') || 'none'} (mcp/list)`,
      );
    const expanded = expandDefinition(state.entry.definition, this.#options.env).definition;
    if ('command' in expanded)
      throw new Error(`"${name}" is a local server (stdio): it has no sign-in to forget`);
    const oauth = state.oauth ?? (await this.#oauth(state, expanded));
    if (oauth === undefined)
      throw new Error(
        `"${name}" sends its own Authorization header (its definition's headers): Santra keeps no sign-in for it`,
      );
    const { signedOut, revocation } = await oauth.signOut();
    const client = state.client;
    state.client = undefined;
    await client?.close().catch(() => {});
    // Connected again at once, without a sign-in: the server asks for one, and `mcp/list` shows
    // its URL (what `santra mcp login` prints).
    oauth.stopWatching();
    delete state.info.authUrl;
    await this.#reconnect(state);
    return { server: state.info, signedOut, ...(revocation === undefined ? {} : { revocation }) };
  }

  /** The connection ended without Santra closing it: the server crashed or the stream dropped. */
  #lost(state: ServerState): void {
    if (this.#closing.signal.aborted) return;
    state.client = undefined;
    // Its tools stay offered: the next call starts it again (#restart).
    state.crashes++;
    state.retryAt = Date.now() + backoffMs(state.crashes);
    this.#fail(
      state,
      'failed',
      'the server exited or its connection dropped; the next call of one of its tools starts it again',
    );
  }

  #fail(state: ServerState, as: 'failed' | 'untrusted', why: string): void {
    state.info.state = as;
    state.info.error = why;
    const message = `MCP server "${state.entry.name}" ${as === 'failed' ? 'failed' : 'is not running'}: ${why}`;
    this.#options.log.warn(message);
    this.#untold.push(message);
  }
}

/** What a person does to sign in to a server: the same words wherever it is shown. */
function signInHint(server: string): string {
  return `run \`santra mcp login ${server}\` (or open the sign-in URL /mcp shows)`;
}

/** The wait before starting a crashed server again: none after the first crash, then 1 s, 2 s, 4 s… up to a minute. */
export function backoffMs(crashes: number): number {
  return crashes <= 1 ? 0 : Math.min(1000 * 2 ** (crashes - 2), MAX_BACKOFF_MS);
}
