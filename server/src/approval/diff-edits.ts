/**
 * The edit script of a line diff: which lines of the old text are kept, removed or added. jsdiff's
 * Myers diff is fast for typical edits but O(N·D): seconds when thousands of lines change. So the
 * common prefix and suffix are matched here in linear time, a cheap lower bound on the edit
 * distance skips the diff when it cannot finish in time anyway, and only what remains goes to
 * jsdiff, with its `timeout` and `maxEditLength` as the hard bound.
 */
import { diffLines } from 'diff';

/** A run of lines: kept on both sides (`context`), only in the new text, or only in the old. */
export interface Edit {
  type: 'context' | 'added' | 'removed';
  count: number;
}

/** How long the diff may take before it gives up and the change is shown as a replacement. */
export interface DiffLimits {
  timeoutMs: number;
  maxEditLength?: number;
}

/**
 * What to do next: the script is known (`undefined` when the diff gives up), or the middle part
 * still needs a Myers diff, whose result (`undefined` when it gave up) `complete` turns into the
 * whole script. The split lets computeDiffAsync run only the expensive step in a worker.
 */
export type EditPlan =
  | { kind: 'done'; edits: Edit[] | undefined }
  | {
      kind: 'myers';
      oldText: string;
      newText: string;
      complete(middle: Edit[] | undefined): Edit[] | undefined;
    };

// A floor on jsdiff's cost per step of the Myers search, measured at 60–470 ns on a development machine
// core. Set well below that, so a diff is skipped only when even a much faster machine could not
// finish it in time; the timeout stays the real bound.
const NANOSECONDS_PER_STEP_FLOOR = 20;

/** The lines of a text with their terminators, split exactly as jsdiff's diffLines splits them. */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
    lines.push(text.slice(start, end + 1));
    start = end + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/** The script for two line arrays (and the texts they were split from). */
export function planEdits(
  oldText: string,
  newText: string,
  oldLines: readonly string[],
  newLines: readonly string[],
  limits: DiffLimits,
): EditPlan {
  const shorter = Math.min(oldLines.length, newLines.length);
  let prefix = 0;
  while (prefix < shorter && oldLines[prefix] === newLines[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < shorter - prefix &&
    oldLines[oldLines.length - 1 - suffix] === newLines[newLines.length - 1 - suffix]
  )
    suffix++;
  const oldMiddle = oldLines.slice(prefix, oldLines.length - suffix);
  const newMiddle = newLines.slice(prefix, newLines.length - suffix);
  const wrap = (middle: Edit[]): Edit[] =>
    [
      { type: 'context' as const, count: prefix },
      ...middle,
      { type: 'context' as const, count: suffix },
    ].filter((edit) => edit.count > 0);

  if (oldMiddle.length === 0 || newMiddle.length === 0) {
    return {
      kind: 'done',
      edits: wrap([
        { type: 'removed', count: oldMiddle.length },
        { type: 'added', count: newMiddle.length },
      ]),
    };
  }
  if (cannotFinish(oldMiddle, newMiddle, limits)) return { kind: 'done', edits: undefined };
  const before = (lines: readonly string[]) =>
    lines.slice(0, prefix).reduce((sum, line) => sum + line.length, 0);
  const after = (lines: readonly string[]) =>
    lines.slice(lines.length - suffix).reduce((sum, line) => sum + line.length, 0);
  return {
    kind: 'myers',
    oldText: oldText.slice(before(oldLines), oldText.length - after(oldLines)),
    newText: newText.slice(before(newLines), newText.length - after(newLines)),
    complete: (middle) => (middle === undefined ? undefined : wrap(normalise(middle))),
  };
}

/**
 * True when the diff certainly needs more than the limits allow. Every line of one side that has
 * no equal line left on the other must be removed or added, which bounds the edit distance D from
 * below; Myers then takes at least min(D²/2, D·min(n, m)) steps.
 */
function cannotFinish(oldLines: readonly string[], newLines: readonly string[], limits: DiffLimits): boolean {
  const unmatched = new Map<string, number>();
  for (const line of oldLines) unmatched.set(line, (unmatched.get(line) ?? 0) + 1);
  let common = 0;
  for (const line of newLines) {
    const left = unmatched.get(line);
    if (left !== undefined && left > 0) {
      unmatched.set(line, left - 1);
      common++;
    }
  }
  const distance = oldLines.length + newLines.length - 2 * common;
  if (limits.maxEditLength !== undefined && distance > limits.maxEditLength) return true;
  const steps = Math.min((distance * distance) / 2, distance * Math.min(oldLines.length, newLines.length));
  return (steps * NANOSECONDS_PER_STEP_FLOOR) / 1e6 > limits.timeoutMs;
}

/** jsdiff's Myers line diff with its limits; undefined when it gave up. */
export function myersEdits(oldText: string, newText: string, limits: DiffLimits): Edit[] | undefined {
  const changes = diffLines(
    oldText,
    newText,
    limits.maxEditLength === undefined
      ? { timeout: limits.timeoutMs }
      : { timeout: limits.timeoutMs, maxEditLength: limits.maxEditLength },
  );
  return changes?.map((change) => ({
    type: change.added ? 'added' : change.removed ? 'removed' : 'context',
    count: change.count,
  }));
}

/**
 * Merges adjacent runs of removed and added lines into one block, removals first, the order
 * unified diffs conventionally show them in.
 */
function normalise(edits: readonly Edit[]): Edit[] {
  const result: Edit[] = [];
  let removed = 0;
  let added = 0;
  const flush = () => {
    if (removed > 0) result.push({ type: 'removed', count: removed });
    if (added > 0) result.push({ type: 'added', count: added });
    removed = added = 0;
  };
  for (const edit of edits) {
    if (edit.count === 0) continue;
    if (edit.type === 'removed') removed += edit.count;
    else if (edit.type === 'added') added += edit.count;
    else {
      flush();
      result.push({ ...edit });
    }
  }
  flush();
  return result;
}
