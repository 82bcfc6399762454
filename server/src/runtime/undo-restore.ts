/**
 * Putting back one recorded file change, for `session/undo`: a created file is deleted, a modified
 * one gets its earlier content, a deleted one is written again, a moved one is moved back.
 *
 * The file is first compared with what the change left. Still that: it is restored without a
 * question (a protected location is always asked). Anything else — edited since, gone, a file
 * where there was none — is put to the user with the diff of what the restore would write, and
 * restored only if allowed; without a client that can approve, it is left as it is. The write
 * then goes only over what was inspected and shown, like the tools' (tools/files/change.ts):
 * through the pinned parent directory, atomically, under the file's lock.
 */
import type { Stats } from 'node:fs';
import { lstat, unlink } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { UndoneChange } from '#protocol';
import {
  type FileChangeRecord,
  type FileOperation,
  sameAsSaved,
  savedContent,
  sha256,
} from '../sessions/file-changes.ts';
import { errorCode } from '../support/errno.ts';
import { formatSize, MAX_TEXT_FILE_BYTES } from '../tools/files/helpers.ts';
import { atomicWriteIn } from '../workspace/atomic-write.ts';
import type { FileTracker } from '../workspace/file-tracker.ts';
import { moveEntry } from '../workspace/move-entry.ts';
import { type PinnedDir, readEntry, withPinnedParent } from '../workspace/pinned-dir.ts';
import { PathError, type ResolvedPath, type Workspace } from '../workspace/workspace.ts';

/** What the user is asked before a restore writes over something the change did not leave. */
export interface RestoreQuestion {
  /** As the approval shows it: the file changed, or for a move back the file moved (`to`). */
  path: string;
  /** For a move back: where the file goes (`from`), the approval's `destination`. */
  destination?: string;
  /** The path the diff is of. */
  diffPath: string;
  /** A rename in the diff: the path on its new side. */
  diffNewPath?: string;
  operation: FileOperation;
  /** The content there now and after the restore (undefined: no file). */
  oldText: string | undefined;
  newText: string | undefined;
  /** Why a person must decide even a restore nobody interfered with (a protected location). */
  protection: string | undefined;
}

export type RestoreAnswer =
  | { outcome: 'allowed' }
  | { outcome: 'declined'; feedback?: string }
  /** No client can approve. */
  | { outcome: 'unavailable' }
  /** The client did not answer (an error, or the undo was cancelled). */
  | { outcome: 'failed'; message: string };

export interface RestoreDeps {
  workspace: Workspace;
  files: FileTracker;
  /** Where a record without its own workspaceRoot was made. */
  sessionRoot: string;
  isProtected(absolute: string): string | undefined;
  ask(question: RestoreQuestion): Promise<RestoreAnswer>;
}

/**
 * What became of a change, and whether it is done with: restored, declined by the user, or never
 * restorable. A change kept for a reason that may pass (no client could approve, the file is in
 * the way, the disk refused) stays undoable, so the next undo tries it again.
 */
export interface Restored {
  change: UndoneChange;
  settled: boolean;
}

type Step = { restored: true } | { restored: false; reason: string; settled: boolean };

const RESTORED: Step = { restored: true };
const OPERATIONS: ReadonlySet<string> = new Set<FileOperation>(['create', 'modify', 'delete', 'move']);

/** A change this server can undo: of a known kind, a move with its destination (a damaged or newer record may not be). */
export function undoable(record: FileChangeRecord): boolean {
  return (
    OPERATIONS.has(record.operation) && (record.operation !== 'move' || record.destination !== undefined)
  );
}

const kept = (reason: string, settled: boolean): Step => ({ restored: false, reason, settled });

export async function restoreChange(record: FileChangeRecord, deps: RestoreDeps): Promise<Restored> {
  const root = record.workspaceRoot ?? deps.sessionRoot;
  let path = record.path;
  let destination = record.destination;
  let step: Step;
  try {
    const target = await deps.workspace.resolveForWrite(resolve(root, record.path));
    path = target.display;
    if (record.operation === 'move' && record.destination !== undefined) {
      const moved = await deps.workspace.resolveForWrite(resolve(root, record.destination));
      destination = moved.display;
      // The lock move_file took: the file being moved.
      step = await deps.files.withLock(moved.absolute, () => moveBack(record, target, moved, deps));
    } else {
      step = await deps.files.withLock(target.absolute, () =>
        restoreContent(
          {
            target,
            desired: savedContent(record, 'before'),
            isBefore: (bytes) => sameAsSaved(record, 'before', bytes),
            isAfter: (bytes) => sameAsSaved(record, 'after', bytes),
          },
          deps,
        ),
      );
    }
  } catch (error) {
    step = kept(problem(error, path), false);
  }
  return {
    change: {
      path,
      operation: record.operation,
      ...(destination === undefined ? {} : { destination }),
      outcome: step.restored ? 'restored' : 'kept',
      ...(step.restored ? {} : { reason: step.reason }),
    },
    settled: step.restored || step.settled,
  };
}

interface ContentJob {
  target: ResolvedPath;
  /** What the file must hold again. */
  desired: Buffer | 'absent' | 'altered';
  /** True when the file already is as it was before the change. */
  isBefore(bytes: Buffer | undefined): boolean;
  /** True when the file is still as the change left it. */
  isAfter(bytes: Buffer | undefined): boolean;
}

async function restoreContent(job: ContentJob, deps: RestoreDeps): Promise<Step> {
  const { target, desired } = job;
  const display = target.display;
  const now = await inspect(deps.workspace, target);
  if (now.kind === 'other') return inTheWay(display, now.what);
  const bytes = now.kind === 'file' ? now.bytes : undefined;
  if (now.kind === 'file' && bytes === undefined) return tooLarge(display, now.size);
  if (job.isBefore(bytes)) return RESTORED;
  if (desired === 'altered') {
    return kept(
      `${display}: its content from before the change was not saved exactly (secrets are redacted from saved sessions), so it is not written back; it was left as it is.`,
      true,
    );
  }
  const changed = !job.isAfter(bytes);
  const protection = deps.isProtected(target.absolute);
  if (changed || protection !== undefined) {
    const answer = await deps.ask({
      path: display,
      diffPath: display,
      operation: now.kind === 'absent' ? 'create' : desired === 'absent' ? 'delete' : 'modify',
      oldText: bytes?.toString('utf8'),
      newText: desired === 'absent' ? undefined : desired.toString('utf8'),
      protection,
    });
    if (answer.outcome !== 'allowed') return refusal(answer, display, changed, protection);
  }
  const create = desired !== 'absent';
  return withPinnedParent(deps.workspace, target.absolute, { create, display }, async (dir, name) => {
    // Only over what was inspected, and shown if it was asked.
    if (fingerprint(await inspectIn(dir, name)) !== fingerprint(now)) return changedAgain(display);
    if (desired === 'absent') {
      if (dir === undefined) return RESTORED;
      await dir.verify();
      await unlink(dir.entry(name));
      await dir.sync();
    } else {
      if (dir === undefined) throw new Error(`${target.absolute}: no directory to write in`);
      await atomicWriteIn(dir, name, desired);
    }
    return RESTORED;
  });
}

/** A move undone: the file at `to` goes back to `from`. */
async function moveBack(
  record: FileChangeRecord,
  from: ResolvedPath,
  to: ResolvedPath,
  deps: RestoreDeps,
): Promise<Step> {
  const { workspace } = deps;
  const content = savedContent(record, 'after');
  // A file too large to read when it moved has no content saved: any file counts as it.
  const isMoved = (bytes: Buffer | undefined) => record.after === null || sameAsSaved(record, 'after', bytes);
  const atTo = await inspect(workspace, to);
  const atFrom = await inspect(workspace, from);
  if (atTo.kind === 'absent') {
    if (atFrom.kind === 'file' && isMoved(atFrom.bytes)) return RESTORED;
    if (content === 'absent') {
      return kept(
        `${to.display} no longer exists, and its content was not saved (it was too large); there is nothing to move back.`,
        true,
      );
    }
    // The moved file is gone: `from` can still get its content back, if the user wants.
    return restoreContent({ target: from, desired: content, isBefore: isMoved, isAfter: () => false }, deps);
  }
  if (atTo.kind === 'other') return inTheWay(to.display, atTo.what);
  if (atFrom.kind === 'other') return inTheWay(from.display, atFrom.what);
  const changed =
    atFrom.kind === 'file' || (atTo.bytes === undefined ? record.after !== null : !isMoved(atTo.bytes));
  const protection = deps.isProtected(from.absolute) ?? deps.isProtected(to.absolute);
  if (changed || protection !== undefined) {
    const answer = await deps.ask({
      path: to.display,
      destination: from.display,
      operation: 'move',
      // Over a file at `from`: the change of its content. Else the rename, as a move's approval shows it.
      ...(atFrom.kind === 'file'
        ? { diffPath: from.display, oldText: atFrom.bytes?.toString('utf8') ?? '' }
        : { diffPath: to.display, diffNewPath: from.display, oldText: atTo.bytes?.toString('utf8') ?? '' }),
      newText: atTo.bytes?.toString('utf8') ?? '',
      protection,
    });
    if (answer.outcome !== 'allowed') return refusal(answer, to.display, changed, protection);
  }
  const toOptions = { create: false, display: to.display };
  return withPinnedParent(workspace, to.absolute, toOptions, (toDir, toName) =>
    withPinnedParent(
      workspace,
      from.absolute,
      { create: true, display: from.display },
      async (fromDir, fromName) => {
        const [nowTo, nowFrom] = [await inspectIn(toDir, toName), await inspectIn(fromDir, fromName)];
        if (fingerprint(nowTo) !== fingerprint(atTo)) return changedAgain(to.display);
        if (fingerprint(nowFrom) !== fingerprint(atFrom)) return changedAgain(from.display);
        if (toDir === undefined || fromDir === undefined) throw new Error(`${to.absolute}: no directory`);
        await moveEntry(toDir, toName, fromDir, fromName);
        return RESTORED;
      },
    ),
  );
}

type FileState =
  | { kind: 'absent' }
  /** `bytes`: undefined when larger than any content a change records. */
  | { kind: 'file'; info: Stats; size: number; bytes: Buffer | undefined }
  | { kind: 'other'; what: string };

const ABSENT: FileState = { kind: 'absent' };

function inspect(workspace: Workspace, target: ResolvedPath): Promise<FileState> {
  return withPinnedParent(workspace, target.absolute, { create: false, display: target.display }, inspectIn);
}

/** What is at `name` in `dir`, never following a link. */
async function inspectIn(dir: PinnedDir | undefined, name: string): Promise<FileState> {
  if (dir === undefined) return ABSENT;
  const info = await lstat(dir.entry(name)).catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  });
  if (info === undefined) return ABSENT;
  if (info.isSymbolicLink()) return { kind: 'other', what: 'a symbolic link' };
  if (info.isDirectory()) return { kind: 'other', what: 'a directory' };
  if (!info.isFile()) return { kind: 'other', what: 'not a regular file' };
  if (info.size > MAX_TEXT_FILE_BYTES) return { kind: 'file', info, size: info.size, bytes: undefined };
  const bytes = await readEntry(dir, name);
  return bytes === undefined ? ABSENT : { kind: 'file', info, size: bytes.length, bytes };
}

/** Equal when nothing was written there in between (an atomic write makes a new inode). */
function fingerprint(state: FileState): string {
  if (state.kind !== 'file') return state.kind === 'absent' ? 'absent' : `other:${state.what}`;
  const { dev, ino, mtimeMs } = state.info;
  return `${dev}:${ino}:${state.size}:${state.bytes === undefined ? mtimeMs : sha256(state.bytes)}`;
}

function refusal(
  answer: Exclude<RestoreAnswer, { outcome: 'allowed' }>,
  display: string,
  changed: boolean,
  protection: string | undefined,
): Step {
  switch (answer.outcome) {
    case 'declined':
      return kept(
        `The user declined${answer.feedback === undefined ? '' : ` (${answer.feedback})`}; ${display} was left as it is.`,
        true,
      );
    case 'unavailable': {
      const why = changed
        ? `${display} changed since the change was made`
        : `${display} is in a protected location (${protection ?? 'protected'})`;
      return kept(
        `${why}, and this client cannot approve restoring it (it did not declare capabilities.approve); it was left as it is. Undo again from a client that can approve, or restore it by hand.`,
        false,
      );
    }
    case 'failed':
      return kept(`The client did not answer (${answer.message}); ${display} was left as it is.`, false);
    default: {
      const exhaustive: never = answer;
      throw new Error(`unknown answer ${JSON.stringify(exhaustive)}`);
    }
  }
}

const inTheWay = (display: string, what: string): Step =>
  kept(`${display} is now ${what}; it was left as it is. Move it away and undo again.`, false);

const tooLarge = (display: string, size: number): Step =>
  kept(
    `${display} is now ${formatSize(size)}, larger than any content a change records, so it changed since; it was left as it is.`,
    false,
  );

const changedAgain = (display: string): Step =>
  kept(
    `${display} changed again while the undo was asking; it was left as it is. Undo again to retry.`,
    false,
  );

/** A path outside the workspace, or a file-system error, as a reason; anything else is a bug. */
function problem(error: unknown, display: string): string {
  if (error instanceof PathError) return `${error.message} It was left as it is.`;
  const code = errorCode(error);
  if (typeof code !== 'string') throw error;
  return `${display} could not be restored (${(error as Error).message}); it was left as it is.`;
}
