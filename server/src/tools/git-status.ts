import { join } from 'node:path';
import * as z from 'zod';
import { repositoryRoot, runGit, unsafeRepository } from './commands/git.ts';
import { defineTool, toolError } from './types.ts';

/** `git_status {}`: the branch and the changed files of the workspace, read-only, no approval. */
export function gitStatusTool() {
  return defineTool({
    name: 'git_status',
    kind: 'read',
    description:
      'Show the git branch (with its upstream, ahead/behind) and the files that are staged, modified, untracked or in conflict, ' +
      'for the part of the repository inside the workspace. Read-only. Use git_diff to see the changes themselves.',
    parameters: z.object({}),
    async execute(_args, context) {
      const unsafe = await unsafeRepository(context, 'git_status');
      if (unsafe !== undefined) return unsafe;
      const top = await repositoryRoot(context);
      if (typeof top !== 'string') return top.error;
      // Porcelain v1 with NUL separators: stable across versions and locales, and no quoting of odd names.
      const outcome = await runGit(
        context,
        ['status', '--porcelain=v1', '--branch', '-z', '--untracked-files=normal', '--', '.'],
        STATUS_OUTPUT_LIMIT,
      );
      if ('error' in outcome) return outcome.error;
      if (outcome.stdout.cutBytes > 0) {
        return toolError(
          'too_large',
          `git status printed ${outcome.stdout.totalBytes} bytes, too many changes to list. Run git status with run_command on a narrower path.`,
        );
      }
      // Paths are relative to the repository's top level; show them relative to the workspace,
      // keeping the slash git puts after an untracked directory.
      const show = (path: string) =>
        context.workspace.display(join(top, path)) + (path.endsWith('/') ? '/' : '');
      const status = parseStatus(outcome.stdout.text, show);
      return { output: formatStatus(status), summary: statusSummary(status) };
    },
  });
}

// The raw porcelain output is parsed, not shown, so it may be larger than what the model reads.
const STATUS_OUTPUT_LIMIT = 16 * 1024 * 1024;
const MAX_LISTED = 100;

interface Status {
  branch: string;
  staged: string[];
  unstaged: string[];
  untracked: string[];
  conflicts: string[];
}

const CHANGE: Record<string, string> = {
  M: 'modified',
  T: 'type changed',
  A: 'added',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
};
const CONFLICT: Record<string, string> = {
  DD: 'both deleted',
  AU: 'added by us',
  UD: 'deleted by them',
  UA: 'added by them',
  DU: 'deleted by us',
  AA: 'both added',
  UU: 'both modified',
};

/** Parses `git status --porcelain=v1 --branch -z`; `show` turns a repository path into what the model reads. */
export function parseStatus(raw: string, show: (repoPath: string) => string): Status {
  const status: Status = { branch: '', staged: [], unstaged: [], untracked: [], conflicts: [] };
  const records = raw.split('\0');
  for (let i = 0; i < records.length; i++) {
    const record = records[i] ?? '';
    if (record === '') continue;
    if (record.startsWith('## ')) {
      status.branch = describeBranch(record.slice(3));
      continue;
    }
    const xy = record.slice(0, 2);
    const path = show(record.slice(3));
    const x = xy[0] ?? ' ';
    const y = xy[1] ?? ' ';
    // A rename or copy is followed by a record with its source path.
    const from = x === 'R' || x === 'C' ? show(records[++i] ?? '') : undefined;
    if (xy === '??') status.untracked.push(path);
    else if (CONFLICT[xy] !== undefined) status.conflicts.push(`${CONFLICT[xy]}: ${path}`);
    else {
      const staged = CHANGE[x];
      if (staged !== undefined)
        status.staged.push(`${staged}: ${from === undefined ? path : `${from} -> ${path}`}`);
      const unstaged = CHANGE[y];
      if (unstaged !== undefined) status.unstaged.push(`${unstaged}: ${path}`);
    }
  }
  return status;
}

/** "main...origin/main [ahead 1, behind 2]", "No commits yet on main", "HEAD (no branch)". */
function describeBranch(line: string): string {
  const noCommits = /^No commits yet on (.+)$/.exec(line) ?? /^Initial commit on (.+)$/.exec(line);
  if (noCommits !== null) return `On branch ${noCommits[1]} (no commits yet).`;
  if (line.startsWith('HEAD (no branch)')) return 'HEAD is detached (not on a branch).';
  const match = /^(.+?)(?:\.\.\.(\S+))?(?: \[(.+)\])?$/.exec(line);
  if (match === null) return `On branch ${line}.`;
  const [, branch, upstream, tracking] = match;
  if (upstream === undefined) return `On branch ${branch} (no upstream).`;
  if (tracking === 'gone') return `On branch ${branch}; its upstream ${upstream} is gone.`;
  return `On branch ${branch}, tracking ${upstream}${tracking === undefined ? ' (up to date)' : ` (${tracking})`}.`;
}

function formatStatus(status: Status): string {
  const lines = [status.branch || 'Branch unknown.'];
  const list = (title: string, entries: string[]) => {
    if (entries.length === 0) return;
    lines.push(`${title} (${entries.length}):`);
    for (const entry of entries.slice(0, MAX_LISTED)) lines.push(`  ${entry}`);
    if (entries.length > MAX_LISTED) lines.push(`  … and ${entries.length - MAX_LISTED} more`);
  };
  list('Conflicts, to resolve', status.conflicts);
  list('Staged for commit', status.staged);
  list('Not staged', status.unstaged);
  list('Untracked', status.untracked);
  if (lines.length === 1) lines.push('Nothing to commit: the working tree is clean.');
  return lines.join('\n');
}

function statusSummary(status: Status): string {
  const parts = [
    [status.conflicts.length, 'conflicts'],
    [status.staged.length, 'staged'],
    [status.unstaged.length, 'modified'],
    [status.untracked.length, 'untracked'],
  ] as const;
  const counts = parts.filter(([count]) => count > 0).map(([count, label]) => `${count} ${label}`);
  return counts.length === 0 ? 'clean' : counts.join(', ');
}
