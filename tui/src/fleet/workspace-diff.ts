/**
 * The diff of what a job changed in its workspace. The workspace is snapshotted as a git tree
 * before the job and after it (through a temporary index, so the repository's own index, HEAD and
 * working tree are left exactly as they are; untracked files count, ignored ones do not), and the
 * result is `git diff` between the two trees: what the job did, not what was uncommitted before.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const MAX_DIFF_BYTES = 8 * 1024 * 1024;

async function git(cwd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const { stdout } = await run('git', args, { cwd, env, maxBuffer: MAX_DIFF_BYTES, encoding: 'utf8' });
  return stdout;
}

/** The workspace as a tree object id, or undefined outside a git work tree (or without git). */
export async function snapshotTree(cwd: string): Promise<string | undefined> {
  try {
    if ((await git(cwd, ['rev-parse', '--is-inside-work-tree'])).trim() !== 'true') return undefined;
  } catch {
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'santra-fleet-index-'));
  try {
    const env = { ...process.env, GIT_INDEX_FILE: join(dir, 'index') };
    await git(cwd, ['add', '--all', '--', '.'], env);
    return (await git(cwd, ['write-tree'], env)).trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `git diff` from `before` to the workspace now; null when it is not a git work tree. */
export async function diffSince(cwd: string, before: string | undefined): Promise<string | null> {
  if (before === undefined) return null;
  const after = await snapshotTree(cwd);
  if (after === undefined) return null;
  if (after === before) return '';
  try {
    return await git(cwd, ['diff', '--no-color', '--no-ext-diff', before, after]);
  } catch (error) {
    return `(the diff could not be made: ${error instanceof Error ? error.message : String(error)})`;
  }
}
