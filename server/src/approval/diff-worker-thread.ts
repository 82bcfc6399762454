/**
 * The code that runs inside the diff worker thread (started by diff-worker.ts): it answers each
 * request with the Myers search of diff-edits.ts, the one step of a diff that can take long.
 *
 * It is started as a file of its own: this .ts file when the server runs from its sources, and
 * dist/chunks/diff-worker-thread.js, an entry point of its own in scripts/build.ts, when it runs
 * from the bundle. Once loaded it says so (`ready`), so that the main thread can tell a worker that
 * cannot start (a file missing from an install) from one that died during a diff.
 */
import { parentPort } from 'node:worker_threads';
import { type DiffLimits, type Edit, myersEdits } from './diff-edits.ts';

/** One diff for the worker: the middle part of both texts that planEdits left to search. */
export interface DiffRequest {
  id: number;
  oldText: string;
  newText: string;
  limits: DiffLimits;
}

/** `edits` is null when the search gave up (or failed): the change is shown as a replacement. */
export type DiffReply = { kind: 'ready' } | { kind: 'edits'; id: number; edits: Edit[] | null };

const port = parentPort;
if (port === null) throw new Error('diff-worker-thread.ts runs only as a worker thread (see diff-worker.ts)');

port.on('message', ({ id, oldText, newText, limits }: DiffRequest) => {
  let edits: Edit[] | null = null;
  try {
    edits = myersEdits(oldText, newText, limits) ?? null;
  } catch {
    // A diff that fails is shown as a replacement, like one that gives up.
  }
  port.postMessage({ kind: 'edits', id, edits } satisfies DiffReply);
});
port.postMessage({ kind: 'ready' } satisfies DiffReply);
