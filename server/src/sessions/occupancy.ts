/**
 * One thing at a time per session: a prompt, a compaction or an undo holds the session while it
 * works, so a second one gets SessionBusy instead of changing a history that is being changed. The
 * hold's signal aborts when the request's does, and when the server stops the session (cancel,
 * shutdown: SessionStore.abortAll).
 */
import { ProtocolFault } from '../support/protocol-fault.ts';
import type { Session, SessionStore } from './store.ts';

export interface SessionHold {
  /** Aborted when the request is cancelled or the server stops the session. */
  readonly signal: AbortSignal;
  /** Frees the session; call once, when the work has ended. */
  release(): void;
}

/** Refuses with SessionBusy, saying what to do, when the session is held. */
export function assertIdle(session: Session, then = 'try again'): void {
  if (session.running !== undefined) {
    throw new ProtocolFault(
      'SessionBusy',
      `Session ${session.id} is already running a prompt (or a compaction or an undo). Wait for it to finish or cancel it, then ${then}.`,
    );
  }
}

/** The session a request continues (from memory or the store), or a new one; refuses a held one. */
export async function openIdleSession(
  sessions: SessionStore,
  sessionId: string | undefined,
): Promise<Session> {
  if (sessionId === undefined) return sessions.create();
  const { session } = await sessions.open(sessionId);
  assertIdle(session);
  return session;
}

/**
 * Holds an idle session for work cancelled by `signal`; refuses a held one (SessionBusy), saying
 * to try `then` again. `runId`: the work is that prompt's run, which session/cancel may stop.
 */
export function hold(
  session: Session,
  signal: AbortSignal,
  { then, runId }: { then?: string; runId?: string } = {},
): SessionHold {
  assertIdle(session, then);
  const controller = new AbortController();
  const abort = () => controller.abort(signal.reason);
  signal.addEventListener('abort', abort, { once: true });
  // A listener added to an aborted signal never fires.
  if (signal.aborted) abort();
  session.running = controller;
  if (runId === undefined) delete session.runningRunId;
  else session.runningRunId = runId;
  return {
    signal: controller.signal,
    release: () => {
      signal.removeEventListener('abort', abort);
      if (session.running !== controller) return;
      session.running = undefined;
      delete session.runningRunId;
    },
  };
}

/**
 * Stops the prompt's run that holds the session (session/cancel), as a cancelled request would:
 * the run's id, or undefined when no run holds it (idle, or a compaction, undo or rewind).
 */
export function cancelRun(session: Session): string | undefined {
  const runId = session.runningRunId;
  if (session.running === undefined || runId === undefined) return undefined;
  session.running.abort(new Error('cancelled with session/cancel'));
  return runId;
}
