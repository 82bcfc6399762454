/**
 * The content of a `file_change` record: what a tool's bytes become when saved, and what
 * `session/undo` may trust of them when it reads them back. Text is saved as text (an export shows
 * it); a side that is not UTF-8 makes both sides base64, so a binary file comes back byte for byte.
 *
 * Each side carries the SHA-256 of the bytes, because what is saved is not always what was on
 * disk: every saved line has the keys and secret answers redacted, so a `before` that held one
 * loads with `[redacted]` in its place, and must never be written back. The hash of `after` also
 * says whether the file is still what the change left when the saved text of it was redacted.
 */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { FileChangeRecord } from './summary.ts';

export type { FileChangeRecord } from './summary.ts';

export type FileOperation = FileChangeRecord['operation'];

/** A change as the tools report it (tools/types.ts AppliedChange): the bytes on each side. */
export interface FileChangeContent {
  path: string;
  operation: FileOperation;
  /** Undefined: there was no file (or, for a move, it was too large to read). */
  before: Uint8Array | undefined;
  after: Uint8Array | undefined;
  destination?: string;
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function fileChangeRecord(
  change: FileChangeContent,
  ids: {
    runId: string;
    changeId: string;
    toolCallId: string;
    agentId: string;
    workspaceRoot: string;
    at: string;
  },
): FileChangeRecord {
  const binary = [change.before, change.after].some((side) => side !== undefined && !isUtf8(side));
  const encode = (side: Uint8Array | undefined) =>
    side === undefined ? null : Buffer.from(side).toString(binary ? 'base64' : 'utf8');
  return {
    type: 'file_change',
    runId: ids.runId,
    changeId: ids.changeId,
    toolCallId: ids.toolCallId,
    agentId: ids.agentId,
    workspaceRoot: ids.workspaceRoot,
    path: change.path,
    operation: change.operation,
    before: encode(change.before),
    after: encode(change.after),
    ...(change.destination === undefined ? {} : { destination: change.destination }),
    ...(binary ? { encoding: 'base64' as const } : {}),
    ...(change.before === undefined ? {} : { beforeHash: sha256(change.before) }),
    ...(change.after === undefined ? {} : { afterHash: sha256(change.after) }),
    at: ids.at,
  };
}

/**
 * A side's bytes as saved: `absent` for null (no file; for a move, not read), `altered` when
 * the saved content is not what was on disk (a secret was redacted out of it).
 */
export function savedContent(
  record: FileChangeRecord,
  side: 'before' | 'after',
): Buffer | 'absent' | 'altered' {
  const saved: unknown = record[side];
  if (saved === null) return 'absent';
  // A damaged or foreign record: nothing to trust, and never "no file".
  if (typeof saved !== 'string') return 'altered';
  const bytes = Buffer.from(saved, record.encoding === 'base64' ? 'base64' : 'utf8');
  const hash = side === 'before' ? record.beforeHash : record.afterHash;
  return hash === undefined || sha256(bytes) === hash ? bytes : 'altered';
}

/** True when `current` (undefined: no file) is what `side` of the change recorded. */
export function sameAsSaved(
  record: FileChangeRecord,
  side: 'before' | 'after',
  current: Uint8Array | undefined,
): boolean {
  if (record[side] === null) return current === undefined;
  if (current === undefined || typeof record[side] !== 'string') return false;
  const hash = side === 'before' ? record.beforeHash : record.afterHash;
  if (hash !== undefined) return sha256(current) === hash;
  const saved = savedContent(record, side);
  return typeof saved !== 'string' && saved.equals(current);
}
