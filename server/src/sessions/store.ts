/**
 * The sessions of a server: the live ones in memory (conversation, phase counter, the running
 * run) and, behind them, the storage every session is saved to as it happens. A session not in
 * memory — from an earlier server, or another one sharing the store — is loaded on demand.
 */
import { randomUUID } from 'node:crypto';
import type { ImportFormat, SessionInfo, Usage } from '#protocol';
import { SessionApprovals } from '../approval/gate.ts';
import type { ChatMessage } from '../providers/messages.ts';
import { EMPTY_USAGE } from '../providers/stream.ts';
import type { Logger } from '../support/log.ts';
import { mapStrings } from '../support/map-strings.ts';
import { ProtocolFault } from '../support/protocol-fault.ts';
import { SANTRA_VERSION } from '../support/version.ts';
import { RECORD_FORMAT, type SessionRecord } from './records.ts';
import type { SessionStorage, SessionWriter } from './storage.ts';
import { SESSION_ID } from './storage.ts';
import { type FileChangeRecord, foldSession, type SessionState } from './summary.ts';

export interface Session {
  readonly id: string;
  readonly workspaceRoot: string;
  readonly createdAt: string;
  /** The conversation as the next prompt sends it. The agent loop appends to it. */
  messages: ChatMessage[];
  /** The last `seq` sent; phases continue from it. */
  seq: number;
  /** `provider/model` chosen with model/set (or of the last run, for a loaded session). */
  model?: string;
  /** The abort controller of the run in progress. */
  running?: AbortController;
  /** The run of a prompt that holds the session (occupancy.ts); absent for other work, or idle. */
  runningRunId?: string;
  usage: Usage;
  costUsd: number;
  /** Approval state: allow_all answered in this server. A loaded session starts without it. */
  approvals: SessionApprovals;
  /** File changes not undone, oldest first. */
  changes: FileChangeRecord[];
  title: string;
  /** The name the user gave it (session/rename, names.ts); absent: none. */
  name?: string;
  updatedAt: string;
  /** Runs imported from another agent's transcript (session/import): from which, and its tokens. */
  imported?: { from: ImportFormat; usage: Usage };
  /** Saves a record. Never throws: a store that fails is logged, and the run goes on. */
  record(record: SessionRecord): void;
  /** Keeps a secret (a `secret` answer) out of everything saved or sent from now on. */
  addSecret(secret: string): void;
  /** A value with this session's secrets replaced (phases before they are sent). */
  redact<T>(value: T): T;
}

export interface SessionStoreOptions {
  storage: SessionStorage;
  workspaceRoot: string;
  log: Logger;
  now?: () => Date;
}

export class SessionStore {
  readonly #sessions = new Map<string, Session>();
  readonly #writers = new Map<string, SessionWriter>();
  readonly #options: SessionStoreOptions;
  #failing = false;

  constructor(options: SessionStoreOptions) {
    this.#options = options;
  }

  get storage(): SessionStorage {
    return this.#options.storage;
  }

  /** The workspace new sessions belong to. */
  get workspaceRoot(): string {
    return this.#options.workspaceRoot;
  }

  create(): Session {
    const now = this.#now();
    const session = this.#live({
      sessionId: `ses_${randomUUID()}`,
      workspaceRoot: this.#options.workspaceRoot,
      createdAt: now,
      updatedAt: now,
      title: '',
      messages: [],
      usage: EMPTY_USAGE,
      costUsd: 0,
      lastSeq: 0,
      changes: [],
    });
    session.record({
      type: 'session',
      format: RECORD_FORMAT,
      sessionId: session.id,
      workspaceRoot: session.workspaceRoot,
      createdAt: now,
      santraVersion: SANTRA_VERSION,
    });
    return session;
  }

  /** A session in memory, without loading. */
  get(id: string): Session | undefined {
    return this.#sessions.get(id);
  }

  /**
   * The session, from memory or the store. Refuses one of another workspace unless
   * `otherWorkspace`. Rejects with UnknownSession or SessionInOtherWorkspace.
   */
  async open(
    id: string,
    options: { otherWorkspace?: boolean } = {},
  ): Promise<{ session: Session; warnings: string[] }> {
    const live = this.#sessions.get(id);
    if (live !== undefined) return { session: live, warnings: [] };
    const stored = SESSION_ID.test(id) ? await this.#options.storage.read(id) : undefined;
    const state = stored === undefined ? undefined : foldSession(stored.records, stored.modifiedAt);
    if (stored === undefined || state === undefined) {
      throw new ProtocolFault(
        'UnknownSession',
        `Unknown session ${id}: it is not saved in this store (santra sessions lists them; session/list over the protocol). Omit sessionId to start a new session.`,
      );
    }
    if (state.workspaceRoot !== this.#options.workspaceRoot && options.otherWorkspace !== true) {
      throw new ProtocolFault(
        'SessionInOtherWorkspace',
        `Session ${id} was started in ${state.workspaceRoot}, not in this workspace (${this.#options.workspaceRoot}). Its tools would now work on this workspace: resume it with otherWorkspace: true to do that, or start the server in ${state.workspaceRoot}.`,
        { workspaceRoot: state.workspaceRoot },
      );
    }
    for (const warning of stored.warnings) this.#options.log.warn(`session ${id}: ${warning}`);
    // Another call may have loaded it while this one read.
    const again = this.#sessions.get(id);
    if (again !== undefined) return { session: again, warnings: stored.warnings };
    return { session: this.#live(state), warnings: stored.warnings };
  }

  /** The records of a session, from the store (what export and phase replay read). */
  async records(id: string): Promise<SessionRecord[]> {
    await this.#writers.get(id)?.flush();
    const stored = SESSION_ID.test(id) ? await this.#options.storage.read(id) : undefined;
    if (stored === undefined)
      throw new ProtocolFault('UnknownSession', `Unknown session ${id}: it is not saved in this store.`);
    return stored.records;
  }

  info(session: Session): SessionInfo {
    return {
      sessionId: session.id,
      title: session.title === '' ? '(no prompt yet)' : session.title,
      ...(session.name === undefined ? {} : { name: session.name }),
      workspaceRoot: session.workspaceRoot,
      createdAt: session.createdAt,
      updatedAt: session.updatedAt,
      ...(session.model === undefined ? {} : { model: session.model }),
      messageCount: session.messages.length,
      usage: session.usage,
      costUsd: session.costUsd,
      lastSeq: session.seq,
      ...(session.imported === undefined ? {} : { imported: session.imported }),
    };
  }

  /**
   * Saves `records` to the session `sessionId` — a new session when they begin with its header —
   * and loads it again from the store, folded: how session/import writes. Rejects with
   * SessionBusy while the session runs a prompt, and with the store's fault when it cannot be
   * reached (nothing is written then).
   */
  async saveAll(sessionId: string, records: readonly SessionRecord[]): Promise<Session> {
    if (this.#sessions.get(sessionId)?.running !== undefined) {
      throw new ProtocolFault(
        'SessionBusy',
        `Session ${sessionId} is running a prompt. Import again when it has ended.`,
      );
    }
    await this.#options.storage.ready?.();
    let writer = this.#writers.get(sessionId);
    if (writer === undefined) {
      writer = this.#options.storage.writer(sessionId);
      this.#writers.set(sessionId, writer);
    }
    for (const record of records) writer.append(record);
    await writer.flush();
    // Loaded again from what was stored, so the session in memory is what any server would read.
    this.#sessions.delete(sessionId);
    return (await this.open(sessionId, { otherWorkspace: true })).session;
  }

  async delete(id: string): Promise<void> {
    const live = this.#sessions.get(id);
    if (live?.running !== undefined) {
      throw new ProtocolFault(
        'SessionBusy',
        `Session ${id} is running a prompt. Cancel it before deleting the session.`,
      );
    }
    await this.#writers.get(id)?.close();
    this.#writers.delete(id);
    this.#sessions.delete(id);
    if (!(await this.#options.storage.delete(id)) && live === undefined) {
      throw new ProtocolFault('UnknownSession', `Unknown session ${id}: there is nothing to delete.`);
    }
  }

  /** Aborts every run in progress. */
  abortAll(reason: string): void {
    for (const session of this.#sessions.values()) session.running?.abort(new Error(reason));
  }

  /** Stores what is pending and closes the writers. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#writers.values()].map((writer) => writer.close()));
    this.#writers.clear();
    await this.#options.storage.close();
  }

  #now(): string {
    return (this.#options.now?.() ?? new Date()).toISOString();
  }

  #live(state: SessionState): Session {
    const writer = () => {
      let current = this.#writers.get(state.sessionId);
      if (current === undefined) {
        current = this.#options.storage.writer(state.sessionId);
        this.#writers.set(state.sessionId, current);
      }
      return current;
    };
    const secrets = new Set<string>();
    const redact = <T>(value: T): T =>
      secrets.size === 0
        ? value
        : mapStrings(value, (text) => {
            for (const secret of secrets)
              if (text.includes(secret)) text = text.replaceAll(secret, '[secret]');
            return text;
          });
    const session: Session = {
      id: state.sessionId,
      workspaceRoot: state.workspaceRoot,
      createdAt: state.createdAt,
      messages: state.messages,
      seq: state.lastSeq,
      ...(state.model === undefined ? {} : { model: state.model }),
      usage: state.usage,
      costUsd: state.costUsd,
      approvals: new SessionApprovals(),
      changes: state.changes,
      title: state.title === '(no prompt yet)' ? '' : state.title,
      ...(state.name === undefined ? {} : { name: state.name }),
      updatedAt: state.updatedAt,
      ...(state.imported === undefined ? {} : { imported: state.imported }),
      addSecret: (secret) => {
        // Very short answers are left alone: a one-letter secret would blank every such letter.
        if (secret.length >= 4) secrets.add(secret);
      },
      redact,
      record: (record) => {
        if ('at' in record && typeof record.at === 'string') session.updatedAt = record.at;
        try {
          writer().append(redact(record));
          this.#failing = false;
        } catch (error) {
          // Said once per failing stretch, not for every delta.
          if (!this.#failing)
            this.#options.log.error(
              `session ${state.sessionId}: could not save: ${error instanceof Error ? error.message : String(error)}`,
            );
          this.#failing = true;
        }
      },
    };
    this.#sessions.set(session.id, session);
    return session;
  }
}
