import { lstat, mkdir } from 'node:fs/promises';
import * as z from 'zod';
import { blockedParent, fsErrorResult, resolveTarget } from './file-helpers.ts';
import { defineTool, toolError } from './types.ts';

/** `create_directory {path}`: mkdir -p inside the workspace. No approval: an empty directory changes no content. */
export function createDirectoryTool() {
  return defineTool({
    name: 'create_directory',
    kind: 'edit',
    description:
      'Create a directory, with any missing parents (like mkdir -p). It only creates directories: it writes no file and changes nothing that exists. ' +
      'Not needed before write_file or move_file, which create parent directories themselves.',
    parameters: z.object({ path: z.string().describe('Directory path, relative to the workspace root.') }),
    async execute(args, context) {
      const target = await resolveTarget(context, 'write', args.path);
      if ('error' in target) return target.error;
      try {
        const existing = await lstat(target.absolute).catch(() => undefined);
        if (existing?.isDirectory() === true)
          return { output: `${target.display} already exists.`, summary: 'already exists' };
        if (existing !== undefined) {
          return toolError(
            'already_exists',
            `${target.display} already exists and is not a directory${existing.isSymbolicLink() ? ' (it is a symbolic link)' : ''}.`,
          );
        }
        const blocked = await blockedParent(context, target.absolute, target.display);
        if (blocked !== undefined) return blocked;
        await mkdir(target.absolute, { recursive: true });
        return { output: `Created directory ${target.display}.`, summary: `created ${target.display}/` };
      } catch (error) {
        return fsErrorResult(error, target.display);
      }
    },
  });
}
