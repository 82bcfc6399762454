/**
 * The worker thread behind computeDiffAsync: it runs only the Myers search, the one step that can
 * take long; splitting lines and building the view stay linear and on the main thread.
 *
 * The worker's code is inline (`eval: true`) and imports jsdiff by the absolute URL the main thread
 * resolves, so it needs no file of its own: the same code runs from the TypeScript sources and
 * from the esbuild bundle, where a worker file would otherwise have to be a separate entry point.
 * The bundle needs the `diff` package installed beside it, as it is (a runtime dependency); if it
 * cannot be found, diffs run inline, still bounded by their timeout.
 *
 * One worker, kept alive and reused, serves one diff at a time. It is unref'd while idle, so it
 * never keeps the process alive, and ref'd while a diff is pending, so the process cannot exit
 * under an awaiting caller.
 */
import { Worker } from 'node:worker_threads';
import { type DiffLimits, type Edit, myersEdits } from './diff-edits.ts';

const WORKER_SOURCE = `'use strict';
const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads');
const loading = import(workerData.diffUrl);
loading.catch(() => {}); // reported with the first request, not as an unhandled rejection
parentPort.on('message', async ({ id, oldText, newText, timeoutMs, maxEditLength }) => {
  let jsdiff;
  try {
    jsdiff = await loading;
  } catch (error) {
    parentPort.postMessage({ id, loadError: String((error && error.stack) || error) });
    return;
  }
  let edits = null;
  try {
    const options = maxEditLength === undefined ? { timeout: timeoutMs } : { timeout: timeoutMs, maxEditLength };
    const changes = jsdiff.diffLines(oldText, newText, options);
    if (changes !== undefined) edits = changes.flatMap((c) => [c.added ? 1 : c.removed ? 2 : 0, c.count]);
  } catch {
    // A diff that fails is shown as a replacement, like one that gives up.
  }
  parentPort.postMessage({ id, edits });
});
`;

type Reply = { id: number; edits: number[] | null } | { id: number; loadError: string };

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

const KINDS: readonly Edit['type'][] = ['context', 'added', 'removed'];

function editsFromReply(flat: readonly number[]): Edit[] {
  const edits: Edit[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    edits.push({ type: KINDS[flat[i] as number] ?? 'context', count: flat[i + 1] as number });
  }
  return edits;
}

class DiffWorker {
  #worker: Worker | undefined;
  #queue: Job[] = [];
  #active: { job: Job; watchdog: NodeJS.Timeout } | undefined;
  #nextId = 1;
  #crashes = 0;
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
      worker.postMessage({
        id,
        oldText,
        newText,
        timeoutMs: limits.timeoutMs,
        maxEditLength: limits.maxEditLength,
      });
    }
  }

  #start(): Worker | undefined {
    if (this.#unavailable !== undefined) return undefined;
    if (this.#worker !== undefined) return this.#worker;
    let diffUrl: string;
    try {
      diffUrl = import.meta.resolve('diff');
    } catch (error) {
      this.#disable(`the diff package cannot be resolved (${String(error)})`, REINSTALL);
      return undefined;
    }
    // No inherited execArgv (--cpu-prof, test runner flags). `stdout: true` keeps anything the
    // worker might print off the protocol stream; it prints nothing, and reading the stream would
    // keep the process alive.
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { diffUrl },
      execArgv: [],
      stdout: true,
    });
    worker.unref();
    worker.on('message', (reply: Reply) => this.#answer(worker, reply));
    worker.on('error', () => this.#crash(worker, true));
    worker.on('exit', () => this.#crash(worker, true));
    this.#worker = worker;
    return worker;
  }

  #answer(worker: Worker, reply: Reply): void {
    const active = this.#active;
    if (worker !== this.#worker || active === undefined || active.job.id !== reply.id) return;
    clearTimeout(active.watchdog);
    this.#active = undefined;
    if ('loadError' in reply) {
      this.#disable(`the diff worker cannot load jsdiff: ${reply.loadError}`, REINSTALL);
      void worker.terminate();
      this.#worker = undefined;
      active.job.resolve(inline(active.job));
    } else {
      this.#crashes = 0;
      active.job.resolve(reply.edits === null ? undefined : editsFromReply(reply.edits));
    }
    this.#pump();
  }

  /**
   * The worker died or overran: its diff is shown as a replacement and the next one gets a new
   * worker. Only deaths count towards giving up on workers; an overrun says more about the input.
   */
  #crash(worker: Worker, died: boolean): void {
    if (worker !== this.#worker) return;
    this.#worker = undefined;
    void worker.terminate();
    if (died && ++this.#crashes >= MAX_CRASHES)
      this.#disable(
        `the diff worker stopped ${MAX_CRASHES} times in a row`,
        'If this repeats, report it with the server log.',
      );
    const active = this.#active;
    if (active !== undefined) {
      clearTimeout(active.watchdog);
      this.#active = undefined;
      active.job.resolve(undefined);
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

const REINSTALL = 'Reinstall Santra so that its dependencies (the diff package) are present.';

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
