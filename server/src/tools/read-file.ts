import { isUtf8 } from 'node:buffer';
import { constants } from 'node:fs';
import { lstat, open, stat } from 'node:fs/promises';
import * as z from 'zod';
import {
  decodeUtf8,
  describeBinary,
  formatSize,
  MAX_TEXT_FILE_BYTES,
  fsErrorResult,
  looksBinary,
  notFoundResult,
  numberedLine,
  numberWidth,
  resolveTarget,
  splitLines,
} from './files/helpers.ts';
import { O_NOFOLLOW, withPinnedParent } from '../workspace/pinned-dir.ts';
import { defineTool, type ToolResult, toolError } from './types.ts';
import { errorCode } from '../support/errno.ts';

/** Bytes of file content one read_file call returns. */
export const READ_LIMIT_BYTES = 40 * 1024;

/**
 * `read_file {path, startLine?, endLine?}`: a text file with numbered lines, at most 40 KB per
 * call (the output says where to continue). Records the content as seen, so a later edit is
 * refused if the file changed on disk in between.
 */
export function readFileTool() {
  return defineTool({
    name: 'read_file',
    kind: 'read',
    description:
      'Read a text file. Each line is shown as `<number>│ <text>`; the number and "│ " are not part of the file. ' +
      'Returns at most 40 KB per call: for a longer file the output says which startLine to continue from. ' +
      'Read a file before editing it. Use list_dir for directories and get_file_info for size or type only.',
    parameters: z.object({
      path: z.string().describe('File path, relative to the workspace root.'),
      startLine: z.number().int().min(1).optional().describe('First line to show, 1-based (default 1).'),
      endLine: z
        .number()
        .int()
        .min(1)
        .optional()
        .describe('Last line to show, inclusive (default: the end of the file, within the 40 KB limit).'),
    }),
    async execute(args, context) {
      const target = await resolveTarget(context, 'read', args.path);
      if ('error' in target) return target.error;
      let bytes: Buffer;
      try {
        // Read through the parent walked again from the root, without following a final link:
        // the path was resolved to its real target, and a link swapped in since must not lead out.
        const read = await withPinnedParent(
          context.workspace,
          target.absolute,
          { create: false, display: target.display },
          async (dir, name): Promise<Buffer | ToolResult> => {
            if (dir === undefined) return notFoundResult(context, target);
            const flags = constants.O_RDONLY | O_NOFOLLOW | (constants.O_NONBLOCK ?? 0);
            const entry = dir.entry(name);
            const handle = await open(entry, flags).catch(async (error: unknown) => {
              // Resolved for reading, a path is only still a link when its target is missing (or
              // when one was swapped in since: never followed, reported as what it is).
              const dangling =
                (await lstat(entry).catch(() => undefined))?.isSymbolicLink() === true &&
                (await stat(entry).then(
                  () => false,
                  () => true,
                ));
              if (errorCode(error) === 'ELOOP' && dangling) return undefined;
              throw error;
            });
            if (handle === undefined) return notFoundResult(context, target);
            try {
              const info = await handle.stat();
              if (info.isDirectory())
                return toolError(
                  'is_directory',
                  `${target.display} is a directory. Use list_dir to see its contents.`,
                );
              if (!info.isFile())
                return toolError(
                  'not_a_file',
                  `${target.display} is not a regular file (a device, socket or pipe); read_file reads files.`,
                );
              if (info.size > MAX_TEXT_FILE_BYTES) {
                return toolError(
                  'too_large',
                  `${target.display} is ${formatSize(info.size)}, more than read_file loads (${formatSize(MAX_TEXT_FILE_BYTES)}). Find what you need with grep_search, or show a slice with run_command (e.g. sed -n '1000,1100p').`,
                );
              }
              return await handle.readFile({ signal: context.signal });
            } finally {
              await handle.close();
            }
          },
        );
        if (!Buffer.isBuffer(read)) return read;
        bytes = read;
      } catch (error) {
        if (errorCode(error) === 'ENOENT') return notFoundResult(context, target);
        if ((error as Error).name === 'AbortError') return toolError('cancelled', 'The run was cancelled.');
        return fsErrorResult(error, target.display);
      }
      if (looksBinary(bytes)) {
        return toolError(
          'binary_file',
          `${target.display} is a binary file (${describeBinary(bytes, target.absolute)}, ${formatSize(bytes.length)}); read_file only shows text. Use get_file_info for its details, or run_command with a tool that understands the format.`,
          'binary file',
        );
      }
      // An editor's buffer of the file, unsaved changes included, is what the user sees (§7.5).
      const held = await context.editor?.readText?.(target.absolute);
      context.files.recordSeen(context.agentId, target.absolute, held ?? bytes);
      const lines = splitLines(held ?? decodeUtf8(bytes));
      const total = lines.length;
      if (total === 0) return { output: `${target.display} is empty.`, summary: 'empty file' };

      const start = args.startLine ?? 1;
      if (start > total) {
        return toolError(
          'out_of_range',
          `${target.display} has ${total} lines; startLine ${start} is past the end. Use a startLine from 1 to ${total}.`,
        );
      }
      if (args.endLine !== undefined && args.endLine < start) {
        return toolError(
          'out_of_range',
          `endLine ${args.endLine} is before startLine ${start}. Give endLine >= startLine (${target.display} has ${total} lines).`,
        );
      }
      const end = Math.min(args.endLine ?? total, total);
      const width = numberWidth(total);
      const shown: string[] = [];
      let used = 0;
      let next: number | undefined;
      let cutLine: { line: number; size: number } | undefined;
      for (let line = start; line <= end; line++) {
        const text = lines[line - 1] ?? '';
        const size = Buffer.byteLength(text) + 1;
        if (used + size > READ_LIMIT_BYTES) {
          if (shown.length === 0) {
            // A single line longer than the limit (minified code): show its head rather than nothing.
            shown.push(numberedLine(line, truncateUtf8(text, READ_LIMIT_BYTES), width));
            cutLine = { line, size };
            if (line < end) next = line + 1;
          } else {
            next = line;
          }
          break;
        }
        shown.push(numberedLine(line, text, width));
        used += size;
      }
      const last = next === undefined ? end : next - 1;
      const notes: string[] = [];
      if (cutLine !== undefined) {
        notes.push(
          `Line ${cutLine.line} is ${formatSize(cutLine.size)} long; only its first 40 KB is shown. Use grep_search or run_command (e.g. cut -c) to see the rest.`,
        );
      }
      if (next !== undefined) {
        notes.push(
          `Showing lines ${start}–${last} of ${total}: read_file returns at most 40 KB per call. Continue with startLine ${next}.`,
        );
      } else if (args.endLine !== undefined && args.endLine > total) {
        notes.push(`Lines ${start}–${total} of ${total}: the file ends at line ${total}.`);
      } else if (start > 1 || end < total) {
        notes.push(`Lines ${start}–${end} of ${total}.`);
      }
      if (!isUtf8(bytes))
        notes.push(
          'The file is not valid UTF-8; invalid bytes are shown as �. Editing it would replace them.',
        );
      if (lines.some((line) => line.endsWith('\r')))
        notes.push('The file has CRLF line endings (not shown above).');
      const output = shown.join('\n') + notes.map((note) => `\n[${note}]`).join('');
      const range = start === 1 && last === total ? `${total} lines` : `lines ${start}–${last} of ${total}`;
      return {
        output,
        summary: next === undefined && cutLine === undefined ? range : `${range} (truncated)`,
      };
    },
  });
}

/** The longest prefix of `text` within `limit` UTF-8 bytes, never splitting a character. */
function truncateUtf8(text: string, limit: number): string {
  const bytes = Buffer.from(text).subarray(0, limit);
  return decodeUtf8(bytes).replace(/\uFFFD$/, '');
}
