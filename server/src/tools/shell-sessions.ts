/**
 * The interactive shells of each run: PTY sessions (node-pty, through @lydell/node-pty whose npm
 * packages carry the prebuilt binaries) that the shell tools start, type into, read and end. They
 * belong to the run that started them: the swarm ends every one when the run ends, whatever way
 * it ends (endRunShells), and the server's exit kills what is left, so no program outlives the
 * run that the user approved it for. Each session renders what its program writes through a
 * terminal-screen model (shell-screen.ts), so reads are screen-wise.
 */
import { readdir, readFile } from 'node:fs/promises';
import type { IPty } from '@lydell/node-pty';
import type { SandboxedSpawn } from '../sandbox/sandbox.ts';
import { groupAlive, killGroup } from './commands/run-process.ts';
import { TerminalScreen } from './shell-screen.ts';

/** Sessions one run may have open at once. */
export const MAX_SHELLS_PER_RUN = 8;

/** Output is taken as settled after this long without a byte. */
const QUIET_MS = 250;

export interface ShellSpawn {
  /** What the person approved: the program line, or the user's shell. */
  command: string;
  /** As shown to the model (relative to the workspace). */
  cwdDisplay: string;
  cwd: string;
  /** The spawn (the sandbox's launcher around the command where there is one). */
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cols: number;
  rows: number;
  /** The sandbox's wrap, released when the session ends. */
  wrapped?: SandboxedSpawn;
  /**
   * It runs inside the OS sandbox, whose programs are in a session of their own: the terminal's
   * interrupt keys cannot signal them, so `write` delivers those keys as signals (see there).
   */
  sandboxed?: boolean;
}

export class ShellSession {
  readonly id: string;
  readonly command: string;
  readonly cwd: string;
  readonly cwdDisplay: string;
  readonly screen: TerminalScreen;
  readonly #pty: IPty;
  readonly #wrapped: SandboxedSpawn | undefined;
  readonly #sandboxed: boolean;
  #exit: { exitCode: number; signal?: number } | undefined;
  #lastOutput = performance.now();
  /** Bytes written since the last read, so a read can say whether anything happened. */
  #unread = 0;
  readonly #listeners = new Set<() => void>();
  readonly #ended: Promise<void>;

  constructor(id: string, pty: IPty, spawn: ShellSpawn) {
    this.id = id;
    this.command = spawn.command;
    this.cwd = spawn.cwd;
    this.cwdDisplay = spawn.cwdDisplay;
    this.#pty = pty;
    this.#wrapped = spawn.wrapped;
    this.#sandboxed = spawn.sandboxed === true;
    this.screen = new TerminalScreen(spawn.cols, spawn.rows);
    pty.onData((data) => {
      this.screen.write(data);
      this.#lastOutput = performance.now();
      this.#unread += data.length;
      this.#notify();
    });
    this.#ended = new Promise((resolve) => {
      pty.onExit((exit) => {
        this.#exit = exit;
        this.#notify();
        resolve();
      });
    });
  }

  get pid(): number {
    return this.#pty.pid;
  }

  /** How the program ended; undefined while it runs. */
  get exit(): { exitCode: number; signal?: number } | undefined {
    return this.#exit;
  }

  /**
   * Types `bytes`. In a sandboxed session the terminal does not turn Ctrl-C and Ctrl-\\ into
   * signals (the sandbox's programs are not in its session, and the signal would stop the sandbox
   * itself instead), so each is sent as the signal a terminal sends its foreground programs —
   * SIGINT, SIGQUIT — to every process inside the sandbox.
   */
  async write(bytes: string): Promise<void> {
    if (this.#exit !== undefined) return;
    if (!this.#sandboxed) {
      this.#pty.write(bytes);
      return;
    }
    for (const part of bytes.split(/([\x03\x1c])/)) {
      if (part === '\x03' || part === '\x1c')
        await this.#signalInside(part === '\x03' ? 'SIGINT' : 'SIGQUIT');
      else if (part !== '') this.#pty.write(part);
    }
  }

  /** `signal` to every process below the sandbox's launcher (bubblewrap's own processes excepted). */
  async #signalInside(signal: NodeJS.Signals): Promise<void> {
    const children = new Map<number, number[]>();
    const names = new Map<number, string>();
    for (const entry of await readdir('/proc').catch(() => [])) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
      const close = stat.lastIndexOf(')');
      if (close === -1) continue;
      const parent = Number(stat.slice(close + 2).split(' ')[1]);
      names.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close));
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    }
    const below = (pid: number): number[] =>
      (children.get(pid) ?? []).flatMap((child) => [child, ...below(child)]);
    for (const pid of below(this.#pty.pid)) {
      if (names.get(pid) === 'bwrap') continue;
      try {
        process.kill(pid, signal);
      } catch {
        // ended meanwhile
      }
    }
  }

  resize(cols: number, rows: number): void {
    if (this.#exit !== undefined) return;
    this.#pty.resize(cols, rows);
    this.screen.resize(cols, rows);
  }

  /** Bytes the program wrote since the last call. */
  takeUnread(): number {
    const unread = this.#unread;
    this.#unread = 0;
    return unread;
  }

  /**
   * Waits until the screen shows `until` (when given), or its output has been quiet for a moment
   * after `since` (a send), or the program ended, or `timeoutMs` passed. Resolves with what
   * ended the wait.
   */
  async settle(options: {
    timeoutMs: number;
    until?: string;
    signal: AbortSignal;
  }): Promise<'matched' | 'quiet' | 'exited' | 'timeout' | 'cancelled'> {
    const deadline = performance.now() + options.timeoutMs;
    const started = performance.now();
    // The screen's lines end without their trailing blanks: so does the text looked for (">>> ").
    const until = options.until === undefined ? undefined : withoutTrailingBlanks(options.until);
    for (;;) {
      if (options.signal.aborted) return 'cancelled';
      if (until !== undefined && this.screen.history().includes(until)) return 'matched';
      if (this.#exit !== undefined) return 'exited';
      const now = performance.now();
      if (now >= deadline) return 'timeout';
      const quietFor = now - Math.max(this.#lastOutput, started);
      if (options.until === undefined && quietFor >= QUIET_MS) return 'quiet';
      const wait =
        options.until === undefined ? Math.min(QUIET_MS - quietFor, deadline - now) : deadline - now;
      await this.#changeOr(Math.max(1, wait), options.signal);
    }
  }

  /** Resolves at the next output or exit, after `ms`, or when `signal` aborts. */
  #changeOr(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#listeners.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#listeners.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }

  /**
   * Ends the program: SIGHUP as a closing terminal sends, then SIGTERM and SIGKILL to its whole
   * process group, and releases the sandbox's wrap. Resolves once nothing of it runs.
   */
  async end(): Promise<void> {
    const pgid = this.#pty.pid;
    if (this.#exit === undefined) {
      try {
        process.kill(-pgid, 'SIGHUP');
      } catch {
        // ESRCH: it ended already.
      }
    }
    await Promise.race([this.#ended, new Promise((resolve) => setTimeout(resolve, 500).unref())]);
    if (await groupAlive(pgid)) await killGroup(pgid, 1000);
    // The pty's descriptor is closed with the process gone (node-pty cleans up on exit).
    await this.#wrapped?.finish();
  }
}

function withoutTrailingBlanks(text: string): string {
  const trimmed = text
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
  return trimmed === '' ? text : trimmed;
}

/** The open sessions of one run. */
export class RunShells {
  readonly #sessions = new Map<string, ShellSession>();
  #next = 0;

  get open(): number {
    return [...this.#sessions.values()].filter((session) => session.exit === undefined).length;
  }

  nextId(): string {
    return `sh-${++this.#next}`;
  }

  add(session: ShellSession): void {
    this.#sessions.set(session.id, session);
    live.add(session);
  }

  get(id: string): ShellSession | undefined {
    return this.#sessions.get(id);
  }

  ids(): string[] {
    return [...this.#sessions.keys()];
  }

  async end(id: string): Promise<void> {
    const session = this.#sessions.get(id);
    if (session === undefined) return;
    this.#sessions.delete(id);
    await session.end();
    live.delete(session);
  }

  async endAll(): Promise<void> {
    await Promise.all(this.ids().map((id) => this.end(id)));
  }
}

const byRun = new Map<string, RunShells>();
/** Every session of this process, for the exit handler. */
const live = new Set<ShellSession>();
let exitHandler = false;

/** The run's shells (created on first use). */
export function shellsOf(runId: string): RunShells {
  let shells = byRun.get(runId);
  if (shells === undefined) {
    shells = new RunShells();
    byRun.set(runId, shells);
  }
  if (!exitHandler) {
    exitHandler = true;
    // The server exiting with sessions open (a crash, a signal): nothing may outlive it.
    process.once('exit', () => {
      for (const session of live) {
        try {
          process.kill(-session.pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
    });
  }
  return shells;
}

/** Ends every shell the run started (the run ended); resolves once none of them runs. */
export async function endRunShells(runId: string): Promise<void> {
  const shells = byRun.get(runId);
  if (shells === undefined) return;
  byRun.delete(runId);
  await shells.endAll();
}

/** Starts a PTY session (node-pty is loaded on first use: a server that starts none never loads it). */
export async function spawnShell(shells: RunShells, spawn: ShellSpawn): Promise<ShellSession> {
  const pty = await import('@lydell/node-pty');
  const child = pty.spawn(spawn.file, spawn.args, {
    name: 'xterm-256color',
    cols: spawn.cols,
    rows: spawn.rows,
    cwd: spawn.cwd,
    env: Object.fromEntries(
      Object.entries(spawn.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
  });
  const session = new ShellSession(shells.nextId(), child, spawn);
  shells.add(session);
  return session;
}
