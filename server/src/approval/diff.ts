/**
 * The diff shown in every file-change approval: hunks with line numbers on both sides, and the same
 * change as unified diff text. Control characters are made visible in both, so the user sees what
 * will be written; counts and line numbers refer to the real content. A diff that would take too
 * long becomes a whole-file replacement view, so an approval never waits on a pathological input.
 */
import type * as z from 'zod';
import type { DiffHunk, DiffLine, FileDiff } from '#protocol';
import { type DiffLimits, type Edit, myersEdits, planEdits, splitLines } from './diff-edits.ts';
import { myersInWorker } from './diff-worker.ts';
import { visibleControlChars } from './visible-chars.ts';

export { visibleControlChars } from './visible-chars.ts';

export type { FileDiff };
type Hunk = z.infer<typeof DiffHunk>;
type Line = z.infer<typeof DiffLine>;

export interface DiffOptions {
  /** Unchanged lines shown around each change. Default 3. */
  context?: number;
  /** How long the diff may search before showing a replacement instead. Default 200 ms. */
  timeoutMs?: number;
  /** Largest edit distance (lines removed + added) searched for; beyond it, a replacement. */
  maxEditLength?: number;
  /** A rename: the path on the new side (`+++ b/<newPath>`); default `path`. */
  newPath?: string;
}

// Below this size a worker round trip costs more than the diff it would run.
const INLINE_LIMIT = 64 * 1024;

/**
 * The change from `oldText` (undefined: the file is created) to `newText` (undefined: deleted).
 * Synchronous and bounded: it returns within about `timeoutMs` plus the linear time to build the
 * view, falling back to `replacement: true` (one hunk removing every old line and adding every
 * new one) when the diff gives up. Text containing a NUL byte is shown as a binary change. When
 * every line break on both sides is CRLF, the CR counts as part of the line break and is not
 * shown; otherwise (LF, mixed, or changed line endings) it is content and shows as `␍`.
 */
export function computeDiff(
  path: string,
  oldText: string | undefined,
  newText: string | undefined,
  options: DiffOptions = {},
): FileDiff {
  const input = prepare(path, oldText, newText, options);
  if (input.binary !== undefined) return input.binary;
  const plan = planEdits(input.oldText, input.newText, input.oldLines, input.newLines, input.limits);
  const edits =
    plan.kind === 'done' ? plan.edits : plan.complete(myersEdits(plan.oldText, plan.newText, input.limits));
  return render(input, edits);
}

/**
 * computeDiff off the event loop: the Myers search runs in a shared worker thread, so a
 * pathological diff never blocks other agents. Small inputs (both under 64 KiB) are diffed
 * inline. Resolves to what computeDiff returns for the same input (unless only one of them runs
 * out of time), and never rejects for a diff that cannot be computed: a worker that fails or
 * overruns yields the replacement view.
 */
export async function computeDiffAsync(
  path: string,
  oldText: string | undefined,
  newText: string | undefined,
  options: DiffOptions = {},
): Promise<FileDiff> {
  const input = prepare(path, oldText, newText, options);
  if (input.binary !== undefined) return input.binary;
  const plan = planEdits(input.oldText, input.newText, input.oldLines, input.newLines, input.limits);
  if (plan.kind === 'done') return render(input, plan.edits);
  const small = input.oldText.length < INLINE_LIMIT && input.newText.length < INLINE_LIMIT;
  const middle = small
    ? myersEdits(plan.oldText, plan.newText, input.limits)
    : await myersInWorker(plan.oldText, plan.newText, input.limits);
  return render(input, plan.complete(middle));
}

interface Input {
  path: string;
  newPath: string;
  created: boolean;
  deleted: boolean;
  oldText: string;
  newText: string;
  oldLines: string[];
  newLines: string[];
  limits: DiffLimits;
  context: number;
  binary: FileDiff | undefined;
}

function prepare(
  path: string,
  oldText: string | undefined,
  newText: string | undefined,
  options: DiffOptions,
): Input {
  if (oldText === undefined && newText === undefined) {
    throw new TypeError(
      `computeDiff(${JSON.stringify(path)}): both the old and the new text are undefined; pass '' for an empty file`,
    );
  }
  const context = options.context ?? 3;
  if (!Number.isInteger(context) || context < 0) {
    throw new RangeError(`DiffOptions.context must be a whole number of lines, 0 or more; got ${context}`);
  }
  const base = {
    path,
    newPath: options.newPath ?? path,
    created: oldText === undefined,
    deleted: newText === undefined,
    oldText: oldText ?? '',
    newText: newText ?? '',
    limits: { timeoutMs: options.timeoutMs ?? 200, maxEditLength: options.maxEditLength },
    context,
  };
  if (base.oldText.includes('\0') || base.newText.includes('\0')) {
    return { ...base, oldLines: [], newLines: [], binary: binaryDiff(base) };
  }
  return {
    ...base,
    oldLines: splitLines(base.oldText),
    newLines: splitLines(base.newText),
    binary: undefined,
  };
}

function headers(input: Pick<Input, 'path' | 'newPath' | 'created' | 'deleted'>): string {
  const oldPath = visibleControlChars(input.path);
  const newPath = visibleControlChars(input.newPath);
  return `--- ${input.created ? '/dev/null' : `a/${oldPath}`}\n+++ ${input.deleted ? '/dev/null' : `b/${newPath}`}\n`;
}

function binaryDiff(
  input: Pick<Input, 'path' | 'newPath' | 'created' | 'deleted' | 'oldText' | 'newText'>,
): FileDiff {
  const oldBytes = Buffer.byteLength(input.oldText);
  const newBytes = Buffer.byteLength(input.newText);
  const summary = input.created
    ? `Binary file created (${newBytes} bytes)`
    : input.deleted
      ? `Binary file deleted (${oldBytes} bytes)`
      : `Binary file changed (${oldBytes} bytes → ${newBytes} bytes)`;
  return { added: 0, removed: 0, hunks: [], unifiedDiff: `${headers(input)}${summary}\n`, replacement: true };
}

/**
 * Builds hunks and unified text from the edit script (undefined: the replacement view). Hunk
 * headers follow unified diff: an empty range starts at the line before it (0 at the top).
 */
function render(input: Input, script: Edit[] | undefined): FileDiff {
  const replacement = script === undefined;
  const edits: Edit[] = script ?? [
    { type: 'removed', count: input.oldLines.length },
    { type: 'added', count: input.newLines.length },
  ];
  const { oldLines, newLines, context } = input;
  const display = lineDisplay(input);
  const hunks: Hunk[] = [];
  let unified = headers(input);
  let added = 0;
  let removed = 0;
  let hunk: { oldFrom: number; newFrom: number; lines: Line[]; text: string[] } | undefined;
  let oldAt = 0;
  let newAt = 0;

  const emit = (type: Line['type'], oldIndex: number, newIndex: number) => {
    const token = type === 'added' ? (newLines[newIndex] as string) : (oldLines[oldIndex] as string);
    const text = display(token);
    const line: Line = { type, text };
    if (type !== 'added') line.oldLine = oldIndex + 1;
    if (type !== 'removed') line.newLine = newIndex + 1;
    hunk?.lines.push(line);
    hunk?.text.push(`${type === 'context' ? ' ' : type === 'added' ? '+' : '-'}${text}`);
    if (!token.endsWith('\n')) hunk?.text.push('\\ No newline at end of file');
  };
  const close = () => {
    if (hunk === undefined) return;
    const oldCount = hunk.lines.filter((line) => line.type !== 'added').length;
    const newCount = hunk.lines.filter((line) => line.type !== 'removed').length;
    const oldStart = oldCount === 0 ? hunk.oldFrom : hunk.oldFrom + 1;
    const newStart = newCount === 0 ? hunk.newFrom : hunk.newFrom + 1;
    hunks.push({ oldStart, oldLines: oldCount, newStart, newLines: newCount, lines: hunk.lines });
    unified += `@@ -${range(oldStart, oldCount)} +${range(newStart, newCount)} @@\n${hunk.text.join('\n')}\n`;
    hunk = undefined;
  };

  for (const [index, edit] of edits.entries()) {
    if (edit.type === 'context') {
      if (hunk !== undefined) {
        // A gap of up to twice the context joins two changes into one hunk.
        const last = index === edits.length - 1;
        const joins = !last && edit.count <= 2 * context;
        const shown = joins ? edit.count : Math.min(context, edit.count);
        for (let i = 0; i < shown; i++) emit('context', oldAt + i, newAt + i);
        if (!joins) close();
      }
      oldAt += edit.count;
      newAt += edit.count;
      continue;
    }
    if (hunk === undefined) {
      const lead = Math.min(context, oldAt, newAt);
      hunk = { oldFrom: oldAt - lead, newFrom: newAt - lead, lines: [], text: [] };
      for (let i = lead; i > 0; i--) emit('context', oldAt - i, newAt - i);
    }
    for (let i = 0; i < edit.count; i++) {
      if (edit.type === 'added') emit('added', oldAt, newAt + i);
      else emit('removed', oldAt + i, newAt);
    }
    if (edit.type === 'added') {
      newAt += edit.count;
      added += edit.count;
    } else {
      oldAt += edit.count;
      removed += edit.count;
    }
  }
  close();
  return { added, removed, hunks, unifiedDiff: unified, replacement };
}

function range(start: number, count: number): string {
  return count === 1 ? `${start}` : `${start},${count}`;
}

/**
 * How a line reads on screen: without its line break, control characters visible. When every line
 * break on both sides is CRLF, the CR is part of the line break and not shown; otherwise (LF files,
 * mixed files, a change of line endings) a CR before LF is content and shows as `␍`.
 */
function lineDisplay(input: Input): (token: string) => string {
  const crlfOnly = (text: string) => text.includes('\n') && !/(^|[^\r])\n/.test(text);
  const sides = [...(input.created ? [] : [input.oldText]), ...(input.deleted ? [] : [input.newText])];
  const hideCr =
    sides.some((text) => text.includes('\n')) &&
    sides.every((text) => !text.includes('\n') || crlfOnly(text));
  return (token) => {
    let text = token.endsWith('\n') ? token.slice(0, -1) : token;
    if (hideCr && token.endsWith('\r\n')) text = text.slice(0, -1);
    return visibleControlChars(text);
  };
}
