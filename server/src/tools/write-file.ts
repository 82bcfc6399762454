import { lstat, stat } from 'node:fs/promises';
import * as z from 'zod';
import { applyFileChange } from './files/change.ts';
import {
  blockedParent,
  formatSize,
  fsErrorResult,
  MAX_TEXT_FILE_BYTES,
  resolveTarget,
} from './files/helpers.ts';
import { defineTool, toolError } from './types.ts';

/**
 * `write_file {path, content}`: creates or replaces a whole file (parent directories included),
 * after the user approves the diff. A symbolic link at the path is replaced, never written through.
 */
export function writeFileTool() {
  return defineTool({
    name: 'write_file',
    kind: 'edit',
    description:
      'Create a file, or replace the whole content of one, creating missing parent directories. The user approves the change as a diff. ' +
      'To change part of an existing file use str_replace or multi_edit instead: they are shorter and cannot lose the rest of the file.',
    parameters: z.object({
      path: z.string().describe('File path, relative to the workspace root.'),
      content: z.string().describe('The complete new content of the file.'),
    }),
    async execute(args, context) {
      const target = await resolveTarget(context, 'write', args.path);
      if ('error' in target) return target.error;
      try {
        const existing = await lstat(target.absolute).catch(() => undefined);
        if (existing?.isDirectory() === true) {
          return toolError(
            'is_directory',
            `${target.display} is a directory; give the path of a file to write.`,
          );
        }
        // What a link points at is read for the diff; a directory or a device there cannot be.
        const followed =
          existing?.isSymbolicLink() === true ? await stat(target.absolute).catch(() => undefined) : existing;
        if (followed !== undefined && !followed.isFile()) {
          return toolError(
            'not_a_file',
            `${target.display} is not a regular file (or a link to one); write_file only writes files.`,
          );
        }
        if (followed !== undefined && followed.size > MAX_TEXT_FILE_BYTES) {
          return toolError(
            'too_large',
            `${target.display} is ${formatSize(followed.size)}, too large to replace here (limit ${formatSize(MAX_TEXT_FILE_BYTES)}). Use run_command.`,
          );
        }
        const blocked = await blockedParent(context, target.absolute, target.display);
        if (blocked !== undefined) return blocked;
        return await applyFileChange(context, target, () => ({ content: args.content }));
      } catch (error) {
        return fsErrorResult(error, target.display);
      }
    },
  });
}
