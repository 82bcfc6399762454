/**
 * Permission modes (§7.8), with Claude Code's names, so users keep their habits: `default`
 * asks, `acceptEdits` lets file changes inside the workspace through, `plan` is read-only, and
 * `bypassPermissions` is the old auto-approve. The mode is the session's (every agent of a run
 * reads it at each decision, so a plan approved mid-run takes effect on the next call), and it is
 * enforced here and at the tool dispatch point — never by the prompt, which a model may ignore.
 * Protected locations and the configuration's `deny` rules hold in every mode (gate.ts).
 */
import type { PermissionMode } from '#protocol';

export type { PermissionMode };

/** In the order Shift+Tab cycles them in Claude Code. */
export const PERMISSION_MODES: readonly PermissionMode[] = [
  'default',
  'acceptEdits',
  'plan',
  'bypassPermissions',
];

/** What the model reads when plan mode stops a call; it says how to get out of it. */
export function planModeRefusal(what: string): string {
  return `Not done: the session is in plan mode (read-only), so ${what} is not allowed. Read and search to understand the task, then present your plan with the exit_plan_mode tool; the user approves it before anything changes.`;
}

/**
 * Tools whose calls may run in plan mode as far as the dispatch point is concerned: those that
 * only read (`read`, `search`, `fetch`), reason (`think`), talk to the user (`interact`) or
 * start and end agents (`agent` — sub-agents inherit the mode); a tool whose trusted source says
 * it only reads (`readOnlyHint`, an MCP server from the user's config). `execute` passes here
 * because the gate lets through exactly the commands on the read-only allowlist; file changes
 * (`edit`, `delete`, `move`) are stopped here and, again, by the gate.
 */
const PLAN_KINDS: ReadonlySet<string> = new Set([
  'read',
  'search',
  'fetch',
  'think',
  'interact',
  'agent',
  'execute',
]);

/**
 * Why a tool call may not run in `mode`, for the model; undefined when it may (the gate still
 * decides about its file changes and commands).
 */
export function modeRefusal(
  mode: PermissionMode,
  tool: { name: string; kind: string; readOnlyHint?: boolean },
): string | undefined {
  if (mode !== 'plan') return undefined;
  if (tool.readOnlyHint === true || (PLAN_KINDS.has(tool.kind) && !tool.name.startsWith('mcp__')))
    return undefined;
  return planModeRefusal(`calling ${tool.name} (it may change something)`);
}

/** Parses a mode from a flag or an editor command, naming the choices when it is none of them. */
export function parsePermissionMode(text: string, where: string): PermissionMode {
  const mode = PERMISSION_MODES.find((candidate) => candidate.toLowerCase() === text.trim().toLowerCase());
  if (mode === undefined)
    throw new Error(
      `${where}: "${text}" is not a permission mode; use one of ${PERMISSION_MODES.join(', ')}.`,
    );
  return mode;
}

/**
 * What the model is told with a prompt in `mode`, below the task; undefined where there is
 * nothing to say. Only plan mode changes what the model should do (the others change who asks).
 */
export function modeNote(mode: PermissionMode): string | undefined {
  if (mode !== 'plan') return undefined;
  return 'Plan mode is active: you may read, search and run read-only commands, but change nothing (no file edits, no other commands) — the server refuses them. Research the task, then call exit_plan_mode with your plan; the user approves it before you make any change.';
}
