/**
 * Runs a child process for a tool: in its own process group, stdin from /dev/null and output
 * through pipes (never the server's stdout, which carries the protocol), output captured in
 * bounded memory, and the whole group killed on timeout or cancellation — SIGTERM, then SIGKILL
 * after a grace period — so a `sleep 100 &` grandchild does not outlive the call. Whatever the
 * command leaves running in its group when it exits is stopped as well: nothing a tool started
 * keeps running after the tool returns.
 */
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { type CapturedText, OutputCapture, splitBudget } from './output-capture.ts';

export interface ProcessOptions {
  file: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal: AbortSignal;
  /** Bytes of stdout and stderr kept, in total. */
  outputLimit: number;
  /** Between SIGTERM and SIGKILL. */
  graceMs?: number;
  /** Bytes the child reads from descriptors 3, 4, … through pipes (the sandbox's seccomp program). */
  extraInputs?: readonly Uint8Array[];
}

export interface ProcessOutcome {
  /** How it ended: by itself, killed at the timeout, or killed because the run was cancelled. */
  ended: 'exited' | 'timeout' | 'cancelled';
  exitCode: number | null;
  /** The signal that ended the main process, if one did. */
  exitSignal: NodeJS.Signals | null;
  stdout: CapturedText;
  stderr: CapturedText;
  durationMs: number;
  /** Things the model should know: background processes stopped, output not fully read. */
  notes: string[];
}

const DEFAULT_GRACE_MS = 2_000;
// After the main process exits, how long its pipes may stay open before we stop reading.
const DRAIN_MS = 2_000;

/**
 * Runs `file` with `args` (no shell unless `file` is one).
 * Contract: resolves with the outcome; rejects only when the process cannot be started (the
 * spawn error, e.g. ENOENT for a missing program or cwd).
 */
export async function runProcess(options: ProcessOptions): Promise<ProcessOutcome> {
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const started = performance.now();
  // A run cancelled before its command started never starts it: killing it at once would still
  // let it act for a moment.
  if (options.signal.aborted) {
    const none = new OutputCapture(0).text(0);
    return {
      ended: 'cancelled',
      exitCode: null,
      exitSignal: null,
      stdout: none,
      stderr: none,
      durationMs: 0,
      notes: [],
    };
  }
  const child = spawn(options.file, options.args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe', ...(options.extraInputs ?? []).map(() => 'pipe' as const)],
    detached: true,
  });
  // Pipes, as stdio says; typed nullable only because the extra descriptors widen the type.
  const childOut = child.stdout as Readable;
  const childErr = child.stderr as Readable;
  const stdout = new OutputCapture(options.outputLimit);
  const stderr = new OutputCapture(options.outputLimit);
  childOut.on('data', (chunk: Buffer) => stdout.push(chunk));
  childErr.on('data', (chunk: Buffer) => stderr.push(chunk));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.once('exit', (code, signal) => resolve([code, signal])),
  );

  const spawned = await new Promise<Error | undefined>((resolve) => {
    child.once('spawn', () => resolve(undefined));
    child.once('error', resolve);
  });
  if (spawned !== undefined || child.pid === undefined)
    throw spawned ?? new Error(`could not start ${options.file}`);
  const pgid = child.pid;
  (options.extraInputs ?? []).forEach((bytes, index) => {
    const input = child.stdio[3 + index] as Writable;
    input.on('error', () => {}); // a child that never reads it (it failed first) is not our error
    input.end(bytes);
  });

  let ended: ProcessOutcome['ended'] = 'exited';
  let killing: Promise<void> | undefined;
  const stop = (why: 'timeout' | 'cancelled') => {
    if (killing !== undefined) return;
    ended = why;
    killing = killGroup(pgid, graceMs);
  };
  const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
  const onAbort = () => stop('cancelled');
  options.signal.addEventListener('abort', onAbort, { once: true });
  if (options.signal.aborted) onAbort();

  const [exitCode, exitSignal] = await exited;
  clearTimeout(timer);
  options.signal.removeEventListener('abort', onAbort);
  const durationMs = performance.now() - started;

  const notes: string[] = [];
  if (killing === undefined && (await groupAlive(pgid))) {
    notes.push(
      'Processes the command left running in the background were stopped (nothing a tool starts keeps running after it returns).',
    );
    killing = killGroup(pgid, graceMs);
  }
  await killing;
  const drained = await Promise.race([closed.then(() => true), delay(DRAIN_MS, false, { ref: false })]);
  if (!drained) {
    // A process that left the group (setsid, daemonize) still holds the pipes.
    childOut.destroy();
    childErr.destroy();
    notes.push(
      'A process that detached from the command still holds its output; output after the command ended was not read.',
    );
  }

  const [outBudget, errBudget] = splitBudget(options.outputLimit, stdout.totalBytes, stderr.totalBytes);
  return {
    ended,
    exitCode,
    exitSignal,
    stdout: stdout.text(outBudget),
    stderr: stderr.text(errBudget),
    durationMs,
    notes,
  };
}

/**
 * SIGTERM to every process of the group, then SIGKILL to what is left after `graceMs`. First the
 * group is frozen (SIGSTOP: it can start nothing new meanwhile) and what its processes started
 * that left it — a child that made itself a session of its own (setsid) — is killed. Its members
 * as they were then get the SIGKILL too, even if one leaves the group during the grace period:
 * bubblewrap's sandboxed command is still in the group while it starts, ignores SIGTERM (the init
 * of its PID namespace), and then makes itself a session of its own, before its die-with-parent
 * holds. So a cancel at any moment leaves nothing running.
 */
export async function killGroup(pgid: number, graceMs = DEFAULT_GRACE_MS): Promise<void> {
  signalGroup(pgid, 'SIGSTOP');
  // A stop lands when each process next runs; one still inside fork or clone would add a child
  // after the look. So the look waits (briefly) for the whole group to be stopped.
  await groupStopped(pgid, 250);
  const stats = await procStats();
  for (const stat of detachedDescendants(pgid, stats)) killProcess(stat, stats);
  const members = stats.filter((stat) => stat.pgrp === pgid && stat.state !== 'Z');
  signalGroup(pgid, 'SIGTERM');
  signalGroup(pgid, 'SIGCONT');
  const deadline = performance.now() + graceMs;
  while (performance.now() < deadline) {
    await delay(50);
    if (!(await groupAlive(pgid)) && !(await anyAlive(members))) return;
  }
  signalGroup(pgid, 'SIGKILL');
  const now = await procStats();
  for (const member of members) killProcess(member, now);
}

/** SIGKILL to `stat`'s process if it is still that process (same start time: not a reused pid). */
function killProcess(stat: ProcStat, now: readonly ProcStat[]): void {
  const current = now.find((candidate) => candidate.pid === stat.pid);
  if (current === undefined || current.started !== stat.started || current.state === 'Z') return;
  try {
    process.kill(stat.pid, 'SIGKILL');
  } catch {
    // ESRCH: gone already.
  }
}

/** Whether any of `stats`' processes is still alive (and still that process). */
async function anyAlive(stats: readonly ProcStat[]): Promise<boolean> {
  if (stats.length === 0) return false;
  const now = await procStats();
  return stats.some((stat) =>
    now.some(
      (current) => current.pid === stat.pid && current.started === stat.started && current.state !== 'Z',
    ),
  );
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is gone already.
  }
}

/** One line of /proc/<pid>/stat: its state, parent and process group. */
interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
  started: string;
}

async function procStats(): Promise<ProcStat[]> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return [];
  }
  const stats: ProcStat[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    if (stat === '') continue;
    // "pid (comm) state ppid pgrp …" — comm may contain spaces and parentheses, so parse after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    stats.push({
      pid: Number(entry),
      state: fields[0] ?? '',
      ppid: Number(fields[1]),
      pgrp: Number(fields[2]),
      // Field 22, the start time: tells a process from a later one given its pid.
      started: fields[19] ?? '',
    });
  }
  return stats;
}

/** Resolves once every live process of the group is stopped (or gone), or after `ms`. */
async function groupStopped(pgid: number, ms: number): Promise<void> {
  if (process.platform !== 'linux') return;
  const deadline = performance.now() + ms;
  for (;;) {
    const members = (await procStats()).filter((stat) => stat.pgrp === pgid && stat.state !== 'Z');
    if (members.every((stat) => stat.state === 'T' || stat.state === 't')) return;
    if (performance.now() > deadline) return;
    await delay(2);
  }
}

/**
 * The processes descended from the group's that are no longer in it, children of those included
 * (from /proc: Linux only; elsewhere `stats` is empty).
 */
function detachedDescendants(pgid: number, stats: readonly ProcStat[]): ProcStat[] {
  const tree = new Set(stats.filter((stat) => stat.pgrp === pgid).map((stat) => stat.pid));
  const detached: ProcStat[] = [];
  for (let grown = true; grown;) {
    grown = false;
    for (const stat of stats) {
      if (tree.has(stat.pid) || !tree.has(stat.ppid) || stat.state === 'Z') continue;
      tree.add(stat.pid);
      detached.push(stat);
      grown = true;
    }
  }
  return detached;
}

/**
 * True while a live (non-zombie) process is in the group. `kill(-pgid, 0)` alone also counts
 * zombies, which stay forever where PID 1 does not reap orphans (many containers), so on Linux
 * /proc settles it.
 */
export async function groupAlive(pgid: number): Promise<boolean> {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  if (process.platform !== 'linux') return true;
  const stats = await procStats();
  if (stats.length === 0) return true;
  return stats.some((stat) => stat.pgrp === pgid && stat.state !== 'Z');
}
