/**
 * `session/undo`: puts back the files the last change (or every change of the last run) of a
 * session wrote, newest first, from the session's `file_change` records — so a session resumed
 * in a new server undoes what an earlier one did. What was dealt with is saved as an `undo`
 * record, and the next undo goes one further back.
 *
 * A file someone changed since is restored only if the user allows it through `approve` (the
 * request the approval gate sends, with the diff of what the restore writes; toolName
 * `session/undo`). The session counts as running meanwhile: a prompt, another undo or a delete
 * of it gets SessionBusy.
 */
import type { ApproveParams, ClientCapabilities, UndoneChange } from '#protocol';
import { undoNote } from '../agent/user-notes.ts';
import { computeDiffAsync } from '../approval/diff.ts';
import { protectedReason } from '../approval/protected-paths.ts';
import type { FileChangeRecord } from '../sessions/file-changes.ts';
import { assertIdle, hold } from '../sessions/occupancy.ts';
import type { Session, SessionStore } from '../sessions/store.ts';
import type { FileTracker } from '../workspace/file-tracker.ts';
import type { Workspace } from '../workspace/workspace.ts';
import type { ClientChannel, RequestHandlers } from './contract.ts';
import { type RestoreAnswer, type RestoreQuestion, restoreChange, undoable } from './undo-restore.ts';

/** The `agentId` and `toolName` of the approvals an undo asks for. */
export const UNDO_AGENT = 'undo';
export const UNDO_TOOL = 'session/undo';

export interface UndoState {
  sessions: SessionStore;
  client: ClientChannel;
  workspace: Workspace;
  capabilities: ClientCapabilities;
}

export function undoHandlers(
  ready: () => UndoState,
  deps: { files: FileTracker; configDir: string },
): Required<Pick<RequestHandlers, 'session/undo'>> {
  return {
    async 'session/undo'(params, { signal }) {
      const { sessions, client, workspace, capabilities } = ready();
      const { session } = await sessions.open(params.sessionId);
      assertIdle(session, 'undo');
      const picked = lastChanges(session.changes, params.scope ?? 'change');
      if (picked.length === 0) return { changes: [] };
      const held = hold(session, signal);
      let changes: UndoneChange[] = [];
      try {
        changes = await restoreChanges(
          session,
          picked,
          { ...deps, client, workspace, capabilities },
          held.signal,
        );
      } finally {
        // The model is told on its next turn: its conversation still says the changes were made.
        const note = undoNote(changes);
        if (note !== undefined) {
          session.messages.push(note);
          session.record({ type: 'message', runId: UNDO_AGENT, message: note });
        }
        held.release();
      }
      // What was restored before the cancel stays restored, and recorded.
      if (held.signal.aborted) throw new Error('the undo was cancelled');
      return { changes };
    },
  };
}

export interface RestoreChangesDeps {
  client: ClientChannel;
  workspace: Workspace;
  capabilities: ClientCapabilities;
  files: FileTracker;
  configDir: string;
}

/**
 * Puts back `picked` (oldest first) newest first, asking through `approve` where a file changed
 * since, and saves the `undo` record of what was dealt with — also when `signal` aborts midway,
 * so what was restored stays recorded. session/undo and session/rewind (rewind-handler.ts) share it.
 */
export async function restoreChanges(
  session: Session,
  picked: readonly FileChangeRecord[],
  deps: RestoreChangesDeps,
  signal: AbortSignal,
): Promise<UndoneChange[]> {
  const { client, workspace, capabilities } = deps;
  // `allow_all` answers the rest of this undo's questions, protected locations excepted.
  let allowAll = false;
  const ask = async (change: FileChangeRecord, question: RestoreQuestion): Promise<RestoreAnswer> => {
    if (allowAll && question.protection === undefined) return { outcome: 'allowed' };
    if (capabilities.approve !== true) return { outcome: 'unavailable' };
    const request: ApproveParams = {
      kind: 'file_change',
      sessionId: session.id,
      runId: change.runId,
      agentId: UNDO_AGENT,
      toolCallId: change.toolCallId,
      toolName: UNDO_TOOL,
      path: question.path,
      ...(question.destination === undefined ? {} : { destination: question.destination }),
      operation: question.operation,
      diff: await computeDiffAsync(
        question.diffPath,
        question.oldText,
        question.newText,
        question.diffNewPath === undefined ? {} : { newPath: question.diffNewPath },
      ),
      ...(question.protection === undefined ? {} : { protected: true, protectedReason: question.protection }),
    };
    try {
      const answer = await client.approve(request, signal);
      switch (answer.decision) {
        case 'allow_all':
          allowAll = true;
          return { outcome: 'allowed' };
        case 'allow':
          return { outcome: 'allowed' };
        case 'reject':
          return { outcome: 'declined' };
        case 'feedback':
          return { outcome: 'declined', feedback: answer.feedback };
        default: {
          const exhaustive: never = answer;
          throw new Error(`unknown decision ${JSON.stringify(exhaustive)}`);
        }
      }
    } catch (error) {
      return { outcome: 'failed', message: error instanceof Error ? error.message : String(error) };
    }
  };
  const changes: UndoneChange[] = [];
  const settled: string[] = [];
  try {
    for (const change of picked.toReversed()) {
      if (signal.aborted) break;
      const restored = await restoreChange(change, {
        workspace,
        files: deps.files,
        sessionRoot: session.workspaceRoot,
        isProtected: (absolute) => protectedReason(workspace.display(absolute), absolute, deps.configDir),
        ask: (question) => ask(change, question),
      });
      changes.push(restored.change);
      if (restored.settled) settled.push(change.changeId);
    }
  } finally {
    markUndone(session, settled);
  }
  return changes;
}

/** The last change not undone, or every change of its run; oldest first. */
function lastChanges(all: readonly FileChangeRecord[], scope: 'change' | 'run'): FileChangeRecord[] {
  const changes = all.filter(undoable);
  const last = changes.at(-1);
  if (last === undefined) return [];
  return scope === 'change' ? [last] : changes.filter((change) => change.runId === last.runId);
}

/** Saves the `undo` record and keeps the live list in step with it (the fold drops the same). */
function markUndone(session: Session, changeIds: readonly string[]): void {
  if (changeIds.length === 0) return;
  const undone = new Set(changeIds);
  session.changes = session.changes.filter((change) => !undone.has(change.changeId));
  session.record({ type: 'undo', changeIds: [...changeIds], at: new Date().toISOString() });
}
