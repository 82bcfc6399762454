/**
 * Where sessions are kept. The embedded default is files (file-storage.ts): one append-only
 * JSON Lines file per session under the config directory, per project. A team may keep them in a
 * shared store through keyv instead (keyv-storage.ts). Both hold the same records and fold them
 * the same way (summary.ts).
 */
import type { SessionInfo } from '#protocol';
import type { ImportArchive } from './import/archive.ts';
import type { SessionRecord } from './records.ts';

/** Appends the records of one session. Contract: never rewrites what it wrote; never throws. */
export interface SessionWriter {
  append(record: SessionRecord): void;
  /** Resolves once everything appended so far is stored. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface StoredSession {
  records: SessionRecord[];
  /** Records skipped as damaged, each naming where. */
  warnings: string[];
  /** When the store last changed the session, where it knows (a file's modification time). */
  modifiedAt?: string;
}

export interface SessionStorage {
  /** A writer for the session; the session is created by its first record (the header). */
  writer(sessionId: string): SessionWriter;
  /** The session's records, or undefined when the store has no such session. */
  read(sessionId: string): Promise<StoredSession | undefined>;
  /** The file the session is saved in (a hook's `transcript_path`); absent or undefined: not a file. */
  pathOf?(sessionId: string): string | undefined;
  /** Every session of this workspace (or of every workspace), in no particular order. */
  list(allWorkspaces: boolean): Promise<{ sessions: SessionInfo[]; warnings: string[] }>;
  /** Removes the session; false when there was none. */
  delete(sessionId: string): Promise<boolean>;
  /**
   * Resolves when the store can take a new session now; rejects with a ProtocolFault saying why
   * not (a shared store that cannot be reached). Absent: it always can (files).
   */
  ready?(): Promise<void>;
  /**
   * The ledger and the originals of session/import for this workspace (import/archive.ts). Absent:
   * the store keeps none, and every import is a new session.
   */
  readonly imports?: ImportArchive;
  close(): Promise<void>;
}

/** Session ids are also file and key names: nothing but `ses_` and letters, digits and dashes. */
export const SESSION_ID = /^ses_[A-Za-z0-9-]{1,64}$/;
