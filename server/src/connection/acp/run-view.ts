/**
 * Santra's phases as ACP session updates, for one ACP session (live, and when a saved session is
 * replayed by session/load). The mapping, in short:
 *
 * - the top agent's `text` and `thinking` are the agent's message and thought chunks;
 * - each `tool_call` is an ACP tool call (kind from tool-kinds.ts, title from Santra's summary,
 *   locations from its paths), its `tool_result` the update that completes or fails it, with the
 *   output as content; a command run in the editor's terminal (§7.5) keeps that terminal, whose
 *   output the editor shows;
 * - an edit shows one diff, sent once: the approval's (the exact change, with the lines around
 *   it) when Santra asks, else — an edit allowed without asking — its arguments' when it is done;
 * - a sub-agent (`section`) is a tool call of kind `think` titled like Santra's section; its text
 *   streams into that row and its `complete` ends it, and its own tool calls are rows whose titles
 *   name the agent, so the swarm reads as a tree flattened into the thread. The spawn_agent(s)
 *   call that started it is not a row of its own: one delegation, one row (a spawn that started
 *   no agent is shown when it ends, with why);
 * - `todo_write` is the ACP plan; `error` phases and warnings are told in the message;
 * - info `status` lines (routing, progress) are not shown: ACP has no status line.
 */
import type {
  PlanEntry,
  SessionUpdate,
  ToolCallContent,
  ToolCallStatus,
  ToolCallUpdate,
  ToolKind,
} from '@agentclientprotocol/sdk';
import type { ApproveParams, FileDiff, Phase } from '#protocol';
import { absolute, isToolRow, toolKind, toolLocations } from './tool-kinds.ts';
import {
  isOtherApproval,
  type OtherApproval,
  otherApprovalLines,
  otherApprovalTitle,
} from '../other-approvals.ts';

const GATED: ReadonlySet<ToolKind> = new Set(['edit', 'delete', 'move', 'execute']);

/** Santra's tool-call ids are unique within a run; ACP's must be unique within the session. */
export function acpToolCallId(runId: string, toolCallId: string): string {
  return `${runId}/${toolCallId}`;
}

function sectionId(runId: string, agentId: string): string {
  return `${runId}/agent/${agentId}`;
}

interface Row {
  toolName: string;
  agentId: string;
  /**
   * What the row shows and keeps when it completes, already sent to the editor: an edit's diffs
   * from its approval, or the editor terminal a command ran in.
   */
  kept: ToolCallContent[];
  /** An edit's diffs from its arguments, shown when it completes without an approval. */
  argumentDiffs: ToolCallContent[];
}

/** A spawn_agent(s) call, until its result: the agents it may start, by role, not started yet. */
interface Delegation {
  call: Extract<Phase, { type: 'tool_call' }>;
  roles: string[];
  started: number;
}

interface Section {
  id: string;
  text: string;
}

export interface ViewOptions {
  /** The session's directory: Santra's workspace root, against which tool paths are relative. */
  root: string;
}

export class RunView {
  readonly #root: string;
  readonly #rows = new Map<string, Row>();
  readonly #sections = new Map<string, Section>();
  readonly #delegations = new Map<string, Delegation>();
  /** The top agent's streamed answer in the current run, to tell whether its final output was shown. */
  #answer = { runId: '', text: '' };

  constructor(options: ViewOptions) {
    this.#root = options.root;
  }

  /** The updates one phase becomes (often one, sometimes none). */
  phase(phase: Phase): SessionUpdate[] {
    const sub = phase.parentAgentId !== undefined;
    switch (phase.type) {
      case 'status':
        return phase.level === 'warning' ? [message(`\n\n> ⚠ ${phase.text}\n\n`)] : [];
      case 'text':
        if (sub) return this.#subAgentText(phase.runId, phase.agentId, phase.text);
        this.#answered(phase.runId, phase.text);
        return [message(phase.text)];
      case 'thinking':
        // A sub-agent's reasoning would interleave with the top agent's in one thought block.
        return sub
          ? []
          : [{ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: phase.text } }];
      case 'tool_call':
        return this.#toolCall(phase);
      case 'tool_result':
        return this.#toolResult(phase);
      case 'section':
        return this.#section(phase);
      case 'error':
        return [message(`\n\n**Error${sub ? ` in ${phase.agentId}` : ''}:** ${phase.message}\n\n`)];
      case 'complete':
        return sub ? this.#subAgentComplete(phase) : this.#runComplete(phase);
      case 'usage':
        // What a model call cost: ACP's thread shows no running cost, and the turn's end has its own.
        return [];
      case 'event':
        // Quoted, so an event's text can never pass for the agent's own words.
        return [message(`\n\n> 📨 event from ${phase.source}: ${phase.text.replace(/\n/g, '\n> ')}\n\n`)];
      default: {
        const _exhaustive: never = phase;
        return [];
      }
    }
  }

  /**
   * What an approval shows, as the `toolCall` of a permission request: the diff of a file change
   * (kept on the row afterwards) or the exact command. Also returned as an update for the row.
   */
  approval(params: ApproveParams): ToolCallUpdate {
    if (isOtherApproval(params)) return otherApproval(params);
    const toolCallId = acpToolCallId(params.runId, params.toolCallId);
    const warning: ToolCallContent[] =
      params.protected === true
        ? [
            text(
              `⚠ Protected location${params.protectedReason === undefined ? '' : `: ${params.protectedReason}`}`,
            ),
          ]
        : [];
    // A protected request must stand out even to an editor that shows only titles, and its kind is
    // not the one an editor's rules for ordinary edits and commands match (docs/editors/acp.md).
    const guard = (title: string) => (params.protected === true ? `⚠ PROTECTED — ${title}` : title);
    if (params.kind === 'command') {
      return {
        toolCallId,
        kind: params.protected === true ? 'other' : 'execute',
        status: 'pending',
        title: guard(`Run \`${params.command}\``),
        content: [...warning, text(`${fence(`$ ${params.command}`, 'sh')}\nin ${params.cwd}`)],
      };
    }
    const diffs = fileDiffContent(params, this.#root);
    const row = this.#rows.get(toolCallId);
    if (row !== undefined) row.kept = diffs;
    return {
      toolCallId,
      kind:
        params.protected === true
          ? 'other'
          : params.operation === 'delete'
            ? 'delete'
            : params.operation === 'move'
              ? 'move'
              : 'edit',
      status: 'pending',
      title: guard(fileChangeTitle(params)),
      content: [...warning, ...diffs],
      locations: [{ path: absolute(params.path, this.#root) }],
    };
  }

  /**
   * The editor terminal a command runs in (protocol §7.5), shown on its row from now on: the
   * editor keeps showing its output there after the terminal is released. Undefined when the view
   * shows no row for the call.
   */
  terminal(runId: string, santraToolCallId: string, terminalId: string): ToolCallUpdate | undefined {
    const toolCallId = acpToolCallId(runId, santraToolCallId);
    const row = this.#rows.get(toolCallId);
    if (row === undefined) return undefined;
    row.kept = [{ type: 'terminal', terminalId }];
    return { toolCallId, status: 'in_progress', content: row.kept };
  }

  /** The row of a tool call, if the view showed one. */
  hasRow(toolCallId: string): boolean {
    return this.#rows.has(toolCallId);
  }

  #answered(runId: string, delta: string): void {
    if (this.#answer.runId !== runId) this.#answer = { runId, text: '' };
    this.#answer.text += delta;
  }

  /**
   * An agent that ends with task_completed streams no answer: its result is the run's output, which
   * the user would otherwise never see. Output already streamed is not repeated.
   */
  #runComplete(phase: Extract<Phase, { type: 'complete' }>): SessionUpdate[] {
    const shown = this.#answer.runId === phase.runId ? this.#answer.text : '';
    const output = phase.output.trim();
    if (output === '' || shown.includes(output)) return [];
    return [message(shown === '' ? phase.output : `\n\n${phase.output}`)];
  }

  #toolCall(phase: Extract<Phase, { type: 'tool_call' }>): SessionUpdate[] {
    if (phase.toolName === 'todo_write') return plan(phase.args);
    if (!isToolRow(phase.toolName)) return [];
    const toolCallId = acpToolCallId(phase.runId, phase.toolCallId);
    const roles = delegatedRoles(phase.toolName, phase.args);
    if (roles !== undefined) {
      this.#delegations.set(toolCallId, { call: phase, roles, started: 0 });
      return [];
    }
    this.#rows.set(toolCallId, {
      toolName: phase.toolName,
      agentId: phase.agentId,
      kept: [],
      argumentDiffs: argumentDiffs(phase.toolName, phase.args, this.#root),
    });
    return [
      {
        sessionUpdate: 'tool_call',
        toolCallId,
        title: rowTitle(phase),
        kind: toolKind(phase.kind),
        // An edit or a command may wait for the user's approval before it starts.
        status: GATED.has(toolKind(phase.kind)) ? 'pending' : 'in_progress',
        rawInput: phase.args,
        content: [],
        locations: toolLocations(phase.toolName, phase.args, this.#root),
      },
    ];
  }

  #toolResult(phase: Extract<Phase, { type: 'tool_result' }>): SessionUpdate[] {
    const toolCallId = acpToolCallId(phase.runId, phase.toolCallId);
    const delegation = this.#delegations.get(toolCallId);
    if (delegation !== undefined) return this.#delegationResult(delegation, phase);
    const row = this.#rows.get(toolCallId);
    if (row === undefined) return [];
    const status: ToolCallStatus = phase.status === 'ok' ? 'completed' : 'failed';
    const rawOutput = { status: phase.status, summary: phase.summary };
    if (phase.status === 'ok' && row.kept.length > 0) {
      // Its diff or terminal is on the row already: sent once, kept by leaving content out.
      return [{ sessionUpdate: 'tool_call_update', toolCallId, status, rawOutput }];
    }
    if (phase.status === 'ok' && row.argumentDiffs.length > 0) row.kept = row.argumentDiffs;
    const said =
      phase.status === 'ok' && row.kept.length > 0
        ? []
        : phase.status === 'ok' && phase.output !== undefined && phase.output !== ''
          ? [text(fence(phase.output))]
          : [text(`${phase.status === 'ok' ? '' : `${phase.status}: `}${phase.summary}`)];
    return [
      {
        sessionUpdate: 'tool_call_update',
        toolCallId,
        status,
        content: [...row.kept, ...said],
        rawOutput,
      },
    ];
  }

  /**
   * The end of a spawn_agent(s) call: its agents' rows said it all, unless it started none (an
   * unknown agent, too deep, cancelled first): then it is a row, ended, saying why.
   */
  #delegationResult(delegation: Delegation, phase: Extract<Phase, { type: 'tool_result' }>): SessionUpdate[] {
    const { call } = delegation;
    this.#delegations.delete(acpToolCallId(phase.runId, phase.toolCallId));
    if (delegation.started > 0) return [];
    return [
      {
        sessionUpdate: 'tool_call',
        toolCallId: acpToolCallId(call.runId, call.toolCallId),
        title: rowTitle(call),
        kind: toolKind(call.kind),
        status: phase.status === 'ok' ? 'completed' : 'failed',
        rawInput: call.args,
        content: [text(phase.output !== undefined && phase.output !== '' ? phase.output : phase.summary)],
        rawOutput: { status: phase.status, summary: phase.summary },
      },
    ];
  }

  #section(phase: Extract<Phase, { type: 'section' }>): SessionUpdate[] {
    const id = sectionId(phase.runId, phase.agentId);
    this.#sections.set(id, { id, text: '' });
    this.#started(phase);
    return [
      {
        sessionUpdate: 'tool_call',
        toolCallId: id,
        title: phase.title,
        kind: 'think',
        status: 'in_progress',
      },
    ];
  }

  /** Counts the sub-agent against the spawn call of its parent that asked for its role. */
  #started(phase: Extract<Phase, { type: 'section' }>): void {
    for (const delegation of this.#delegations.values()) {
      const { call, roles } = delegation;
      if (call.runId !== phase.runId || call.agentId !== phase.parentAgentId) continue;
      const index = roles.indexOf(phase.agentRole ?? '');
      if (index === -1) continue;
      roles.splice(index, 1);
      delegation.started++;
      return;
    }
  }

  #subAgentText(runId: string, agentId: string, delta: string): SessionUpdate[] {
    const section = this.#sections.get(sectionId(runId, agentId));
    if (section === undefined) return [];
    section.text += delta;
    return [{ sessionUpdate: 'tool_call_update', toolCallId: section.id, content: [text(section.text)] }];
  }

  #subAgentComplete(phase: Extract<Phase, { type: 'complete' }>): SessionUpdate[] {
    const section = this.#sections.get(sectionId(phase.runId, phase.agentId));
    if (section === undefined) return [];
    const said = phase.output !== '' ? phase.output : section.text;
    return [
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: section.id,
        status: phase.status === 'completed' ? 'completed' : 'failed',
        content: [
          text(phase.status === 'completed' ? said : `${phase.status}${said === '' ? '' : `: ${said}`}`),
        ],
      },
    ];
  }
}

/** A call's title: Santra's summary on one line, after the agent's id when a sub-agent made it. */
function rowTitle(phase: Extract<Phase, { type: 'tool_call' }>): string {
  const title = (phase.summary ?? phase.toolName).replace(/\s+/g, ' ').trim();
  return phase.parentAgentId === undefined ? title : `${phase.agentId}: ${title}`;
}

/** The roles a spawn call asks for (its sub-agents' rows stand for it); undefined for other calls. */
function delegatedRoles(toolName: string, args: Record<string, unknown>): string[] | undefined {
  const role = (request: unknown) => {
    const agentId = (request ?? {}) as { agentId?: unknown };
    return typeof agentId.agentId === 'string' ? [agentId.agentId] : [];
  };
  if (toolName === 'spawn_agent') return role(args);
  if (toolName === 'spawn_agents') return Array.isArray(args.agents) ? args.agents.flatMap(role) : [];
  return undefined;
}

function message(value: string): SessionUpdate {
  return { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: value } };
}

function text(value: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text: value } };
}

/** Text in a Markdown fence longer than any backtick run inside it, so it shows as it is. */
function fence(value: string, language = ''): string {
  const longest = Math.max(2, ...(value.match(/`+/g) ?? []).map((run) => run.length));
  const marks = '`'.repeat(longest + 1);
  return `${marks}${language}\n${value}\n${marks}`;
}

/** The diffs an edit's arguments already show exactly (a replacement is its own hunk). */
function argumentDiffs(toolName: string, args: Record<string, unknown>, root: string): ToolCallContent[] {
  if (typeof args.path !== 'string') return [];
  const path = absolute(args.path, root);
  const pair = (edit: unknown): ToolCallContent[] => {
    const { oldStr, newStr } = (edit ?? {}) as Record<string, unknown>;
    return typeof oldStr === 'string' && typeof newStr === 'string'
      ? [{ type: 'diff', path, oldText: oldStr, newText: newStr }]
      : [];
  };
  if (toolName === 'str_replace') return pair(args);
  if (toolName === 'multi_edit' && Array.isArray(args.edits)) return args.edits.flatMap(pair);
  return [];
}

/**
 * An approval's diff as ACP diffs, one per hunk: each side of a hunk (its context lines with the
 * removed, or the added ones) is the old and new text, which is what a client diffs and shows.
 * A created file has no old text; a move changes no content and is said in words.
 */
function fileDiffContent(
  params: Extract<ApproveParams, { kind: 'file_change' }>,
  root: string,
): ToolCallContent[] {
  const path = absolute(params.path, root);
  if (params.operation === 'move') {
    return [text(`Move ${params.path} → ${params.destination ?? '?'}`)];
  }
  return hunkSides(params.diff).map(({ oldText, newText }) => ({
    type: 'diff',
    path,
    ...(params.operation === 'create' ? {} : { oldText }),
    newText,
  }));
}

/**
 * Each hunk's two sides as text. Lines end with a newline, as in the file, except where the
 * unified diff says the file does not end with one (the last line of the last hunk).
 */
function hunkSides(diff: FileDiff): { oldText: string; newText: string }[] {
  const unterminated = diff.unifiedDiff.includes('\\ No newline at end of file');
  return diff.hunks.map((hunk, index) => {
    const ending = unterminated && index === diff.hunks.length - 1 ? '' : '\n';
    const side = (skip: 'added' | 'removed') => {
      const lines = hunk.lines.filter((line) => line.type !== skip).map((line) => line.text);
      return lines.length === 0 ? '' : `${lines.join('\n')}${ending}`;
    };
    return { oldText: side('added'), newText: side('removed') };
  });
}

function fileChangeTitle(params: Extract<ApproveParams, { kind: 'file_change' }>): string {
  switch (params.operation) {
    case 'create':
      return `Create ${params.path}`;
    case 'modify':
      return `Edit ${params.path}`;
    case 'delete':
      return `Delete ${params.path}`;
    case 'move':
      return `Move ${params.path} to ${params.destination ?? '?'}`;
    default: {
      const _exhaustive: never = params.operation;
      return String(params.path);
    }
  }
}

/** `todo_write`'s whole list, which the ACP plan replaces each time too. */
function plan(args: Record<string, unknown>): SessionUpdate[] {
  if (!Array.isArray(args.todos)) return [];
  const entries: PlanEntry[] = [];
  for (const todo of args.todos as unknown[]) {
    const { content, status } = (todo ?? {}) as Record<string, unknown>;
    if (typeof content !== 'string') continue;
    const known = status === 'in_progress' || status === 'completed' ? status : 'pending';
    entries.push({ content, status: known, priority: 'medium' });
  }
  return [{ sessionUpdate: 'plan', entries }];
}

/**
 * A trust or MCP tool request (§7.7) as a permission row: always the `other` kind (an editor's
 * rules for ordinary edits and commands must not match it), with the exact definition or arguments.
 * A trust request belongs to no run, so its row is named after what it trusts.
 */
function otherApproval(params: OtherApproval): ToolCallUpdate {
  const toolCallId =
    params.kind === 'mcp_tool'
      ? acpToolCallId(params.runId, params.toolCallId)
      : `santra-trust-${params.subject}-${params.name}`;
  const title = otherApprovalTitle(params);
  return {
    toolCallId,
    kind: 'other',
    status: 'pending',
    title: params.protected === true ? `⚠ PROTECTED — ${title}` : title,
    content: [
      ...(params.protectedReason === undefined ? [] : [text(`⚠ ${params.protectedReason}`)]),
      text(fence(otherApprovalLines(params).join('\n'), 'json')),
    ],
  };
}
