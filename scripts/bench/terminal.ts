/**
 * A real terminal for the TUI benchmark: the built `santra` in a tmux pane of a private tmux server
 * (its own socket, no config file), with every byte santra writes to the terminal copied to a log
 * file by `tmux pipe-pane`. The pane's shell waits on a FIFO before it execs santra, so the log is
 * attached before the first byte and the start is stamped at the moment the FIFO is written.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { adopt, commandLine, descendants } from './processes.ts';
import { wallClock } from './protocol-client.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;

/** The escape sequences that clear the whole screen or the scrollback. */
export const CLEAR_SEQUENCES = ['\u001b[2J', '\u001b[3J', '\u001bc'];

/** How many full-screen (or scrollback) clears `bytes` contains. */
export function countClears(bytes: Buffer): number {
  let count = 0;
  for (const sequence of CLEAR_SEQUENCES) {
    const needle = Buffer.from(sequence, 'latin1');
    for (let at = bytes.indexOf(needle); at !== -1; at = bytes.indexOf(needle, at + needle.length)) count++;
  }
  return count;
}

/**
 * CPU time of a process's main thread in ms (/proc/<pid>/task/<pid>/schedstat, in ns): on a
 * loaded machine a better measure of the work before the first frame than the wall clock.
 */
export function mainThreadCpuMs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
}

/** A private tmux server; `close` kills it and everything in it. */
export class TmuxServer {
  readonly socket = `santra-bench-tui-${process.pid}`;
  readonly scratch: string;
  #runs = 0;
  #socketPath = '';

  constructor(scratch: string) {
    this.scratch = scratch;
    if (spawnSync('tmux', ['-V']).status !== 0) throw new Error('bench-tui needs tmux');
    // A session that outlives the ones measured, so the server (and its options) stay up.
    this.tmux('new-session', '-d', '-s', 'keeper');
    this.tmux('set-option', '-g', 'history-limit', '200000');
    // A pane whose santra exited stays, with its last screen, for the error message.
    this.tmux('set-option', '-g', 'remain-on-exit', 'on');
    this.#socketPath = this.tmux('display-message', '-p', '-t', 'keeper', '#{socket_path}').trim();
  }

  tmux(...args: string[]): string {
    return execFileSync('tmux', ['-u', '-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  }

  /** A new 120x40 (by default) pane ready to run `command` (argv) once `go` is called. */
  open(
    command: string[],
    options: { env: NodeJS.ProcessEnv; cwd: string; cols?: number; rows?: number },
  ): Pane {
    const name = `run${++this.#runs}`;
    const fifo = join(this.scratch, `${name}.go`);
    const log = join(this.scratch, `${name}.out`);
    execFileSync('mkfifo', [fifo]);
    writeFileSync(log, '');
    const env = Object.entries(options.env)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => quote(`${key}=${value}`));
    const shell = `read _ < ${quote(fifo)}; exec env -i ${env.join(' ')} ${command.map(quote).join(' ')}`;
    this.tmux(
      'new-session',
      '-d',
      '-s',
      name,
      '-x',
      String(options.cols ?? 120),
      '-y',
      String(options.rows ?? 40),
      '-c',
      options.cwd,
      shell,
    );
    this.tmux('pipe-pane', '-t', name, `cat >> ${quote(log)}`);
    return new Pane(this, name, fifo, log);
  }

  close(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server']);
    // tmux leaves its socket file behind.
    if (this.#socketPath !== '') rmSync(this.#socketPath, { force: true });
  }
}

/** One santra in one pane, and the log of what it wrote. */
export class Pane {
  #fd: number;
  #chunks: Buffer[] = [];
  #size = 0;
  #santraPid: number | undefined;
  readonly server: TmuxServer;
  readonly name: string;
  readonly fifo: string;

  constructor(server: TmuxServer, name: string, fifo: string, log: string) {
    this.server = server;
    this.name = name;
    this.fifo = fifo;
    this.#fd = openSync(log, 'r');
  }

  /** Lets the pane exec santra; returns the wall-clock moment it did. */
  go(): number {
    const start = wallClock();
    writeFileSync(this.fifo, '\n');
    return start;
  }

  /** The pid of santra (the pane's process, after the exec). */
  get santraPid(): number {
    this.#santraPid ??= Number(
      this.server.tmux('display-message', '-p', '-t', this.name, '#{pane_pid}').trim(),
    );
    return this.#santraPid;
  }

  /** The pid of santra-server, santra's child, once it runs. */
  serverPid(): number | undefined {
    const pid = descendants(this.santraPid).find((child) => commandLine(child).includes('santra-server'));
    if (pid !== undefined) adopt(pid);
    return pid;
  }

  /** Reads what santra wrote since the last read; returns the total byte count so far. */
  read(): number {
    const buffer = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const n = readSync(this.#fd, buffer, 0, buffer.length, this.#size);
      if (n === 0) return this.#size;
      this.#chunks.push(Buffer.from(buffer.subarray(0, n)));
      this.#size += n;
    }
  }

  /** Everything santra wrote from byte `from` on (read so far). */
  bytes(from = 0): Buffer {
    const all = Buffer.concat(this.#chunks);
    this.#chunks = [all];
    return all.subarray(from);
  }

  /**
   * Waits until the bytes written after `from` contain `text` (`count` times); resolves with the
   * wall-clock moment it was seen. Polls every `everyMs`.
   */
  async waitFor(
    text: string,
    options: { from?: number; count?: number; everyMs?: number; timeoutMs?: number } = {},
  ): Promise<number> {
    const needle = Buffer.from(text, 'utf8');
    const deadline = wallClock() + (options.timeoutMs ?? 60_000);
    let searchFrom = options.from ?? 0;
    let found = 0;
    for (;;) {
      const size = this.read();
      const now = wallClock();
      if (size > searchFrom) {
        const tail = this.bytes(searchFrom);
        let at = tail.indexOf(needle);
        let consumed = 0;
        while (at !== -1) {
          found++;
          consumed = at + needle.length;
          if (found >= (options.count ?? 1)) return now;
          at = tail.indexOf(needle, consumed);
        }
        // Keep the last bytes that could start a match across reads.
        searchFrom = Math.max(searchFrom + consumed, size - needle.length + 1);
      }
      if (now > deadline)
        throw new Error(`timed out waiting for ${JSON.stringify(text)}; screen:\n${this.screen()}`);
      await pause(options.everyMs ?? 2);
    }
  }

  /** Keys as tmux names them (`Enter`, `C-c`), or literal text with `literal`. */
  keys(keys: string[], literal = false): void {
    this.server.tmux('send-keys', '-t', this.name, ...(literal ? ['-l'] : []), ...keys);
  }

  /** The visible screen. */
  screen(): string {
    return this.server.tmux('capture-pane', '-p', '-t', this.name);
  }

  /** The whole scrollback and screen, wrapped lines joined. */
  scrollback(): string {
    return this.server.tmux('capture-pane', '-p', '-J', '-t', this.name, '-S', '-', '-E', '-');
  }

  /** Whether santra still runs (a pane stays after its exit, remain-on-exit, for its last screen). */
  alive(): boolean {
    const dead = spawnSync(
      'tmux',
      ['-L', this.server.socket, 'display-message', '-p', '-t', this.name, '#{pane_dead}'],
      {
        encoding: 'utf8',
      },
    );
    return dead.status === 0 && dead.stdout.trim() === '0';
  }

  /** Ctrl+C twice; then, if it did not exit within `ms`, kills the pane and santra's tree. */
  async quit(ms = 5000): Promise<void> {
    this.keys(['C-c']);
    await pause(100);
    this.keys(['C-c']);
    const deadline = wallClock() + ms;
    while (this.alive() && wallClock() < deadline) await pause(20);
    if (this.alive()) {
      process.stderr.write(
        `bench-tui: santra did not exit on Ctrl+C twice; killing it. Screen:\n${this.screen()}\n`,
      );
      const pids = [this.santraPid, ...descendants(this.santraPid)];
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    }
    spawnSync('tmux', ['-L', this.server.socket, 'kill-session', '-t', this.name]);
    closeSync(this.#fd);
  }
}
