/**
 * What both grep backends share: the limits, and the collector that keeps the first matches in
 * file-then-line order while counting all of them, in bounded memory whatever the match count.
 */

/** Matching lines shown; the rest are counted. */
export const MAX_MATCHES = 200;
/** Characters of a line shown (UTF-16 code units, never splitting a surrogate pair). */
export const MAX_LINE_CHARS = 300;
/** Files larger than this are skipped (ripgrep's `--max-filesize 2M`). */
export const MAX_FILE_BYTES = 2 * 1024 * 1024;

export interface GrepMatch {
  /** As shown: relative to the workspace root with `/` separators (absolute outside it). */
  file: string;
  line: number;
  text: string;
  /** The line was longer than MAX_LINE_CHARS and `text` is its start. */
  cut: boolean;
}

function compare(a: GrepMatch, b: { file: string; line: number }): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return a.line - b.line;
}

export class MatchCollector {
  readonly limit: number;
  #kept: GrepMatch[] = [];
  /** The last match kept after the first compaction: anything after it will never be shown. */
  #worst: GrepMatch | undefined;
  #files = new Set<string>();
  readonly #tooLarge = new Set<string>();
  total = 0;

  constructor(limit = MAX_MATCHES) {
    this.limit = limit;
  }

  /** False when a match at this position could not be among the ones shown (it is still counted by `add`). */
  wants(file: string, line: number): boolean {
    return this.#worst === undefined || compare(this.#worst, { file, line }) > 0;
  }

  add(file: string, line: number, text: string): void {
    this.total++;
    this.#files.add(file);
    if (!this.wants(file, line)) return;
    const cut = text.length > MAX_LINE_CHARS;
    this.#kept.push({ file, line, text: cut ? cutLine(text) : text, cut });
    if (this.#kept.length >= this.limit * 4) this.#compact();
  }

  /** Counts `n` matches in `file` that `wants` said would not be shown, without their text. */
  count(file: string, n = 1): void {
    if (n === 0) return;
    this.total += n;
    this.#files.add(file);
  }

  get files(): number {
    return this.#files.size;
  }

  /** A file the search passed over because it is larger than MAX_FILE_BYTES. */
  skipTooLarge(file: string): void {
    this.#tooLarge.add(file);
  }

  /** Files not searched because of their size, sorted. */
  get tooLarge(): string[] {
    return [...this.#tooLarge].sort();
  }

  /** The matches to show, sorted by file then line. */
  shown(): GrepMatch[] {
    this.#compact();
    return this.#kept;
  }

  #compact(): void {
    this.#kept.sort(compare);
    if (this.#kept.length > this.limit) {
      this.#kept.length = this.limit;
      this.#worst = this.#kept[this.limit - 1];
    }
  }
}

function cutLine(text: string): string {
  const code = text.charCodeAt(MAX_LINE_CHARS - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? MAX_LINE_CHARS - 1 : MAX_LINE_CHARS);
}
