/**
 * The built-in searcher, for machines without ripgrep: the same files and lines ripgrep finds
 * with the flags ripgrep.ts gives it. It runs on the main thread with synchronous reads
 * (from the page cache these cost microseconds, far less than a thread-pool round trip each) and
 * yields to the event loop every few milliseconds and every few hundred files, so the server
 * keeps answering while a large tree is searched.
 */
import { closeSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { GrepPattern } from './pattern.ts';
import { addsRules, childLevel, type IgnoreLevel, isIgnored, rootLevel } from './ignore.ts';
import { MAX_FILE_BYTES, type MatchCollector } from './matches.ts';
import { isAtomicWriteTemp } from '../../workspace/atomic-write.ts';

const TOO_LARGE = Symbol('too large');

/** What to search and where the matches go; shared by both backends. */
export interface GrepRequest {
  /** The absolute path of the file or directory to search. */
  target: string;
  isFile: boolean;
  /** How `target` is shown: '.' for the workspace root, else relative to it (or absolute outside it). */
  targetDisplay: string;
  pattern: GrepPattern;
  /** A glob for file names (ripgrep: a file type). */
  nameGlob?: string;
  nameFilter?: (name: string) => boolean;
  /** Tests the shown path of a file (for globs with a slash). */
  pathFilter?: (file: string) => boolean;
  collector: MatchCollector;
  signal: AbortSignal;
}

const SLICE_MS = 8;
const SLICE_FILES = 256;
const NUL = 0;

/** Searches the request's tree; resolves when done, or early (with what it found) once `signal` aborts. */
export async function searchBuiltin(request: GrepRequest): Promise<void> {
  const searcher = new FileSearcher(request);
  if (request.isFile) {
    searcher.search(request.target, request.targetDisplay);
    return;
  }
  const base = request.targetDisplay === '.' ? '' : `${request.targetDisplay}/`;
  const stack: Array<{ dir: string; rel: string; level: IgnoreLevel }> = [
    { dir: request.target, rel: '', level: rootLevel(request.target) },
  ];
  let sliceStart = performance.now();
  let sliceFiles = 0;
  while (stack.length > 0) {
    const { dir, rel, level } = stack.pop() as (typeof stack)[number];
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue; // unreadable or gone: ripgrep skips it silently too (--no-messages)
    }
    let here = level;
    if (rel !== '') {
      const names = new Set<string>();
      for (const entry of entries) if (entry.name.charCodeAt(0) === 46 /* . */) names.add(entry.name);
      if (addsRules(names)) here = childLevel(level, dir, rel, names);
    }
    for (const entry of entries) {
      const name = entry.name;
      if (name === '.git' || isAtomicWriteTemp(name)) continue;
      const entryRel = rel === '' ? name : `${rel}/${name}`;
      if (entry.isDirectory()) {
        if (!isIgnored(here, entryRel, true))
          stack.push({ dir: join(dir, name), rel: entryRel, level: here });
        continue;
      }
      // Symbolic links are not followed, as in ripgrep without -L (and a link could lead out of the workspace).
      if (!entry.isFile()) continue;
      if (request.nameFilter !== undefined && !request.nameFilter(name)) continue;
      if (isIgnored(here, entryRel, false)) continue;
      const file = base + entryRel;
      if (request.pathFilter !== undefined && !request.pathFilter(file)) continue;
      searcher.search(join(dir, name), file);
      if (++sliceFiles >= SLICE_FILES || performance.now() - sliceStart >= SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        if (request.signal.aborted) return;
        sliceStart = performance.now();
        sliceFiles = 0;
      }
    }
  }
}

class FileSearcher {
  readonly #request: GrepRequest;
  readonly #literal: Buffer | undefined;
  /** One buffer for every read: a byte more than the size limit, to tell a file over it. */
  readonly #buffer = Buffer.allocUnsafe(MAX_FILE_BYTES + 1);

  constructor(request: GrepRequest) {
    this.#request = request;
    const literal = request.pattern.literal;
    this.#literal = literal === undefined ? undefined : Buffer.from(literal, 'utf8');
  }

  search(absolute: string, file: string): void {
    const bytes = this.#read(absolute);
    if (bytes === TOO_LARGE) return this.#request.collector.skipTooLarge(file);
    if (bytes === undefined) return;
    const text = this.#decode(bytes);
    if (text !== undefined) scanText(text, file, this.#request.pattern, this.#request.collector);
  }

  /** The file's bytes, TOO_LARGE over the size limit, or undefined when it cannot be read. */
  #read(absolute: string): Buffer | typeof TOO_LARGE | undefined {
    let fd: number;
    try {
      fd = openSync(absolute, 'r');
    } catch {
      return undefined;
    }
    try {
      let length = 0;
      for (;;) {
        const read = readSync(fd, this.#buffer, length, this.#buffer.length - length, null);
        if (read === 0) break;
        length += read;
        if (length > MAX_FILE_BYTES) return TOO_LARGE;
      }
      return this.#buffer.subarray(0, length);
    } catch {
      return undefined;
    } finally {
      closeSync(fd);
    }
  }

  /** The text to search, or undefined for a binary file or one that cannot hold a match. */
  #decode(bytes: Buffer): string | undefined {
    // Byte-order marks, as ripgrep reads them: UTF-16 is transcoded, a UTF-8 mark dropped.
    if (
      bytes.length >= 2 &&
      ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
    ) {
      const text = new TextDecoder(bytes[0] === 0xff ? 'utf-16le' : 'utf-16be').decode(bytes.subarray(2));
      return text.includes('\0') ? undefined : text;
    }
    if (this.#literal !== undefined && bytes.indexOf(this.#literal) === -1) return undefined;
    if (bytes.indexOf(NUL) !== -1) return undefined;
    const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    return bytes.toString('utf8', bom);
  }
}

/**
 * Reports the lines of `text` that match. The whole text is scanned with one global regex and
 * line numbers are counted only up to each match. A candidate is confirmed on its line alone when
 * the scan could be wrong about it: the match ran past the line's end (a class like \s can cross
 * a line break), or ^/$ may have matched at a lone CR, U+2028 or U+2029 inside the line.
 */
export function scanText(text: string, file: string, pattern: GrepPattern, collector: MatchCollector): void {
  const { scan, line, anchored } = pattern;
  scan.lastIndex = 0;
  let lineNumber = 1;
  let counted = 0;
  while (scan.lastIndex <= text.length) {
    const match = scan.exec(text);
    if (match === null) break;
    const at = match.index;
    // An empty match after the final line break is not on a line.
    if (at === text.length && (at === 0 || text.charCodeAt(at - 1) === 10)) break;
    const start = at === 0 ? 0 : text.lastIndexOf('\n', at - 1) + 1;
    let end = text.indexOf('\n', at);
    if (end === -1) end = text.length;
    const bodyEnd = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    for (
      let newline = text.indexOf('\n', counted);
      newline !== -1 && newline < start;
      newline = text.indexOf('\n', newline + 1)
    ) {
      lineNumber++;
    }
    counted = start;
    scan.lastIndex = end + 1;
    const certain = at + match[0].length <= bodyEnd && !(anchored && hasInnerBreak(text, start, bodyEnd));
    const wanted = collector.wants(file, lineNumber);
    if (certain && !wanted) {
      collector.count(file);
      continue;
    }
    const body = text.slice(start, bodyEnd);
    if (certain || line.test(body)) {
      if (wanted) collector.add(file, lineNumber, body);
      else collector.count(file);
    }
  }
}

const INNER_BREAK = /[\r\u2028\u2029]/;

function hasInnerBreak(text: string, start: number, end: number): boolean {
  return INNER_BREAK.test(text.slice(start, end));
}
