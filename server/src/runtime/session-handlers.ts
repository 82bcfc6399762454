/**
 * The `session/*` requests: list, resume (with the phases a reconnecting client missed), export,
 * delete, cancel (the run a session is running, whoever started it) and close (the client is done
 * with it: SessionEnd), served from the session store.
 */
import type { SessionInfo } from '#protocol';
import { exportJson, exportMarkdown } from '../sessions/export.ts';
import { renameSession, sessionIdOf } from '../sessions/names.ts';
import type { Hooks } from '../hooks/hooks.ts';
import type { SessionLifecycle } from '../hooks/session-hooks.ts';
import { assertIdle, cancelRun } from '../sessions/occupancy.ts';
import type { SessionStore } from '../sessions/store.ts';
import { ProtocolFault } from '../support/protocol-fault.ts';
import type { ClientChannel, RequestHandlers } from './contract.ts';

const DEFAULT_PAGE = 50;

type SessionHandlers = Required<
  Pick<
    RequestHandlers,
    | 'session/new'
    | 'session/list'
    | 'session/resume'
    | 'session/rename'
    | 'session/export'
    | 'session/delete'
    | 'session/cancel'
    | 'session/close'
    | 'session/setMode'
  >
>;

/** What closing a session ends besides the session's own state (session/close). */
export interface SessionClosing {
  lifecycle: SessionLifecycle;
  /** The user's hooks, for SessionEnd; undefined before `initialize`. */
  hooks: () => Promise<Hooks | undefined>;
  /** Stops offering the session on its live channel (§10.11). */
  release: (sessionId: string) => Promise<void>;
  /** Tells what went wrong in a hook (the log: no run carries it). */
  warn: (text: string) => void;
}

/** session/close's reason, as SessionEnd hooks are told it (Claude Code's words). */
const END_REASONS = { clear: 'clear', exit: 'prompt_input_exit', other: 'other' } as const;

export function sessionHandlers(
  ready: () => { sessions: SessionStore; client: ClientChannel },
  closing: SessionClosing,
): SessionHandlers {
  return {
    'session/new'() {
      const { sessions } = ready();
      return Promise.resolve({ session: sessions.info(sessions.create()) });
    },
    async 'session/list'(params) {
      const { sessions } = ready();
      const listed = await sessions.storage.list(params?.allWorkspaces === true);
      // Sessions of this server may have news the store has not folded yet (an index is lazy).
      const byId = new Map(listed.sessions.map((info) => [info.sessionId, info]));
      for (const info of listed.sessions) {
        const live = sessions.get(info.sessionId);
        if (live !== undefined) byId.set(info.sessionId, sessions.info(live));
      }
      const ordered = [...byId.values()].sort(newestFirst);
      const start = params?.cursor === undefined ? 0 : afterCursor(ordered, params.cursor);
      const limit = params?.limit ?? DEFAULT_PAGE;
      const page = ordered.slice(start, start + limit);
      const last = page.at(-1);
      return {
        sessions: page,
        ...(start + limit < ordered.length && last !== undefined ? { nextCursor: cursorOf(last) } : {}),
        warnings: listed.warnings,
      };
    },
    async 'session/resume'(params) {
      const { sessions, client } = ready();
      // A name or an id prefix is the session it names (sessions/names.ts).
      const id = await sessionIdOf(
        sessions,
        params.sessionId,
        'params.sessionId',
        params.otherWorkspace === true,
      );
      const { session, warnings } = await sessions.open(id, {
        otherWorkspace: params.otherWorkspace === true,
      });
      let replayedPhases = 0;
      if (params.afterSeq !== undefined) {
        for (const record of await sessions.records(session.id)) {
          if (record.type === 'phase' && record.phase.seq > params.afterSeq) {
            client.phase(record.phase);
            replayedPhases++;
          }
        }
      }
      return { session: sessions.info(session), replayedPhases, warnings };
    },
    async 'session/rename'(params) {
      const { sessions } = ready();
      const id = await sessionIdOf(sessions, params.sessionId, 'params.sessionId', true);
      return { session: await renameSession(sessions, id, params.name) };
    },
    async 'session/export'(params) {
      const { sessions } = ready();
      const records = await sessions.records(params.sessionId);
      if (params.format === 'markdown') return { format: 'markdown', content: exportMarkdown(records) };
      // Typed for the client (§10.9), and as text for one that saves it as a file.
      return { format: 'json', content: exportJson(records), records };
    },
    async 'session/delete'(params) {
      const { sessions } = ready();
      await sessions.delete(params.sessionId);
      return { deleted: true };
    },
    /**
     * The mode, now: the gate reads the session's mode at each tool call (approval/gate.ts), so a
     * run going on gates its later calls in it; an idle session's next prompt runs in it.
     */
    async 'session/setMode'(params) {
      const { sessions } = ready();
      // A session open here by its id is changed before anything is awaited: an approval answered
      // right after this request (Shift+Tab, then y) is then gated in the new mode.
      const session =
        sessions.get(params.sessionId) ??
        (await sessions.open(await sessionIdOf(sessions, params.sessionId, 'params.sessionId'))).session;
      session.approvals.permissionMode = params.permissionMode;
      return { permissionMode: params.permissionMode, running: session.runningRunId !== undefined };
    },
    /** Whoever started the run: a client that did not (an event's turn, another client's prompt) stops it. */
    async 'session/cancel'(params) {
      const { sessions } = ready();
      const id = await sessionIdOf(sessions, params.sessionId, 'params.sessionId');
      const session = sessions.get(id);
      if (session === undefined) {
        // Not open here: saved (idle), or not a session at all (UnknownSession).
        await sessions.open(id);
        return { cancelled: false };
      }
      const runId = cancelRun(session);
      return runId === undefined ? { cancelled: false } : { cancelled: true, runId };
    },
    /** The client is done with the session: its SessionEnd hooks now, not when the server ends. */
    async 'session/close'(params, { signal }) {
      const { sessions } = ready();
      const id = await sessionIdOf(sessions, params.sessionId, 'params.sessionId');
      const session = sessions.get(id);
      // Not in memory here: saved and idle, or not a session at all (UnknownSession).
      if (session === undefined) await sessions.records(id);
      else assertIdle(session, 'close it');
      const closed = await closing.lifecycle.end(
        await closing.hooks(),
        id,
        END_REASONS[params.reason ?? 'other'],
        { signal, warn: closing.warn },
      );
      await closing.release(id);
      return { closed };
    },
  };
}

function newestFirst(a: SessionInfo, b: SessionInfo): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
  return a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0;
}

/** A cursor names the last session of a page by its place in the order, so new sessions do not shift pages. */
function cursorOf(info: SessionInfo): string {
  return Buffer.from(JSON.stringify([info.updatedAt, info.sessionId])).toString('base64url');
}

function afterCursor(ordered: readonly SessionInfo[], cursor: string): number {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    key = undefined;
  }
  if (!Array.isArray(key) || typeof key[0] !== 'string' || typeof key[1] !== 'string') {
    throw new ProtocolFault(
      'InvalidParams',
      'Invalid params for session/list: params.cursor: not a cursor this server gave out. Pass the nextCursor of the previous page, or omit it for the first page.',
      { issues: [{ path: 'params.cursor', message: 'not a cursor this server gave out' }] },
    );
  }
  const boundary = { updatedAt: key[0], sessionId: key[1] } as SessionInfo;
  const index = ordered.findIndex((info) => newestFirst(info, boundary) > 0);
  return index === -1 ? ordered.length : index;
}
