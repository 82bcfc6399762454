import * as z from 'zod';
import { PathError, type ResolvedPath } from '../workspace/workspace.ts';
import { runGit, unsafeRepository } from './commands/git.ts';
import { defineTool, toolError } from './types.ts';

/** `git_diff {path?, staged?}`: the unified diff of the workspace's changes, read-only, no approval. */
export function gitDiffTool() {
  return defineTool({
    name: 'git_diff',
    kind: 'read',
    description:
      'Show changes as a unified diff: by default the unstaged changes (working tree against the index); with staged: true the changes staged for commit (index against HEAD). ' +
      'Paths are relative to the workspace root. Untracked files are not included (git_status lists them). ' +
      'A long diff is cut in the middle; narrow it with path. Read-only.',
    parameters: z.object({
      path: z
        .string()
        .min(1)
        .optional()
        .describe(
          'Only this file or directory, relative to the workspace root. Default: the whole workspace.',
        ),
      staged: z
        .boolean()
        .optional()
        .describe('Show the staged changes instead of the unstaged ones. Default: false.'),
    }),
    async execute(args, context) {
      let target: ResolvedPath | undefined;
      if (args.path !== undefined) {
        try {
          target = await context.workspace.resolveForRead(args.path);
        } catch (error) {
          if (error instanceof PathError) return toolError(error.kind, error.message);
          throw error;
        }
      }
      const unsafe = await unsafeRepository(context, 'git_diff');
      if (unsafe !== undefined) return unsafe;
      const staged = args.staged === true;
      // --relative: paths relative to the workspace root, and nothing outside it.
      const base = [
        'diff',
        '--relative',
        '--no-ext-diff',
        '--no-textconv',
        '--no-color',
        ...(staged ? ['--cached'] : []),
      ];
      const pathspec = ['--', target?.absolute ?? '.'];
      const [diff, stat] = await Promise.all([
        runGit(context, [...base, ...pathspec]),
        runGit(context, [...base, '--shortstat', ...pathspec]),
      ]);
      if ('error' in diff) return diff.error;
      const where = target === undefined ? '' : ` in ${target.display}`;
      if (diff.stdout.totalBytes === 0) {
        const output = staged
          ? `No staged changes${where}: the index matches HEAD.`
          : `No unstaged changes${where}: the working tree matches the index. Set staged: true to see changes staged for commit; git_status lists untracked files.`;
        return { output, summary: 'no changes' };
      }
      const shortstat = 'error' in stat ? '' : stat.stdout.text.trim();
      const header = shortstat === '' ? '' : `${shortstat}\n\n`;
      return { output: header + diff.stdout.text, summary: compactStat(shortstat) };
    },
  });
}

/** " 2 files changed, 3 insertions(+), 1 deletion(-)" → "2 files, +3 -1". */
function compactStat(shortstat: string): string {
  const files = /(\d+) files? changed/.exec(shortstat)?.[1];
  if (files === undefined) return 'diff';
  const added = /(\d+) insertions?/.exec(shortstat)?.[1] ?? '0';
  const removed = /(\d+) deletions?/.exec(shortstat)?.[1] ?? '0';
  return `${files} file${files === '1' ? '' : 's'}, +${added} -${removed}`;
}
