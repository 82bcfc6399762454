/**
 * The exact-match replacement behind str_replace and multi_edit: `oldStr` must occur exactly
 * once. When it does not, the message says how often it occurred and where, or where the
 * closest match is, so the model can fix its next call without reading the whole file again.
 */
import { numberedLine, numberWidth } from './helpers.ts';

/** A successful replacement. */
export interface Replaced {
  text: string;
  /** 1-based line where the replaced text started. */
  line: number;
  /** Lines spanned by the old and the new text. */
  oldLines: number;
  newLines: number;
}

/** Why the replacement could not be made, written for the model. */
export interface MatchFailure {
  errorType: 'invalid_arguments' | 'no_match' | 'not_unique';
  message: string;
}

/** Prefixes an edit's error when the file changed while the change was waiting for approval. */
export const CHANGED_DURING_APPROVAL =
  'The file changed on disk while the change was waiting for approval, and now: ';

const MAX_LISTED = 20;
const MAX_COUNTED = 10_000;
const MAX_CANDIDATES = 200;
const MAX_SHOWN_LINES = 30;

/**
 * Replaces the single occurrence of `oldStr` in `text` by `newStr`. Line endings are adapted
 * when that is the only difference: a model writes `\n` even where the file has `\r\n`.
 */
export function replaceUnique(text: string, oldStr: string, newStr: string): Replaced | MatchFailure {
  if (oldStr === '') {
    return {
      errorType: 'invalid_arguments',
      message:
        'oldStr is empty. Give the exact text to replace; to insert, include a neighbouring line in oldStr and repeat it in newStr. To create a file use write_file.',
    };
  }
  if (oldStr === newStr) {
    return {
      errorType: 'invalid_arguments',
      message: 'oldStr and newStr are identical, so nothing would change.',
    };
  }
  let search = oldStr;
  let replacement = newStr;
  let positions = findAll(text, search);
  if (positions.length === 0) {
    const eol = text.includes('\r\n') ? '\r\n' : '\n';
    const adapted = withEol(oldStr, eol);
    if (adapted !== oldStr) {
      positions = findAll(text, adapted);
      search = adapted;
      replacement = withEol(newStr, eol);
    }
  }
  const [index] = positions;
  if (index === undefined) return { errorType: 'no_match', message: noMatchMessage(text, oldStr) };
  if (positions.length > 1) {
    const lines = [...new Set(lineNumbers(text, positions.slice(0, MAX_LISTED)))];
    const count =
      positions.length >= MAX_COUNTED ? `at least ${MAX_COUNTED} times` : `${positions.length} times`;
    const more = positions.length > MAX_LISTED ? ', …' : '';
    return {
      errorType: 'not_unique',
      message: `oldStr occurs ${count} (on line${lines.length === 1 ? '' : 's'} ${lines.join(', ')}${more}); it must occur exactly once. Add surrounding lines to oldStr so it matches only the place you mean.`,
    };
  }
  return {
    text: text.slice(0, index) + replacement + text.slice(index + search.length),
    line: lineNumbers(text, [index])[0] ?? 1,
    oldLines: countNewlines(search, 0, search.length) + 1,
    newLines: countNewlines(replacement, 0, replacement.length) + 1,
  };
}

/** True for a failed replacement. */
export function isMatchFailure(result: Replaced | MatchFailure): result is MatchFailure {
  return 'errorType' in result;
}

function withEol(text: string, eol: string): string {
  return text.replace(/\r?\n/g, eol);
}

// Overlapping occurrences count: "aa" in "aaa" is ambiguous.
function findAll(text: string, needle: string): number[] {
  const positions: number[] = [];
  let index = text.indexOf(needle);
  while (index !== -1 && positions.length < MAX_COUNTED) {
    positions.push(index);
    index = text.indexOf(needle, index + 1);
  }
  return positions;
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  let index = text.indexOf('\n', from);
  while (index !== -1 && index < to) {
    count++;
    index = text.indexOf('\n', index + 1);
  }
  return count;
}

/** 1-based line numbers of ascending offsets, counted in one pass. */
function lineNumbers(text: string, offsets: readonly number[]): number[] {
  const lines: number[] = [];
  let line = 1;
  let from = 0;
  for (const offset of offsets) {
    line += countNewlines(text, from, offset);
    from = offset;
    lines.push(line);
  }
  return lines;
}

type Position = 'only' | 'first' | 'middle' | 'last';

// oldStr may start and end mid-line, so its first line is compared with the end of a file line and its last with the start.
function lineMatches(fileLine: string, oldLine: string, position: Position): boolean {
  const wanted = oldLine.trim();
  const have = fileLine.trim();
  switch (position) {
    case 'only':
      return have.includes(wanted);
    case 'first':
      return have.endsWith(wanted);
    case 'last':
      return have.startsWith(wanted);
    case 'middle':
      return have === wanted;
  }
}

function quote(line: string): string {
  const trimmed = line.trim();
  return JSON.stringify(trimmed.length > 120 ? `${trimmed.slice(0, 120)}…` : trimmed);
}

/** Where the closest match is: the same lines with other whitespace, or where the first line is and where it diverges. */
function noMatchMessage(text: string, oldStr: string): string {
  const fileLines = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  const oldLines = oldStr.replace(/\r\n/g, '\n').split('\n');
  const start = oldLines.findIndex((line) => line.trim() !== '');
  let end = oldLines.length - 1;
  while (end > start && oldLines[end]?.trim() === '') end--;
  const notFound = 'oldStr was not found in the file.';
  if (start === -1) return `${notFound} It is only whitespace; include the text around the place you mean.`;
  const wanted = oldLines.slice(start, end + 1);
  const position = (k: number): Position =>
    wanted.length === 1 ? 'only' : k === 0 ? 'first' : k === wanted.length - 1 ? 'last' : 'middle';

  let best: { line: number; matched: number } | undefined;
  let candidates = 0;
  for (let i = 0; i < fileLines.length && candidates < MAX_CANDIDATES; i++) {
    if (!lineMatches(fileLines[i] ?? '', wanted[0] ?? '', position(0))) continue;
    candidates++;
    let k = 1;
    while (
      k < wanted.length &&
      i + k < fileLines.length &&
      lineMatches(fileLines[i + k] ?? '', wanted[k] ?? '', position(k))
    )
      k++;
    if (best === undefined || k > best.matched) best = { line: i, matched: k };
    if (k === wanted.length) break;
  }
  if (best === undefined) {
    return `${notFound} Not even its first line (${quote(wanted[0] ?? '')}) occurs in it, ignoring whitespace. Read the file again (read_file) and copy oldStr from its current content.`;
  }
  const first = best.line + 1;
  if (best.matched === wanted.length) {
    const last = best.line + wanted.length;
    const width = numberWidth(last);
    const shown = fileLines.slice(best.line, Math.min(last, best.line + MAX_SHOWN_LINES));
    const more = wanted.length > MAX_SHOWN_LINES ? '\n…' : '';
    return (
      `${notFound} It matches line${last > first ? `s ${first}–${last}` : ` ${first}`} if whitespace is ignored` +
      ` (indentation, tabs or trailing spaces differ). The file has:\n` +
      shown.map((line, offset) => numberedLine(first + offset, line, width)).join('\n') +
      `${more}\nCopy oldStr exactly from these lines (without the line-number prefix).`
    );
  }
  const fileLine = best.line + best.matched;
  const differs =
    fileLine >= fileLines.length
      ? `the file ends at line ${fileLines.length}`
      : `line ${fileLine + 1} of the file is ${quote(fileLines[fileLine] ?? '')}`;
  return (
    `${notFound} Its first line matches line ${first}${candidates > 1 ? ` (the closest of ${candidates} candidates)` : ''},` +
    ` but then oldStr has ${quote(wanted[best.matched] ?? '')} where ${differs}.` +
    ` Read the file around line ${first} and copy oldStr exactly.`
  );
}
