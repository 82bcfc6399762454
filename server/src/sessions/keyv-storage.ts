/**
 * Sessions in a shared store (Redis, PostgreSQL) through keyv, for a team whose servers resume
 * each other's sessions. The records are the truth, as in the file store; only their place differs:
 *
 *   santra-record  <id>:<n>  one record per entry, n = 1, 2, 3… — appended, never rewritten
 *   santra-index   <id>      {workspaceRoot, records: how many, info: what session/list shows}
 *
 * (keyv-connection.ts says how these names look in each store; keyv-writer.ts how records are
 * appended.) An index entry is rewritten whole, at most once a second while a session runs and on
 * flush/close; it only saves folding every session for a listing. Reading a session takes the
 * records the entry counts and then probes past them, so records written after its last update
 * (a crash, another server) still load; a read that finds the entry missing or behind rewrites
 * it, and `rebuildIndex` rewrites every entry from the records.
 *
 * Listing iterates the index namespace (keyv's `iterator()`, which both adapters have: SCAN in
 * Redis, a keyed range in PostgreSQL) and keeps this workspace's sessions, or all of them. That
 * reads every index entry of the store — small values, one per session — and never a record.
 *
 * A store that fails is reported as RequestFailed, naming the store and the reason, by every
 * read, listing and delete, and by `ready()`, which the runtime asks before each prompt: while
 * writes are failing, new prompts are refused until the store answers again. Failed writes are
 * logged once per failing stretch.
 */
import type { SessionInfo } from '#protocol';
import type { Logger } from '../support/log.ts';
import {
  connectKeyv,
  describeStore,
  type KeyvConnection,
  messageOf,
  StoreFault,
  withStoreTimeout,
} from './keyv-connection.ts';
import {
  INDEX_FORMAT,
  type IndexEntry,
  KeyvWriter,
  type Loaded,
  parseEntry,
  parseValues,
  recordKeys,
  type WriterHost,
} from './keyv-writer.ts';
import { KeyvImportArchive } from './import/keyv-archive.ts';
import type { SessionRecord } from './records.ts';
import type { SessionStorage, SessionWriter, StoredSession } from './storage.ts';
import { SESSION_ID } from './storage.ts';
import { foldSession, sessionInfo } from './summary.ts';

/** Records per read. */
const READ_BATCH = 500;
/** Records looked for past the last one the index counts, per read. */
const PROBE = 64;

export interface KeyvStorageOptions {
  /** `redis://…`, `rediss://…`, `postgres://…` or `postgresql://…` (sessions.store). */
  url: string;
  workspaceRoot: string;
  /** Cleans a serialized record (and index entry) of secrets before it is stored. */
  redact: (text: string) => string;
  log: Logger;
  /** How long one store operation may take before it counts as failed. Default 10 s. */
  timeoutMs?: number;
  /** The first wait before a failed write is retried; it doubles up to 30 s. Default 500 ms. */
  retryMs?: number;
  /** How long `close()` keeps trying to store what is queued. Default 10 s. */
  closeTimeoutMs?: number;
  /** The least time between two index updates of a running session. Default 1 s. */
  indexIntervalMs?: number;
}

export class KeyvStorage implements SessionStorage {
  readonly #options: Required<KeyvStorageOptions>;
  /** The store as messages name it: its URL without credentials. */
  readonly name: string;
  readonly #writers = new Map<string, KeyvWriter>();
  #connecting: Promise<KeyvConnection> | undefined;
  #closed = false;
  /** While writes fail: said once, until one succeeds again. */
  #failing = false;
  /** session/import's ledger and originals, in the namespace santra-import. */
  readonly imports: KeyvImportArchive;

  constructor(options: KeyvStorageOptions) {
    this.#options = {
      timeoutMs: 10_000,
      retryMs: 500,
      closeTimeoutMs: 10_000,
      indexIntervalMs: 1_000,
      ...options,
    };
    this.name = describeStore(options.url);
    const imports = async () => (await this.#connection()).imports;
    this.imports = new KeyvImportArchive(
      {
        name: this.name,
        get: async (key) => this.#call((await imports()).get(key), 'reading the import ledger'),
        getMany: async (keys) =>
          this.#call((await imports()).getMany([...keys]), 'reading an imported transcript'),
        set: async (key, value) => {
          await this.#call((await imports()).set(key, value), 'saving an import');
        },
        deleteMany: async (keys) => {
          await this.#call((await imports()).deleteMany([...keys]), 'deleting an imported transcript');
        },
        redact: (text) => this.#options.redact(text),
      },
      options.workspaceRoot,
    );
  }

  /** Connects in the background, so that a store that cannot be reached is logged at start. */
  start(): void {
    this.#connection().catch((error: unknown) =>
      this.#options.log.error(error instanceof Error ? error.message : String(error)),
    );
  }

  /**
   * Resolves when the store answers; rejects with a RequestFailed fault saying why not. While
   * writes are failing this asks the store again (and the writers retry at once when it answers).
   */
  async ready(): Promise<void> {
    const connection = await this.#connection();
    if (!this.#failing) return;
    await this.#call(connection.index.get('probe'), 'checking the store');
    for (const writer of this.#writers.values()) writer.retryNow();
  }

  writer(sessionId: string): SessionWriter {
    if (!SESSION_ID.test(sessionId)) throw new Error(`not a session id: ${JSON.stringify(sessionId)}`);
    const writer = new KeyvWriter(sessionId, this.#host(), this.#options);
    this.#writers.set(sessionId, writer);
    return writer;
  }

  async read(sessionId: string): Promise<StoredSession | undefined> {
    if (!SESSION_ID.test(sessionId)) return undefined;
    const loaded = await this.#load(sessionId);
    if (loaded.entry === undefined && loaded.values.length === 0) return undefined;
    const { records, warnings } = parseValues(sessionId, loaded.values);
    const behind = loaded.entry === undefined || loaded.entry.records < loaded.values.length;
    if (behind && !this.#writers.has(sessionId)) {
      // Best effort: a reader may not be allowed to write, and the records load regardless.
      await this.#saveIndex(sessionId, records, loaded.values.length, loaded.entry?.writer).catch(() => {});
    }
    return { records, warnings: [...loaded.warnings, ...warnings] };
  }

  async list(allWorkspaces: boolean): Promise<{ sessions: SessionInfo[]; warnings: string[] }> {
    const connection = await this.#connection();
    const iterator = connection.index.iterator;
    if (iterator === undefined) throw this.#fault(new Error('its keyv adapter cannot list keys'));
    const sessions: SessionInfo[] = [];
    const warnings: string[] = [];
    const errorsBefore = connection.errorCount;
    const scan = async () => {
      for await (const [key, value] of iterator(undefined) as AsyncIterable<[string, unknown]>) {
        const entry = parseEntry(key, value, warnings);
        if (entry === undefined) continue;
        if (allWorkspaces || entry.workspaceRoot === this.#options.workspaceRoot) sessions.push(entry.info);
      }
    };
    // A listing is many reads (a page of keys each); it gets the time of several.
    await this.#call(scan(), 'listing sessions', this.#options.timeoutMs * 6);
    // @keyv/postgres ends an iteration that fails early and only reports it as an event.
    if (connection.errorCount > errorsBefore)
      throw this.#fault(new Error(connection.lastError ?? 'the listing failed'));
    return { sessions, warnings };
  }

  async delete(sessionId: string): Promise<boolean> {
    if (!SESSION_ID.test(sessionId)) return false;
    const loaded = await this.#load(sessionId);
    if (loaded.entry === undefined && loaded.values.length === 0) return false;
    const connection = await this.#connection();
    // The index entry first: a delete cut short leaves records no listing shows, never a listed
    // session without them. The header goes first among the records: a writer of another server
    // that finds the entry and the header gone stops saving the session (KeyvWriter#writeIndex),
    // and the entry is deleted once more in case it wrote it back meanwhile.
    await this.#call(connection.index.delete(sessionId), 'deleting a session');
    for (let first = 1; first <= loaded.values.length; first += READ_BATCH) {
      const last = Math.min(loaded.values.length, first + READ_BATCH - 1);
      await this.#call(
        connection.records.deleteMany(recordKeys(sessionId, first, last)),
        'deleting a session',
      );
    }
    await this.#call(connection.index.delete(sessionId), 'deleting a session');
    // An imported session's original goes with it.
    await this.imports.remove(sessionId);
    return true;
  }

  /**
   * Rewrites every session's index entry from its records: after the index was lost or damaged
   * (session/list shows a session only through its entry). Reads every record in the store.
   */
  async rebuildIndex(): Promise<{ sessions: number; warnings: string[] }> {
    const connection = await this.#connection();
    const iterator = connection.records.iterator;
    if (iterator === undefined) throw this.#fault(new Error('its keyv adapter cannot list keys'));
    const ids = new Set<string>();
    const scan = async () => {
      for await (const [key] of iterator(undefined) as AsyncIterable<[string, unknown]>) {
        const id = key.slice(0, key.lastIndexOf(':'));
        if (SESSION_ID.test(id)) ids.add(id);
      }
    };
    await this.#call(scan(), 'reading every record', this.#options.timeoutMs * 60);
    const warnings: string[] = [];
    let rebuilt = 0;
    for (const id of ids) {
      const loaded = await this.#load(id);
      const parsed = parseValues(id, loaded.values);
      warnings.push(...loaded.warnings, ...parsed.warnings);
      if (await this.#saveIndex(id, parsed.records, loaded.values.length, loaded.entry?.writer)) rebuilt++;
      else warnings.push(`${id}: no session header among its records; not listed`);
    }
    return { sessions: rebuilt, warnings };
  }

  /** Stores what the writers hold (each keeps trying for closeTimeoutMs), then disconnects. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#writers.values()].map((writer) => writer.close()));
    this.#closed = true;
    const connecting = this.#connecting;
    this.#connecting = undefined;
    await connecting?.then((connection) => connection.close()).catch(() => {});
  }

  /** The connection, made on first use; a failed attempt is forgotten, so the next use tries again. */
  #connection(): Promise<KeyvConnection> {
    if (this.#closed) return Promise.reject(this.#fault(new Error('the server is shutting down')));
    this.#connecting ??= connectKeyv(this.#options.url, this.#options.timeoutMs).catch((error: unknown) => {
      this.#connecting = undefined;
      throw this.#fault(error);
    });
    return this.#connecting;
  }

  /** One store operation, bounded in time; a failure becomes a fault that names the store. */
  async #call<T>(operation: Promise<T>, what: string, timeoutMs = this.#options.timeoutMs): Promise<T> {
    try {
      return await withStoreTimeout(operation, timeoutMs, what);
    } catch (error) {
      throw this.#fault(error);
    }
  }

  #fault(error: unknown): StoreFault {
    return error instanceof StoreFault ? error : new StoreFault(this.name, messageOf(error));
  }

  async #load(sessionId: string): Promise<Loaded> {
    const connection = await this.#connection();
    const warnings: string[] = [];
    const text = await this.#call(connection.index.get(sessionId), 'reading a session');
    const entry = text === undefined ? undefined : parseEntry(sessionId, text, warnings);
    const values: Array<string | undefined> = [];
    const known = entry?.records ?? 0;
    for (let first = 1; first <= known; first += READ_BATCH) {
      const last = Math.min(known, first + READ_BATCH - 1);
      values.push(
        ...(await this.#call(
          connection.records.getMany(recordKeys(sessionId, first, last)),
          'reading a session',
        )),
      );
    }
    // Records written after the entry's last update.
    for (;;) {
      const keys = recordKeys(sessionId, values.length + 1, values.length + PROBE);
      const window = await this.#call(connection.records.getMany(keys), 'reading a session');
      if (window.every((value) => value === undefined)) break;
      values.push(...window);
    }
    while (values.length > 0 && values.at(-1) === undefined) values.pop();
    return { entry, values, warnings };
  }

  /** Writes the index entry folded from `records`; false when they hold no session header. */
  async #saveIndex(
    sessionId: string,
    records: readonly SessionRecord[],
    count: number,
    writer: string | undefined,
  ): Promise<boolean> {
    const state = foldSession(records);
    if (state === undefined) return false;
    const entry: IndexEntry = {
      format: INDEX_FORMAT,
      sessionId,
      workspaceRoot: state.workspaceRoot,
      records: count,
      ...(writer === undefined ? {} : { writer }),
      savedAt: new Date().toISOString(),
      info: sessionInfo(state),
    };
    const connection = await this.#connection();
    await this.#call(
      connection.index.set(sessionId, this.#options.redact(JSON.stringify(entry))),
      'saving the index',
    );
    return true;
  }

  /** What a writer needs of its storage. */
  #host(): WriterHost {
    return {
      name: this.name,
      log: this.#options.log,
      redact: this.#options.redact,
      load: (id) => this.#load(id),
      write: async (id, first, lines) => {
        const connection = await this.#connection();
        const entries = lines.map((value, i) => ({ key: `${id}:${first + i}`, value }));
        await this.#call(connection.records.setMany(entries), 'saving records');
      },
      records: async (id, numbers) => {
        const connection = await this.#connection();
        const keys = numbers.map((n) => `${id}:${n}`);
        return this.#call(connection.records.getMany(keys), 'reading a session');
      },
      hasHeader: async (id) => {
        const connection = await this.#connection();
        return (await this.#call(connection.records.get(`${id}:1`), 'reading a session')) !== undefined;
      },
      readIndex: async (id) => {
        const connection = await this.#connection();
        const text = await this.#call(connection.index.get(id), 'reading the index');
        return text === undefined ? undefined : parseEntry(id, text, []);
      },
      writeIndex: async (id, entry) => {
        const connection = await this.#connection();
        await this.#call(
          connection.index.set(id, this.#options.redact(JSON.stringify(entry))),
          'saving the index',
        );
      },
      failed: (error) => {
        if (!this.#failing)
          this.#options.log.error(
            `could not save sessions to ${this.name}: ${messageOf(error)} The records are kept in memory and retried.`,
          );
        this.#failing = true;
      },
      succeeded: () => {
        if (this.#failing) this.#options.log.warn(`saving sessions to ${this.name} again`);
        this.#failing = false;
      },
      closed: (id, writer) => {
        if (this.#writers.get(id) === writer) this.#writers.delete(id);
      },
    };
  }
}
