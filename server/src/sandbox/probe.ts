/**
 * Whether the OS sandbox works here, and when it does not, why and what fixes it. On Linux the
 * answer comes from running bubblewrap once the way every command will run (a user, PID, network
 * and mount namespace), because whether that works depends on the kernel, its sysctls, AppArmor
 * and the container Santra may be in — not on whether `bwrap` is installed. The reasons are
 * told apart by what the kernel exposes (/proc/sys), so the fix named is the one that applies.
 */
import { execFile } from 'node:child_process';
import { access, constants, readFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

export type SandboxMechanism = 'bubblewrap' | 'seatbelt';

/** What `santra doctor`, `/status` and `initialize` report. */
export type SandboxStatus =
  | {
      available: true;
      mechanism: SandboxMechanism;
      /** The program run (`/usr/bin/bwrap`, `/usr/bin/sandbox-exec`). */
      program: string;
      /** bubblewrap's version, when it says. */
      version?: string;
      /** bubblewrap ≥ 0.8: commands cannot create user namespaces of their own. */
      disableUserns: boolean;
      /**
       * The program that relays the filtering proxy into the sandbox's network namespace (socat),
       * or undefined when it is missing: then allowed domains cannot be reached (`relayProblem`).
       */
      relay?: string;
      relayProblem?: string;
    }
  | {
      available: false;
      /** Why commands cannot be sandboxed here, in a sentence. */
      problem: string;
      /** What to do about it. */
      fix: string;
    };

export interface ProbeOptions {
  env: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** Where /proc is (tests point it elsewhere). */
  procRoot?: string;
}

const BUBBLEWRAP_MISSING_FIX =
  'Install bubblewrap: `sudo apt install bubblewrap` (Debian, Ubuntu), `sudo dnf install bubblewrap` (Fedora), `sudo pacman -S bubblewrap` (Arch); then restart Santra.';

const APPARMOR_FIX =
  'Ubuntu 24.04 and later restrict unprivileged user namespaces through AppArmor. Allow them for bubblewrap alone with a profile, as Ubuntu documents: write /etc/apparmor.d/bwrap containing\n' +
  '  abi <abi/4.0>,\n  include <tunables/global>\n  profile bwrap /usr/bin/bwrap flags=(unconfined) {\n    userns,\n    include if exists <local/bwrap>\n  }\n' +
  'then run `sudo apparmor_parser -r /etc/apparmor.d/bwrap` (or `sudo systemctl reload apparmor`). Turning the restriction off for every program (`sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0`) also works, but weakens the whole system.';

const CONTAINER_FIX =
  'Santra runs in a container that does not allow user namespaces (Docker and Podman block them by default). Run Santra on the host, or start the container with `--security-opt seccomp=unconfined --security-opt apparmor=unconfined` (or a seccomp profile that allows unshare/clone of user namespaces). Without it, commands run unsandboxed and each one is asked.';

const SYSCTL_FIX =
  'User namespaces are switched off in this kernel. Turn them on: `sudo sysctl user.max_user_namespaces=15000` (and `sudo sysctl kernel.unprivileged_userns_clone=1` on kernels that have it); put the setting in /etc/sysctl.d/ to keep it.';

/** Looks for `name` on the PATH of `env`: the absolute path of the first executable found. */
export async function findProgram(name: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

async function readTrimmed(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    return undefined;
  }
}

function run(
  file: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string; error?: Error }> {
  return new Promise((resolve) => {
    execFile(file, args, { env, timeout: 10_000, encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({
        code,
        stdout,
        stderr,
        ...(error !== null && typeof error.code !== 'number' ? { error } : {}),
      });
    });
  });
}

/** The arguments of the trial run: the namespaces and options every sandboxed command gets. */
export function trialArgs(disableUserns: boolean): string[] {
  return [
    '--unshare-all',
    '--unshare-user',
    ...(disableUserns ? ['--disable-userns'] : []),
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--new-session',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--',
    'true',
  ];
}

/** Probes the sandbox of this platform. Never rejects. */
export async function probeSandbox(options: ProbeOptions): Promise<SandboxStatus> {
  const platform = options.platform ?? process.platform;
  if (platform === 'darwin') return probeSeatbelt(options.env);
  if (platform !== 'linux') {
    return {
      available: false,
      problem: `Santra has no OS sandbox for ${platform} (only Linux, with bubblewrap, and macOS, with Seatbelt).`,
      fix: 'Run Santra on Linux or macOS for sandboxed commands; here each command is asked and runs with your full rights.',
    };
  }
  const proc = options.procRoot ?? '/proc';
  const bwrap = await findProgram('bwrap', options.env);
  if (bwrap === undefined) {
    return {
      available: false,
      problem: 'bubblewrap (bwrap) is not installed, or not on PATH.',
      fix: BUBBLEWRAP_MISSING_FIX,
    };
  }
  const versionRun = await run(bwrap, ['--version'], options.env);
  const version = /(\d+\.\d+(?:\.\d+)?)/.exec(versionRun.stdout)?.[1];
  const [major = 0, minor = 0] = (version ?? '0.0').split('.').map(Number);
  const disableUserns = major > 0 || minor >= 8;
  const trial = await run(bwrap, trialArgs(disableUserns), options.env);
  if (trial.code !== 0) {
    const said = (trial.stderr.trim() || trial.error?.message || `exit ${String(trial.code)}`).split('\n')[0];
    return { available: false, ...(await diagnose(proc, said ?? '')) };
  }
  const relay = await findProgram('socat', options.env);
  return {
    available: true,
    mechanism: 'bubblewrap',
    program: bwrap,
    ...(version === undefined ? {} : { version }),
    disableUserns,
    ...(relay === undefined
      ? {
          relayProblem:
            'socat is not installed, so allowed domains cannot be reached from the sandbox (the network stays off). Install it: `sudo apt install socat`.',
        }
      : { relay }),
  };
}

/** Why bubblewrap could not make its namespaces, from what the kernel says about itself. */
async function diagnose(proc: string, said: string): Promise<{ problem: string; fix: string }> {
  const failed = `bubblewrap is installed but cannot create the sandbox (it said: ${said})`;
  if ((await readTrimmed(join(proc, 'sys/kernel/apparmor_restrict_unprivileged_userns'))) === '1') {
    return { problem: `${failed}: AppArmor restricts unprivileged user namespaces here.`, fix: APPARMOR_FIX };
  }
  const maxUserNs = await readTrimmed(join(proc, 'sys/user/max_user_namespaces'));
  const cloneAllowed = await readTrimmed(join(proc, 'sys/kernel/unprivileged_userns_clone'));
  if (maxUserNs === '0' || cloneAllowed === '0') {
    return { problem: `${failed}: user namespaces are switched off in the kernel.`, fix: SYSCTL_FIX };
  }
  if (await inContainer(proc)) {
    return {
      problem: `${failed}: the container Santra runs in does not allow user namespaces.`,
      fix: CONTAINER_FIX,
    };
  }
  return {
    problem: `${failed}.`,
    fix: `Check that unprivileged user namespaces are allowed (\`unshare --user --map-root-user true\` should succeed). ${CONTAINER_FIX}`,
  };
}

async function inContainer(proc: string): Promise<boolean> {
  for (const marker of ['/.dockerenv', '/run/.containerenv']) {
    try {
      await access(marker);
      return true;
    } catch {
      // Not this one.
    }
  }
  const cgroup = (await readTrimmed(join(proc, '1/cgroup'))) ?? '';
  return /docker|kubepods|containerd|libpod|lxc/.test(cgroup);
}

async function probeSeatbelt(env: NodeJS.ProcessEnv): Promise<SandboxStatus> {
  const program = '/usr/bin/sandbox-exec';
  try {
    await access(program, constants.X_OK);
  } catch {
    return {
      available: false,
      problem: 'sandbox-exec (Seatbelt) was not found at /usr/bin/sandbox-exec.',
      fix: 'It is part of macOS; check that /usr/bin is intact.',
    };
  }
  const trial = await run(program, ['-p', '(version 1)(allow default)', '/usr/bin/true'], env);
  if (trial.code !== 0) {
    return {
      available: false,
      problem: `sandbox-exec could not start a command (it said: ${trial.stderr.trim().split('\n')[0] ?? ''}).`,
      fix: 'Santra may already run inside a sandbox that forbids nesting one; run it from a normal terminal.',
    };
  }
  return { available: true, mechanism: 'seatbelt', program, disableUserns: false };
}
