/**
 * Approvals that edit (protocol §7.3.2) in an LSP editor: a change of several hunks waits with
 * one code action per hunk on the lines it changes — apply only this hunk, or all but it — next
 * to the whole-change answers (allow applies every hunk, reject none). LSP has no diff view to
 * pick hunks in, so the code itself is where they are picked: the cursor on a changed line offers
 * that hunk. An editor with showMessageRequest gets the same choice as buttons while the change
 * is small enough for a row of buttons.
 */
import { resolve } from 'node:path';
import type { ApproveParams, DiffHunk } from '#protocol';
import type * as z from 'zod';

type Hunk = z.infer<typeof DiffHunk>;

/** One hunk of a pending change, where it is in the file as the editor has it now. */
export interface PendingHunk {
  id: string;
  /** Absolute path of the file the change is for. */
  path: string;
  /** 0-based, inclusive: the lines the hunk removes, or the line it inserts before. */
  startLine: number;
  endLine: number;
  /** `n of m`, for titles. */
  label: string;
  /** The ids of every other hunk of the change (applied by "all but this hunk"). */
  others: string[];
}

/** An answer naming hunks: `allow` with `hunks` (§7.3.2). */
export interface HunkAnswer {
  title: string;
  hunks: string[];
}

/** Above this many hunks, the buttons of showMessageRequest would be a wall: code actions only. */
const MAX_HUNK_BUTTONS = 4;

/**
 * The hunks of `params` that an answer may name, placed in the workspace `root`; empty when the
 * request cannot be answered hunk by hunk (not a created or modified file, an undo, a server
 * before 0.3.0 that sends no ids) or has one hunk only (allow and reject say it all).
 */
export function pendingHunks(params: ApproveParams, root: string | undefined): PendingHunk[] {
  if (root === undefined || params.kind !== 'file_change') return [];
  if (params.operation !== 'create' && params.operation !== 'modify') return [];
  if (params.toolName === 'session/undo') return [];
  const hunks = params.diff.hunks;
  if (hunks.length < 2 || hunks.some((hunk) => hunk.id === undefined)) return [];
  const ids = hunks.map((hunk) => hunk.id as string);
  const path = resolve(root, params.path);
  return hunks.map((hunk, index) => ({
    id: ids[index] as string,
    path,
    ...linesOf(hunk, params.operation === 'create'),
    label: `${index + 1} of ${hunks.length}`,
    others: ids.filter((_, other) => other !== index),
  }));
}

/**
 * Where a hunk is in the file as it is now: the lines it removes, else the line it inserts before.
 * A file being created is not open yet: its hunks are placed by their lines in the new text.
 */
function linesOf(hunk: Hunk, created: boolean): { startLine: number; endLine: number } {
  const changed = hunk.lines.filter((line) => line.type !== 'context');
  const numbers = changed
    .map((line) => (created ? line.newLine : line.type === 'removed' ? line.oldLine : undefined))
    .filter((line): line is number => line !== undefined);
  if (numbers.length > 0) return { startLine: Math.min(...numbers) - 1, endLine: Math.max(...numbers) - 1 };
  // Only added lines: they go after the last old line above them (0-based, that is its number).
  let after = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1;
  for (const line of hunk.lines) {
    if (line.type === 'added') break;
    if (line.oldLine !== undefined) after = line.oldLine;
  }
  return { startLine: after, endLine: after };
}

/** The two answers a hunk offers: it alone, or every other hunk. */
export function hunkAnswers(hunk: PendingHunk, lines: string): HunkAnswer[] {
  return [
    { title: `apply only hunk ${hunk.label} (${lines})`, hunks: [hunk.id] },
    { title: `apply all but hunk ${hunk.label} (${lines})`, hunks: hunk.others },
  ];
}

/** "line 4" or "lines 4–7", 1-based, for titles. */
export function linesLabel(hunk: PendingHunk): string {
  return hunk.startLine === hunk.endLine
    ? `line ${hunk.startLine + 1}`
    : `lines ${hunk.startLine + 1}–${hunk.endLine + 1}`;
}

/** The buttons of a change's hunks for showMessageRequest: one "only this hunk" each, if few. */
export function hunkButtons(hunks: readonly PendingHunk[]): HunkAnswer[] {
  if (hunks.length > MAX_HUNK_BUTTONS) return [];
  return hunks.map((hunk) => ({ title: `only hunk ${hunk.label} (${linesLabel(hunk)})`, hunks: [hunk.id] }));
}

/** Whether the 0-based lines `start`–`end` (inclusive) touch `hunk`, in the file at `path`. */
export function touches(hunk: PendingHunk, path: string | undefined, start: number, end: number): boolean {
  return path === hunk.path && start <= hunk.endLine && end >= hunk.startLine;
}
