/**
 * What a hook said, read as Claude Code reads it: exit 0 — stdout is JSON with decisions (or,
 * for UserPromptSubmit and SessionStart, plain text added to the model's context); exit 2 — a
 * block, with stderr as the reason; any other exit, a timeout or a crash — a non-blocking error
 * the user is told about. Several hooks of one event run at once; their verdicts are merged here:
 * deny wins over ask over allow, any block blocks, contexts add up.
 */
import type { HookEvent } from '../config/hooks-schema.ts';
import type { HookRun } from './run-hook.ts';

export interface HookVerdict {
  /** Blocks what the event is about (exit 2, `decision: "block"`, a PreToolUse deny); the reason. */
  block?: string;
  /** PreToolUse's `permissionDecision`. */
  permission?: 'allow' | 'deny' | 'ask';
  /** Why, for the model (deny) or the user (allow, ask). */
  permissionReason?: string;
  /** PreToolUse's `updatedInput`: the tool's input to use instead. */
  updatedInput?: Record<string, unknown>;
  /** Text for the model: `additionalContext`, or UserPromptSubmit's and SessionStart's plain stdout. */
  additionalContext?: string;
  /** `continue: false`: the agent stops after this; `stopReason` is for the user. */
  stop?: string;
  /** `systemMessage`: a warning for the user. */
  systemMessage?: string;
  /** The hook failed (exit code, timeout, crash, unreadable output): for the user, never blocking unless fail-closed. */
  error?: string;
}

/** Events whose plain stdout (exit 0, not JSON) is context for the model. */
const STDOUT_IS_CONTEXT: ReadonlySet<HookEvent> = new Set(['UserPromptSubmit', 'SessionStart']);

/** Reads one hook's run. `label` names it in messages (its command, shortened). */
export function readHookRun(event: HookEvent, run: HookRun, label: string, timeoutMs: number): HookVerdict {
  switch (run.ended) {
    case 'timeout':
      return {
        error: `${event} hook ${label} timed out after ${Math.round(timeoutMs / 1000)} s and was stopped.`,
      };
    case 'failed':
      return { error: `${event} hook ${label} could not run: ${run.stderr}` };
    case 'cancelled':
      return {};
    case 'exited':
      break;
    default: {
      const exhaustive: never = run.ended;
      throw new Error(`unknown end ${String(exhaustive)}`);
    }
  }
  if (run.exitCode === 2) {
    const reason =
      run.stderr.trim() === '' ? `${event} hook ${label} blocked this (exit 2).` : run.stderr.trim();
    return {
      block: reason,
      ...(event === 'PreToolUse' ? { permission: 'deny' as const, permissionReason: reason } : {}),
    };
  }
  if (run.exitCode !== 0) {
    const stderr = run.stderr.trim();
    return {
      error: `${event} hook ${label} failed with exit code ${run.exitCode ?? 'none (killed)'}${stderr === '' ? '' : `: ${stderr}`}`,
    };
  }
  const stdout = run.stdout.trim();
  if (!stdout.startsWith('{'))
    return STDOUT_IS_CONTEXT.has(event) && stdout !== '' ? { additionalContext: stdout } : {};
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    return STDOUT_IS_CONTEXT.has(event) ? { additionalContext: stdout } : {};
  }
  return readJson(event, json, label);
}

function readJson(event: HookEvent, json: unknown, label: string): HookVerdict {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return { error: `${event} hook ${label} printed JSON that is not an object; its output was ignored.` };
  const out = json as Record<string, unknown>;
  const specific = (
    typeof out.hookSpecificOutput === 'object' && out.hookSpecificOutput !== null
      ? out.hookSpecificOutput
      : {}
  ) as Record<string, unknown>;
  const verdict: HookVerdict = {};
  const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value : undefined);
  if (out.continue === false) verdict.stop = text(out.stopReason) ?? `A ${event} hook stopped the agent.`;
  if (text(out.systemMessage) !== undefined) verdict.systemMessage = text(out.systemMessage);
  const context = text(specific.additionalContext);
  if (context !== undefined) verdict.additionalContext = context;
  const reason = text(out.reason);
  if (event === 'PreToolUse') {
    const decision = specific.permissionDecision ?? legacyDecision(out.decision);
    if (decision === 'allow' || decision === 'deny' || decision === 'ask') {
      verdict.permission = decision;
      const why = text(specific.permissionDecisionReason) ?? reason;
      if (why !== undefined) verdict.permissionReason = why;
      if (decision === 'deny') verdict.block = why ?? `A PreToolUse hook (${label}) denied this call.`;
    } else if (decision !== undefined) {
      verdict.error = `PreToolUse hook ${label} answered permissionDecision ${JSON.stringify(decision)}; expected "allow", "deny" or "ask". It was ignored.`;
    }
    const updated = specific.updatedInput;
    if (typeof updated === 'object' && updated !== null && !Array.isArray(updated))
      verdict.updatedInput = updated as Record<string, unknown>;
  } else if (out.decision === 'block') {
    verdict.block = reason ?? `A ${event} hook (${label}) blocked this.`;
  }
  return verdict;
}

/** Claude Code's older PreToolUse answer: `decision: "approve" | "block"`. */
function legacyDecision(decision: unknown): unknown {
  return decision === 'approve' ? 'allow' : decision === 'block' ? 'deny' : undefined;
}

const PERMISSION_RANK = { allow: 1, ask: 2, deny: 3 } as const;

/** The verdicts of an event's hooks, merged: deny over ask over allow; the first updatedInput. */
export function mergeVerdicts(verdicts: readonly HookVerdict[]): HookVerdict {
  const merged: HookVerdict = {};
  const join = (a: string | undefined, b: string | undefined) =>
    a === undefined ? b : b === undefined ? a : `${a}\n${b}`;
  for (const verdict of verdicts) {
    merged.block = join(merged.block, verdict.block);
    if (
      verdict.permission !== undefined &&
      (merged.permission === undefined ||
        PERMISSION_RANK[verdict.permission] > PERMISSION_RANK[merged.permission])
    ) {
      merged.permission = verdict.permission;
      merged.permissionReason = verdict.permissionReason;
    }
    merged.updatedInput ??= verdict.updatedInput;
    merged.additionalContext = join(merged.additionalContext, verdict.additionalContext);
    merged.stop = join(merged.stop, verdict.stop);
    merged.systemMessage = join(merged.systemMessage, verdict.systemMessage);
    merged.error = join(merged.error, verdict.error);
  }
  for (const key of Object.keys(merged) as Array<keyof HookVerdict>)
    if (merged[key] === undefined) delete merged[key];
  return merged;
}
