/**
 * What session/import keeps beside the sessions it writes, in the store the sessions are in:
 *
 * - the ledger: for each transcript imported into a workspace (by the agent and the transcript's
 *   own id), the session it became and the content that session holds (its SHA-256 and length,
 *   and a hash of each imported run), so that importing it again gives that session, and a
 *   transcript that grew adds its new turns to it;
 * - the original: the transcript's text as it was imported, beside the session, so that nothing
 *   the conversion leaves out or bounds (bookkeeping lines, sub-agents, other branches, long
 *   results) is lost. A grown transcript's new text is appended to it.
 *
 * Files (FileImportArchive): `<project folder>/imports.jsonl`, one ledger entry per line, appended
 * (the last one for a transcript counts), and `<project folder>/<session id>.original.jsonl`.
 * Neither name is a session file's (`ses_….jsonl`), so listings pass over them.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { ImportFormat } from '#protocol';
import { errorCode } from '../../support/errno.ts';

export const LEDGER_FORMAT = 1;

export interface LedgerEntry {
  format: typeof LEDGER_FORMAT;
  /** `<agent>:<the transcript's own id>`: what a transcript is recognised by. */
  key: string;
  from: ImportFormat;
  sessionId: string;
  /** SHA-256 (hex) of the UTF-8 text the session holds, and its length in bytes. */
  contentHash: string;
  bytes: number;
  /** A hash of each run imported into the session, in order. */
  runHashes: string[];
  /** The session as the import left it: a session continued since has more. */
  lastSeq: number;
  messageCount: number;
  at: string;
}

export interface ImportArchive {
  /** The ledger's last entry for the transcript `key` in this workspace. */
  find(key: string): Promise<LedgerEntry | undefined>;
  record(entry: LedgerEntry): Promise<void>;
  /**
   * Keeps `text`, the transcript's text, beside the session: the whole of it, or (`append`) what
   * it has beyond the text kept before. Resolves with where it is, for messages.
   */
  keepOriginal(sessionId: string, text: string, append: boolean): Promise<string>;
  /** Removes the session's original (with the session). */
  remove(sessionId: string): Promise<void>;
}

export const LEDGER_FILE = 'imports.jsonl';

/** The name of a session's original beside its session file. */
export const originalFile = (sessionId: string) => `${sessionId}.original.jsonl`;

/** The archive of one project folder of the file store. */
export class FileImportArchive implements ImportArchive {
  readonly #dir: string;
  readonly #redact: (text: string) => string;

  /** `redact` cleans the original of the server's secrets before it is written, as session files are. */
  constructor(projectDir: string, redact: (text: string) => string) {
    this.#dir = projectDir;
    this.#redact = redact;
  }

  async find(key: string): Promise<LedgerEntry | undefined> {
    let text: string;
    try {
      text = await readFile(join(this.#dir, LEDGER_FILE), 'utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw error;
    }
    let found: LedgerEntry | undefined;
    for (const line of text.split('\n')) {
      const entry = parseEntry(line);
      if (entry?.key === key) found = entry;
    }
    return found;
  }

  record(entry: LedgerEntry): Promise<void> {
    mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
    // One write with O_APPEND: a line is whole or (if the process dies inside it) torn and skipped.
    appendFileSync(join(this.#dir, LEDGER_FILE), `${JSON.stringify(entry)}\n`, { mode: 0o600 });
    return Promise.resolve();
  }

  keepOriginal(sessionId: string, text: string, append: boolean): Promise<string> {
    mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
    const path = join(this.#dir, originalFile(sessionId));
    appendFileSync(path, this.#redact(text), { mode: 0o600, flag: append ? 'a' : 'w' });
    return Promise.resolve(path);
  }

  async remove(sessionId: string): Promise<void> {
    await unlink(join(this.#dir, originalFile(sessionId))).catch((error: unknown) => {
      if (errorCode(error) !== 'ENOENT') throw error;
    });
  }
}

/** A ledger line as an entry; undefined for a torn or foreign one. */
export function parseEntry(line: string): LedgerEntry | undefined {
  if (line.trim() === '') return undefined;
  try {
    const value = JSON.parse(line) as Partial<LedgerEntry>;
    if (
      value.format === LEDGER_FORMAT &&
      typeof value.key === 'string' &&
      typeof value.sessionId === 'string' &&
      typeof value.contentHash === 'string' &&
      typeof value.bytes === 'number' &&
      Array.isArray(value.runHashes) &&
      typeof value.lastSeq === 'number' &&
      typeof value.messageCount === 'number'
    )
      return value as LedgerEntry;
  } catch {
    // A torn last line: skipped.
  }
  return undefined;
}
