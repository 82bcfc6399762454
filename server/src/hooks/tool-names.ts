/**
 * Santra's tools as Claude Code's hooks know them, so a hooks block pasted from
 * `~/.claude/settings.json` matches and reads the same calls: the matcher `Bash` sees run_command,
 * and the hook reads `tool_input.command`; `Edit|Write` sees the file tools, and reads
 * `tool_input.file_path` (absolute, as Claude Code gives it). A hook's `updatedInput` may use
 * either name of a field; it is turned back into Santra's arguments here.
 */
import { isAbsolute, relative, resolve } from 'node:path';

/** Claude Code's name for each Santra tool that has a counterpart. */
const CLAUDE_NAMES: Readonly<Record<string, string>> = {
  run_command: 'Bash',
  // The interactive shells run commands too: a `Bash` hook sees what starts one and what is typed.
  shell_start: 'Bash',
  shell_send: 'Bash',
  str_replace: 'Edit',
  multi_edit: 'Edit',
  write_file: 'Write',
  read_file: 'Read',
  grep_search: 'Grep',
  find_file: 'Glob',
  list_dir: 'LS',
  web_fetch: 'WebFetch',
  web_search: 'WebSearch',
  spawn_agent: 'Task',
  spawn_agents: 'Task',
  todo_write: 'TodoWrite',
  exit_plan_mode: 'ExitPlanMode',
};

/** The names a matcher is tried against: Santra's own, then Claude Code's (MCP tools are the same in both). */
export function hookToolNames(santraName: string): string[] {
  const claude = CLAUDE_NAMES[santraName];
  return claude === undefined ? [santraName] : [santraName, claude];
}

/** The name `tool_name` carries: Claude Code's where there is one, so existing scripts' checks hold. */
export function hookToolName(santraName: string): string {
  return CLAUDE_NAMES[santraName] ?? santraName;
}

/** A field of Santra's arguments and Claude Code's name for it; paths are absolute on Claude's side. */
interface Alias {
  santra: string;
  claude: string;
  path?: true;
}

const ALIASES: Readonly<Record<string, readonly Alias[]>> = {
  str_replace: [
    { santra: 'path', claude: 'file_path', path: true },
    { santra: 'oldStr', claude: 'old_string' },
    { santra: 'newStr', claude: 'new_string' },
  ],
  multi_edit: [{ santra: 'path', claude: 'file_path', path: true }],
  write_file: [{ santra: 'path', claude: 'file_path', path: true }],
  read_file: [{ santra: 'path', claude: 'file_path', path: true }],
  list_dir: [{ santra: 'path', claude: 'path', path: true }],
  shell_send: [{ santra: 'text', claude: 'command' }],
  spawn_agent: [
    { santra: 'task', claude: 'prompt' },
    { santra: 'agentId', claude: 'subagent_type' },
  ],
};

/**
 * `tool_input` for a hook: Santra's arguments with Claude Code's names added beside them
 * (`file_path` absolute, resolved against the workspace root).
 */
export function hookToolInput(
  santraName: string,
  args: Record<string, unknown>,
  root: string,
): Record<string, unknown> {
  const input: Record<string, unknown> = { ...args };
  for (const alias of ALIASES[santraName] ?? []) {
    const value = args[alias.santra];
    if (value === undefined) continue;
    input[alias.claude] = alias.path === true && typeof value === 'string' ? resolve(root, value) : value;
  }
  // multi_edit's edits, as Claude Code's MultiEdit spells them.
  if (santraName === 'multi_edit' && Array.isArray(args.edits))
    input.edits = (args.edits as Array<Record<string, unknown>>).map((edit) => ({
      ...edit,
      old_string: edit.oldStr,
      new_string: edit.newStr,
    }));
  return input;
}

/**
 * Santra's arguments from a hook's `updatedInput`: a field changed under Claude Code's name
 * replaces Santra's (an absolute path inside the workspace becomes relative again); Claude-only
 * names are dropped, so the tool's own validation sees only its fields. `sent` is what the hook
 * was given, to tell which name the hook changed.
 */
export function argsFromHookInput(
  santraName: string,
  updated: Record<string, unknown>,
  sent: Record<string, unknown>,
  root: string,
): Record<string, unknown> {
  const args: Record<string, unknown> = { ...updated };
  for (const alias of ALIASES[santraName] ?? []) {
    if (alias.claude === alias.santra) {
      if (alias.path === true && typeof args[alias.santra] === 'string')
        args[alias.santra] = workspacePath(args[alias.santra] as string, root);
      continue;
    }
    const claude = updated[alias.claude];
    if (claude !== undefined && !sameValue(claude, sent[alias.claude]))
      args[alias.santra] =
        alias.path === true && typeof claude === 'string' ? workspacePath(claude, root) : claude;
    delete args[alias.claude];
  }
  if (santraName === 'multi_edit' && Array.isArray(updated.edits))
    args.edits = (updated.edits as Array<Record<string, unknown>>).map((edit) => {
      const { old_string: oldString, new_string: newString, ...rest } = edit;
      return {
        ...rest,
        oldStr: oldString !== undefined && oldString !== edit.oldStr ? oldString : rest.oldStr,
        newStr: newString !== undefined && newString !== edit.newStr ? newString : rest.newStr,
      };
    });
  return args;
}

function workspacePath(path: string, root: string): string {
  if (!isAbsolute(path)) return path;
  const inside = relative(root, path);
  return inside === '' ? '.' : inside.startsWith('..') || isAbsolute(inside) ? path : inside;
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
