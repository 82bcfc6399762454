import { lstat, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, posix } from 'node:path';
import picomatch from 'picomatch';
import * as z from 'zod';
import { fsErrorResult, notFoundResult, resolveTarget } from './files/helpers.ts';
import { ancestorLayers, isIgnored, walk } from './files/walk.ts';
import { defineTool, type ToolResult, toolError } from './types.ts';
import { errorCode } from '../support/errno.ts';

/** Paths one find_file call returns. */
export const FIND_LIMIT = 200;
/** Entries scanned before giving up on a huge tree. */
const SCAN_LIMIT = 200_000;

/** `find_file {pattern, path?}`: files whose path matches a glob, relative to the root, sorted, at most 200. */
export function findFileTool() {
  return defineTool({
    name: 'find_file',
    kind: 'search',
    description:
      'Find files by glob pattern, matched against paths relative to `path` (default: the workspace root). `*` matches within a name, `**` across directories, ' +
      '`{a,b}` alternatives, `[abc]` a character: `**/*.ts`, `src/**/test-*.js`. A pattern without "/" matches file names at any depth (`foo.ts`, `*.md`). ' +
      `Returns paths relative to the workspace root, sorted, at most ${FIND_LIMIT}. Skips .gitignore'd files and .git; does not follow symbolic links. To search file contents use grep_search.`,
    parameters: z.object({
      pattern: z.string().describe('Glob pattern, e.g. "**/*.test.ts" or "config.json".'),
      path: z
        .string()
        .optional()
        .describe('Directory to search in, relative to the workspace root (default ".").'),
    }),
    async execute(args, context) {
      const pattern = args.pattern.trim().replace(/^(\.\/)+/, '');
      if (pattern === '')
        return toolError(
          'invalid_arguments',
          'The pattern is empty. Give a glob such as "**/*.ts" or a file name.',
        );
      if (isAbsolute(pattern) || pattern.split('/').includes('..')) {
        return toolError(
          'invalid_arguments',
          `The pattern ${JSON.stringify(args.pattern)} leaves the search directory. Patterns are relative to \`path\`; set path to search another part of the workspace.`,
        );
      }
      let matches: (path: string) => boolean;
      try {
        matches = picomatch(pattern, { dot: true, basename: !pattern.includes('/') });
      } catch (error) {
        return toolError(
          'invalid_arguments',
          `The pattern ${JSON.stringify(pattern)} is not a valid glob: ${(error as Error).message}`,
        );
      }
      const base = await resolveTarget(context, 'read', args.path ?? '.');
      if ('error' in base) return base.error;
      try {
        if (!(await stat(base.absolute)).isDirectory()) {
          return toolError(
            'not_a_directory',
            `${base.display} is a file; path must be the directory to search in. Use get_file_info to check one file.`,
          );
        }
      } catch (error) {
        if (errorCode(error) === 'ENOENT') return notFoundResult(context, base);
        return fsErrorResult(error, base.display);
      }

      // Walk only below the pattern's fixed leading directories (`src` of `src/**/*.ts`).
      const scan = picomatch.scan(pattern);
      const fixed = scan.isGlob ? scan.base : posix.dirname(pattern);
      const prefix = fixed === '.' ? '' : fixed;
      const start = prefix === '' ? base.absolute : join(base.absolute, ...prefix.split('/'));
      if (prefix !== '') {
        const info = await lstat(start).catch(() => undefined);
        // Links are not followed: a real path that differs means a link on the way.
        if (info?.isDirectory() !== true || (await realpath(start).catch(() => '')) !== start)
          return noMatches(pattern, base.display, []);
      }
      let layers = await ancestorLayers(context.workspace, start);
      if (isIgnored(layers, start, true)) layers = [];

      const found: string[] = [];
      let scanned = 0;
      for await (const entry of walk(start, { recursive: true, layers, signal: context.signal })) {
        if (++scanned > SCAN_LIMIT) break;
        if (entry.type === 'dir') continue;
        if (matches(prefix === '' ? entry.relative : `${prefix}/${entry.relative}`))
          found.push(context.workspace.display(entry.absolute));
      }
      if (context.signal.aborted) return toolError('cancelled', 'The run was cancelled.');
      const notes: string[] = [];
      if (scanned > SCAN_LIMIT)
        notes.push(
          `Stopped after scanning ${SCAN_LIMIT} entries; narrow the search with path or a more specific pattern.`,
        );
      if (found.length === 0) return noMatches(pattern, base.display, notes);
      found.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      if (found.length > FIND_LIMIT)
        notes.push(
          `${found.length} files match; showing the first ${FIND_LIMIT}. Narrow the pattern or set path.`,
        );
      return {
        output: [...found.slice(0, FIND_LIMIT), ...notes.map((note) => `[${note}]`)].join('\n'),
        summary: `${found.length} file${found.length === 1 ? '' : 's'}`,
      };
    },
  });
}

function noMatches(pattern: string, where: string, notes: readonly string[]): ToolResult {
  const text = `No files match ${JSON.stringify(pattern)} in ${where} (files ignored by .gitignore are not searched).`;
  return { output: [text, ...notes.map((note) => `[${note}]`)].join('\n'), summary: 'no matches' };
}
