/**
 * Measures one command from spawn to exit: wall time by our own clock (GNU time's %e has only
 * 10 ms resolution), CPU and peak RSS from GNU time when /usr/bin/time exists, and the peak RSS
 * (VmHWM) of every process in its tree sampled from /proc, split into santra-server and the rest.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { adopt, commandLine, descendants, peakRssBytes, track } from './processes.ts';
import { wallClock } from './protocol-client.ts';

const TIME_BIN = '/usr/bin/time';
/** Whether GNU time is there to report CPU and `%M`; without it only sampled RSS is known. */
export const hasGnuTime = existsSync(TIME_BIN);
const SAMPLE_MS = 5;

/** What one run of a command cost. */
export interface ProcessRun {
  wallSeconds: number;
  /** User + system CPU of the process and the children it waited for (GNU time %U + %S). */
  cpuSeconds: number | undefined;
  /** GNU time %M: the largest RSS of one process in the waited-for tree (a maximum, not a sum). */
  maxRss: number | undefined;
  /** The highest VmHWM sampled: of santra-server processes, and of every other process (undefined: none seen). */
  sampled: { client: number | undefined; server: number | undefined };
}

export interface MeasureOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Where stdout goes: `/dev/null` or a file to check. */
  stdoutPath: string;
  /** A directory for GNU time's report. */
  scratch: string;
}

/** Runs `command` (under GNU time when present) to its exit; rejects when it exits non-zero. */
export async function measureProcess(command: string[], options: MeasureOptions): Promise<ProcessRun> {
  const timeFile = join(options.scratch, 'time.txt');
  const argv = hasGnuTime ? [TIME_BIN, '-f', '%e %U %S %M', '-o', timeFile, ...command] : command;
  const out = openSync(options.stdoutPath, 'w');
  const start = wallClock();
  const child = track(
    spawn(argv[0] as string, argv.slice(1), {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', out, 'pipe'],
    }),
  );
  closeSync(out);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const peak = new Map<number, { role: 'client' | 'server'; bytes: number }>();
  const sample = () => {
    const root = child.pid;
    if (root === undefined) return;
    for (const pid of hasGnuTime ? descendants(root) : [root, ...descendants(root)]) {
      const role = commandLine(pid).includes('santra-server') ? 'server' : 'client';
      // santra -p starts its server in a new process group: make sure it dies with us.
      if (role === 'server') adopt(pid);
      const bytes = peakRssBytes(pid);
      if (bytes !== undefined && bytes > (peak.get(pid)?.bytes ?? 0)) peak.set(pid, { role, bytes });
    }
  };
  const poll = setInterval(sample, SAMPLE_MS);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const wallSeconds = (wallClock() - start) / 1000;
  clearInterval(poll);
  if (code !== 0) throw new Error(`${command.join(' ')} exited with code ${code}:\n${stderr.slice(-2000)}`);
  const max = (role: string) => {
    const seen = [...peak.values()].filter((p) => p.role === role).map((p) => p.bytes);
    return seen.length === 0 ? undefined : Math.max(...seen);
  };
  const sampled = { client: max('client'), server: max('server') };
  if (!hasGnuTime) return { wallSeconds, cpuSeconds: undefined, maxRss: undefined, sampled };
  // GNU time may put a "Command exited…" line first; the format line is the last one.
  const fields = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)?.split(' ').map(Number) ?? [];
  const [, user = 0, sys = 0, rssKiB = 0] = fields;
  return { wallSeconds, cpuSeconds: user + sys, maxRss: rssKiB * 1024, sampled };
}
