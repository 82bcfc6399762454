/**
 * session/import's ledger and originals in a shared store (keyv-storage.ts), in the keyv
 * namespace `santra-import` beside the sessions' records:
 *
 *   ledger:<workspace hash>:<transcript key>   the last ledger entry of a transcript imported
 *                                              into that workspace (rewritten by each import)
 *   original:<session id>:<n>                  the transcript's text: n = 1 the first import's,
 *                                              then what each import that grew it added
 *
 * Every server sharing the store sees the same ledger, so a transcript imported on one is the
 * same session on the others.
 */
import { createHash } from 'node:crypto';
import { type ImportArchive, type LedgerEntry, parseEntry } from './archive.ts';

/** What the archive needs of the store: bounded operations on the namespace, failing as faults. */
export interface ImportStore {
  /** The store as messages name it. */
  name: string;
  get(key: string): Promise<string | undefined>;
  getMany(keys: readonly string[]): Promise<Array<string | undefined>>;
  set(key: string, value: string): Promise<void>;
  deleteMany(keys: readonly string[]): Promise<void>;
  redact(text: string): string;
}

/** Originals looked for per read. */
const PROBE = 16;

export class KeyvImportArchive implements ImportArchive {
  readonly #store: ImportStore;
  readonly #workspace: string;

  constructor(store: ImportStore, workspaceRoot: string) {
    this.#store = store;
    this.#workspace = createHash('sha256').update(workspaceRoot).digest('hex').slice(0, 16);
  }

  async find(key: string): Promise<LedgerEntry | undefined> {
    const text = await this.#store.get(this.#ledgerKey(key));
    return text === undefined ? undefined : parseEntry(text);
  }

  async record(entry: LedgerEntry): Promise<void> {
    await this.#store.set(this.#ledgerKey(entry.key), JSON.stringify(entry));
  }

  async keepOriginal(sessionId: string, text: string, append: boolean): Promise<string> {
    const n = append ? (await this.#originals(sessionId)).length + 1 : 1;
    const key = `original:${sessionId}:${n}`;
    await this.#store.set(key, this.#store.redact(text));
    return `${this.#store.name} (santra-import ${key})`;
  }

  async remove(sessionId: string): Promise<void> {
    const keys = await this.#originals(sessionId);
    if (keys.length > 0) await this.#store.deleteMany(keys);
  }

  /** The keys of the session's originals, in order. */
  async #originals(sessionId: string): Promise<string[]> {
    const found: string[] = [];
    for (;;) {
      const keys = Array.from({ length: PROBE }, (_, i) => `original:${sessionId}:${found.length + i + 1}`);
      const values = await this.#store.getMany(keys);
      const present = values.findIndex((value) => value === undefined);
      found.push(...keys.slice(0, present === -1 ? PROBE : present));
      if (present !== -1) return found;
    }
  }

  #ledgerKey(key: string): string {
    return `ledger:${this.#workspace}:${key}`;
  }
}
