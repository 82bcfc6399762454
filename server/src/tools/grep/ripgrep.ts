/**
 * The ripgrep backend: rg with flags that make it find exactly what the built-in searcher finds
 * (hidden files searched, .git skipped, .gitignore/.ignore/.rgignore respected in and above the
 * tree whether or not it is a git repository, no user config or global excludes, files over 2 MB
 * and binary files skipped, CRLF as a line break), its output parsed as it streams in.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { GrepRequest } from './builtin.ts';
import { MAX_FILE_BYTES, MAX_LINE_CHARS } from './matches.ts';

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
    // Each file's path once, then its matches, then a blank line: a third of the output of a
    // path on every line, and no path to compare per match.
    '--heading',
    '--color=never',
    '--no-messages',
    '--hidden',
    '--no-require-git',
    '--no-ignore-global',
    '--no-ignore-exclude',
    '--glob=!.git',
    // The temp files of atomic writes (workspace/atomic-write.ts), as the built-in searcher skips them.
    '--glob=!.*santra-*.tmp',
    '--max-filesize=2M',
    // rg says which files it skipped for their size only in its debug log, read from stderr.
    '--debug',
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

/** rg's debug log line for a file over --max-filesize: `… ignoring ./big.bin: 3000007 bytes`. */
const TOO_LARGE = /^(?:rg: )?DEBUG\|ignore::walk\|.*?: ignoring (.+): (\d+) bytes$/s;
/** Any other debug line (rg 13: `DEBUG|…`; rg 14: `rg: DEBUG|…`): not an error. */
const DEBUG = /^(?:rg: )?DEBUG\|/;

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
    // One file's matches are held until its block ends: rg may end it with a warning that the file
    // is binary (a NUL byte after the match), and the built-in searcher skips such files. Only the
    // matches that could be shown keep their text; the rest are counted.
    let held:
      | {
          file: string;
          /** Not counted at all: outside the path filter, or found binary. */
          skip: boolean;
          /** No later match of this file can be shown (its lines only grow): count without asking. */
          countOnly: boolean;
          counted: number;
          lines: Array<{ line: number; text: string }>;
        }
      | undefined;
    const flush = () => {
      if (held !== undefined && !held.skip) {
        collector.count(held.file, held.counted);
        for (const { line, text } of held.lines) collector.add(held.file, line, text);
      }
      held = undefined;
    };
    /** One output line, `buffer[start, end)`: `path NUL line:text` opens a file, `line:text` goes on, empty ends it. */
    const record = (buffer: Buffer, start: number, end: number) => {
      if (start === end) return flush();
      let at = start;
      if (held === undefined) {
        const nul = buffer.indexOf(0, start);
        if (nul === -1 || nul >= end) return;
        const file = displayed(buffer.toString('utf8', start, nul));
        held = {
          file,
          skip: pathFilter !== undefined && !pathFilter(file),
          countOnly: false,
          counted: 0,
          lines: [],
        };
        at = nul + 1;
      }
      const current = held;
      let line = 0;
      let colon = at;
      // The line number's digits, up to the colon after them.
      for (; colon < end; colon++) {
        const code = buffer[colon] as number;
        if (code < 0x30 || code > 0x39) break;
        line = line * 10 + code - 0x30;
      }
      if (colon === at || colon === end || buffer[colon] !== 0x3a) {
        // Not a match: rg's note that the file turned out to be binary after a match.
        const warning = BINARY_WARNING.exec(buffer.toString('utf8', start, end));
        if (warning !== null && displayed(warning[1] ?? '') === current.file) current.skip = true;
        return;
      }
      if (current.skip) return;
      if (current.countOnly || !collector.wants(current.file, line)) {
        current.countOnly = true;
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
    let stderrLine = '';
    const readStderrLine = (line: string) => {
      const skipped = TOO_LARGE.exec(line);
      if (skipped !== null) {
        const file = displayed(skipped[1] ?? '');
        if (Number(skipped[2]) > MAX_FILE_BYTES && (pathFilter === undefined || pathFilter(file)))
          collector.skipTooLarge(file);
      } else if (!DEBUG.test(line) && stderr.length < 65_536) {
        stderr += `${line}\n`;
      }
    };
    child.stderr.on('data', (chunk: string) => {
      const lines = (stderrLine + chunk).split('\n');
      stderrLine = lines.pop() ?? '';
      for (const line of lines) readStderrLine(line);
    });
    child.on('error', (error) => {
      if (request.signal.aborted) resolve({ ok: true });
      else resolve({ ok: false, invalid: false, message: `ripgrep could not run: ${error.message}` });
    });
    child.on('close', (code) => {
      if (request.signal.aborted) return resolve({ ok: true });
      if (pending !== undefined) record(pending, 0, pending.length);
      flush();
      if (stderrLine !== '') readStderrLine(stderrLine);
      if (code === 0 || code === 1) return resolve({ ok: true });
      const invalid = /regex parse error|error parsing glob|unrecognized file type/.test(stderr);
      // Exit 2 with matches means some files could not be read; keep what was found, as the built-in searcher does.
      if (!invalid && collector.total > 0) return resolve({ ok: true });
      resolve({ ok: false, invalid, message: stderr.trim() || `ripgrep exited with code ${code}` });
    });
  });
}
