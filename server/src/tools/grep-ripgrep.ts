/**
 * The ripgrep backend: rg with flags that make it find exactly what the built-in searcher finds
 * (hidden files searched, .git skipped, .gitignore/.ignore/.rgignore respected in and above the
 * tree whether or not it is a git repository, no user config or global excludes, files over 2 MB
 * and binary files skipped, CRLF as a line break), its output parsed as it streams in.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { GrepRequest } from './grep-builtin.ts';
import { MAX_LINE_CHARS } from './grep-matches.ts';

let cached: { path: string | undefined; rg: string | undefined } | undefined;

/** The ripgrep executable on PATH, or undefined when there is none. */
export function findRipgrep(path = process.env.PATH ?? ''): string | undefined {
  if (cached?.path === path) return cached.rg;
  let rg: string | undefined;
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'rg');
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) {
        rg = candidate;
        break;
      }
    } catch {
      // not here
    }
  }
  cached = { path, rg };
  return rg;
}

/** The flags beside the pattern and path; the benchmark runs bare rg with these too. */
export function ripgrepFlags(caseInsensitive: boolean, nameGlob: string | undefined): string[] {
  const flags = [
    '--no-config',
    '--line-number',
    '--with-filename',
    '--null',
    '--no-heading',
    '--color=never',
    '--no-messages',
    '--hidden',
    '--no-require-git',
    '--no-ignore-global',
    '--no-ignore-exclude',
    '--glob=!.git',
    '--max-filesize=2M',
    '--crlf',
    // Long lines (minified code) are cut by rg itself; the preview keeps more than we show.
    `--max-columns=${MAX_LINE_CHARS * 4}`,
    '--max-columns-preview',
  ];
  if (caseInsensitive) flags.push('--ignore-case');
  if (nameGlob !== undefined) flags.push(`--type-add=santra:${nameGlob}`, '--type=santra');
  return flags;
}

const BINARY_WARNING =
  /^(.*): WARNING: stopped searching binary file after match \(found "\\0" byte around offset \d+\)$/s;

/** rg names files under the search root `.` as `./x`; results show `x`. */
function displayed(file: string): string {
  return file.startsWith('./') ? file.slice(2) : file;
}

export type RipgrepOutcome = { ok: true } | { ok: false; invalid: boolean; message: string };

/** Runs rg in `cwd` (the workspace root) and feeds the request's collector. */
export function searchRipgrep(rg: string, cwd: string, request: GrepRequest): Promise<RipgrepOutcome> {
  const target = request.targetDisplay;
  const args = [
    ...ripgrepFlags(request.pattern.caseInsensitive, request.isFile ? undefined : request.nameGlob),
  ];
  args.push(`--regexp=${request.pattern.rg}`, '--', target);
  const { collector, pathFilter } = request;
  return new Promise((resolve) => {
    const child = spawn(rg, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], signal: request.signal });
    let pending: Buffer | undefined;
    let stderr = '';
    // One file's matches are held until the next file's begin: rg may end them with a warning that
    // the file is binary (a NUL byte after the match), and the built-in searcher skips such files.
    // Only the matches that could be shown keep their text; the rest are counted.
    let held:
      | { file: string; skip: boolean; counted: number; lines: Array<{ line: number; text: string }> }
      | undefined;
    let heldPath: Buffer | undefined;
    const flush = () => {
      if (held === undefined) return;
      collector.count(held.file, held.counted);
      for (const { line, text } of held.lines) collector.add(held.file, line, text);
      held = undefined;
      heldPath = undefined;
    };
    const record = (buffer: Buffer, start: number, end: number) => {
      const nul = buffer.indexOf(0, start);
      if (nul === -1 || nul >= end) {
        const warning = BINARY_WARNING.exec(buffer.toString('utf8', start, end));
        if (warning !== null && held?.file === displayed(warning[1] ?? '')) {
          held = undefined;
          heldPath = undefined;
        }
        return;
      }
      const colon = buffer.indexOf(0x3a, nul + 1);
      if (colon === -1 || colon >= end) return;
      // Most records name the same file as the one before: compare bytes rather than decode each path.
      if (heldPath === undefined || buffer.compare(heldPath, 0, heldPath.length, start, nul) !== 0) {
        flush();
        const file = displayed(buffer.toString('utf8', start, nul));
        held = { file, skip: pathFilter !== undefined && !pathFilter(file), counted: 0, lines: [] };
        heldPath = Buffer.from(buffer.subarray(start, nul));
      }
      const current = held as NonNullable<typeof held>;
      if (current.skip) return;
      let line = 0;
      for (let at = nul + 1; at < colon; at++) line = line * 10 + (buffer[at] as number) - 48;
      if (!collector.wants(current.file, line)) {
        current.counted++;
        return;
      }
      if (end > colon + 1 && buffer[end - 1] === 13) end--;
      current.lines.push({ line, text: buffer.toString('utf8', colon + 1, end) });
    };
    child.stdout.on('data', (chunk: Buffer) => {
      let start = 0;
      let newline = chunk.indexOf(10);
      if (pending !== undefined) {
        // Only the line split across chunks is copied, not the whole chunk.
        if (newline === -1) {
          pending = Buffer.concat([pending, chunk]);
          return;
        }
        const joined = Buffer.concat([pending, chunk.subarray(0, newline)]);
        record(joined, 0, joined.length);
        start = newline + 1;
        newline = chunk.indexOf(10, start);
      }
      for (; newline !== -1; newline = chunk.indexOf(10, start)) {
        record(chunk, start, newline);
        start = newline + 1;
      }
      pending = start < chunk.length ? chunk.subarray(start) : undefined;
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 65_536) stderr += chunk;
    });
    child.on('error', (error) => {
      if (request.signal.aborted) resolve({ ok: true });
      else resolve({ ok: false, invalid: false, message: `ripgrep could not run: ${error.message}` });
    });
    child.on('close', (code) => {
      if (request.signal.aborted) return resolve({ ok: true });
      if (pending !== undefined) record(pending, 0, pending.length);
      flush();
      if (code === 0 || code === 1) return resolve({ ok: true });
      const invalid = /regex parse error|error parsing glob|unrecognized file type/.test(stderr);
      // Exit 2 with matches means some files could not be read; keep what was found, as the built-in searcher does.
      if (!invalid && collector.total > 0) return resolve({ ok: true });
      resolve({ ok: false, invalid, message: stderr.trim() || `ripgrep exited with code ${code}` });
    });
  });
}
