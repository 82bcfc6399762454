/**
 * Runs one hook command as Claude Code does: `/bin/sh -c <command>` in the project's root, the
 * event's JSON on stdin, stdout and stderr read, stopped at its timeout. Unlike Claude Code it
 * gets the environment run_command gets (provider keys and KEY/TOKEN/SECRET variables removed;
 * `tools.allowEnv` lets one through), plus `CLAUDE_PROJECT_DIR` and `SANTRA_PROJECT_DIR`. It runs
 * outside the OS sandbox, with the user's rights, as hooks do in Claude Code: formatters write
 * files, notifiers reach the desktop, loggers append to files in the home directory — a sandbox
 * would break exactly what hooks are for. Project hooks run only after a person trusted them.
 */
import { spawn } from 'node:child_process';

/** Output kept per stream: enough for any decision JSON, bounded against a runaway hook. */
const OUTPUT_LIMIT = 256 * 1024;
/** Between SIGTERM and SIGKILL at the timeout. */
const GRACE_MS = 1000;

export interface HookProcess {
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  input: unknown;
  timeoutMs: number;
  signal: AbortSignal;
}

export interface HookRun {
  /** exited: it ended by itself; timeout: stopped at its timeout; failed: it could not start; cancelled: the run ended. */
  ended: 'exited' | 'timeout' | 'failed' | 'cancelled';
  exitCode: number | null;
  stdout: string;
  stderr: string;
  durationMs: number;
}

/** Contract: never rejects; a command that cannot start is `failed`, with the reason in `stderr`. */
export function runHookProcess(options: HookProcess): Promise<HookRun> {
  const started = performance.now();
  const done = (
    ended: HookRun['ended'],
    exitCode: number | null,
    stdout: string,
    stderr: string,
  ): HookRun => ({
    ended,
    exitCode,
    stdout,
    stderr,
    durationMs: Math.round(performance.now() - started),
  });
  if (options.signal.aborted) return Promise.resolve(done('cancelled', null, '', ''));
  return new Promise((resolveRun) => {
    const child = spawn('/bin/sh', ['-c', options.command], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, so the timeout stops what it started too.
      detached: true,
    });
    const stdout = collector();
    const stderr = collector();
    child.stdout.on('data', stdout.add);
    child.stderr.on('data', stderr.add);
    let ended: HookRun['ended'] = 'exited';
    const kill = (signal: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        // Already gone.
      }
    };
    const stop = (why: 'timeout' | 'cancelled') => {
      ended = why;
      kill('SIGTERM');
      setTimeout(() => kill('SIGKILL'), GRACE_MS).unref();
    };
    const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
    const onAbort = () => stop('cancelled');
    options.signal.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error) => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      resolveRun(done('failed', null, '', `could not start /bin/sh: ${error.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      resolveRun(done(ended, code, stdout.text(), stderr.text()));
    });
    // A hook that does not read its input must not fail the write (EPIPE).
    child.stdin.on('error', () => {});
    child.stdin.end(`${JSON.stringify(options.input)}\n`);
  });
}

function collector(): { add: (chunk: Buffer) => void; text: () => string } {
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    add(chunk) {
      if (size >= OUTPUT_LIMIT) return;
      chunks.push(chunk.subarray(0, OUTPUT_LIMIT - size));
      size += chunk.length;
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
  };
}
