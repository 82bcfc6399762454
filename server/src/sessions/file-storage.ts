/**
 * The embedded session store: files under the config directory, one folder per project (the
 * workspace root), one JSON Lines file per session:
 *
 *   <config dir>/sessions/<workspace name>-<hash of its path>/<session id>.jsonl
 *   <config dir>/sessions/<…>/index.json     what session/list shows, per file
 *
 * The session files are the truth. The index only saves reading every file for a listing: an
 * entry is used while its file's size and modification time are what the index recorded, and is
 * rebuilt from the file otherwise; a missing or damaged index is rebuilt whole. It is written to
 * a temp file, fsynced and renamed, so a crash leaves the old index or the new one.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { readdir, readFile, stat, unlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { SessionInfo } from '#protocol';
import { errorCode } from '../support/errno.ts';
import { FileImportArchive, originalFile } from './import/archive.ts';
import { Journal, parseJournal } from './journal.ts';
import type { SessionRecord } from './records.ts';
import type { SessionStorage, SessionWriter, StoredSession } from './storage.ts';
import { SESSION_ID } from './storage.ts';
import { foldSession, sessionInfo } from './summary.ts';

const INDEX = 'index.json';
const INDEX_FORMAT = 1;

interface IndexEntry {
  size: number;
  mtimeMs: number;
  info: SessionInfo;
}

/** The folder of a project's sessions: readable name, then a hash that tells same-named ones apart. */
export function projectFolder(workspaceRoot: string): string {
  const name =
    basename(workspaceRoot)
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .slice(0, 40) || 'root';
  const hash = createHash('sha256').update(workspaceRoot).digest('hex').slice(0, 12);
  return `${name}-${hash}`;
}

export class FileStorage implements SessionStorage {
  readonly #root: string;
  readonly #project: string;
  readonly #redact: (line: string) => string;
  /** session/import's ledger and originals, in the project folder (import/archive.ts). */
  readonly imports: FileImportArchive;

  /** `sessionsDir`: `<config dir>/sessions`. `redact` cleans each line of secrets before it is written. */
  constructor(sessionsDir: string, workspaceRoot: string, redact: (line: string) => string) {
    this.#root = sessionsDir;
    this.#project = join(sessionsDir, projectFolder(workspaceRoot));
    this.#redact = redact;
    this.imports = new FileImportArchive(this.#project, redact);
  }

  pathOf(sessionId: string): string | undefined {
    return SESSION_ID.test(sessionId) ? join(this.#project, `${sessionId}.jsonl`) : undefined;
  }

  writer(sessionId: string): SessionWriter {
    assertId(sessionId);
    const journal = new Journal(join(this.#project, `${sessionId}.jsonl`), this.#redact);
    return {
      append: (record: SessionRecord) => journal.append(record),
      flush: () => Promise.resolve(),
      close: () => {
        journal.close();
        return Promise.resolve();
      },
    };
  }

  async read(sessionId: string): Promise<StoredSession | undefined> {
    if (!SESSION_ID.test(sessionId)) return undefined;
    for (const dir of [this.#project, ...(await this.#projects()).filter((d) => d !== this.#project)]) {
      const path = join(dir, `${sessionId}.jsonl`);
      const text = await readFile(path, 'utf8').catch((error: unknown) => {
        if (errorCode(error) === 'ENOENT') return undefined;
        throw error;
      });
      if (text === undefined) continue;
      const info = await stat(path);
      return { ...parseJournal(text, `${sessionId}.jsonl`), modifiedAt: info.mtime.toISOString() };
    }
    return undefined;
  }

  async list(allWorkspaces: boolean): Promise<{ sessions: SessionInfo[]; warnings: string[] }> {
    const dirs = allWorkspaces ? await this.#projects() : [this.#project];
    const sessions: SessionInfo[] = [];
    const warnings: string[] = [];
    for (const dir of dirs) {
      const listed = await listProject(dir);
      sessions.push(...listed.sessions);
      warnings.push(...listed.warnings);
    }
    return { sessions, warnings };
  }

  async delete(sessionId: string): Promise<boolean> {
    if (!SESSION_ID.test(sessionId)) return false;
    for (const dir of [this.#project, ...(await this.#projects())]) {
      try {
        await unlink(join(dir, `${sessionId}.jsonl`));
        // An imported session's original goes with it.
        await unlink(join(dir, originalFile(sessionId))).catch(() => {});
        return true;
      } catch (error) {
        if (errorCode(error) !== 'ENOENT') throw error;
      }
    }
    return false;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  async #projects(): Promise<string[]> {
    const entries = await readdir(this.#root, { withFileTypes: true }).catch(() => []);
    return entries.filter((entry) => entry.isDirectory()).map((entry) => join(this.#root, entry.name));
  }
}

function assertId(sessionId: string): void {
  if (!SESSION_ID.test(sessionId)) throw new Error(`not a session id: ${JSON.stringify(sessionId)}`);
}

/** The sessions of one project folder, from the index where it is current and the files otherwise. */
async function listProject(dir: string): Promise<{ sessions: SessionInfo[]; warnings: string[] }> {
  const warnings: string[] = [];
  const names = (await readdir(dir).catch(() => [] as string[])).filter(
    (name) => name.endsWith('.jsonl') && SESSION_ID.test(name.slice(0, -'.jsonl'.length)),
  );
  if (names.length === 0) return { sessions: [], warnings };
  const index = await readIndex(dir);
  if (index.damaged) warnings.push(`${join(dir, INDEX)} was damaged; it was rebuilt from the session files`);
  const fresh: Record<string, IndexEntry> = {};
  let changed = index.damaged || Object.keys(index.entries).length !== names.length;
  for (const name of names) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info === undefined) continue;
    const known = index.entries[name];
    if (known !== undefined && known.size === info.size && known.mtimeMs === info.mtimeMs) {
      fresh[name] = known;
      continue;
    }
    changed = true;
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    const parsed = parseJournal(text, name);
    warnings.push(...parsed.warnings);
    const state = foldSession(parsed.records, info.mtime.toISOString());
    if (state === undefined) {
      warnings.push(`${name}: not a session file (no header record); left out`);
      continue;
    }
    fresh[name] = { size: info.size, mtimeMs: info.mtimeMs, info: sessionInfo(state) };
  }
  if (changed) {
    try {
      writeAtomic(join(dir, INDEX), `${JSON.stringify({ format: INDEX_FORMAT, entries: fresh })}\n`);
    } catch (error) {
      warnings.push(
        `could not save ${join(dir, INDEX)}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  return { sessions: Object.values(fresh).map((entry) => entry.info), warnings };
}

async function readIndex(dir: string): Promise<{ entries: Record<string, IndexEntry>; damaged: boolean }> {
  let text: string;
  try {
    text = await readFile(join(dir, INDEX), 'utf8');
  } catch {
    return { entries: {}, damaged: false };
  }
  try {
    const value = JSON.parse(text) as { format?: unknown; entries?: unknown };
    if (value.format === INDEX_FORMAT && typeof value.entries === 'object' && value.entries !== null)
      return { entries: value.entries as Record<string, IndexEntry>, damaged: false };
  } catch {
    // Rebuilt below.
  }
  return { entries: {}, damaged: true };
}

/** Writes a whole file so that a crash leaves either the old content or the new: temp, fsync, rename. */
export function writeAtomic(path: string, text: string): void {
  const temp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}
