import { lstat } from 'node:fs/promises';
import * as z from 'zod';
import { applyFileChange } from './files/change.ts';
import {
  formatSize,
  fsErrorResult,
  MAX_TEXT_FILE_BYTES,
  notFoundResult,
  resolveTarget,
} from './files/helpers.ts';
import { defineTool, toolError } from './types.ts';
import { errorCode } from '../support/errno.ts';

/** `delete_file {path}`: deletes one file after the user approves; never a directory. */
export function deleteFileTool() {
  return defineTool({
    name: 'delete_file',
    kind: 'delete',
    description:
      'Delete one file (the user approves it, seeing the content that goes). Does not remove directories or symbolic links: use run_command for those.',
    parameters: z.object({ path: z.string().describe('File path, relative to the workspace root.') }),
    async execute(args, context) {
      const target = await resolveTarget(context, 'write', args.path);
      if ('error' in target) return target.error;
      try {
        const info = await lstat(target.absolute).catch((error: unknown) => {
          if (errorCode(error) === 'ENOENT') return undefined;
          throw error;
        });
        if (info === undefined) return await notFoundResult(context, target);
        if (info.isDirectory()) {
          return toolError(
            'is_directory',
            `${target.display} is a directory; delete_file removes single files. To remove a directory use run_command (e.g. rm -r ${target.display}), which the user approves.`,
          );
        }
        // The diff shows the content being deleted; for a link that would be its target's, possibly outside the workspace.
        if (info.isSymbolicLink()) {
          return toolError(
            'not_a_file',
            `${target.display} is a symbolic link; delete_file removes regular files. Remove the link with run_command (rm ${target.display}).`,
          );
        }
        if (!info.isFile())
          return toolError(
            'not_a_file',
            `${target.display} is not a regular file; delete_file removes files only.`,
          );
        if (info.size > MAX_TEXT_FILE_BYTES) {
          return toolError(
            'too_large',
            `${target.display} is ${formatSize(info.size)}, too large to show for approval here. Delete it with run_command (rm).`,
          );
        }
        const result = await applyFileChange(context, target, (current) =>
          current === undefined
            ? { error: toolError('not_found', `${target.display} no longer exists; nothing was deleted.`) }
            : { content: undefined },
        );
        return result.isError === true ? result : { ...result, summary: `deleted ${target.display}` };
      } catch (error) {
        return fsErrorResult(error, target.display);
      }
    },
  });
}
