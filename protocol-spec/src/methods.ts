import type * as z from 'zod';
import { AgentsListParams, AgentsListResult } from './agents.ts';
import { ApproveParams, ApproveResult } from './approval.ts';
import { AskParams, AskResult } from './ask.ts';
import {
  FsReadTextFileParams,
  FsReadTextFileResult,
  FsWriteTextFileParams,
  FsWriteTextFileResult,
  TerminalRunParams,
  TerminalRunResult,
} from './editor.ts';
import {
  CancelParams,
  ExitParams,
  InitializedParams,
  InitializeParams,
  InitializeResult,
  ShutdownParams,
  ShutdownResult,
} from './lifecycle.ts';
import {
  ConfigSetupParams,
  ConfigSetupResult,
  ModelListParams,
  ModelListResult,
  ModelSetParams,
  ModelSetResult,
} from './models.ts';
import { McpListParams, McpListResult, McpLogoutParams, McpLogoutResult } from './mcp.ts';
import { HooksListParams, HooksListResult } from './hooks.ts';
import { SkillsListParams, SkillsListResult } from './skills.ts';
import { MemoryAddParams, MemoryAddResult, MemoryShowParams, MemoryShowResult } from './memory.ts';
import { Phase, PromptParams, PromptResult } from './prompt.ts';
import {
  SessionCompactParams,
  SessionCompactResult,
  SessionDeleteParams,
  SessionDeleteResult,
  SessionExportParams,
  SessionExportResult,
  SessionImportParams,
  SessionSubscribeParams,
  SessionSubscribeResult,
  SessionUnsubscribeParams,
  SessionUnsubscribeResult,
  SessionImportResult,
  SessionListParams,
  SessionNewParams,
  SessionNewResult,
  SessionListResult,
  SessionRenameParams,
  SessionRenameResult,
  SessionResumeParams,
  SessionResumeResult,
  SessionUndoParams,
  SessionUndoResult,
  SessionPromptsParams,
  SessionPromptsResult,
  SessionRewindParams,
  SessionRewindResult,
  SessionEventParams,
  SessionEventResult,
  SessionCancelParams,
  SessionCancelResult,
  SessionCloseParams,
  SessionCloseResult,
  SessionSetModeParams,
  SessionSetModeResult,
} from './sessions.ts';

export type Direction = 'client_to_server' | 'server_to_client' | 'both';
export type MessageKind = 'request' | 'notification';
export type Stability = 'stable' | 'experimental';

/** One row of the method table: everything a peer needs to send or handle the method. */
export interface MethodSpec {
  direction: Direction;
  kind: MessageKind;
  params: z.ZodType;
  /** Requests only. */
  result?: z.ZodType;
  /** Protocol version that introduced the method. */
  since: string;
  stability: Stability;
  summary: string;
  /**
   * A core method: one every server handles or sends, and lists in `capabilities.methods`
   * (SANTRA-LIFE-005).
   */
  core?: true;
}

/**
 * The method table: the single list of every method of the protocol. The server registers one
 * handler per client-to-server entry; the JSON Schema, `schema/methods.json` and the reference in
 * docs are generated from it.
 */
export const methods = {
  initialize: {
    direction: 'client_to_server',
    kind: 'request',
    params: InitializeParams,
    result: InitializeResult,
    since: '0.1.0',
    stability: 'stable',
    summary: 'Opens the connection: negotiates the protocol version and exchanges capabilities.',
    core: true,
  },
  initialized: {
    direction: 'client_to_server',
    kind: 'notification',
    params: InitializedParams,
    since: '0.1.0',
    stability: 'stable',
    summary: 'The client has processed the `initialize` result.',
    core: true,
  },
  shutdown: {
    direction: 'client_to_server',
    kind: 'request',
    params: ShutdownParams,
    result: ShutdownResult,
    since: '0.1.0',
    stability: 'stable',
    summary: 'Cancels running work, saves state, and answers null; only `exit` may follow.',
    core: true,
  },
  exit: {
    direction: 'client_to_server',
    kind: 'notification',
    params: ExitParams,
    since: '0.1.0',
    stability: 'stable',
    summary: 'Ends the server process: code 0 after `shutdown`, 1 without it.',
    core: true,
  },
  '$/cancelRequest': {
    direction: 'both',
    kind: 'notification',
    params: CancelParams,
    since: '0.1.0',
    stability: 'stable',
    summary: 'Cancels an in-flight request; it still gets a response (a result or RequestCancelled).',
    core: true,
  },
  prompt: {
    direction: 'client_to_server',
    kind: 'request',
    params: PromptParams,
    result: PromptResult,
    since: '0.1.0',
    stability: 'stable',
    summary: 'Starts a run; answers when the run ends, after all of its `phase` notifications.',
    core: true,
  },
  phase: {
    direction: 'server_to_client',
    kind: 'notification',
    params: Phase,
    since: '0.1.0',
    stability: 'stable',
    summary: 'Streams what happens during a run: status, text and thinking deltas, tools, sections, errors.',
    core: true,
  },
  approve: {
    direction: 'server_to_client',
    kind: 'request',
    params: ApproveParams,
    result: ApproveResult,
    since: '0.1.0',
    stability: 'stable',
    summary: 'Asks the user to allow a file change (with its diff) or a command.',
    core: true,
  },
  'model/list': {
    direction: 'client_to_server',
    kind: 'request',
    params: ModelListParams,
    result: ModelListResult,
    since: '0.1.0',
    stability: 'experimental',
    summary: 'Lists the models the server knows, with the current one.',
  },
  'model/set': {
    direction: 'client_to_server',
    kind: 'request',
    params: ModelSetParams,
    result: ModelSetResult,
    since: '0.1.0',
    stability: 'experimental',
    summary: 'Switches the model of a session (from its next prompt) or the connection default.',
  },
  'config/setup': {
    direction: 'client_to_server',
    kind: 'request',
    params: ConfigSetupParams,
    result: ConfigSetupResult,
    since: '0.2.0',
    stability: 'experimental',
    summary:
      "Saves a provider's key and the default model to the user's config file (first-run setup) and uses them from the next prompt.",
  },
  'mcp/list': {
    direction: 'client_to_server',
    kind: 'request',
    params: McpListParams,
    result: McpListResult,
    since: '0.3.0',
    stability: 'experimental',
    summary: 'Lists the MCP servers with their state, tools and errors (§7.7).',
  },
  'mcp/logout': {
    direction: 'client_to_server',
    kind: 'request',
    params: McpLogoutParams,
    result: McpLogoutResult,
    since: '0.3.0',
    stability: 'experimental',
    summary: "Forgets a remote MCP server's OAuth sign-in and disconnects it, until a person signs in again.",
  },
  'hooks/list': {
    direction: 'client_to_server',
    kind: 'request',
    params: HooksListParams,
    result: HooksListResult,
    since: '0.3.0',
    stability: 'experimental',
    summary:
      "Lists the hooks: the user config's and the project's `.santra/settings.json`, with where each comes from and whether it is trusted (§7.8.2).",
  },
  'skills/list': {
    direction: 'client_to_server',
    kind: 'request',
    params: SkillsListParams,
    result: SkillsListResult,
    since: '0.3.0',
    stability: 'experimental',
    summary:
      "Lists the skills (Agent Skills folders with a SKILL.md) of the user and the project, the files skipped and why, and how many fit in the model's listing (§7.9).",
  },
  'memory/show': {
    direction: 'client_to_server',
    kind: 'request',
    params: MemoryShowParams,
    result: MemoryShowResult,
    since: '0.3.0',
    stability: 'experimental',
    summary: 'Shows the project and user memory files: where they are and what they hold (§7.10).',
  },
  'memory/add': {
    direction: 'client_to_server',
    kind: 'request',
    params: MemoryAddParams,
    result: MemoryAddResult,
    since: '0.3.0',
    stability: 'experimental',
    summary: 'Adds an entry to a memory file, secrets redacted, the file kept under its size cap (§7.10).',
  },
  'agents/list': {
    direction: 'client_to_server',
    kind: 'request',
    params: AgentsListParams,
    result: AgentsListResult,
    since: '0.1.0',
    stability: 'experimental',
    summary:
      'Lists the built-in and custom agents with their tools, and the custom agent files that were skipped.',
  },
  'session/new': {
    direction: 'client_to_server',
    kind: 'request',
    params: SessionNewParams,
    result: SessionNewResult,
    since: '0.2.0',
    stability: 'experimental',
    summary: 'Starts an empty session and saves it, before its first prompt.',
  },
  'session/list': {
    direction: 'client_to_server',
    kind: 'request',
    params: SessionListParams,
    result: SessionListResult,
    since: '0.2.0',
    stability: 'experimental',
    summary: 'Lists the saved sessions of this workspace (or of all), newest first, a page at a time.',
  },
  'session/resume': {
    direction: 'client_to_server',
    kind: 'request',
    params: SessionResumeParams,
    result: SessionResumeResult,
    since: '0.2.0',
    stability: 'experimental',
    summary:
      'Loads a saved session so the next `prompt` continues it; can send its phases again from a `seq`.',
  },
  'session/rename': {
    direction: 'client_to_server',
    kind: 'request',
    params: SessionRenameParams,
    result: SessionRenameResult,
    since: '0.3.0',
    stability: 'experimental',
    summary:
      'Names a session (or removes its name); `session/resume` then takes the name in place of the id.',
  },
  'session/export': {
    direction: 'client_to_server',
    kind: 'request',
    params: SessionExportParams,
    result: SessionExportResult,
    since: '0.2.0',
    stability: 'experimental',
    summary: 'Returns a saved session as a Markdown transcript or as its JSON records.',
  },
  'session/import': {
    direction: 'client_to_server',
    kind: 'request',
    params: SessionImportParams,
    result: SessionImportResult,
    since: '0.3.0',
    stability: 'experimental',
    summary:
      "Imports another agent's transcript (Claude Code, Codex, pi) as a session; importing it again gives the same session.",
  },
  'session/subscribe': {
    direction: 'client_to_server',
    kind: 'request',
    params: SessionSubscribeParams,
    result: SessionSubscribeResult,
    since: '0.3.0',
    stability: 'experimental',
    summary:
      'Watches a session running in another server sharing the store — what was missed since `afterSeq`, then live — and answers its approvals and questions; answered when unsubscribed.',
  },
  'session/unsubscribe': {
    direction: 'client_to_server',
    kind: 'request',
    params: SessionUnsubscribeParams,
    result: SessionUnsubscribeResult,
    since: '0.3.0',
    stability: 'experimental',
    summary: 'Ends a `session/subscribe` of this client.',
  },
  'session/delete': {
    direction: 'client_to_server',
    kind: 'request',
    params: SessionDeleteParams,
    result: SessionDeleteResult,
    since: '0.2.0',
    stability: 'experimental',
    summary: 'Deletes a saved session.',
  },
  'session/compact': {
    direction: 'client_to_server',
    kind: 'request',
    params: SessionCompactParams,
    result: SessionCompactResult,
    since: '0.2.0',
    stability: 'experimental',
    summary: 'Summarises the older part of a session’s conversation with the model, keeping the last turns.',
  },
  'session/undo': {
    direction: 'client_to_server',
    kind: 'request',
    params: SessionUndoParams,
    result: SessionUndoResult,
    since: '0.2.0',
    stability: 'experimental',
    summary:
      'Restores the files the last change (or the last run) of a session wrote, asking first where they changed since.',
  },
  'session/prompts': {
    direction: 'client_to_server',
    kind: 'request',
    params: SessionPromptsParams,
    result: SessionPromptsResult,
    since: '0.3.0',
    stability: 'experimental',
    summary:
      'Lists the prompts of a session’s current conversation: the points `session/rewind` can go back to.',
  },
  'session/event': {
    direction: 'client_to_server',
    kind: 'request',
    params: SessionEventParams,
    result: SessionEventResult,
    since: '0.3.0',
    stability: 'experimental',
    summary:
      'Delivers an external event to a session: shown as an `event` phase, read by the model as untrusted data at its next turn.',
  },
  'session/setMode': {
    direction: 'client_to_server',
    kind: 'request',
    params: SessionSetModeParams,
    result: SessionSetModeResult,
    since: '0.3.0',
    stability: 'experimental',
    summary:
      "Changes a session's permission mode now: a run going on gates its later tool calls in the new mode (Shift+Tab mid-run).",
  },
  'session/cancel': {
    direction: 'client_to_server',
    kind: 'request',
    params: SessionCancelParams,
    result: SessionCancelResult,
    since: '0.3.0',
    stability: 'experimental',
    summary:
      'Stops the run a session is running in this server, whoever started it: a client’s `prompt` or a turn an event started.',
  },
  'session/close': {
    direction: 'client_to_server',
    kind: 'request',
    params: SessionCloseParams,
    result: SessionCloseResult,
    since: '0.3.0',
    stability: 'experimental',
    summary:
      'Ends a session’s time in this server when its client is done with it (`/clear`, leaving): its SessionEnd hooks run now, not at shutdown.',
  },
  'session/rewind': {
    direction: 'client_to_server',
    kind: 'request',
    params: SessionRewindParams,
    result: SessionRewindResult,
    since: '0.3.0',
    stability: 'experimental',
    summary:
      'Takes a session’s conversation back to just before one of its prompts, optionally restoring the files changed since, or as a fork.',
  },
  ask: {
    direction: 'server_to_client',
    kind: 'request',
    params: AskParams,
    result: AskResult,
    since: '0.1.0',
    stability: 'stable',
    summary: 'Asks the user a question, optionally with choices.',
    core: true,
  },
  'fs/readTextFile': {
    direction: 'server_to_client',
    kind: 'request',
    params: FsReadTextFileParams,
    result: FsReadTextFileResult,
    since: '0.2.0',
    stability: 'experimental',
    summary: "Reads a file as the client's editor holds it, unsaved changes included.",
  },
  'fs/writeTextFile': {
    direction: 'server_to_client',
    kind: 'request',
    params: FsWriteTextFileParams,
    result: FsWriteTextFileResult,
    since: '0.2.0',
    stability: 'experimental',
    summary: "Puts an approved change of an existing file into the client's buffer and saves it.",
  },
  'terminal/run': {
    direction: 'server_to_client',
    kind: 'request',
    params: TerminalRunParams,
    result: TerminalRunResult,
    since: '0.2.0',
    stability: 'experimental',
    summary: "Runs an approved command in the client's terminal, where the user can watch it.",
  },
} as const satisfies Record<string, MethodSpec>;

export type MethodName = keyof typeof methods;
export type Methods = typeof methods;

/** Methods of `kind` that `from` sends: a method both sides send counts for either. */
type MethodsSent<Kind extends MessageKind, From extends 'client' | 'server'> = {
  [M in MethodName]: Methods[M]['kind'] extends Kind
    ? Methods[M]['direction'] extends (From extends 'client' ? 'server_to_client' : 'client_to_server')
      ? never
      : M
    : never;
}[MethodName];

/** Methods whose `kind` is request and that a client sends. */
export type ClientRequestName = MethodsSent<'request', 'client'>;
/** Methods whose `kind` is request and that the server sends (the client answers them). */
export type ServerRequestName = MethodsSent<'request', 'server'>;
/** Methods whose `kind` is notification and that a client sends. */
export type ClientNotificationName = MethodsSent<'notification', 'client'>;

export type ParamsOf<M extends MethodName> = z.output<Methods[M]['params']>;
export type ResultOf<M extends MethodName> = Methods[M] extends { result: z.ZodType }
  ? z.output<Methods[M]['result']>
  : never;

export function isMethodName(name: string): name is MethodName {
  return Object.hasOwn(methods, name);
}
