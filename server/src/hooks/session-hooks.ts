/**
 * The hooks around a prompt and a session rather than a tool call: SessionStart (the first
 * prompt of a session in this server: `startup` for a new one, `resume` for a saved one;
 * `compact` after a compaction), UserPromptSubmit (before the prompt reaches any model: it may
 * block it, or add context), PreCompact, SessionEnd and Notification. What they add for the
 * model comes back as text to put beside the prompt.
 */
import type { HookOutcome, Hooks } from './hooks.ts';

/** The sessions whose SessionStart has run in this process (a session object per server). */
const started = new WeakSet<object>();
/** Those sessions, for their SessionEnd when the server ends: id → what the hook is told. */
const open = new Map<string, { transcriptPath: string; permissionMode: string }>();

export interface SessionHookScope {
  session: { id: string; messages: readonly unknown[] };
  transcriptPath: string;
  permissionMode: string;
  signal: AbortSignal;
  /** Tells the user something: a hook's error, its systemMessage, a blocked prompt. */
  warn(text: string): void;
}

/**
 * SessionStart (once per session and server) and UserPromptSubmit for `prompt`: either the
 * prompt is blocked (the reason is for the user; nothing reaches the model) or the hooks' context
 * for the model, to go with it.
 */
export async function promptHooks(
  hooks: Hooks,
  prompt: string,
  scope: SessionHookScope,
): Promise<{ blocked: string } | { context: string[] }> {
  const context: string[] = [];
  open.set(scope.session.id, { transcriptPath: scope.transcriptPath, permissionMode: scope.permissionMode });
  if (!started.has(scope.session)) {
    started.add(scope.session);
    const source = scope.session.messages.length === 0 ? 'startup' : 'resume';
    const start = told(
      'SessionStart',
      await hooks.run('SessionStart', [source], { source }, hookScope(scope)),
      scope,
    );
    if (start.additionalContext !== undefined) context.push(start.additionalContext);
  }
  const submit = told(
    'UserPromptSubmit',
    await hooks.run('UserPromptSubmit', undefined, { prompt }, hookScope(scope)),
    scope,
  );
  if (submit.block !== undefined) return { blocked: submit.block };
  if (submit.stop !== undefined) return { blocked: submit.stop };
  if (submit.additionalContext !== undefined) context.push(submit.additionalContext);
  return { context };
}

/** PreCompact, before a compaction (`manual`: session/compact; `auto`: the context was full). */
export async function preCompactHooks(
  hooks: Hooks,
  trigger: 'manual' | 'auto',
  instructions: string,
  scope: SessionHookScope,
): Promise<void> {
  told(
    'PreCompact',
    await hooks.run(
      'PreCompact',
      [trigger],
      { trigger, custom_instructions: instructions },
      hookScope(scope),
    ),
    scope,
  );
}

/** SessionEnd (`other`) for every session that started in this server: the server is ending. */
export async function endSessions(
  hooks: Hooks,
  signal: AbortSignal,
  warn: (text: string) => void,
): Promise<void> {
  const ending = [...open.entries()];
  open.clear();
  await Promise.all(
    ending.map(([id, known]) =>
      sessionEndHooks(hooks, 'other', { session: { id, messages: [] }, ...known, signal, warn }),
    ),
  );
}

/** SessionEnd, as the server ends with the session open (`other`), or the session is deleted (`clear`). */
export async function sessionEndHooks(
  hooks: Hooks,
  reason: 'clear' | 'logout' | 'prompt_input_exit' | 'other',
  scope: SessionHookScope,
): Promise<void> {
  told('SessionEnd', await hooks.run('SessionEnd', [reason], { reason }, hookScope(scope)), scope);
}

/**
 * Notification, when Santra puts something to the user: an approval (`permission_prompt`) or a
 * question (`elicitation_dialog`), Claude Code's notification types.
 */
export async function notificationHooks(
  hooks: Hooks,
  message: string,
  type: 'permission_prompt' | 'elicitation_dialog',
  scope: SessionHookScope,
): Promise<void> {
  told(
    'Notification',
    await hooks.run('Notification', [type], { message, notification_type: type }, hookScope(scope)),
    scope,
  );
}

function hookScope(scope: SessionHookScope) {
  return {
    sessionId: scope.session.id,
    transcriptPath: scope.transcriptPath,
    permissionMode: scope.permissionMode,
    signal: scope.signal,
  };
}

function told(event: string, outcome: HookOutcome, scope: SessionHookScope): HookOutcome {
  if (outcome.error !== undefined) scope.warn(outcome.error);
  if (outcome.systemMessage !== undefined) scope.warn(`${event} hook: ${outcome.systemMessage}`);
  // Where blocking means nothing (exit 2 of SessionStart, PreCompact…), stderr is the user's.
  if (outcome.block !== undefined && event !== 'UserPromptSubmit')
    scope.warn(`${event} hook: ${outcome.block}`);
  return outcome;
}
