/**
 * Writing a file atomically: a temp file in the same (pinned) directory, fsync, rename over the
 * target, the target's mode preserved. A reader sees the old content or the new, never half of it.
 *
 * A process killed mid-write leaves its temp file behind, and nothing can prevent that (Node
 * cannot create an unnamed O_TMPFILE file and link it in later). So the temp file's name carries
 * the writer's pid, `.<name>.santra-<pid>-<hex>.tmp`, and every write first removes the temp
 * files in its directory whose writer is dead: a stray one lasts until the next write there.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, readdir, rename, unlink } from 'node:fs/promises';
import { O_NOFOLLOW, type PinnedDir } from './pinned-dir.ts';
import { errorCode } from '../support/errno.ts';

const TEMP = /^\.(?:.*\.)?santra-(?:(\d+)-)?[0-9a-f]{12}\.tmp$/s;
/** A temp file whose writer is alive but took this long is stale anyway (the pid was reused). */
const STALE_AFTER_MS = 60 * 60 * 1000;
/** Temp files of earlier versions (no pid in the name) are stale after this. */
const LEGACY_STALE_AFTER_MS = 10 * 60 * 1000;

/** This process's temp files being written now (names are random, so unique enough across directories). */
const inFlight = new Set<string>();

/** True for the name of an atomic write's temp file, which listings should not show. */
export function isAtomicWriteTemp(name: string): boolean {
  return TEMP.test(name);
}

function tempName(name: string): string {
  // A long name would make the temp name too long for the file system; the pid and hex suffice.
  const prefix = Buffer.byteLength(name) <= 100 ? `.${name}` : '';
  return `${prefix}.santra-${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
}

/** Writes `data` to `name` in `dir`: the temp file is created in the pinned directory, and renamed there. */
export async function atomicWriteIn(dir: PinnedDir, name: string, data: string | Uint8Array): Promise<void> {
  await removeStaleTemps(dir);
  const existing = await lstat(dir.entry(name)).catch(() => undefined);
  // A link (or anything else) is replaced; only a regular file's mode carries over, never a target's.
  const mode = existing?.isFile() === true ? existing.mode & 0o7777 : undefined;
  const temp = tempName(name);
  inFlight.add(temp);
  let created = false;
  try {
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW;
    const handle = await open(dir.entry(temp), flags, mode ?? 0o666);
    created = true;
    try {
      await handle.writeFile(data);
      await handle.sync();
      // The umask applied at creation; the original mode (e.g. an executable script) must survive.
      if (mode !== undefined) await handle.chmod(mode);
    } finally {
      await handle.close();
    }
    await dir.verify();
    await rename(dir.entry(temp), dir.entry(name));
    created = false;
  } finally {
    if (created) await unlink(dir.entry(temp)).catch(() => {});
    inFlight.delete(temp);
  }
  // Make the rename itself durable.
  await dir.sync();
}

/** Removes the temp files in `dir` left by writers that are gone (killed mid-write). Best effort. */
export async function removeStaleTemps(dir: PinnedDir): Promise<void> {
  const names = await readdir(dir.location).catch(() => [] as string[]);
  for (const name of names) {
    const match = TEMP.exec(name);
    if (match === null || inFlight.has(name)) continue;
    const info = await lstat(dir.entry(name)).catch(() => undefined);
    if (info === undefined || !info.isFile()) continue;
    const age = Date.now() - info.mtimeMs;
    const pid = match[1] === undefined ? undefined : Number(match[1]);
    const stale =
      pid === undefined
        ? age > LEGACY_STALE_AFTER_MS
        : pid === process.pid || !isAlive(pid) || age > STALE_AFTER_MS;
    if (stale) await unlink(dir.entry(name)).catch(() => {});
  }
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
