import { lstat, opendir, readlink, stat } from 'node:fs/promises';
import * as z from 'zod';
import { formatSize, fsErrorResult, notFoundResult, resolveTarget } from './files/helpers.ts';
import { ancestorLayers, isIgnored, walk, type WalkEntry } from './files/walk.ts';
import { defineTool, toolError } from './types.ts';
import { errorCode } from '../support/errno.ts';

/** Entries one list_dir call shows. */
export const LIST_LIMIT = 1000;

/**
 * `list_dir {path, recursive?}`: a directory's entries with type and size, directories first,
 * honouring .gitignore and skipping .git; recursive listings stop at 1,000 entries.
 */
export function listDirTool() {
  return defineTool({
    name: 'list_dir',
    kind: 'read',
    description:
      'List a directory: one entry per line as `dir  name/`, `file name  size` or `link name -> target`, directories first. ' +
      'Entries ignored by .gitignore and the .git directory are left out (the output says how many were hidden). ' +
      `recursive lists the whole tree below (paths relative to the listed directory), at most ${LIST_LIMIT} entries; symbolic links are not followed. ` +
      'To find files by name pattern use find_file.',
    parameters: z.object({
      path: z.string().describe('Directory path, relative to the workspace root ("." for the root).'),
      recursive: z.boolean().optional().describe('List subdirectories too (default false).'),
    }),
    async execute(args, context) {
      const target = await resolveTarget(context, 'read', args.path);
      if ('error' in target) return target.error;
      try {
        const info = await stat(target.absolute);
        if (!info.isDirectory()) {
          return toolError(
            'not_a_directory',
            `${target.display} is a file, not a directory. Use read_file to read it or get_file_info for its details.`,
          );
        }
        // Fail on an unreadable directory here, rather than listing it as empty.
        await (await opendir(target.absolute)).close();
      } catch (error) {
        if (errorCode(error) === 'ENOENT') return notFoundResult(context, target);
        return fsErrorResult(error, target.display);
      }
      let layers = await ancestorLayers(context.workspace, target.absolute);
      const notes: string[] = [];
      if (isIgnored(layers, target.absolute, true)) {
        // Asked for by name, so listed; the rules that hide the directory itself would hide all of it.
        layers = [];
        notes.push(
          `${target.display} itself is ignored by .gitignore; it is listed because you asked for it.`,
        );
      }
      let hidden = 0;
      const entries: WalkEntry[] = [];
      let capped = false;
      for await (const entry of walk(target.absolute, {
        recursive: args.recursive === true,
        layers,
        signal: context.signal,
        onIgnored: () => hidden++,
      })) {
        if (entries.length === LIST_LIMIT) {
          capped = true;
          break;
        }
        entries.push(entry);
      }
      if (context.signal.aborted) return toolError('cancelled', 'The run was cancelled.');
      const lines = await Promise.all(entries.map(describeEntry));
      if (hidden > 0)
        notes.push(`${hidden} entr${hidden === 1 ? 'y' : 'ies'} ignored by .gitignore not shown.`);
      if (capped) {
        notes.push(
          `Stopped at ${LIST_LIMIT} entries; there are more. List a subdirectory, or use find_file with a pattern.`,
        );
      }
      const heading =
        entries.length === 0
          ? `${target.display} is empty.`
          : `${target.display}${args.recursive === true ? ' (recursive)' : ''}:`;
      return {
        output: [heading, ...lines, ...notes.map((note) => `[${note}]`)].join('\n'),
        summary: `${entries.length}${capped ? '+' : ''} entr${entries.length === 1 ? 'y' : 'ies'}`,
      };
    },
  });
}

async function describeEntry(entry: WalkEntry): Promise<string> {
  switch (entry.type) {
    case 'dir':
      return `dir   ${entry.relative}/`;
    case 'file': {
      const size = (await lstat(entry.absolute).catch(() => undefined))?.size;
      return `file  ${entry.relative}${size === undefined ? '' : `  ${formatSize(size)}`}`;
    }
    case 'symlink': {
      const to = await readlink(entry.absolute).catch(() => '?');
      return `link  ${entry.relative} -> ${to}`;
    }
    case 'other':
      return `other ${entry.relative}  (device, socket or pipe)`;
  }
}
