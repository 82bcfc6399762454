/**
 * What the file tools share: resolving a path into a result the model can act on, turning
 * file-system errors into tool errors, spotting binary content, numbering lines, and the
 * not-found hint that names the closest entries of the directory.
 */
import { isUtf8 } from 'node:buffer';
import { lstat, readdir } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { readEntry, withPinnedParent } from '../../workspace/pinned-dir.ts';
import { PathError, type ResolvedPath } from '../../workspace/workspace.ts';
import { type ToolContext, type ToolResult, toolError } from '../types.ts';
import { errorCode } from '../../support/errno.ts';

/** A resolved path, or the error to hand back to the model. */
export type Resolution = ResolvedPath | { error: ToolResult };

/** Resolves `input` through the workspace boundary; a PathError becomes a tool error of its kind. */
export async function resolveTarget(
  context: ToolContext,
  mode: 'read' | 'write',
  input: string,
): Promise<Resolution> {
  try {
    return mode === 'read'
      ? await context.workspace.resolveForRead(input)
      : await context.workspace.resolveForWrite(input);
  } catch (error) {
    if (error instanceof PathError) return { error: toolError(error.kind, error.message) };
    throw error;
  }
}

/**
 * Maps a file-system error (or a PathError from re-checking a path at the moment of a change) to
 * a tool error; anything else is rethrown (a bug, reported as internal).
 */
export function fsErrorResult(error: unknown, display: string): ToolResult {
  if (error instanceof PathError) return toolError(error.kind, error.message);
  const code = errorCode(error);
  if (typeof code !== 'string') throw error;
  switch (code) {
    case 'ENOENT':
      return toolError('not_found', `${display} does not exist (or a directory on its path does not).`);
    case 'EACCES':
    case 'EPERM':
      return toolError(
        'permission_denied',
        `Permission denied for ${display}. The user has to change its permissions.`,
      );
    case 'ENOTDIR':
      return toolError(
        'not_a_directory',
        `A component of ${display} is a file, not a directory. Check the path.`,
      );
    case 'EISDIR':
      return toolError('is_directory', `${display} is a directory. Use list_dir to see its contents.`);
    case 'ELOOP':
      return toolError(
        'invalid_path',
        `${display} is a symbolic link that cannot be followed (a loop, or a link where a file is needed).`,
      );
    case 'ENOSPC':
      return toolError('io_error', `No space left on the device while writing ${display}.`);
    case 'EROFS':
      return toolError('permission_denied', `${display} is on a read-only file system.`);
    default:
      return toolError('io_error', `${display}: ${(error as Error).message}`);
  }
}

/** `1234` → `1.2 KB`; bytes below 1 KB are exact. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** Text files larger than this are not loaded (to read, to edit, or to show in an approval diff). */
export const MAX_TEXT_FILE_BYTES = 16 * 1024 * 1024;

/** How much of a file is sniffed for binary content. */
export const SNIFF_BYTES = 8192;

// Controls that occur in text: backspace, tab, newline, vertical tab, form feed, CR and ESC (colour codes in logs).
const TEXT_CONTROLS = new Set([0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1b]);

/** True when the sample looks binary: a NUL byte, or a tenth of it other controls or invalid UTF-8. */
export function looksBinary(sample: Uint8Array): boolean {
  const head = sample.subarray(0, SNIFF_BYTES);
  let suspicious = 0;
  for (const byte of head) {
    if (byte === 0) return true;
    if (byte < 0x20 && !TEXT_CONTROLS.has(byte)) suspicious++;
  }
  if (!isUtf8(head)) {
    // The sample may end inside a multi-byte character; that one replacement is not evidence.
    suspicious += Math.max(0, decodeUtf8(head).split('\uFFFD').length - 2);
  }
  return suspicious * 10 > head.length;
}

/** A name for a binary format, from its magic number or else its extension. */
export function describeBinary(sample: Uint8Array, path: string): string {
  const starts = (...bytes: number[]) => bytes.every((byte, index) => sample[index] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47)) return 'PNG image';
  if (starts(0xff, 0xd8, 0xff)) return 'JPEG image';
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'GIF image';
  if (starts(0x52, 0x49, 0x46, 0x46) && sample[8] === 0x57 && sample[9] === 0x45) return 'WebP image';
  if (starts(0x25, 0x50, 0x44, 0x46)) return 'PDF document';
  if (starts(0x50, 0x4b, 0x03, 0x04)) return 'ZIP archive (or a format built on it: jar, docx, xlsx)';
  if (starts(0x1f, 0x8b)) return 'gzip archive';
  if (starts(0x7f, 0x45, 0x4c, 0x46)) return 'ELF executable or library';
  if (starts(0x00, 0x61, 0x73, 0x6d)) return 'WebAssembly module';
  if (starts(0x53, 0x51, 0x4c, 0x69, 0x74, 0x65)) return 'SQLite database';
  if (starts(0xcf, 0xfa, 0xed, 0xfe) || starts(0xca, 0xfe, 0xba, 0xbe))
    return 'Mach-O executable or Java class';
  const extension = extname(path).toLowerCase();
  return extension === '' ? 'binary data' : `binary data (${extension} file)`;
}

/** Decodes UTF-8, invalid bytes as U+FFFD, a leading BOM kept (so the text hashes and round-trips as read). */
export function decodeUtf8(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
}

/** The lines of a text, without the empty one after a final newline; a CR before the newline is kept. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  return lines;
}

/** Width of the line-number column for a file of `total` lines: at least 5, so short files align like long ones. */
export function numberWidth(total: number): number {
  return Math.max(5, String(total).length);
}

/** One numbered line as read_file shows it: `   12│ text` (the number right-aligned, CR dropped). */
export function numberedLine(lineNumber: number, text: string, width: number): string {
  return `${String(lineNumber).padStart(width)}│ ${text.endsWith('\r') ? text.slice(0, -1) : text}`;
}

/**
 * The `not_found` result for a missing path, with the closest names in its directory (or the
 * nearest missing directory) when they are cheap to find.
 */
export async function notFoundResult(context: ToolContext, target: ResolvedPath): Promise<ToolResult> {
  let missing = target.absolute;
  let dir = dirname(missing);
  // Report the first directory that does not exist, not a file deep inside it.
  while (dir !== missing && context.workspace.contains(dir) && !(await isDirectory(dir))) {
    missing = dir;
    dir = dirname(dir);
  }
  const shown = context.workspace.display(missing);
  let message =
    missing === target.absolute
      ? `${target.display} does not exist.`
      : `${target.display} does not exist: there is no directory ${shown}.`;
  if (context.workspace.contains(dir)) {
    const names = await readdir(dir).catch(() => [] as string[]);
    const close = closestNames(basename(missing), names);
    if (close.length > 0) {
      message += ` Similar names in ${context.workspace.display(dir)}: ${close.map((name) => context.workspace.display(join(dir, name))).join(', ')}.`;
    }
  }
  return toolError('not_found', `${message} Use list_dir or find_file to look around.`);
}

async function isDirectory(absolute: string): Promise<boolean> {
  return (await lstat(absolute).catch(() => undefined))?.isDirectory() === true;
}

/** Up to three names close to `wanted`: same name in another case or extension, or a small edit away. */
export function closestNames(wanted: string, names: readonly string[]): string[] {
  const lower = wanted.toLowerCase();
  const stem = lower.slice(0, lower.length - extname(lower).length) || lower;
  const scored: Array<{ name: string; score: number }> = [];
  for (const name of names) {
    if (name === '.git') continue;
    const candidate = name.toLowerCase();
    const candidateStem = candidate.slice(0, candidate.length - extname(candidate).length) || candidate;
    let score: number;
    if (candidate === lower) score = 0;
    else if (candidateStem === stem) score = 1;
    else {
      const distance = editDistance(lower, candidate, 3);
      if (distance <= Math.min(3, Math.max(1, Math.floor(lower.length / 3)))) score = 1 + distance;
      else if (stem.length >= 3 && candidate.includes(stem)) score = 5;
      else continue;
    }
    scored.push({ name, score });
  }
  scored.sort((a, b) => a.score - b.score || (a.name < b.name ? -1 : 1));
  return scored.slice(0, 3).map((entry) => entry.name);
}

/** Levenshtein distance, giving up (returning limit + 1) once it exceeds `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost,
      );
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length] ?? limit + 1;
}

/** Numbered lines of `text` around an edit at `line` spanning `count` lines, for the model to check the result. */
export function editSnippet(text: string, line: number, count: number, context = 3, maxLines = 40): string {
  const lines = splitLines(text);
  const from = Math.max(1, line - context);
  const to = Math.min(lines.length, line + count - 1 + context);
  const width = numberWidth(lines.length);
  const shown: string[] = [];
  for (let number = from; number <= to; number++) {
    if (shown.length === maxLines) {
      shown.push(`${' '.repeat(width)}│ … (${to - number + 1} more lines)`);
      break;
    }
    shown.push(numberedLine(number, lines[number - 1] ?? '', width));
  }
  return shown.join('\n');
}

/** An error when a directory on the way to `absolute` exists as something else, so it cannot be created. */
export async function blockedParent(
  context: ToolContext,
  absolute: string,
  display: string,
): Promise<ToolResult | undefined> {
  let dir = dirname(absolute);
  for (;;) {
    const info = await lstat(dir).catch(() => undefined);
    if (info !== undefined) {
      if (info.isDirectory()) return undefined;
      return toolError(
        'not_a_directory',
        `${context.workspace.display(dir)} is a file, not a directory, so ${display} cannot be created under it.`,
      );
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * Undefined when `target` is an existing UTF-8 text file the edit tools can change; otherwise the
 * error saying why not (missing, a directory, binary, too large, not UTF-8).
 */
export async function checkEditable(
  context: ToolContext,
  target: ResolvedPath,
): Promise<ToolResult | undefined> {
  try {
    // Through the parent walked again from the root: a directory swapped for a link since the
    // path was resolved is refused, and nothing outside is inspected.
    const options = { create: false, display: target.display };
    return await withPinnedParent(context.workspace, target.absolute, options, async (dir, name) => {
      if (dir === undefined) return notFoundResult(context, target);
      const info = await lstat(dir.entry(name));
      if (info.isDirectory())
        return toolError('is_directory', `${target.display} is a directory; give the path of a file.`);
      // Resolved for reading, a path is only still a link when its target is missing.
      if (info.isSymbolicLink())
        return toolError('not_found', `${target.display} is a symbolic link to a file that does not exist.`);
      if (!info.isFile())
        return toolError(
          'not_a_file',
          `${target.display} is not a regular file; only text files can be edited.`,
        );
      if (info.size > MAX_TEXT_FILE_BYTES) {
        return toolError(
          'too_large',
          `${target.display} is ${formatSize(info.size)}, too large to edit here (limit ${formatSize(MAX_TEXT_FILE_BYTES)}). Use run_command (e.g. sed -i).`,
        );
      }
      const bytes = (await readEntry(dir, name)) ?? Buffer.alloc(0);
      if (looksBinary(bytes)) {
        return toolError(
          'binary_file',
          `${target.display} is a binary file (${describeBinary(bytes, target.absolute)}); only text files can be edited.`,
        );
      }
      if (!isUtf8(bytes)) {
        return toolError(
          'not_utf8',
          `${target.display} is not valid UTF-8 text; editing it here would replace its invalid bytes. Use run_command (e.g. sed or iconv) instead.`,
        );
      }
      return undefined;
    });
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return notFoundResult(context, target);
    return fsErrorResult(error, target.display);
  }
}
