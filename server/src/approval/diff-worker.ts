/**
 * The worker thread behind computeDiffAsync: it runs only the Myers search, the one step that can
 * take long; splitting lines and building the view stay linear and on the main thread. The
 * thread's code is diff-worker-thread.ts.
 *
 * One worker, kept alive and reused, serves one diff at a time. It is unref'd while idle, so it
 * never keeps the process alive, and ref'd while a diff is pending, so the process cannot exit
 * under an awaiting caller. A worker that cannot start (its file missing from an install) makes
 * diffs run inline from then on, still bounded by their timeout.
 */
import { Worker } from 'node:worker_threads';
import { type DiffLimits, type Edit, myersEdits } from './diff-edits.ts';
import type { DiffReply, DiffRequest } from './diff-worker-thread.ts';

/**
 * The worker's file, beside this module's: from the sources both are .ts files in approval/; in the
 * bundle this module is part of a chunk in dist/chunks/, and the worker is the entry point
 * dist/chunks/diff-worker-thread.js (scripts/build.ts).
 */
const WORKER_URL = new URL(
  import.meta.url.endsWith('.ts') ? './diff-worker-thread.ts' : './diff-worker-thread.js',
  import.meta.url,
);

interface Job {
  id: number;
  oldText: string;
  newText: string;
  limits: DiffLimits;
  resolve(edits: Edit[] | undefined): void;
}

// The worker's own diff stops at the timeout; past this grace it is presumed stuck (one step of
// the search on a freak input, or a machine too busy to schedule it) and replaced.
const WATCHDOG_GRACE_MS = 2000;
// Crashes in a row (no diff answered in between) after which the worker is not started again.
const MAX_CRASHES = 3;

class DiffWorker {
  #worker: Worker | undefined;
  #queue: Job[] = [];
  #active: { job: Job; watchdog: NodeJS.Timeout } | undefined;
  #nextId = 1;
  #crashes = 0;
  /** Whether #worker has loaded its code (its first message). */
  #ready = false;
  #unavailable: string | undefined;

  run(oldText: string, newText: string, limits: DiffLimits): Promise<Edit[] | undefined> {
    return new Promise((resolve) => {
      this.#queue.push({ id: this.#nextId++, oldText, newText, limits, resolve });
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#active === undefined) {
      const job = this.#queue.shift();
      if (job === undefined) {
        this.#worker?.unref();
        return;
      }
      const worker = this.#start();
      if (worker === undefined) {
        job.resolve(inline(job));
        continue;
      }
      worker.ref();
      const watchdog = setTimeout(() => this.#crash(worker, false), job.limits.timeoutMs + WATCHDOG_GRACE_MS);
      watchdog.unref();
      this.#active = { job, watchdog };
      const { id, oldText, newText, limits } = job;
      worker.postMessage({ id, oldText, newText, limits } satisfies DiffRequest);
    }
  }

  #start(): Worker | undefined {
    if (this.#unavailable !== undefined) return undefined;
    if (this.#worker !== undefined) return this.#worker;
    // No inherited execArgv (--cpu-prof, test runner flags). `stdout: true` keeps anything the
    // worker might print off the protocol stream; it prints nothing, and reading the stream would
    // keep the process alive.
    const worker = new Worker(WORKER_URL, { execArgv: [], stdout: true });
    worker.unref();
    worker.on('message', (reply: DiffReply) => this.#answer(worker, reply));
    worker.on('error', (error) => this.#crash(worker, true, error));
    worker.on('exit', (code) => this.#crash(worker, true, `it exited with code ${code}`));
    this.#worker = worker;
    this.#ready = false;
    return worker;
  }

  #answer(worker: Worker, reply: DiffReply): void {
    if (worker !== this.#worker) return;
    if (reply.kind === 'ready') {
      this.#ready = true;
      return;
    }
    const active = this.#active;
    if (active === undefined || active.job.id !== reply.id) return;
    clearTimeout(active.watchdog);
    this.#active = undefined;
    this.#crashes = 0;
    active.job.resolve(reply.edits ?? undefined);
    this.#pump();
  }

  /**
   * The worker died or overran: its diff is shown as a replacement and the next one gets a new
   * worker. Only deaths count towards giving up on workers; an overrun says more about the input.
   * A worker that died before it was ready cannot start at all: diffs run inline from then on.
   */
  #crash(worker: Worker, died: boolean, cause?: unknown): void {
    if (worker !== this.#worker) return;
    this.#worker = undefined;
    void worker.terminate();
    const active = this.#active;
    if (active !== undefined) {
      clearTimeout(active.watchdog);
      this.#active = undefined;
    }
    if (died && !this.#ready) {
      const why = cause instanceof Error ? cause.message : String(cause);
      this.#disable(`the diff worker (${WORKER_URL.href}) cannot start: ${why}`, REINSTALL);
      if (active !== undefined) active.job.resolve(inline(active.job));
    } else {
      if (died && ++this.#crashes >= MAX_CRASHES)
        this.#disable(
          `the diff worker stopped ${MAX_CRASHES} times in a row`,
          'If this repeats, report it with the server log.',
        );
      active?.job.resolve(undefined);
    }
    this.#pump();
  }

  #disable(reason: string, fix: string): void {
    this.#unavailable = reason;
    process.emitWarning(`Santra computes file diffs on the main thread because ${reason}. ${fix}`, {
      code: 'SANTRA_DIFF_WORKER',
    });
  }
}

const REINSTALL = 'Reinstall Santra so that all of its files are present.';

/** The diff on this thread, for when no worker can run it; never throws into an event handler. */
function inline(job: Job): Edit[] | undefined {
  try {
    return myersEdits(job.oldText, job.newText, job.limits);
  } catch {
    return undefined;
  }
}

let shared: DiffWorker | undefined;

/** jsdiff's Myers line diff in the shared worker thread; undefined when it gave up or overran. */
export function myersInWorker(
  oldText: string,
  newText: string,
  limits: DiffLimits,
): Promise<Edit[] | undefined> {
  shared ??= new DiffWorker();
  return shared.run(oldText, newText, limits);
}
