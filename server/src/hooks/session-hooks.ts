/**
 * The hooks around a prompt and a session rather than a tool call: SessionStart (the first
 * prompt of a session in this server: `startup` for a new one, `clear` for the one after a
 * `/clear`, `resume` for a saved one; `compact` after a compaction), UserPromptSubmit (before the prompt reaches any model: it may
 * block it, or add context), PreCompact, SessionEnd and Notification. What they add for the
 * model comes back as text to put beside the prompt.
 */
import type { HookOutcome, Hooks } from './hooks.ts';

/** Why a session ended, in Claude Code's words (a SessionEnd hook's `reason`). */
export type SessionEndReason = 'clear' | 'logout' | 'prompt_input_exit' | 'other';
/** Why a session starts, in Claude Code's words (a SessionStart hook's `source`). */
export type SessionStartSource = 'startup' | 'resume' | 'clear' | 'compact';

/**
 * The sessions begun in one server — their SessionStart has run — until they end: closed by the
 * client (session/close), or the server ends. One per runtime: several run in one process (an ACP
 * agent runs one per editor session), and one's end is not the others'.
 */
export class SessionLifecycle {
  /** Begun sessions: id → the session object begun and what its SessionEnd hook is told. */
  readonly #open = new Map<string, { session: object; transcriptPath: string; permissionMode: string }>();
  /** Sessions compacted by session/compact since their last prompt here. */
  readonly #compacted = new Set<string>();
  /** The client closed a session with `clear` (the user began another) and none has begun since. */
  #cleared = false;

  /**
   * Records a prompt of the session; the source of its SessionStart when one is due: the first
   * prompt of this session object since it was loaded, created or last closed here (`startup`,
   * or `clear` for the new session after a `/clear`; `resume` for a saved one), or the first since
   * a session/compact (`compact`).
   */
  begin(scope: SessionHookScope): SessionStartSource | undefined {
    const { id, messages } = scope.session;
    const first = this.#open.get(id)?.session !== scope.session;
    const compacted = this.#compacted.delete(id);
    this.#open.set(id, {
      session: scope.session,
      transcriptPath: scope.transcriptPath,
      permissionMode: scope.permissionMode,
    });
    if (!first) return compacted ? 'compact' : undefined;
    const cleared = this.#cleared;
    this.#cleared = false;
    if (messages.length > 0) return 'resume';
    return cleared ? 'clear' : 'startup';
  }

  /** The session was compacted (session/compact): its next prompt's SessionStart says `compact`. */
  compacted(sessionId: string): void {
    this.#compacted.add(sessionId);
  }

  /** SessionEnd for one session begun here, which then counts as ended; false if it was not open. */
  async end(
    hooks: Hooks | undefined,
    sessionId: string,
    reason: SessionEndReason,
    { signal, warn }: Pick<SessionHookScope, 'signal' | 'warn'>,
  ): Promise<boolean> {
    const known = this.#open.get(sessionId);
    if (known === undefined) return false;
    this.#open.delete(sessionId);
    this.#compacted.delete(sessionId);
    if (reason === 'clear') this.#cleared = true;
    if (hooks !== undefined)
      await sessionEndHooks(hooks, reason, {
        session: { id: sessionId, messages: [] },
        transcriptPath: known.transcriptPath,
        permissionMode: known.permissionMode,
        signal,
        warn,
      });
    return true;
  }

  /** SessionEnd (`other`) for every session begun here and still open: the server is ending. */
  async endAll(hooks: Hooks, scope: Pick<SessionHookScope, 'signal' | 'warn'>): Promise<void> {
    await Promise.all([...this.#open.keys()].map((id) => this.end(hooks, id, 'other', scope)));
  }
}

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
  lifecycle: SessionLifecycle,
): Promise<{ blocked: string } | { context: string[] }> {
  const context: string[] = [];
  const source = lifecycle.begin(scope);
  if (source !== undefined) {
    const added = await sessionStartHooks(hooks, source, scope);
    if (added !== undefined) context.push(added);
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

/**
 * SessionStart: what its hooks add for the model, if anything. Run by `promptHooks`, and by a
 * prompt right after its auto-compaction (`compact`), whose context goes with that prompt.
 */
export async function sessionStartHooks(
  hooks: Hooks,
  source: SessionStartSource,
  scope: SessionHookScope,
): Promise<string | undefined> {
  return told('SessionStart', await hooks.run('SessionStart', [source], { source }, hookScope(scope)), scope)
    .additionalContext;
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

/**
 * SessionEnd: the client closed the session (`clear`: the user began another; `prompt_input_exit`:
 * the user left), or the server ends with it open (`other`).
 */
async function sessionEndHooks(
  hooks: Hooks,
  reason: SessionEndReason,
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
