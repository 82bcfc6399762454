/**
 * The check that a test run cleaned up after itself: the `santra-*` entries in the system temp
 * folder made since the run started. Older ones are not counted (another process may own them).
 * scripts/test-run.ts runs it after the tests.
 */
import { lstat, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEMP_PREFIX } from './temp-dirs.ts';

/** The paths of the `santra-*` entries in `dir` made at or after `sinceMs` (epoch ms), sorted. */
export async function tempLeftovers(sinceMs: number, dir = tmpdir()): Promise<string[]> {
  const found: string[] = [];
  for (const name of await readdir(dir)) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    const path = join(dir, name);
    const stats = await lstat(path).catch(() => undefined); // removed meanwhile
    if (stats === undefined) continue;
    // The birth time where the file system records it; else the last change, which is no earlier.
    const made = stats.birthtimeMs > 0 ? stats.birthtimeMs : stats.mtimeMs;
    if (made >= sinceMs) found.push(path);
  }
  return found.sort();
}
