/**
 * Named sessions (§10.12). A user names a session (`/name`, `santra sessions name`, the protocol's
 * `session/rename`) and then reaches it by that name wherever an id is taken: `session/resume`,
 * `session/rename`, `--resume`, `--continue`, `/resume`. A reference is read as an exact id first,
 * then as a name, then as the start of an id (with or without `ses_`); a prefix that fits more
 * than one session is refused with the candidates listed, never guessed.
 *
 * The name is a `name` record in the session (records.ts), so it stays through compaction, which
 * only appends, and a session made from another (a fork) that copies its records carries it on:
 * a name is the name of a line of sessions, and it resolves to the newest session of that line,
 * the way SynapsCLI's chains do. Within one workspace, two unrelated sessions cannot share a name.
 */
import type { SessionInfo } from '#protocol';
import { ProtocolFault } from '../support/protocol-fault.ts';
import type { SessionStore } from './store.ts';

export const NAME_CHARS = 64;

/** Letters, digits, `.`, `_` and `-`; a letter or digit first: it can be typed after --resume unquoted. */
const NAME = /^[\p{L}\p{N}][\p{L}\p{N}._-]*$/u;

/** Why `name` cannot name a session, or undefined when it can. */
export function nameProblem(name: string): string | undefined {
  if (name.length === 0) return 'the name is empty; send null to remove a name';
  if ([...name].length > NAME_CHARS) return `the name is longer than ${NAME_CHARS} characters`;
  if (!NAME.test(name))
    return `"${name}" is not a name: use letters, digits, ".", "_" and "-", starting with a letter or digit (e.g. auth-refactor)`;
  if (name.startsWith('ses_'))
    return `"${name}" starts with ses_, as session ids do: choose a name that cannot be read as an id`;
  return undefined;
}

/** What a reference resolved to: a session's id, or why it names none (or several). */
export type Resolution =
  { ok: true; sessionId: string } | { ok: false; reason: 'unknown' | 'ambiguous'; message: string };

/**
 * The session `ref` means among `sessions` (newest first, as session/list orders them): an exact
 * id, else the newest session of that name, else the one session whose id starts with it.
 */
export function resolveSessionRef(ref: string, sessions: readonly SessionInfo[]): Resolution {
  const exact = sessions.find((info) => info.sessionId === ref);
  if (exact !== undefined) return { ok: true, sessionId: exact.sessionId };
  const named = newestFirst(sessions.filter((info) => info.name === ref))[0];
  if (named !== undefined) return { ok: true, sessionId: named.sessionId };
  const fits = (id: string) => id.startsWith(ref) || id.startsWith(`ses_${ref}`);
  const matches = ref.length === 0 ? [] : newestFirst(sessions.filter((info) => fits(info.sessionId)));
  const only = matches[0];
  if (only !== undefined && matches.length === 1) return { ok: true, sessionId: only.sessionId };
  if (matches.length > 1) {
    const shown = matches.slice(0, 10).map(describe).join('; ');
    const more = matches.length > 10 ? `; and ${matches.length - 10} more` : '';
    return {
      ok: false,
      reason: 'ambiguous',
      message: `"${ref}" is the start of ${matches.length} session ids: ${shown}${more}. Give more of the id, or the session's name.`,
    };
  }
  return {
    ok: false,
    reason: 'unknown',
    message: `No session has the id, name or id prefix "${ref}" (santra sessions lists them; session/list over the protocol).`,
  };
}

/**
 * The id of the session `ref` names in this workspace's listing (all workspaces' with
 * `allWorkspaces`). An exact id not listed (a session only in memory, another workspace's) is
 * passed on as it is: opening it says what is wrong with it. Ambiguity is InvalidParams, naming
 * `field`; a reference that matches nothing is UnknownSession.
 */
export async function sessionIdOf(
  sessions: SessionStore,
  ref: string,
  field: string,
  allWorkspaces = false,
): Promise<string> {
  if (sessions.get(ref) !== undefined) return ref;
  const listed = await sessions.storage.list(allWorkspaces);
  const resolution = resolveSessionRef(ref, withLive(sessions, listed.sessions));
  if (resolution.ok) return resolution.sessionId;
  if (resolution.reason === 'ambiguous')
    throw new ProtocolFault('InvalidParams', `Invalid params: ${field}: ${resolution.message}`, {
      issues: [{ path: field, message: resolution.message }],
    });
  // An id the listing does not have may still be stored (another workspace's): open decides.
  if (ref.startsWith('ses_')) return ref;
  throw new ProtocolFault('UnknownSession', resolution.message);
}

/**
 * Names the session `sessionId` (null: removes its name), after checking the name is usable and
 * not the name of another session of its workspace. The session's record of it is saved at once.
 */
export async function renameSession(
  sessions: SessionStore,
  sessionId: string,
  name: string | null,
): Promise<SessionInfo> {
  const trimmed = name?.trim() ?? null;
  const problem = trimmed === null ? undefined : nameProblem(trimmed);
  if (problem !== undefined)
    throw new ProtocolFault('InvalidParams', `Invalid params for session/rename: params.name: ${problem}.`, {
      issues: [{ path: 'params.name', message: problem }],
    });
  const { session } = await sessions.open(sessionId, { otherWorkspace: true });
  if (trimmed !== null && trimmed !== session.name) {
    const listed = await sessions.storage.list(true);
    const holder = withLive(sessions, listed.sessions).find(
      (info) =>
        info.name === trimmed &&
        info.sessionId !== session.id &&
        info.workspaceRoot === session.workspaceRoot,
    );
    if (holder !== undefined) {
      const why = `"${trimmed}" is already the name of ${holder.sessionId} ("${holder.title}") in this workspace`;
      throw new ProtocolFault(
        'InvalidParams',
        `Invalid params for session/rename: params.name: ${why}. Choose another name, or remove that one first (session/rename with name null; santra sessions name ${holder.sessionId} --clear).`,
        { issues: [{ path: 'params.name', message: why }] },
      );
    }
  }
  if (trimmed === null) delete session.name;
  else session.name = trimmed;
  session.record({ type: 'name', name: trimmed, at: new Date().toISOString() });
  return sessions.info(session);
}

/** The listing, with what sessions in memory know that the store may not have folded yet. */
function withLive(sessions: SessionStore, listed: readonly SessionInfo[]): SessionInfo[] {
  return listed.map((info) => {
    const live = sessions.get(info.sessionId);
    return live === undefined ? info : sessions.info(live);
  });
}

function newestFirst(infos: SessionInfo[]): SessionInfo[] {
  return infos.sort((a, b) => (a.updatedAt === b.updatedAt ? 0 : a.updatedAt < b.updatedAt ? 1 : -1));
}

function describe(info: SessionInfo): string {
  const name = info.name === undefined ? '' : ` [${info.name}]`;
  return `${info.sessionId}${name} "${info.title}"`;
}
