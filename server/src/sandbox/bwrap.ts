/**
 * A profile as bubblewrap arguments. The mounts, in the order bubblewrap applies them (a later
 * mount covers an earlier one):
 *
 * 1. the whole file system read-only (`--ro-bind / /`);
 * 2. a private, empty, writable /tmp and /var/tmp (TMPDIR points there), and a fresh /dev;
 * 3. /home replaced by an empty directory with only the user's own home put back, read-only:
 *    other users' homes are gone (and /root, unless the user is root);
 * 4. in `workspace-write`, the workspace and the user's allowed directories bound writable;
 * 5. inside those, every protected location that exists (`.git`, `.husky`, `.santra`, `.agents`,
 *    shell start-up files, a worktree's git directory) bound again read-only — a symbolic link
 *    is followed, so its target is what becomes read-only;
 * 6. Santra's config directory (keys, sessions) and the sockets of the user's session bus, of
 *    Docker, containerd and Podman replaced by empty read-only directories or /dev/null;
 * 7. a fresh /proc of the sandbox's own PID namespace: the server and every other process of
 *    the user are invisible, so `/proc/<pid>/environ` of the server cannot be read.
 *
 * Namespaces: user (capabilities dropped, no nested user namespace where bubblewrap ≥ 0.8),
 * PID, network (only a loopback of its own), IPC, UTS, cgroup; a new session (no TIOCSTI into
 * the terminal); killed with its parent. bubblewrap sets NoNewPrivs, and the seccomp filter
 * (seccomp.ts) comes in through a file descriptor.
 */
import { lstatSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { protectedNames } from '../approval/protected-paths.ts';
import { isInside } from '../workspace/workspace.ts';
import type { SandboxProfile, SandboxScope } from './profile.ts';

/** Where the filtering proxy's socket appears inside the sandbox, and the port its relay listens on. */
export const PROXY_SOCKET_INSIDE = '/tmp/.santra-proxy.sock';
export const PROXY_PORT = 3128;

export interface BwrapPlan {
  profile: Exclude<SandboxProfile, 'danger-full-access'>;
  cwd: string;
  /** Writable directories (empty in `read-only`). */
  writable: string[];
  /** In `read-only`, the workspace and allowed directories: bound back read-only where an emptied /tmp or /home covered them. */
  readable: string[];
  /** Existing paths inside a writable directory kept read-only. */
  readOnly: string[];
  /** Existing directories and files covered by empty read-only ones. */
  hidden: Array<{ path: string; directory: boolean }>;
  /** The user's home, when it is under /home (put back after /home is emptied). */
  home?: string;
  /** Hide /root (the user is not root). */
  hideRoot: boolean;
  /** The host's proxy socket, bound inside; undefined: no network at all. */
  proxySocket?: string;
  /** The file descriptor bubblewrap reads the seccomp program from; undefined: none. */
  seccompFd?: number;
  disableUserns: boolean;
}

/** Sockets a command could use to act outside the sandbox (a container engine runs as root). */
const HOST_SOCKETS = [
  '/run/docker.sock',
  '/var/run/docker.sock',
  '/run/containerd/containerd.sock',
  '/run/podman/podman.sock',
  '/run/dbus/system_bus_socket',
  '/var/run/dbus/system_bus_socket',
];

function exists(path: string): 'dir' | 'other' | undefined {
  try {
    return statSync(path).isDirectory() ? 'dir' : 'other';
  } catch {
    return undefined;
  }
}

/**
 * The protected locations that exist in `root` and in each directory from `root` down to `cwd`
 * (a nested repository on the way has its own `.git`): their absolute paths.
 */
export function protectedIn(root: string, cwd: string): string[] {
  const { dirs, files } = protectedNames();
  const found: string[] = [];
  const levels = [root];
  if (isInside(cwd, root) && cwd !== root) {
    let current = root;
    for (const part of relative(root, cwd).split(sep)) {
      current = join(current, part);
      levels.push(current);
    }
  }
  for (const level of levels) {
    for (const name of [...dirs, ...files]) {
      const path = join(level, name);
      let isLink: boolean;
      try {
        isLink = lstatSync(path).isSymbolicLink();
      } catch {
        continue;
      }
      if (exists(path) !== undefined || isLink) found.push(path);
      // A worktree's or submodule's `.git` file points at its git directory: keep that read-only too.
      if (name === '.git' && exists(path) === 'other') {
        const gitdir = /^gitdir:\s*(.+)$/m.exec(safeRead(path))?.[1]?.trim();
        if (gitdir !== undefined) found.push(isAbsolute(gitdir) ? gitdir : resolve(level, gitdir));
      }
    }
  }
  return found;
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** The mounts for a command of `profile` in `cwd`, from what is on disk now. */
export function planMounts(
  profile: Exclude<SandboxProfile, 'danger-full-access'>,
  scope: SandboxScope,
  cwd: string,
  extra: { env: NodeJS.ProcessEnv; uid: number | undefined },
): Omit<BwrapPlan, 'proxySocket' | 'seccompFd' | 'disableUserns'> {
  const roots = [scope.workspaceRoot, ...scope.allowedDirs].filter((dir) => exists(dir) === 'dir');
  const writable = profile === 'workspace-write' ? roots : [];
  const readOnly = writable
    .flatMap((root) => protectedIn(root, cwd))
    .filter((path) => writable.some((root) => isInside(resolve(path), root)));
  const hidden: BwrapPlan['hidden'] = [];
  // Santra's config directory, unless the workspace is inside it (then the user chose to work there).
  const config = exists(scope.configDir);
  if (config !== undefined && !isInside(scope.workspaceRoot, scope.configDir))
    hidden.push({ path: scope.configDir, directory: config === 'dir' });
  const runtimeDir = extra.env.XDG_RUNTIME_DIR;
  if (runtimeDir !== undefined && isAbsolute(runtimeDir) && exists(runtimeDir) === 'dir')
    hidden.push({ path: runtimeDir, directory: true });
  for (const socket of HOST_SOCKETS) {
    const kind = exists(socket);
    if (kind !== undefined) hidden.push({ path: socket, directory: kind === 'dir' });
  }
  const home =
    scope.home !== undefined && isInside(scope.home, '/home') && scope.home !== '/home'
      ? scope.home
      : undefined;
  return {
    profile,
    cwd,
    writable,
    readable: profile === 'read-only' ? roots : [],
    readOnly: [...new Set(readOnly)],
    hidden,
    ...(home === undefined ? {} : { home }),
    hideRoot: extra.uid !== 0 && exists('/root') === 'dir' && !isInside(scope.workspaceRoot, '/root'),
  };
}

/** The bubblewrap arguments for `plan`, then `--`, `file` and `args`. Pure. */
export function bwrapArgs(plan: BwrapPlan, file: string, args: readonly string[]): string[] {
  const out: string[] = [
    '--unshare-all',
    '--unshare-user',
    ...(plan.disableUserns ? ['--disable-userns'] : []),
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--new-session',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
  ];
  if (exists('/var/tmp') === 'dir') out.push('--tmpfs', '/var/tmp');
  if (exists('/home') === 'dir') {
    out.push('--tmpfs', '/home');
    if (plan.home !== undefined) out.push('--ro-bind-try', plan.home, plan.home);
  }
  if (plan.hideRoot) out.push('--tmpfs', '/root');
  // Whatever the emptied /tmp, /home and /root covered and the command needs back: the workspace
  // may live there (read-only in `read-only`).
  for (const dir of plan.readable) if (coveredByTmpfs(dir, plan)) out.push('--ro-bind', dir, dir);
  for (const dir of plan.writable) out.push('--bind', dir, dir);
  for (const path of plan.readOnly) out.push('--ro-bind-try', path, path);
  for (const { path, directory } of plan.hidden) {
    if (directory) out.push('--tmpfs', path, '--remount-ro', path);
    else out.push('--ro-bind', '/dev/null', path);
  }
  if (plan.proxySocket !== undefined) out.push('--ro-bind', plan.proxySocket, PROXY_SOCKET_INSIDE);
  out.push('--proc', '/proc');
  if (plan.seccompFd !== undefined) out.push('--seccomp', String(plan.seccompFd));
  out.push('--chdir', plan.cwd, '--', file, ...args);
  return out;
}

function coveredByTmpfs(dir: string, plan: BwrapPlan): boolean {
  const covers = ['/tmp', '/var/tmp', '/home', ...(plan.hideRoot ? ['/root'] : [])];
  return covers.some((top) => isInside(dir, top)) && !(plan.home !== undefined && isInside(dir, plan.home));
}

/**
 * The program that runs inside when allowed domains are reached through the proxy: a relay from
 * 127.0.0.1:3128 inside the sandbox's network namespace to the proxy's socket, started and waited
 * for before the command, which then replaces the shell.
 */
export function relayCommand(
  relay: string,
  file: string,
  args: readonly string[],
): { file: string; args: string[] } {
  const port = PROXY_PORT.toString(16).toUpperCase().padStart(4, '0');
  const script = [
    `"$0" TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${PROXY_SOCKET_INSIDE} >/dev/null 2>&1 &`,
    'i=0',
    `while ! grep -q ':${port} 00000000:0000 0A' /proc/net/tcp 2>/dev/null && [ "$i" -lt 400 ]; do i=$((i + 1)); sleep 0.005; done`,
    'shift',
    'exec "$@"',
  ].join('\n');
  return { file: '/bin/sh', args: ['-c', script, relay, 'relay', file, ...args] };
}
