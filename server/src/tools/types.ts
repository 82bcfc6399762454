/**
 * The tool contract. Each tool lives in its own file and exports a factory returning a Tool: its
 * name, kind, description and zod parameters are what the model sees (the parameters as JSON
 * Schema); `execute` returns what the model reads and a short summary the user sees.
 */
import type { ApproveParams, ApproveResult, TerminalRunResult } from '#protocol';
import type * as z from 'zod';
import type { FileTracker } from '../workspace/file-tracker.ts';
import type { Workspace } from '../workspace/workspace.ts';
import type { ApprovalGate, GateDecision, SessionApprovals } from '../approval/gate.ts';
import type { CommandSandbox } from '../sandbox/sandbox.ts';
import type { PermissionMode } from '../approval/permission-mode.ts';
import type { SkillLibrary } from './load-skill.ts';

/**
 * What a tool does, and so how it is treated: `read` and `search` only look at the workspace and
 * never ask (the default policy allows them); `edit` and `execute` go through the approval gate;
 * `read`, `search` and `fetch` calls of one response may run in parallel, everything else runs in
 * order; a `think` call is shown as the model's thinking, not as a tool call. (tool-policy.ts
 * derives the policy defaults from this, the loop the parallelism and what is shown, custom-agents.ts
 * an agent's default tools, scripts/tool-docs.ts the approval column of docs/tools.md.)
 */
/** What a tool does: the protocol's ToolKind, which clients draw by (protocol-spec/src/prompt.ts). */
import type { ToolKind } from '#protocol';
export type { ToolKind };

/** Kinds that only read the workspace: never asked about. */
export const READ_ONLY_KINDS: ReadonlySet<ToolKind> = new Set(['read', 'search']);
/** Kinds that may put a request to the user through the approval gate. */
export const GATED_KINDS: ReadonlySet<ToolKind> = new Set(['edit', 'delete', 'move', 'execute']);
/** Kinds whose calls in one response may run at once: they change nothing. */
export const PARALLEL_KINDS: ReadonlySet<ToolKind> = new Set(['read', 'search', 'fetch']);
/** Kinds whose calls are not shown as tool calls: what they show (thinking) is the call. */
export const UNLISTED_KINDS: ReadonlySet<ToolKind> = new Set(['think']);

export interface Question {
  prompt: string;
  header?: string;
  options?: Array<{ label: string; value: string }>;
  secret?: boolean;
  /** The plan an agent in plan mode presents for approval (exit_plan_mode; the protocol's AskParams.plan). */
  plan?: string;
}

/** A sub-agent request: which agent, the task, and the context it needs. */
export interface SpawnRequest {
  agentId: string;
  task: string;
  context?: string;
}

export interface SpawnResult {
  /** The spawned agent's instance id, e.g. "reader-2". */
  agentId: string;
  role: string;
  status: 'completed' | 'cancelled' | 'error' | 'interrupted';
  output: string;
}

/** What the agent-control tools can do; present only for agents that run inside the swarm. */
export interface AgentControl {
  /** Runs the sub-agents (in parallel, bounded) and resolves with their results in order. Never rejects. */
  spawn(requests: SpawnRequest[]): Promise<SpawnResult[]>;
  /** Sets this agent's output (what its parent or the user gets when it finishes). */
  setOutput(output: string): void;
  /** Replaces this agent's conversation from the next model turn on. */
  setMessages(messages: Array<{ role: 'user' | 'assistant'; content: string }>): void;
  /** The agents this agent runs in the background (agent/background.ts); absent: it may not. */
  background?: BackgroundControl;
}

/**
 * Background agents, as the agent that started them sees them: each answer is the tool's result.
 * Only the agents it started are found by id.
 */
export interface BackgroundControl {
  /** Starts the agent and resolves at once with its id (or why it did not start). */
  start(request: SpawnRequest): Promise<ToolResult>;
  /** One agent's state, or (no id) every one it started. */
  status(id: string | undefined): ToolResult;
  /** Guidance the agent reads as a user message before its next model call. */
  steer(id: string, text: string): ToolResult;
  /** Its result, or after waiting up to `waitMs`, that it still runs and its partial output. */
  collect(id: string, waitMs: number, signal: AbortSignal): Promise<ToolResult>;
  /** Continues a finished agent with new instructions, in the background. */
  resume(id: string, task: string): ToolResult;
  cancel(id: string): Promise<ToolResult>;
}

export interface ToolContext {
  workspace: Workspace;
  files: FileTracker;
  gate: ApprovalGate;
  runId: string;
  agentId: string;
  toolCallId: string;
  /** Aborted when the run is cancelled. */
  signal: AbortSignal;
  /** Shows reasoning as a `thinking` phase (used by `think`). */
  showThinking(text: string): void;
  /** Shows a status line (used by the todo tool). */
  showStatus(text: string): void;
  /** Asks the user through the client. Rejects with a message for the model when no client can answer. */
  ask(question: Question): Promise<string>;
  /** The environment commands run with: provider keys and KEY/TOKEN/SECRET variables removed. */
  commandEnv: NodeJS.ProcessEnv;
  settings: ToolSettings;
  agents?: AgentControl;
  /** Reports a file change once it is on disk, for the session's record (what session/undo restores). */
  fileChanged(change: AppliedChange): void;
  /** What the client's editor lends (§7.5); absent, or without a member, where it lends nothing. */
  editor?: EditorAccess;
  /** The OS sandbox commands run in (sandbox/sandbox.ts); absent: commands run unsandboxed. */
  sandbox?: CommandSandbox;
  /**
   * The session's permission mode (approval/permission-mode.ts): plan mode runs commands in the
   * read-only sandbox; exit_plan_mode sets the mode the user approved. Absent: `default`, fixed.
   */
  permissionMode?: { get(): PermissionMode; set(mode: PermissionMode): void };
  /** The skills load_skill reads (skills/library.ts); absent: there are none. */
  skills?: SkillLibrary;
}

/**
 * The client's editor, for files it holds and commands the user should watch. The tools keep
 * every decision (confinement, approval, the undo record); these only read, save and run.
 */
export interface EditorAccess {
  /**
   * The text of an existing workspace file (absolute, links resolved) as the editor holds it,
   * unsaved changes included. Undefined: the editor has no buffer of it, or could not answer —
   * read the disk. Never rejects.
   */
  readText?: (absolute: string) => Promise<string | undefined>;
  /**
   * Puts an approved text into the editor's buffer of an existing file and has it saved. The
   * caller checks the disk afterwards and writes it itself where the editor did not (or failed).
   * Never rejects.
   */
  writeText?: (absolute: string, text: string) => Promise<void>;
  /**
   * Runs an approved command in the editor's terminal (`/bin/sh -c`). Rejects when the editor
   * failed or answered nonsense: the command may or may not have run.
   */
  runCommand?: (command: EditorCommand) => Promise<TerminalRunResult>;
}

export interface EditorCommand {
  command: string;
  /** When `command` is the sandbox's launcher around it: the command line the user approved. */
  approvedCommand?: string;
  cwd: string;
  /** The environment the command gets: what differs from the server's own is sent as set/unset. */
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  outputByteLimit: number;
}

/** A file change a tool applied: the file's bytes on each side. */
export interface AppliedChange {
  /** As shown: relative to the workspace root, or absolute in an allowed directory. */
  path: string;
  operation: 'create' | 'modify' | 'delete' | 'move';
  /** Undefined: there was no file (for a move: it was too large to read, on both sides). */
  before: Uint8Array | undefined;
  after: Uint8Array | undefined;
  /** For a move: where the file went (shown the same way). */
  destination?: string;
}

/** Who a tool call runs for: everything its context is built from besides the server's own state. */
export interface ToolCallScope {
  /** The session the run belongs to; approvals and questions carry it to the client. */
  sessionId: string;
  runId: string;
  agentId: string;
  call: { id: string; name: string };
  /** Aborted when the run is cancelled. */
  signal: AbortSignal;
  /** What the user allowed for the session (allow-all). */
  approvals: SessionApprovals;
  /** Shows the call's thinking and status lines. */
  emit: (event: { type: 'thinking' | 'status'; text: string }) => void;
  /** The swarm's control of agents, for the agent tools; absent outside a swarm. */
  agents?: AgentControl;
  /** Where the call's approvals, questions and file changes are saved (the session); absent: nowhere. */
  recorder?: ToolCallRecorder;
  /**
   * A PreToolUse hook's `permissionDecision` for this call: `allow` lets the gate allow what it
   * would ask, `ask` makes it ask whatever would allow it unasked. Protected locations, plan mode
   * and the configuration's deny rules hold either way.
   */
  hookDecision?: 'allow' | 'ask';
}

/** What a tool call leaves in the session's record. */
export interface ToolCallRecorder {
  /** An approval asked for, with its answer (undefined: it failed, so nothing was allowed). */
  approval(request: ApproveParams, answer: ApproveResult | undefined): void;
  /** A question put to the user, with the answer (undefined: none came). Never save a secret answer. */
  question(question: Question, agentId: string, answer: string | undefined): void;
  /** A file change the call applied (called only once it is on disk). */
  fileChange(
    change: AppliedChange,
    call: { agentId: string; toolCallId: string; workspaceRoot: string },
  ): void;
}

/** Builds a tool call's context. One constructor (runtime/tool-context.ts); the loop calls it. */
export type ToolContextSource = (scope: ToolCallScope) => ToolContext;

export interface ToolSettings {
  /** Default and maximum `run_command` timeout. */
  commandTimeoutMs: number;
  maxCommandTimeoutMs: number;
  /** Bytes of command output kept (the rest is cut, and the cut is stated). */
  commandOutputLimit: number;
  webSearch?: { provider: 'searxng'; url: string } | { provider: 'brave' | 'tavily'; apiKey: string };
  /** Prefer ripgrep when it is on PATH. */
  useRipgrep: boolean;
  /** web_fetch may reach loopback and private-network addresses (tools.webFetch.allowPrivateNetwork). */
  allowPrivateNetwork?: boolean;
}

export interface ToolResult {
  /** What the model reads. */
  output: string;
  /** One short line for the user, e.g. "120 lines" or "exit 1". */
  summary: string;
  isError?: boolean;
  /** A machine-readable error kind the model can act on, e.g. "not_found", "modified_since_read". */
  errorType?: string;
  /** The user rejected the action (the tool_result phase shows `rejected`). */
  rejected?: boolean;
  /** Ends the agent's run with this output (task_completed). */
  final?: string;
}

export interface Tool<S extends z.ZodObject = z.ZodObject> {
  name: string;
  kind: ToolKind;
  description: string;
  parameters: S;
  /**
   * The tool only reads, as a trusted source says (an MCP server's annotations from the user's
   * config): plan mode lets it run whatever its kind (permission-mode.ts).
   */
  readOnlyHint?: boolean;
  /**
   * The JSON Schema the model sees, when the tool's own is not a zod schema (an MCP server's tool:
   * `parameters` then accepts any object and the server validates). Absent: from `parameters`.
   */
  inputSchema?: Record<string, unknown>;
  /**
   * True while the tool's schema is not sent to the model (an MCP tool behind search_mcp_tools,
   * mcp/tool-search.ts): it is still called by name. Asked before every model call.
   */
  deferred?: () => boolean;
  /** Contract: resolves with a result, errors included (`isError`); a rejection is reported to the model as an internal tool error. */
  execute(args: z.output<S>, context: ToolContext): Promise<ToolResult>;
}

/** Erases the parameter type so tools of different shapes share one list. */
export function defineTool<S extends z.ZodObject>(tool: Tool<S>): Tool {
  return tool;
}

/** A failed tool call, as the model should read it. */
export function toolError(
  errorType: string,
  output: string,
  summary = errorType.replaceAll('_', ' '),
): ToolResult {
  return { output, summary, isError: true, errorType };
}

/** What the model reads when the approval gate did not allow an action. */
export function refused(decision: Extract<GateDecision, { allowed: false }>): ToolResult {
  return {
    ...toolError(decision.reason, decision.message, decision.reason),
    rejected: decision.reason === 'rejected' || decision.reason === 'feedback',
  };
}
