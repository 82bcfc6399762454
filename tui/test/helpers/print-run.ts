/**
 * Runs `santra -p` from the sources as a real child process, with SANTRA_SERVER pointing at the
 * fake server and its message log in a temp file. Waits are for events (output, the end of a
 * process), each bounded by a deadline whose failure says what came instead.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../../../scripts/temp-dirs.ts';

export const SANTRA_BIN = fileURLToPath(new URL('../../src/bin.ts', import.meta.url));
export const FAKE_SERVER = fileURLToPath(new URL('../fixtures/fake-server.ts', import.meta.url));

export type Json = Record<string, unknown>;

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** The fake server's scenario (FAKE_SCENARIO). */
  scenario?: string;
  /** Written to stdin, which is then closed; absent: stdin is /dev/null. */
  input?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** The fake server holds a socket to the test while it lives, so `serverGone` can await its end. */
  watchServer?: boolean;
}

export class PrintRun {
  readonly child: ChildProcess;
  readonly logFile: string;
  readonly finished: Promise<Finished>;
  stdout = '';
  stderr = '';
  readonly #waiters = new Set<() => void>();
  /** The fake server's socket to the test (watchServer). */
  readonly #server: ServerWatch | undefined;

  constructor(args: string[], options: RunOptions = {}) {
    this.logFile = join(tempDir('santra-print-log-'), 'fake.log');
    const alive = join(dirname(this.logFile), 'alive.sock');
    if (options.watchServer === true) this.#server = watchServer(alive);
    this.child = spawn(process.execPath, [SANTRA_BIN, ...args], {
      cwd: options.cwd,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      env: {
        ...process.env,
        SANTRA_SERVER: FAKE_SERVER,
        FAKE_SCENARIO: options.scenario ?? 'text',
        FAKE_LOG: this.logFile,
        NO_COLOR: '1',
        ...(options.watchServer === true ? { FAKE_ALIVE: alive } : {}),
        ...options.env,
      },
    });
    if (options.input !== undefined) this.child.stdin?.end(options.input);
    this.child.stdout?.on('data', (chunk: Buffer) => this.#append('stdout', chunk));
    this.child.stderr?.on('data', (chunk: Buffer) => this.#append('stderr', chunk));
    this.finished = new Promise((resolve) => {
      this.child.on('close', (code, signal) =>
        resolve({ code, signal, stdout: this.stdout, stderr: this.stderr }),
      );
    });
  }

  /**
   * Resolves once `pattern` has appeared on the stream, looking at each chunk as it comes; rejects
   * with what came when santra ends without it, or after `timeoutMs`.
   */
  waitFor(stream: 'stdout' | 'stderr', pattern: RegExp, timeoutMs = 15_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const stop = () => {
        clearTimeout(deadline);
        this.#waiters.delete(look);
      };
      const fail = (why: string) => {
        stop();
        reject(new Error(`${why} waiting for ${pattern} on ${stream}; got:\n${this[stream]}`));
      };
      const look = () => {
        if (!pattern.test(this[stream])) return false;
        stop();
        resolve();
        return true;
      };
      const deadline = setTimeout(() => fail(`timed out after ${timeoutMs} ms`), timeoutMs);
      this.#waiters.add(look);
      void this.finished.then(() => look() || fail('santra ended'));
      look();
    });
  }

  /**
   * Whether the fake server runs (watchServer): once it has connected, that its socket is open.
   * The control of `serverGone`: the socket does not close while the process lives.
   */
  async serverRuns(timeoutMs = 5_000): Promise<boolean> {
    const server = this.#watched();
    await within(server.connected, timeoutMs, 'the fake server did not connect');
    return !server.isClosed();
  }

  /** Resolves when the fake server has exited (watchServer); rejects after `timeoutMs`. */
  serverGone(timeoutMs = 5_000): Promise<void> {
    return within(this.#watched().closed, timeoutMs, 'the fake server was still running');
  }

  #watched(): ServerWatch {
    if (this.#server === undefined) throw new Error('the run was started without watchServer');
    return this.#server;
  }

  /** What the fake server received and decided, one entry per line of its log. */
  log(): Json[] {
    if (!existsSync(this.logFile)) return [];
    return readFileSync(this.logFile, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Json);
  }

  /** The methods the fake server received, in order. */
  methods(): string[] {
    return this.log().flatMap((entry) => (typeof entry.method === 'string' ? [entry.method] : []));
  }

  #append(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    this[stream] += chunk.toString('utf8');
    for (const look of [...this.#waiters]) look();
  }
}

/** The fake server's socket to the test: connected when it starts, closed when it ends. */
interface ServerWatch {
  connected: Promise<void>;
  closed: Promise<void>;
  isClosed: () => boolean;
}

/**
 * Listens on `path` for the fake server (FAKE_ALIVE). The kernel closes its connection when the
 * process ends, however it ends (a killed process says nothing). Neither end keeps the test running.
 */
function watchServer(path: string): ServerWatch {
  const listener = createServer();
  let isClosed = false;
  let connected: () => void = () => {};
  const closed = new Promise<void>((resolve, reject) => {
    listener.once('connection', (socket) => {
      listener.close();
      socket.unref();
      socket
        .on('error', () => {})
        .once('close', () => {
          isClosed = true;
          resolve();
        });
      socket.resume(); // reading is what sees the end
      connected();
    });
    listener.once('error', reject);
  });
  closed.catch(() => {}); // reported by whoever waits on it
  // Bound and listening before santra starts the server: listen() on a path does both at once.
  listener.listen(path).unref();
  return {
    connected: Promise.race([new Promise<void>((resolve) => (connected = resolve)), closed]),
    closed,
    isClosed: () => isClosed,
  };
}

/** `promise`, or a rejection saying `failure` if it has not settled after `timeoutMs`. */
function within<T>(promise: Promise<T>, timeoutMs: number, failure: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => reject(new Error(`${failure} after ${timeoutMs} ms`)), timeoutMs);
    promise.then(
      (value) => {
        clearTimeout(deadline);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(deadline);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** Runs santra to the end. */
export function runPrint(args: string[], options: RunOptions = {}): Promise<Finished & { run: PrintRun }> {
  const run = new PrintRun(args, options);
  return run.finished.then((finished) => ({ ...finished, run }));
}
