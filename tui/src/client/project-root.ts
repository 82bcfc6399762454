/**
 * Which directory is the workspace: the project the user is in, not merely the directory they
 * typed `santra` in. Run from `src/`, the project's `.agents/`, its AGENTS.md and its other files
 * are one level up. Every client finds it the same way: the nearest directory at or above the start
 * that holds `.git` (a directory, or a file as in worktrees and submodules); without one, the start
 * directory itself. `--cwd` names the workspace outright.
 */
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export interface Workplace {
  /** The workspace root the server is given. */
  root: string;
  /** Where the user started; relative paths in a prompt mean paths from here. */
  start: string;
}

export function findWorkplace(start: string, rootGiven: boolean): Workplace {
  const from = resolve(start);
  if (rootGiven) return { root: from, start: from };
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return { root: dir, start: from };
    if (dirname(dir) === dir) return { root: from, start: from };
  }
}

/** The start directory as the prompt's `cwd`: relative to the root, or undefined at the root. */
export function promptCwd(place: Workplace): string | undefined {
  const rel = relative(place.root, place.start);
  return rel === '' ? undefined : rel;
}
