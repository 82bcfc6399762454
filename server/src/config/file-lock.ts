/**
 * A lock between processes around a read-merge-write of the config file, so that two servers
 * running `config/setup` at once (one for Anthropic, one for Groq) both keep their change.
 *
 * The lock is a file created with O_EXCL (`wx`), holding its owner's pid, host and a random token.
 * Waiters poll. A lock is stale when its owner is a process of this host that no longer exists, or
 * when it is older than `staleMs` (a crashed owner on another host, or a pid reused since): the
 * work under it takes milliseconds. Taking a stale lock over is where simple lock files go wrong:
 * two waiters judge the same lock stale, one removes it and takes a fresh one, and the other then
 * removes that fresh lock (npm/lockfile#4, moxystudio/node-proper-lockfile#121). Here a takeover
 * happens under a second O_EXCL file, `<lock>.break`, and removes the lock only if it is still
 * the very file judged stale (same inode, time and contents). Releasing removes the lock only if
 * it still holds this owner's token.
 *
 * What is left: a process that dies while holding `<lock>.break` (a few microseconds) leaves it
 * behind; it is removed once older than `staleMs`, and only there can two waiters still race.
 */
import { randomBytes } from 'node:crypto';
import { open, readFile, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { errorCode } from '../support/errno.ts';

export interface LockOptions {
  /** A lock older than this is abandoned, whoever holds it. Default 10 s. */
  staleMs?: number;
  /** How long to wait for a lock held by a live process before giving up. Default 15 s. */
  timeoutMs?: number;
}

/** The lock could not be taken: someone held it too long, or its file could not be made. */
export class LockError extends Error {
  readonly lockFile: string;
  /** The holder's pid, when it was held and its lock file says. */
  readonly pid?: number;
  /** The file-system error (`EACCES`…) when the lock file could not be made or read. */
  readonly fsCode?: string;

  constructor(lockFile: string, problem: { pid?: number; fsCode?: string }) {
    super(
      problem.fsCode === undefined
        ? `the lock ${lockFile} is held${problem.pid === undefined ? '' : ` by process ${problem.pid}`}`
        : `the lock ${lockFile} could not be taken (${problem.fsCode})`,
    );
    this.name = 'LockError';
    this.lockFile = lockFile;
    if (problem.pid !== undefined) this.pid = problem.pid;
    if (problem.fsCode !== undefined) this.fsCode = problem.fsCode;
  }
}

/** Runs `work` holding the lock file `lockFile`, and releases it however `work` ends. */
export async function withFileLock<T>(
  lockFile: string,
  work: () => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const staleMs = options.staleMs ?? 10_000;
  let token: string;
  try {
    token = await acquire(lockFile, staleMs, options.timeoutMs ?? 15_000);
  } catch (error) {
    if (error instanceof LockError) throw error;
    throw new LockError(lockFile, { fsCode: errorCode(error) ?? 'unknown error' });
  }
  try {
    return await work();
  } finally {
    await release(lockFile, token);
  }
}

interface Holder {
  /** inode, mtime and contents: which lock file this was, exactly. */
  identity: string;
  ageMs: number;
  pid?: number;
  host?: string;
}

async function acquire(lockFile: string, staleMs: number, timeoutMs: number): Promise<string> {
  const token = randomBytes(12).toString('hex');
  const body = `${JSON.stringify({ pid: process.pid, host: hostname(), token, at: new Date().toISOString() })}\n`;
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    if (await create(lockFile, body)) return token;
    const holder = await readHolder(lockFile);
    if (holder === undefined) continue; // released meanwhile
    if (isStale(holder, staleMs)) {
      await breakLock(lockFile, holder, staleMs);
      continue;
    }
    if (Date.now() >= deadline)
      throw new LockError(lockFile, holder.pid === undefined ? {} : { pid: holder.pid });
    // Short, jittered waits: the holder needs a few milliseconds.
    await sleep(Math.min(5 + attempt * 2, 50) * (0.5 + Math.random()));
  }
}

/** True when this call created `path` (O_EXCL) and wrote `body` into it; false when it exists. */
async function create(path: string, body: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, 'wx', 0o600);
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.writeFile(body);
  } finally {
    await handle.close();
  }
  return true;
}

async function readHolder(lockFile: string): Promise<Holder | undefined> {
  try {
    const [info, text] = await Promise.all([stat(lockFile), readFile(lockFile, 'utf8')]);
    const holder: Holder = {
      identity: `${info.ino}:${info.mtimeMs}:${text}`,
      ageMs: Date.now() - info.mtimeMs,
    };
    // Empty while its owner is between creating and writing it; judged by age alone then.
    const parsed = parseOwner(text);
    if (parsed.pid !== undefined) holder.pid = parsed.pid;
    if (parsed.host !== undefined) holder.host = parsed.host;
    return holder;
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

function parseOwner(text: string): { pid?: number; host?: string } {
  try {
    const value = JSON.parse(text) as { pid?: unknown; host?: unknown };
    return {
      ...(typeof value.pid === 'number' ? { pid: value.pid } : {}),
      ...(typeof value.host === 'string' ? { host: value.host } : {}),
    };
  } catch {
    return {};
  }
}

function isStale(holder: Holder, staleMs: number): boolean {
  if (holder.ageMs > staleMs) return true;
  return holder.pid !== undefined && holder.host === hostname() && !isAlive(holder.pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's process.
    return errorCode(error) === 'EPERM';
  }
}

/** Removes the stale lock `holder` described, unless it has changed hands meanwhile. */
async function breakLock(lockFile: string, holder: Holder, staleMs: number): Promise<void> {
  const breaker = `${lockFile}.break`;
  if (!(await create(breaker, `${process.pid}\n`))) {
    const left = await readHolder(breaker);
    // Left by a process that died inside the takeover; anyone may clear it.
    if (left !== undefined && left.ageMs > staleMs) await unlink(breaker).catch(() => {});
    else await sleep(2);
    return;
  }
  try {
    const now = await readHolder(lockFile);
    if (now?.identity === holder.identity) await unlink(lockFile).catch(ignoreMissing);
  } finally {
    await unlink(breaker).catch(ignoreMissing);
  }
}

/**
 * Best effort: a lock that cannot be removed is taken over once stale, and the work it guarded has
 * ended either way, so its outcome is what the caller hears about.
 */
async function release(lockFile: string, token: string): Promise<void> {
  try {
    // Not ours any more if it was judged stale and taken over (this process stalled too long).
    if ((await readFile(lockFile, 'utf8')).includes(token)) await unlink(lockFile);
  } catch {
    // Gone already, or unreadable: nothing more to do.
  }
}

function ignoreMissing(error: unknown): void {
  if (errorCode(error) !== 'ENOENT') throw error;
}
