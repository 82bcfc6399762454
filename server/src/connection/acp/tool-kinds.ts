/**
 * How Santra's tools look in an ACP client: the ACP tool kind (which picks the icon and how the
 * row is drawn), whether the call is a row at all, and the files it touches (ACP locations, for
 * the editor's follow-along). Tools not listed here (custom or newer ones) are `other`.
 */
import { isAbsolute, resolve } from 'node:path';
import type { ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';

const KINDS: Readonly<Record<string, ToolKind>> = {
  read_file: 'read',
  get_file_info: 'read',
  list_dir: 'read',
  git_diff: 'read',
  git_status: 'read',
  find_file: 'search',
  grep_search: 'search',
  write_file: 'edit',
  str_replace: 'edit',
  multi_edit: 'edit',
  delete_file: 'delete',
  move_file: 'move',
  run_command: 'execute',
  web_fetch: 'fetch',
  web_search: 'fetch',
  think: 'think',
};

/**
 * Calls that are not rows: `todo_write` is shown as the ACP plan, and the calls that end an
 * agent or shape its conversation are what the agent's own row (or the answer) already shows.
 */
const NOT_ROWS = new Set(['todo_write', 'task_completed', 'set_output', 'set_messages']);

export function toolKind(toolName: string): ToolKind {
  return KINDS[toolName] ?? 'other';
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
