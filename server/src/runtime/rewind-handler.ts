/**
 * `session/prompts` and `session/rewind` (§10.13): the prompts a session's conversation is made
 * of, and going back to just before one of them — optionally with the files the session changed
 * since put back (the undo machinery, which asks where the user changed a file since and never
 * writes over it unasked), optionally as a fork that leaves the original as it was.
 *
 * The rewind is read from the session's records (sessions/rewind.ts) and saved as a `rewind`
 * record, so a resumed session, a replay and an export all see that it happened. The session is
 * held while it works, like an undo: a prompt meanwhile gets SessionBusy.
 */
import { randomUUID } from 'node:crypto';
import type { ClientCapabilities, UndoneChange } from '#protocol';
import { undoNote } from '../agent/user-notes.ts';
import { sessionIdOf } from '../sessions/names.ts';
import { hold } from '../sessions/occupancy.ts';
import { forkRecords, rewindablePrompts, rewindPoint } from '../sessions/rewind.ts';
import type { SessionStore } from '../sessions/store.ts';
import type { FileTracker } from '../workspace/file-tracker.ts';
import type { Workspace } from '../workspace/workspace.ts';
import type { ClientChannel, RequestHandlers } from './contract.ts';
import { restoreChanges, UNDO_AGENT } from './undo.ts';
import { undoable } from './undo-restore.ts';

export interface RewindState {
  sessions: SessionStore;
  client: ClientChannel;
  workspace: Workspace;
  capabilities: ClientCapabilities;
}

export function rewindHandlers(
  ready: () => RewindState,
  deps: { files: FileTracker; configDir: string },
): Required<Pick<RequestHandlers, 'session/prompts' | 'session/rewind'>> {
  return {
    async 'session/prompts'(params) {
      const { sessions } = ready();
      const id = await sessionIdOf(sessions, params.sessionId, 'params.sessionId', false);
      await sessions.open(id);
      return { prompts: rewindablePrompts(await sessions.records(id)) };
    },
    async 'session/rewind'(params, { signal }) {
      const { sessions, client, workspace, capabilities } = ready();
      const id = await sessionIdOf(sessions, params.sessionId, 'params.sessionId', false);
      const { session } = await sessions.open(id);
      const held = hold(session, signal, { then: 'rewind' });
      try {
        const point = rewindPoint(await sessions.records(id), id, params.runId);
        let changes: UndoneChange[] = [];
        if (params.restoreFiles === true) {
          const since = session.changes.filter(
            (change) => point.changeIdsSince.has(change.changeId) && undoable(change),
          );
          // The undo of the files is the original's, also for a fork: they are its changes.
          changes = await restoreChanges(
            session,
            since,
            { ...deps, client, workspace, capabilities },
            held.signal,
          );
          if (held.signal.aborted) throw new Error('the rewind was cancelled');
        }
        const at = new Date().toISOString();
        if (params.fork === true) {
          // The original keeps its conversation, which still says the files were changed: its
          // model is told they were put back, as after an undo.
          const note = undoNote(changes);
          if (note !== undefined) {
            session.messages.push(note);
            session.record({ type: 'message', runId: UNDO_AGENT, message: note });
          }
          const forkId = `ses_${randomUUID()}`;
          const fork = await sessions.saveAll(
            forkId,
            forkRecords(point, { sessionId: forkId, workspaceRoot: session.workspaceRoot, from: id, at }),
          );
          return { session: sessions.info(fork), text: point.prompt.text, forkedFrom: id, changes };
        }
        session.record({
          type: 'rewind',
          runId: point.prompt.runId,
          messages: point.messages,
          ...(params.restoreFiles === true ? { restoreFiles: true } : {}),
          at,
        });
        session.messages = point.messages;
        return { session: sessions.info(session), text: point.prompt.text, changes };
      } finally {
        held.release();
      }
    },
  };
}
