/**
 * Temp directories for the tests. Every test file runs in a process of its own (`node --test`),
 * and each directory made here is removed when that process exits, so a test needs no cleanup of
 * its own. A helper that owns a child process writing into one removes it itself, after the child
 * has exited (`removeTempDir`), or the child could create it again. `npm test` fails when a run
 * leaves `santra-*` entries behind (scripts/check-temp-leftovers.ts).
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What the name of every temp entry the tests make starts with. */
export const TEMP_PREFIX = 'santra-';

const made = new Set<string>();
let removedOnExit = false;

function removeAll(): void {
  for (const dir of made) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch (error) {
      process.stderr.write(`could not remove the temp directory ${dir}: ${String(error)}\n`);
    }
  }
}

/** A fresh directory `<tmpdir>/<prefix>XXXXXX` (its real path), removed when the process exits. */
export function tempDir(prefix = `${TEMP_PREFIX}test-`): string {
  if (!removedOnExit) {
    // 'exit' listeners must be synchronous, hence rmSync there.
    process.once('exit', removeAll);
    removedOnExit = true;
  }
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.add(dir);
  return dir;
}

/** Removes `dir` (from `tempDir`) now rather than at exit. */
export async function removeTempDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  made.delete(dir);
}
