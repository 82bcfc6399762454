/**
 * The benchmarks' child processes and what Linux says about them: every child is registered so
 * that an error, a signal or the deadline kills it, and /proc gives CPU time, peak RSS and the
 * process tree (santra -p starts its server in its own process group, so killing santra alone
 * would leave the server behind).
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const children = new Set<ChildProcess>();
/** Processes we did not spawn ourselves but found below a child (santra -p's server). */
const adopted = new Set<number>();

/** Registers a child so that `killAll` ends it; it is forgotten once it exits. */
export function track<T extends ChildProcess>(child: T): T {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Registers a grandchild by pid; `killAll` ends it if it still runs `santra-server`. */
export function adopt(pid: number): void {
  adopted.add(pid);
}

/** Kills every child still running, then every adopted santra-server still alive. Synchronous. */
export function killAll(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  children.clear();
  for (const pid of adopted) {
    // A pid can be reused once its process is gone: only kill what still looks like ours.
    if (readProc(pid, 'cmdline')?.includes('santra-server') === true) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
  adopted.clear();
}

let step = 'starting';

/** Names what the benchmark is doing now, for the timeout and failure messages. */
export function setStep(name: string): void {
  step = name;
}

/** What the benchmark is doing now (see `setStep`). */
export function currentStep(): string {
  return step;
}

/**
 * Kills every child and exits with a message naming the step when the benchmark runs longer than
 * `seconds`, or on Ctrl-C / SIGTERM. The timer is unref'd: it never keeps a finished run alive.
 */
export function installGuards(seconds: number): void {
  process.once('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killAll();
      process.stderr.write(`\nbench-stream: stopped by ${signal} while ${step}\n`);
      process.exit(130);
    });
  }
  setTimeout(() => {
    killAll();
    process.stderr.write(
      `bench-stream: timed out after ${seconds} s while ${step}. Every child process was killed. ` +
        `If the machine is just slow, rerun with --timeout ${seconds * 2}; otherwise the server is stuck ` +
        `(run that step by hand with SANTRA_LOG_LEVEL=debug to see where).\n`,
    );
    process.exit(1);
  }, seconds * 1000).unref();
}

function readProc(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}

/** Clock ticks per second, for /proc/<pid>/stat times (`getconf CLK_TCK`, almost always 100). */
export const CLOCK_TICKS = (() => {
  try {
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isInteger(ticks) && ticks > 0 ? ticks : 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU seconds a running process has used, from /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number {
  const stat = readProc(pid, 'stat');
  if (stat === undefined) throw new Error(`cannot read /proc/${pid}/stat: the process has exited`);
  // The command name in parentheses may contain spaces: count fields after the last ')'.
  // Field 3 (state) is rest[0], so utime (14) and stime (15) are rest[11] and rest[12].
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) / CLOCK_TICKS;
}

/** The peak resident set size (VmHWM) of a running process in bytes, or undefined once it exited. */
export function peakRssBytes(pid: number): number | undefined {
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(readProc(pid, 'status') ?? '');
  return match === null ? undefined : Number(match[1]) * 1024;
}

/** The command line of a process, arguments joined by spaces; '' once it exited. */
export function commandLine(pid: number): string {
  return (readProc(pid, 'cmdline') ?? '').split('\0').join(' ').trim();
}

/** Every live descendant of `pid` (children of all its threads, recursively). */
export function descendants(pid: number): number[] {
  const found: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return found;
  }
  for (const task of tasks) {
    const list = readProc(pid, `task/${task}/children`) ?? '';
    for (const child of list.split(' ').filter((part) => part !== '')) {
      found.push(Number(child));
      found.push(...descendants(Number(child)));
    }
  }
  return found;
}
