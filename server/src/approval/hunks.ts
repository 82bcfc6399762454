/**
 * Approvals that edit (§7.3.2): the hunks of a file change get ids a client can name, an `allow`
 * may accept only some of them or carry the person's own version of the file or command, and the
 * model is told exactly what was written. An answer is checked against the request it answers
 * before anything happens: an id the request did not carry, or an edit the request cannot take,
 * makes the whole answer invalid, so nothing is written rather than a guess at what was meant.
 */
import { createHash } from 'node:crypto';
import type * as z from 'zod';
import type { ApproveParams, ApproveResult, DiffHunk, FileDiff } from '#protocol';
import { computeDiff } from './diff.ts';
import { splitLines } from './diff-edits.ts';

type Hunk = z.infer<typeof DiffHunk>;

/** How far an `allow` answer departs from the proposal it was shown. */
export type EditedAnswer =
  /** Only these hunks of `diff` (the one shown) are applied. */
  | { kind: 'hunks'; accepted: ReadonlySet<string>; diff: FileDiff }
  /** The person's version of the file is written instead of the proposal. */
  | { kind: 'content'; content: string }
  /** The person's command line runs instead: a new command, for the gate to check again. */
  | { kind: 'command'; command: string };

/**
 * A hunk's id: a hash of where it is and what it changes, so the same change of the same file
 * has the same id each time it is asked (a re-asked approval after the file changed on disk keeps
 * the ids of the hunks it still has), and two hunks of one diff never share one.
 */
export function hunkId(hunk: Omit<Hunk, 'id'>): string {
  const hash = createHash('sha256');
  hash.update(`${hunk.oldStart},${hunk.oldLines} ${hunk.newStart},${hunk.newLines}\n`);
  for (const line of hunk.lines) hash.update(`${line.type[0]}${line.text}\n`);
  return `h${hash.digest('hex').slice(0, 10)}`;
}

/** The diff with an `id` on every hunk. */
export function withHunkIds(diff: FileDiff): FileDiff {
  return { ...diff, hunks: diff.hunks.map((hunk) => ({ ...hunk, id: hunkId(hunk) })) };
}

/** What a request can take besides a plain `allow`. */
export interface Editable {
  /** `hunks` and `content` (a file created or modified). */
  file: boolean;
  /** `command` (a command that is not an escalation). */
  command: boolean;
}

/**
 * Reads an `allow` answer against the request `shown`: undefined for a plain allow (an edit that
 * changes nothing counts as one), the edit, or `invalid` saying what was wrong with the answer.
 */
export function readAllowAnswer(
  answer: Extract<ApproveResult, { decision: 'allow' }>,
  shown: ApproveParams,
  editable: Editable,
): EditedAnswer | { invalid: string } | undefined {
  const given = (['hunks', 'content', 'command'] as const).filter((field) => answer[field] !== undefined);
  if (given.length > 1) {
    return { invalid: `it carries ${given.join(' and ')}; an allow carries at most one of them` };
  }
  if (answer.hunks !== undefined) return readHunks(answer.hunks, shown, editable);
  if (answer.content !== undefined) {
    if (shown.kind !== 'file_change' || !editable.file) return { invalid: notEditable('content', shown) };
    return { kind: 'content', content: answer.content };
  }
  if (answer.command !== undefined) {
    if (shown.kind !== 'command' || !editable.command) return { invalid: notEditable('command', shown) };
    return answer.command === shown.command ? undefined : { kind: 'command', command: answer.command };
  }
  return undefined;
}

function readHunks(
  ids: readonly string[],
  shown: ApproveParams,
  editable: Editable,
): EditedAnswer | { invalid: string } | undefined {
  if (shown.kind !== 'file_change' || !editable.file) return { invalid: notEditable('hunks', shown) };
  const known = shown.diff.hunks.map((hunk) => hunk.id ?? hunkId(hunk));
  const unknown = ids.filter((id) => !known.includes(id));
  if (unknown.length > 0) {
    const offered = known.length === 0 ? 'it had none' : `it had ${known.join(', ')}`;
    return {
      invalid: `hunk id${unknown.length === 1 ? '' : 's'} ${unknown.map((id) => JSON.stringify(id)).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not in the request (${offered})`,
    };
  }
  const accepted = new Set(ids);
  if (known.length > 0 && known.every((id) => accepted.has(id))) return undefined;
  return { kind: 'hunks', accepted, diff: shown.diff };
}

function notEditable(field: 'hunks' | 'content' | 'command', shown: ApproveParams): string {
  const what =
    shown.kind === 'command'
      ? shown.escalation === undefined
        ? 'a command'
        : 'an escalation (it can only be allowed or rejected as shown)'
      : shown.kind === 'file_change'
        ? `a ${shown.operation} of a file`
        : `a \`${shown.kind}\` request (it can only be allowed or rejected as shown)`;
  const takes =
    field === 'command'
      ? 'only a command request takes `command`'
      : '`hunks` and `content` are for files created or modified';
  return `\`${field}\` does not apply to ${what}: ${takes}`;
}

/**
 * The text with only the `accepted` hunks of `diff` (computed from `oldText` to `newText`) applied.
 * The hunks are applied from the real texts, not their shown lines (where control characters are
 * made visible): outside the accepted hunks every line is the old one, byte for byte.
 */
export function applyHunks(
  oldText: string,
  newText: string,
  diff: FileDiff,
  accepted: ReadonlySet<string>,
): string {
  const oldLines = splitLines(oldText);
  const newLines = splitLines(newText);
  const out: string[] = [];
  let oldAt = 0;
  for (const hunk of diff.hunks) {
    // An empty side starts after the line it names (unified diff); a non-empty one at it.
    const oldFrom = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1;
    const newFrom = hunk.newLines === 0 ? hunk.newStart : hunk.newStart - 1;
    out.push(...oldLines.slice(oldAt, oldFrom));
    out.push(
      ...(accepted.has(hunk.id ?? hunkId(hunk))
        ? newLines.slice(newFrom, newFrom + hunk.newLines)
        : oldLines.slice(oldFrom, oldFrom + hunk.oldLines)),
    );
    oldAt = oldFrom + hunk.oldLines;
  }
  out.push(...oldLines.slice(oldAt));
  return out.join('');
}

/** Bound on the text of hunks or of a diff quoted to the model, so an edit cannot flood its context. */
const MAX_QUOTED_CHARS = 20_000;

/** One hunk as unified diff text: its header and its lines. */
function hunkText(hunk: Hunk): string {
  const range = (start: number, count: number) => (count === 1 ? `${start}` : `${start},${count}`);
  const lines = hunk.lines.map(
    (line) => `${line.type === 'context' ? ' ' : line.type === 'added' ? '+' : '-'}${line.text}`,
  );
  return `@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@\n${lines.join('\n')}`;
}

function bounded(text: string): string {
  return text.length <= MAX_QUOTED_CHARS
    ? text
    : `${text.slice(0, MAX_QUOTED_CHARS)}\n[… ${text.length - MAX_QUOTED_CHARS} more characters not shown; read the file for the rest]`;
}

/**
 * What the model reads after a partial allow: which hunks were applied and which were not, with
 * their text (line numbers of the proposal's diff), so it neither assumes the rejected ones are
 * in the file nor silently tries them again.
 */
export function describePartial(path: string, diff: FileDiff, accepted: ReadonlySet<string>): string {
  const applied = diff.hunks.filter((hunk) => accepted.has(hunk.id ?? hunkId(hunk)));
  const rejected = diff.hunks.filter((hunk) => !accepted.has(hunk.id ?? hunkId(hunk)));
  const list = (hunks: Hunk[]) => hunks.map(hunkText).join('\n');
  const parts = [
    `The user accepted ${applied.length} of the ${diff.hunks.length} hunks of your change to ${path}; only those were written.`,
  ];
  if (applied.length > 0) parts.push(`Applied:\n${list(applied)}`);
  parts.push(`Rejected (not in the file; do not apply them again unless the user asks):\n${list(rejected)}`);
  return bounded(parts.join('\n'));
}

/**
 * What the model reads after the person edited the proposal: their changes as a diff from the
 * proposal to what was written, so the model's next edit builds on them instead of undoing them.
 */
export function describeEdited(path: string, proposal: string | undefined, written: string): string {
  const diff = computeDiff(path, proposal ?? '', written);
  return bounded(
    `The user edited your proposed content of ${path} before it was written. The file now holds your proposal with the user's changes below (a diff from your proposal to what was written); keep them in later edits:\n${diff.unifiedDiff.trimEnd()}`,
  );
}
