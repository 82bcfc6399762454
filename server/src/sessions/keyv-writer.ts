/**
 * Writing a session to a shared store (keyv-storage.ts): `append` is synchronous. It redacts the
 * serialized record (the same guarantee as the file store: nothing leaves the process
 * unredacted) and queues it; one loop per session writes the queue in order, in batches,
 * numbering the records on from what the store holds when the writer starts. One server owns a
 * session while it runs and session ids are random, so numbers never collide in normal use. Two
 * servers appending to one session at once would number their records alike and overwrite each
 * other's (each entry stays whole — never an interleaved record — but the session would hold a
 * mix of both and lose some of each). A writer that finds another writer's mark on the index
 * entry checks its last records: if one was overwritten, it logs that two servers are writing at
 * once; either way it continues after the last record in the store. A session deleted by another
 * server is no longer saved. Retries write the same numbers again, so a write that timed out but
 * did land is harmless.
 *
 * A store that fails does not fail the run: the records stay queued (in memory, in order) and are
 * retried with backoff (the storage logs the failure once per failing stretch), and `close()`
 * keeps trying for a while before it logs how many records were lost.
 */
import { randomUUID } from 'node:crypto';
import type { SessionInfo } from '#protocol';
import type { Logger } from '../support/log.ts';
import { messageOf } from './keyv-connection.ts';
import { asRecord, type SessionRecord } from './records.ts';
import type { SessionWriter } from './storage.ts';
import { foldSession, sessionInfo } from './summary.ts';

export const INDEX_FORMAT = 1;
/** Records per write. */
const WRITE_BATCH = 256;
const MAX_RETRY_MS = 30_000;
/** The records a writer keeps to notice another writer overwriting them. */
const RECENT = 256;
const RECENT_BYTES = 1_000_000;

/** The index entry of a session. */
export interface IndexEntry {
  format: number;
  sessionId: string;
  workspaceRoot: string;
  /** Records stored, at the time of writing (more may follow). */
  records: number;
  /** The writer that last wrote the entry (a random token), to notice two at once. */
  writer?: string;
  savedAt: string;
  info: SessionInfo;
}

/** A session as the store holds it. */
export interface Loaded {
  entry: IndexEntry | undefined;
  /** The stored values, record n at index n-1; undefined where one is missing. */
  values: Array<string | undefined>;
  warnings: string[];
}

export interface WriterOptions {
  /** The first wait before a failed write is retried; it doubles up to 30 s. */
  retryMs: number;
  /** How long `close()` keeps trying to store what is queued. */
  closeTimeoutMs: number;
  /** The least time between two index updates of a running session. */
  indexIntervalMs: number;
}

/** What a writer needs of its storage. */
export interface WriterHost {
  name: string;
  log: Logger;
  redact(text: string): string;
  load(sessionId: string): Promise<Loaded>;
  write(sessionId: string, first: number, lines: readonly string[]): Promise<void>;
  records(sessionId: string, numbers: readonly number[]): Promise<Array<string | undefined>>;
  hasHeader(sessionId: string): Promise<boolean>;
  readIndex(sessionId: string): Promise<IndexEntry | undefined>;
  writeIndex(sessionId: string, entry: IndexEntry): Promise<void>;
  failed(error: unknown): void;
  succeeded(): void;
  closed(sessionId: string, writer: KeyvWriter): void;
}

/** The queue and write loop of one session. */
export class KeyvWriter implements SessionWriter {
  readonly #id: string;
  readonly #host: WriterHost;
  readonly #options: WriterOptions;
  readonly #token = randomUUID();
  /** Redacted lines not stored yet, in order; the first is record #stored + 1. */
  readonly #pending: string[] = [];
  #stored = 0;
  /** Whether #stored is known: 0 for a session this writer created, else read from the store. */
  #begun = false;
  #new: boolean | undefined;
  /** What the index entry is folded from: the records, less phases (the last one stands for them) and model outputs. */
  #earlier: SessionRecord[] = [];
  readonly #fold: SessionRecord[] = [];
  #lastPhase: SessionRecord | undefined;
  #earlierPhase: SessionRecord | undefined;
  #indexDirty = false;
  /**
   * The last records this writer stored, by number (at most RECENT of them, RECENT_BYTES in all):
   * compared with the store when another writer shows up, to tell whether it overwrote any.
   */
  readonly #recent: Array<[number, string]> = [];
  #recentBytes = 0;
  #indexWrites = 0;
  #indexWrittenAt = 0;
  #warnedConflict = false;
  #retryMs: number;
  #timer: NodeJS.Timeout | undefined;
  /** The timer is a retry after a failure (appends then wait for it rather than hammer the store). */
  #backingOff = false;
  #pumping: Promise<void> | undefined;
  readonly #flushers: Array<() => void> = [];
  #closed = false;
  /** Another server deleted the session: nothing more is saved. */
  #deleted = false;
  #closing: Promise<void> | undefined;
  #lastError: unknown;

  constructor(sessionId: string, host: WriterHost, options: WriterOptions) {
    this.#id = sessionId;
    this.#host = host;
    this.#options = options;
    this.#retryMs = options.retryMs;
  }

  append(record: SessionRecord): void {
    if (this.#deleted) return;
    const line = this.#host.redact(JSON.stringify(record));
    if (this.#closed) {
      this.#host.log.error(
        `session ${this.#id}: a ${record.type} record came after the session was closed; not saved`,
      );
      return;
    }
    // A writer whose first record is the header made the session: nothing is stored before it.
    this.#new ??= record.type === 'session';
    this.#pending.push(line);
    if (record.type === 'phase') this.#lastPhase = record;
    else if (record.type !== 'model_output') this.#fold.push(parsedOr(line, record));
    this.#indexDirty = true;
    if (!this.#backingOff) this.#kick();
  }

  flush(): Promise<void> {
    if (this.#idle()) return Promise.resolve();
    return new Promise((resolve) => {
      this.#flushers.push(resolve);
      this.#kick();
    });
  }

  close(): Promise<void> {
    this.#closing ??= this.#drain();
    return this.#closing;
  }

  /** After the store answered again: retry now rather than after the backoff. */
  retryNow(): void {
    if (this.#backingOff) this.#kick();
  }

  #idle(): boolean {
    return this.#pumping === undefined && this.#pending.length === 0 && !this.#indexDirty;
  }

  /** Runs the write loop now, unless it is running (it takes what is queued meanwhile). */
  #kick(): void {
    if (this.#pumping !== undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#backingOff = false;
    this.#pumping = this.#pump().finally(() => {
      this.#pumping = undefined;
      // Appended during the loop's last write, or a flush that came after it looked.
      const more = this.#pending.length > 0 || (this.#indexDirty && this.#flushers.length > 0);
      if (more && !this.#backingOff) this.#kick();
      // Flushes end when all is stored, or when an attempt has failed (they never wait out a backoff).
      else for (const resolve of this.#flushers.splice(0)) resolve();
    });
  }

  #later(ms: number, backingOff: boolean): void {
    this.#backingOff = backingOff;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#kick();
    }, ms);
    // A server that is leaving goes through close(), which waits; nothing else should keep it.
    this.#timer.unref();
  }

  /** Writes what is queued, then the index entry; on a failure, schedules a retry and returns. */
  async #pump(): Promise<void> {
    try {
      if (!this.#begun && this.#pending.length > 0) await this.#begin();
      while (this.#pending.length > 0) {
        const batch = this.#pending.slice(0, WRITE_BATCH);
        const first = this.#stored + 1;
        await this.#host.write(this.#id, first, batch);
        for (const [i, line] of batch.entries()) this.#remember(first + i, line);
        this.#pending.splice(0, batch.length);
        this.#stored += batch.length;
      }
      if (this.#indexDirty && this.#begun) {
        const wait = this.#indexWrittenAt + this.#options.indexIntervalMs - Date.now();
        if (wait > 0 && this.#flushers.length === 0 && !this.#closed) {
          this.#later(wait, false);
          return;
        }
        this.#indexDirty = false;
        try {
          await this.#writeIndex();
        } catch (error) {
          this.#indexDirty = true;
          throw error;
        }
      }
      this.#retryMs = this.#options.retryMs;
      this.#host.succeeded();
    } catch (error) {
      this.#lastError = error;
      this.#host.failed(error);
      this.#later(this.#retryMs, true);
      this.#retryMs = Math.min(this.#retryMs * 2, MAX_RETRY_MS);
    }
  }

  /**
   * Learns where the session's records end (and what they hold, for the index) before appending;
   * `again`: after another server wrote to it (records this writer holds in #fold are among them).
   */
  async #begin(again = false): Promise<void> {
    if (this.#new !== true || again) {
      const loaded = await this.#host.load(this.#id);
      const { records } = parseValues(this.#id, loaded.values);
      this.#stored = Math.max(this.#stored, loaded.values.length);
      this.#earlier = records.filter((record) => record.type !== 'model_output' && record.type !== 'phase');
      this.#earlierPhase = records.findLast((record) => record.type === 'phase');
    }
    this.#begun = true;
  }

  async #writeIndex(): Promise<void> {
    const current = await this.#host.readIndex(this.#id);
    if (current === undefined && this.#indexWrites > 0 && !(await this.#host.hasHeader(this.#id))) {
      // Deleted by another server while this one had it open: saving more would bring back a
      // session without its beginning.
      this.#host.log.warn(
        `session ${this.#id} was deleted from ${this.#host.name} by another server; what this server does in it is no longer saved`,
      );
      this.#deleted = true;
      this.#pending.length = 0;
      return;
    }
    let count = Math.max(this.#stored, current?.records ?? 0);
    if (this.#indexWrites > 0 && current?.writer !== undefined && current.writer !== this.#token) {
      // Another server has written the session since this writer last did: it resumed the session
      // while this one still had it open. If a record this one stored now holds something else,
      // both appended at once (the writer whose record was overwritten is the one to notice).
      const ours = this.#recent;
      const stored =
        ours.length === 0
          ? []
          : await this.#host.records(
              this.#id,
              ours.map(([n]) => n),
            );
      if (ours.some(([, line], i) => stored[i] !== line) && !this.#warnedConflict) {
        this.#warnedConflict = true;
        this.#host.log.error(
          `session ${this.#id} is being saved by another server at the same time: the two number their records alike in ${this.#host.name} and overwrite each other's. Continue it in one server only.`,
        );
      }
      // Index what the store holds, and append after it from now on.
      const marked = this.#fold.length;
      await this.#begin(true);
      this.#fold.splice(0, marked);
      count = this.#stored;
    }
    const phases = [this.#lastPhase, this.#earlierPhase].filter((phase) => phase !== undefined);
    const phase = phases.sort((a, b) => phaseSeq(b) - phaseSeq(a))[0];
    const records = [...this.#earlier, ...this.#fold, ...(phase === undefined ? [] : [phase])];
    const state = foldSession(records);
    if (state === undefined) return;
    await this.#host.writeIndex(this.#id, {
      format: INDEX_FORMAT,
      sessionId: this.#id,
      workspaceRoot: state.workspaceRoot,
      records: count,
      writer: this.#token,
      savedAt: new Date().toISOString(),
      info: sessionInfo(state),
    });
    this.#indexWrites++;
    this.#indexWrittenAt = Date.now();
  }

  #remember(n: number, line: string): void {
    this.#recent.push([n, line]);
    this.#recentBytes += line.length;
    while (this.#recent.length > RECENT || (this.#recentBytes > RECENT_BYTES && this.#recent.length > 1))
      this.#recentBytes -= this.#recent.shift()?.[1].length ?? 0;
  }

  /** Stores what is queued, trying for closeTimeoutMs; then says what could not be stored. */
  async #drain(): Promise<void> {
    this.#closed = true;
    const deadline = Date.now() + this.#options.closeTimeoutMs;
    for (;;) {
      await this.flush();
      if (this.#pending.length === 0 && !this.#indexDirty) break;
      const left = deadline - Date.now();
      if (left <= 0) break;
      await new Promise((resolve) => setTimeout(resolve, Math.min(this.#retryMs, left)));
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.length > 0) {
      this.#host.log.error(
        `session ${this.#id}: ${this.#pending.length} records could not be saved to ${this.#host.name} and are lost: ${messageOf(this.#lastError)}`,
      );
    } else if (this.#indexDirty) {
      this.#host.log.warn(
        `session ${this.#id}: its index entry in ${this.#host.name} is behind its records; the next read brings it up to date`,
      );
    }
    this.#host.closed(this.#id, this);
  }
}

function phaseSeq(record: SessionRecord): number {
  return record.type === 'phase' ? record.phase.seq : 0;
}

/** The record as stored (redacted), for the index; the record itself should redaction have broken it. */
function parsedOr(line: string, record: SessionRecord): SessionRecord {
  try {
    return JSON.parse(line) as SessionRecord;
  } catch {
    return record;
  }
}

export function recordKeys(sessionId: string, first: number, last: number): string[] {
  const keys: string[] = [];
  for (let n = first; n <= last; n++) keys.push(`${sessionId}:${n}`);
  return keys;
}

/** Stored values as records, skipping (with a warning naming the record) what is missing or damaged. */
export function parseValues(
  sessionId: string,
  values: ReadonlyArray<string | undefined>,
): { records: SessionRecord[]; warnings: string[] } {
  const records: SessionRecord[] = [];
  const warnings: string[] = [];
  values.forEach((value, index) => {
    const where = `${sessionId} record ${index + 1}`;
    if (value === undefined) {
      warnings.push(`${where}: missing; skipped`);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      warnings.push(`${where}: skipped a damaged record (${value.length} characters, not valid JSON)`);
      return;
    }
    const record = asRecord(parsed);
    if (typeof record === 'string') warnings.push(`${where}: skipped ${record}`);
    else records.push(record);
  });
  return { records, warnings };
}

export function parseEntry(key: string, value: unknown, warnings: string[]): IndexEntry | undefined {
  let entry: Partial<IndexEntry> | undefined;
  try {
    entry = typeof value === 'string' ? (JSON.parse(value) as Partial<IndexEntry>) : undefined;
  } catch {
    entry = undefined;
  }
  if (
    entry?.format !== INDEX_FORMAT ||
    typeof entry.workspaceRoot !== 'string' ||
    typeof entry.records !== 'number' ||
    typeof entry.info !== 'object'
  ) {
    warnings.push(`the index entry of ${key} is damaged; left out until the session is read again`);
    return undefined;
  }
  return entry as IndexEntry;
}
