import type { Stats } from 'node:fs';
import { lstat } from 'node:fs/promises';
import * as z from 'zod';
import { moveEntry } from '../workspace/move-entry.ts';
import { readEntry, withPinnedParent } from '../workspace/pinned-dir.ts';
import type { ResolvedPath } from '../workspace/workspace.ts';
import {
  blockedParent,
  fsErrorResult,
  MAX_TEXT_FILE_BYTES,
  notFoundResult,
  resolveTarget,
} from './files/helpers.ts';
import { defineTool, refused, type ToolContext, type ToolResult, toolError } from './types.ts';
import { errorCode } from '../support/errno.ts';

/**
 * `move_file {from, to}`: moves or renames one file after the user approves, never over an
 * existing file. The destination's parent directories are created.
 */
export function moveFileTool() {
  return defineTool({
    name: 'move_file',
    kind: 'move',
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
        const occupied = await occupiedDestination(to, to.absolute, source);
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
  const { workspace } = context;
  // Shown so the user sees what is moved; the gate's diff of a move is empty, so a huge file is not loaded for it.
  const bytes =
    source.size <= MAX_TEXT_FILE_BYTES
      ? await withPinnedParent(
          workspace,
          from.absolute,
          { create: false, display: from.display },
          async (dir, name) => (dir === undefined ? undefined : await readEntry(dir, name)),
        )
      : undefined;
  const content = bytes?.toString('utf8');
  const decision = await context.gate.fileChange({
    path: from,
    operation: 'move',
    oldContent: content,
    newContent: content,
    destination: to,
  });
  if (!decision.allowed) return refused(decision);
  // Both directories are walked again from the root now: a link swapped in for either is refused.
  const fromOptions = { create: false, display: from.display };
  const failed = await withPinnedParent(workspace, from.absolute, fromOptions, async (fromDir, fromName) => {
    // The source must still be the file that was approved (we hold its lock; the user may not).
    const now = fromDir === undefined ? undefined : await lstatOrUndefined(fromDir.entry(fromName));
    if (
      fromDir === undefined ||
      now === undefined ||
      !now.isFile() ||
      now.ino !== source.ino ||
      now.dev !== source.dev
    ) {
      return toolError(
        'not_found',
        `${from.display} was moved or deleted while the move was waiting for approval; nothing was moved.`,
      );
    }
    const toOptions = { create: true, display: to.display };
    return withPinnedParent(workspace, to.absolute, toOptions, async (toDir, toName) => {
      if (toDir === undefined) throw new Error(`${to.absolute}: no directory to move into`);
      const occupied = await occupiedDestination(to, toDir.entry(toName), source);
      if (occupied !== undefined) return occupied;
      await moveEntry(fromDir, fromName, toDir, toName);
      return undefined;
    });
  });
  if (failed !== undefined) return failed;
  context.fileChanged({
    path: from.display,
    operation: 'move',
    before: bytes,
    after: bytes,
    destination: to.display,
  });
  // The destination holds what the approval showed; a later change to it must be read before it is overwritten.
  context.files.forget(context.agentId, from.absolute);
  if (content !== undefined) context.files.recordSeen(context.agentId, to.absolute, content);
  return {
    output: `Moved ${from.display} to ${to.display}.`,
    summary: `moved ${from.display} → ${to.display}`,
  };
}

/** The error when `to` (at `path`, maybe in its pinned directory) exists, unless it is the source itself (a case-only rename on a case-insensitive file system). */
async function occupiedDestination(
  to: ResolvedPath,
  path: string,
  source: Stats,
): Promise<ToolResult | undefined> {
  const existing = await lstatOrUndefined(path);
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
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}
