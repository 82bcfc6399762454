/**
 * Runs `santra -p` from the sources as a real child process, with SANTRA_SERVER pointing at the
 * fake server and its message log in a temp file.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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
}

export class PrintRun {
  readonly child: ChildProcess;
  readonly logFile: string;
  readonly finished: Promise<Finished>;
  stdout = '';
  stderr = '';
  readonly #waiters: Array<() => void> = [];

  constructor(args: string[], options: RunOptions = {}) {
    this.logFile = join(tempDir('santra-print-log-'), 'fake.log');
    this.child = spawn(process.execPath, [SANTRA_BIN, ...args], {
      cwd: options.cwd,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      env: {
        ...process.env,
        SANTRA_SERVER: FAKE_SERVER,
        FAKE_SCENARIO: options.scenario ?? 'text',
        FAKE_LOG: this.logFile,
        NO_COLOR: '1',
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

  /** Resolves once `pattern` has appeared on the stream; rejects after `timeoutMs`. */
  async waitFor(stream: 'stdout' | 'stderr', pattern: RegExp, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(this[stream])) {
      if (Date.now() > deadline) {
        throw new Error(`timed out waiting for ${pattern} on ${stream}; got:\n${this[stream]}`);
      }
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
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
    for (const wake of this.#waiters.splice(0)) wake();
  }
}

/** Runs santra to the end. */
export function runPrint(args: string[], options: RunOptions = {}): Promise<Finished & { run: PrintRun }> {
  const run = new PrintRun(args, options);
  return run.finished.then((finished) => ({ ...finished, run }));
}

/** Whether process `pid` is gone, polling for up to `timeoutMs`. */
export async function processGone(pid: number, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
