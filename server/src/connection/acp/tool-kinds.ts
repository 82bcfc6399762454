/**
 * How Santra's tools look in an ACP client: the ACP tool kind (which picks the icon and how the
 * row is drawn), from the kind the server sends with each call; whether the call is a row at all;
 * and the files it touches (ACP locations, for the editor's follow-along).
 */
import { isAbsolute, resolve } from 'node:path';
import type { ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import type { ToolKind as SantraToolKind } from '#protocol';

/**
 * The ACP kind of a Santra tool kind (the protocol's ToolKind, on every tool_call phase): ACP has
 * no kind for starting an agent or asking the user, which are `other`.
 */
const ACP_KINDS: Readonly<Record<SantraToolKind, ToolKind>> = {
  read: 'read',
  search: 'search',
  edit: 'edit',
  delete: 'delete',
  move: 'move',
  execute: 'execute',
  fetch: 'fetch',
  think: 'think',
  agent: 'other',
  interact: 'other',
};

/**
 * Calls that are not rows: `todo_write` is shown as the ACP plan, and the calls that end an
 * agent or shape its conversation are what the agent's own row (or the answer) already shows.
 */
const NOT_ROWS = new Set(['todo_write', 'task_completed', 'set_output', 'set_messages']);

/** How a call is drawn, from the kind the server sent with it (none: a tool it does not know). */
export function toolKind(kind: SantraToolKind | undefined): ToolKind {
  return kind === undefined ? 'other' : ACP_KINDS[kind];
}

export function isToolRow(toolName: string): boolean {
  return !NOT_ROWS.has(toolName);
}

/** The files a call names, as absolute paths (ACP wants them absolute), with a line where known. */
export function toolLocations(
  toolName: string,
  args: Record<string, unknown>,
  root: string,
): ToolCallLocation[] {
  const at = (value: unknown, line?: unknown): ToolCallLocation[] =>
    typeof value === 'string' && value !== ''
      ? [{ path: absolute(value, root), ...(typeof line === 'number' ? { line } : {}) }]
      : [];
  switch (toolName) {
    case 'move_file':
      return [...at(args.from), ...at(args.to)];
    case 'read_file':
      return at(args.path, args.startLine);
    default:
      return at(args.path);
  }
}

/** A workspace-relative path (as tools and approvals give them) made absolute. */
export function absolute(path: string, root: string): string {
  return isAbsolute(path) ? path : resolve(root, path);
}
