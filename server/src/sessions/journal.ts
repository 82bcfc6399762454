/**
 * The session file: one record per line, appended with one write(2) each on a file opened with
 * O_APPEND, so a record is either wholly in the file or — if the process dies inside that one
 * write — a torn last line. Writes are synchronous: a record handed to `append` is in the
 * kernel's page cache when the call returns, so a kill -9 loses nothing that was appended, and
 * records of parallel agents cannot interleave (one thread, one write per record). Nothing is
 * ever rewritten.
 *
 * Reading is forgiving: a torn line, a block of NUL bytes (what some file systems leave after a
 * power loss), or a line that is not a record is skipped with a warning naming the line; every
 * other record loads.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { asRecord, type SessionRecord } from './records.ts';

/** An append-only session file. Open lazily: a session that never saves makes no file. */
export class Journal {
  readonly path: string;
  readonly #redact: (line: string) => string;
  #fd: number | undefined;
  #bytes = 0;

  /** `redact` cleans each serialized line of secrets before it is written. */
  constructor(path: string, redact: (line: string) => string) {
    this.path = path;
    this.#redact = redact;
  }

  /** Bytes this journal has written since it was opened. */
  get bytesWritten(): number {
    return this.#bytes;
  }

  append(record: SessionRecord): void {
    const line = `${this.#redact(JSON.stringify(record))}\n`;
    const fd = this.#open();
    const buffer = Buffer.from(line, 'utf8');
    let offset = 0;
    // A regular file takes the whole buffer at once; the loop is for the rare short write.
    while (offset < buffer.length) offset += writeSync(fd, buffer, offset);
    this.#bytes += buffer.length;
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  #open(): number {
    if (this.#fd !== undefined) return this.#fd;
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const fd = openSync(this.path, 'a+', 0o600);
    // A file that ends in a torn record gets a line break first, so the next record starts clean.
    const size = fstatSync(fd).size;
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) writeSync(fd, '\n');
    }
    this.#fd = fd;
    return fd;
  }
}

export interface ParsedJournal {
  records: SessionRecord[];
  /** One line per skipped piece: where it was and why. */
  warnings: string[];
}

/** Reads a session file's text. Never throws. */
export function parseJournal(text: string, name: string): ParsedJournal {
  const records: SessionRecord[] = [];
  const warnings: string[] = [];
  let lineNumber = 0;
  for (const line of text.split('\n')) {
    lineNumber++;
    if (line === '') continue;
    // A NUL block has no line break of its own: a record appended after it shares its line.
    const pieces = line.includes('\0') ? line.split(/\0+/) : [line];
    if (pieces.length > 1) warnings.push(`${name}:${lineNumber}: skipped a block of NUL bytes`);
    for (const piece of pieces) {
      if (piece.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(piece);
      } catch {
        warnings.push(`${name}:${lineNumber}: skipped a damaged record (${describe(piece)})`);
        continue;
      }
      const record = asRecord(value);
      if (typeof record === 'string') warnings.push(`${name}:${lineNumber}: skipped ${record}`);
      else records.push(record);
    }
  }
  return { records, warnings };
}

function describe(piece: string): string {
  return `${piece.length} characters, ${piece.trimEnd().endsWith('}') ? 'not valid JSON' : 'cut off'}`;
}
