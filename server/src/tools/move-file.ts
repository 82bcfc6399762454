import { constants, type Stats } from 'node:fs';
import { copyFile, lstat, mkdir, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as z from 'zod';
import type { ResolvedPath } from '../workspace/workspace.ts';
import {
  blockedParent,
  fsErrorResult,
  MAX_TEXT_FILE_BYTES,
  notFoundResult,
  resolveTarget,
} from './file-helpers.ts';
import { defineTool, refused, type ToolContext, type ToolResult, toolError } from './types.ts';

/**
 * `move_file {from, to}`: moves or renames one file after the user approves, never over an
 * existing file. The destination's parent directories are created.
 */
export function moveFileTool() {
  return defineTool({
    name: 'move_file',
    kind: 'edit',
    description:
      'Move or rename one file (the user approves it). Never overwrites: fails if `to` exists. Creates missing parent directories of `to`. ' +
      'Does not move directories or symbolic links: use run_command (mv, git mv) for those.',
    parameters: z.object({
      from: z.string().describe('The file to move, relative to the workspace root.'),
      to: z.string().describe('Its new path, file name included, relative to the workspace root.'),
    }),
    async execute(args, context) {
      const from = await resolveTarget(context, 'write', args.from);
      if ('error' in from) return from.error;
      const to = await resolveTarget(context, 'write', args.to);
      if ('error' in to) return to.error;
      if (from.absolute === to.absolute)
        return toolError(
          'invalid_arguments',
          `from and to are the same path (${from.display}); nothing to move.`,
        );
      try {
        const source = await lstatOrUndefined(from.absolute);
        if (source === undefined) return await notFoundResult(context, from);
        if (source.isDirectory()) {
          return toolError(
            'is_directory',
            `${from.display} is a directory; move_file moves single files. Use run_command (e.g. git mv or mv) for directories.`,
          );
        }
        if (!source.isFile()) {
          return toolError(
            'not_a_file',
            `${from.display} is not a regular file (a symbolic link or special file); use run_command (mv) to move it.`,
          );
        }
        const occupied = await occupiedDestination(to, source);
        if (occupied !== undefined) return occupied;
        const blocked = await blockedParent(context, to.absolute, to.display);
        if (blocked !== undefined) return blocked;
        // One lock for the whole move, the one file changes take: an edit and a move of one file queue up.
        return await context.files.withLock(from.absolute, () => approveAndMove(context, from, to, source));
      } catch (error) {
        return fsErrorResult(error, `${from.display} → ${to.display}`);
      }
    },
  });
}

async function approveAndMove(
  context: ToolContext,
  from: ResolvedPath,
  to: ResolvedPath,
  source: Stats,
): Promise<ToolResult> {
  // Shown so the user sees what is moved; the gate's diff of a move is empty, so a huge file is not loaded for it.
  const content = source.size <= MAX_TEXT_FILE_BYTES ? await readFile(from.absolute, 'utf8') : undefined;
  const decision = await context.gate.fileChange({
    path: from,
    operation: 'move',
    oldContent: content,
    newContent: content,
    destination: to,
  });
  if (!decision.allowed) return refused(decision);
  // The source must still be the file that was approved (we hold its lock; the user may not).
  const now = await lstatOrUndefined(from.absolute);
  if (now === undefined || !now.isFile() || now.ino !== source.ino || now.dev !== source.dev) {
    return toolError(
      'not_found',
      `${from.display} was moved or deleted while the move was waiting for approval; nothing was moved.`,
    );
  }
  const occupied = await occupiedDestination(to, source);
  if (occupied !== undefined) return occupied;
  await mkdir(dirname(to.absolute), { recursive: true });
  try {
    await rename(from.absolute, to.absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    // Another file system (an allowed directory elsewhere): copy without overwriting, then remove the source.
    await copyFile(from.absolute, to.absolute, constants.COPYFILE_EXCL);
    await unlink(from.absolute);
  }
  // The destination holds what the approval showed; a later change to it must be read before it is overwritten.
  context.files.forget(context.agentId, from.absolute);
  if (content !== undefined) context.files.recordSeen(context.agentId, to.absolute, content);
  return {
    output: `Moved ${from.display} to ${to.display}.`,
    summary: `moved ${from.display} → ${to.display}`,
  };
}

/** The error when `to` exists, unless it is the source itself (a case-only rename on a case-insensitive file system). */
async function occupiedDestination(to: ResolvedPath, source: Stats): Promise<ToolResult | undefined> {
  const existing = await lstatOrUndefined(to.absolute);
  if (existing === undefined || (existing.ino === source.ino && existing.dev === source.dev))
    return undefined;
  if (existing.isDirectory()) {
    return toolError(
      'already_exists',
      `${to.display} is an existing directory. Give the full destination path, file name included (e.g. ${to.display}/name).`,
    );
  }
  return toolError(
    'already_exists',
    `${to.display} already exists; move_file never overwrites. Delete it first (delete_file) or choose another name.`,
  );
}

async function lstatOrUndefined(absolute: string): Promise<Stats | undefined> {
  try {
    return await lstat(absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
