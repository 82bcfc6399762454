/**
 * A directory of the workspace held for the length of one file operation, so the path checked is
 * the path changed. A path is resolved (and shown to the user) before an approval; by the time
 * the change is made, a directory on it may have been swapped for a symbolic link to somewhere
 * outside. So each change walks from the workspace root (or allowed directory) down to the parent
 * directory again, one component at a time, refusing any symbolic link on the way, and then works
 * on names in that directory only.
 *
 * Node has no openat(). On Linux the walk opens each directory with O_DIRECTORY|O_NOFOLLOW
 * relative to the one before through `/proc/self/fd/<fd>/<name>`, which the kernel resolves from
 * the open directory, not by path: what follows (create the temp file, rename, unlink, mkdir)
 * happens in the directory that was checked, whatever is renamed or linked meanwhile. The one
 * thing that can still move is that directory itself, renamed (not swapped: the real directory)
 * out of the workspace; `verify()` right before a change checks where it is now, which leaves the
 * time of one system call, and needs write access outside the workspace to use.
 *
 * Elsewhere (or without /proc) the portable walk lstats each component and `verify()` re-checks,
 * right before the change, that the directory's real path and identity (dev, inode) are still
 * those confirmed. A swap between that check and the system call after it is not detected: a
 * window of microseconds, but one that a process looping on rename() can hit.
 */
import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readlink, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { PathError, type Workspace } from './workspace.ts';
import { errorCode } from '../support/errno.ts';

const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
/** 0 where the platform has no O_NOFOLLOW (Windows); callers lstat first there. */
export const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const CASE_INSENSITIVE = process.platform === 'darwin' || process.platform === 'win32';

export interface PinnedDir {
  /** The directory's real path when it was pinned (for messages). */
  readonly path: string;
  /** What to give fs calls for the directory itself (a `/proc/self/fd/N` path when pinned by fd). */
  readonly location: string;
  /** What to give fs calls for the entry `name` of this directory; never follows a swapped directory. */
  entry(name: string): string;
  /** Throws a PathError unless the directory is still the one pinned, inside the workspace. Call right before a change. */
  verify(): Promise<void>;
  /** Makes renames and unlinks in the directory durable (best effort). */
  sync(): Promise<void>;
  close(): Promise<void>;
}

let forcePortable = false;

/** Tests run the portable walk on Linux too. */
export function forcePortablePinning(force: boolean): void {
  forcePortable = force;
}

let procWorks: Promise<boolean> | undefined;

/** True when `/proc/self/fd/N` resolves to the open directory N (Linux with /proc mounted). */
function procFdWorks(): Promise<boolean> {
  procWorks ??= (async () => {
    if (process.platform !== 'linux') return false;
    try {
      const handle = await open('/', constants.O_RDONLY | O_DIRECTORY);
      try {
        const [viaFd, direct] = await Promise.all([stat(`/proc/self/fd/${handle.fd}`), stat('/')]);
        return viaFd.dev === direct.dev && viaFd.ino === direct.ino;
      } finally {
        await handle.close();
      }
    } catch {
      return false;
    }
  })();
  return procWorks;
}

export interface PinOptions {
  /** Create missing directories (after an approval, for a new file); otherwise a missing one gives undefined. */
  create: boolean;
  /** The path the tool was asked about, for messages. */
  display: string;
}

/**
 * Pins the directory `dir` (a real path inside the workspace, as resolution returned it).
 * Undefined when a directory on the way does not exist and `create` is false. Throws a PathError
 * when a component is now a symbolic link, an ENOTDIR error when it is a file.
 */
export async function pinDirectory(
  workspace: Workspace,
  dir: string,
  options: PinOptions,
): Promise<PinnedDir | undefined> {
  const base = workspace.baseOf(dir);
  if (base === undefined) {
    throw new PathError(
      'outside_workspace',
      `${options.display} is outside the workspace ${workspace.root}.`,
    );
  }
  const names = relative(base.path, dir)
    .split(sep)
    .filter((name) => name !== '');
  return !forcePortable && (await procFdWorks())
    ? pinByFd(workspace, base.path, base.identity, names, options)
    : pinByPath(workspace, base.path, base.identity, names, options);
}

/**
 * Runs `task` with the parent directory of `absolute` pinned (undefined when it is missing and not
 * created) and the name to use in it, then lets the directory go. For the root or an allowed
 * directory itself, which has no parent in the workspace, the name is `.` in the directory.
 */
export async function withPinnedParent<T>(
  workspace: Workspace,
  absolute: string,
  options: PinOptions,
  task: (pinned: PinnedDir | undefined, name: string) => Promise<T>,
): Promise<T> {
  const isBase = workspace.baseOf(absolute)?.path === absolute;
  const pinned = await pinDirectory(workspace, isBase ? absolute : dirname(absolute), options);
  try {
    return await task(pinned, isBase ? '.' : basename(absolute));
  } finally {
    await pinned?.close();
  }
}

async function pinByFd(
  workspace: Workspace,
  basePath: string,
  identity: string | undefined,
  names: readonly string[],
  options: PinOptions,
): Promise<PinnedDir | undefined> {
  let handle = await open(basePath, constants.O_RDONLY | O_DIRECTORY);
  try {
    checkIdentity(basePath, await handle.stat(), identity, options);
    let current = basePath;
    for (const name of names) {
      const next = join(current, name);
      const inside = `/proc/self/fd/${handle.fd}/${name}`;
      let child = await openDirectory(inside);
      if (child === 'missing') {
        if (!options.create) {
          await handle.close();
          return undefined;
        }
        await mkdir(inside).catch(ignoreExists);
        child = await openDirectory(inside);
        if (child === 'missing') throw Object.assign(new Error(`${next} vanished`), { code: 'ENOENT' });
      }
      if (child === 'not_directory') return await refuseComponent(workspace, inside, next, options);
      await handle.close();
      handle = child;
      current = next;
    }
    const fd = handle.fd;
    const held = handle;
    const path = current;
    const location = `/proc/self/fd/${fd}`;
    return {
      path,
      location,
      entry: (name) => `${location}/${name}`,
      async verify() {
        // Where the held directory is now: renamed out of the workspace, it is no place to write.
        const now = await readlink(location);
        if (now.endsWith(' (deleted)'))
          throw Object.assign(new Error(`${path} was removed`), { code: 'ENOENT', path });
        if (!workspace.contains(now)) {
          throw new PathError(
            'outside_workspace',
            `${workspace.display(path)} (the directory of ${options.display}) was moved to ${now}, outside the workspace ${workspace.root}, after the path was checked. Nothing was changed.`,
          );
        }
      },
      sync: () => held.sync().catch(() => {}),
      close: () => held.close().catch(() => {}),
    };
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
}

async function pinByPath(
  workspace: Workspace,
  basePath: string,
  identity: string | undefined,
  names: readonly string[],
  options: PinOptions,
): Promise<PinnedDir | undefined> {
  checkIdentity(basePath, await stat(basePath), identity, options);
  let current = basePath;
  for (const name of names) {
    const next = join(current, name);
    let info = await lstat(next).catch(missingAsUndefined);
    if (info === undefined) {
      if (!options.create) return undefined;
      await mkdir(next).catch(ignoreExists);
      info = await lstat(next);
    }
    if (!info.isDirectory()) await refuseComponent(workspace, next, next, options);
    current = next;
  }
  const path = current;
  const pinned = await lstat(path);
  const verify = async () => {
    const [real, now] = await Promise.all([realpath(path), lstat(path)]);
    const same = CASE_INSENSITIVE ? real.toLowerCase() === path.toLowerCase() : real === path;
    if (same && now.dev === pinned.dev && now.ino === pinned.ino) return;
    // Find the component that changed, for the message; a replaced directory without a link is "changed".
    for (let dir = path; workspace.baseOf(dir) !== undefined; dir = join(dir, '..')) {
      if ((await lstat(dir).catch(missingAsUndefined))?.isSymbolicLink() === true)
        await refuseComponent(workspace, dir, dir, options);
      if (dir === basePath) break;
    }
    throw new PathError(
      'path_changed',
      `${workspace.display(path)} (the directory of ${options.display}) was replaced after the path was checked. Nothing was changed; check the path and try again.`,
    );
  };
  await verify();
  return {
    path,
    location: path,
    entry: (name) => join(path, name),
    verify,
    async sync() {
      const handle = await open(path, constants.O_RDONLY).catch(() => undefined);
      await handle?.sync().catch(() => {});
      await handle?.close();
    },
    close: () => Promise.resolve(),
  };
}

/** The directory opened without following a final link, or why not. */
async function openDirectory(path: string): Promise<FileHandle | 'missing' | 'not_directory'> {
  try {
    return await open(path, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return 'missing';
    // Linux reports a link opened with O_DIRECTORY|O_NOFOLLOW as ENOTDIR, others as ELOOP.
    if (code === 'ENOTDIR' || code === 'ELOOP') return 'not_directory';
    throw error;
  }
}

function checkIdentity(
  basePath: string,
  info: Stats,
  identity: string | undefined,
  options: PinOptions,
): void {
  if (identity === undefined || identity === `${info.dev}:${info.ino}`) return;
  throw new PathError(
    'path_changed',
    `The workspace directory ${basePath} is no longer the directory Santra opened (it was replaced), so ${options.display} was not touched. Restart Santra in the workspace.`,
  );
}

/**
 * Throws for a directory component that is not a directory: a PathError naming the link and where
 * it leads, or the ENOTDIR error of a file (reported as not_a_directory).
 * `path` is what to give fs calls, `shown` the real path it stands for.
 */
async function refuseComponent(
  workspace: Workspace,
  path: string,
  shown: string,
  options: PinOptions,
): Promise<never> {
  const info = await lstat(path);
  if (!info.isSymbolicLink()) {
    throw Object.assign(new Error(`${shown} is not a directory`), { code: 'ENOTDIR', path: shown });
  }
  const target = await realpath(path).catch(async () => readlink(path));
  const what = `${workspace.display(shown)} (on the way to ${options.display}) is now a symbolic link to ${target}`;
  const why =
    'it was swapped in after the path was checked (e.g. while the change waited for approval), and Santra does not follow a link that appears during a change';
  if (!workspace.contains(target)) {
    throw new PathError(
      'outside_workspace',
      `${what}, outside the workspace ${workspace.root}: ${why}. Nothing was changed.`,
    );
  }
  throw new PathError(
    'path_changed',
    `${what}: ${why}. Nothing was changed; check the path (list_dir) and try again.`,
  );
}

function missingAsUndefined(error: unknown): undefined {
  if (errorCode(error) === 'ENOENT') return undefined;
  throw error;
}

function ignoreExists(error: unknown): void {
  if (errorCode(error) !== 'EEXIST') throw error;
}

/**
 * The content of the entry `name` of `dir`; undefined when there is none or it is a symbolic link
 * (a link is never read through: its target may be outside the workspace).
 */
export async function readEntry(dir: PinnedDir, name: string): Promise<Buffer | undefined> {
  const path = dir.entry(name);
  if (O_NOFOLLOW === 0 && (await lstat(path).catch(missingAsUndefined))?.isSymbolicLink() !== false)
    return undefined;
  let handle: FileHandle;
  try {
    // Non-blocking, so a FIFO put in the file's place cannot hang the open.
    handle = await open(path, constants.O_RDONLY | O_NOFOLLOW | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ELOOP' || code === 'EMLINK') return undefined;
    throw error;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      const code = info.isDirectory() ? 'EISDIR' : 'EINVAL';
      throw Object.assign(new Error(`${dir.path}/${name} is not a regular file`), { code });
    }
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
