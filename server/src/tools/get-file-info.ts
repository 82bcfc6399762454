import { isUtf8 } from 'node:buffer';
import type { Stats } from 'node:fs';
import { lstat, open, readdir, readFile, readlink, stat } from 'node:fs/promises';
import * as z from 'zod';
import { PathError } from '../workspace/workspace.ts';
import {
  describeBinary,
  formatSize,
  fsErrorResult,
  looksBinary,
  notFoundResult,
  resolveTarget,
  SNIFF_BYTES,
  splitLines,
} from './files/helpers.ts';
import { defineTool } from './types.ts';
import { errorCode } from '../support/errno.ts';

/** Lines are counted for text files up to this size. */
const COUNT_LINES_BYTES = 1024 * 1024;

/** `get_file_info {path}`: type, size, modification time, permissions and (text files under 1 MB) line count. */
export function getFileInfoTool() {
  return defineTool({
    name: 'get_file_info',
    kind: 'read',
    description:
      'Details of a file or directory without reading it: type (file, directory, symlink and its target), size, last modification time (ISO 8601), ' +
      'permissions (octal and rwx), whether a file is text or binary, and the line count of text files under 1 MB. Use it to check that a path exists.',
    parameters: z.object({ path: z.string().describe('Path relative to the workspace root.') }),
    async execute(args, context) {
      const target = await resolveTarget(context, 'write', args.path);
      if ('error' in target) return target.error;
      try {
        const own = await lstat(target.absolute).catch((error: unknown) => {
          if (errorCode(error) === 'ENOENT') return undefined;
          throw error;
        });
        if (own === undefined) return await notFoundResult(context, target);
        const lines = [`path: ${target.display}`];
        if (!own.isSymbolicLink()) {
          const { details, summary } = await describe(target.absolute, own);
          return { output: [...lines, ...details].join('\n'), summary };
        }
        lines.push(`type: symlink -> ${await readlink(target.absolute)}`);
        let resolved;
        try {
          resolved = await context.workspace.resolveForRead(args.path);
        } catch (error) {
          if (!(error instanceof PathError)) throw error;
          // Stat-ing it would tell what exists outside the workspace.
          lines.push('target: outside the workspace (not inspected)');
          return { output: lines.join('\n'), summary: 'symlink out of the workspace' };
        }
        const followed = await stat(resolved.absolute).catch(() => undefined);
        if (followed === undefined) {
          lines.push('target: does not exist (a dangling link)');
          return { output: lines.join('\n'), summary: 'dangling symlink' };
        }
        const { details, summary } = await describe(resolved.absolute, followed);
        lines.push(`target: ${resolved.display}`, ...details.map((line) => `target ${line}`));
        return { output: lines.join('\n'), summary: `symlink to ${summary}` };
      } catch (error) {
        return fsErrorResult(error, target.display);
      }
    },
  });
}

async function describe(absolute: string, info: Stats): Promise<{ details: string[]; summary: string }> {
  const common = [`modified: ${info.mtime.toISOString()}`, `permissions: ${permissions(info.mode)}`];
  if (info.isDirectory()) {
    const entries = (await readdir(absolute).catch(() => undefined))?.length;
    return {
      details: ['type: directory', ...common, ...(entries === undefined ? [] : [`entries: ${entries}`])],
      summary: entries === undefined ? 'directory' : `directory, ${entries} entries`,
    };
  }
  if (!info.isFile()) {
    const kind = info.isFIFO() ? 'named pipe' : info.isSocket() ? 'socket' : 'device';
    return { details: [`type: ${kind}`, ...common], summary: kind };
  }
  const size = `size: ${info.size} bytes${info.size >= 1024 ? ` (${formatSize(info.size)})` : ''}`;
  const content = await contentOf(absolute, info.size);
  const lines = content.lines === undefined ? '' : `, ${content.lines} line${content.lines === 1 ? '' : 's'}`;
  return {
    details: ['type: file', size, ...common, `content: ${content.text}`],
    summary: `file, ${formatSize(info.size)}${lines}`,
  };
}

async function contentOf(absolute: string, size: number): Promise<{ text: string; lines?: number }> {
  if (size === 0) return { text: 'empty', lines: 0 };
  if (size > COUNT_LINES_BYTES) {
    const handle = await open(absolute, 'r');
    try {
      const { buffer, bytesRead } = await handle.read(Buffer.alloc(SNIFF_BYTES), 0, SNIFF_BYTES, 0);
      const sample = buffer.subarray(0, bytesRead);
      return {
        text: looksBinary(sample)
          ? `binary (${describeBinary(sample, absolute)})`
          : 'text (lines not counted: over 1 MB)',
      };
    } finally {
      await handle.close();
    }
  }
  const bytes = await readFile(absolute);
  if (looksBinary(bytes)) return { text: `binary (${describeBinary(bytes, absolute)})` };
  const lines = splitLines(bytes.toString('utf8')).length;
  return {
    text: `text, ${lines} line${lines === 1 ? '' : 's'}${isUtf8(bytes) ? '' : ' (not valid UTF-8)'}`,
    lines,
  };
}

/** `0755 (rwxr-xr-x)`. */
function permissions(mode: number): string {
  const bits = 'rwxrwxrwx';
  const rwx = [...bits].map((bit, index) => (mode & (1 << (8 - index)) ? bit : '-')).join('');
  return `${(mode & 0o7777).toString(8).padStart(4, '0')} (${rwx})`;
}
