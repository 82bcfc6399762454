/**
 * `grep_search {pattern, path?, filePattern?, caseInsensitive?}`: regex search of file contents,
 * through ripgrep when it is on PATH (and `settings.useRipgrep`), else the built-in searcher.
 * Both give the same lines in the same order: the pattern is translated for each (grep/pattern.ts),
 * ripgrep gets flags that match the built-in file selection, and the results are sorted here.
 */
import { readFile, stat } from 'node:fs/promises';
import picomatch from 'picomatch';
import * as z from 'zod';
import { PathError, type ResolvedPath } from '../workspace/workspace.ts';
import { type GrepRequest, searchBuiltin } from './grep/builtin.ts';
import { MatchCollector, MAX_FILE_BYTES, MAX_LINE_CHARS, MAX_MATCHES } from './grep/matches.ts';
import { compilePattern } from './grep/pattern.ts';
import { findRipgrep, searchRipgrep } from './grep/ripgrep.ts';
import { defineTool, type ToolContext, type ToolResult, toolError } from './types.ts';

const DESCRIPTION = `Search file contents with a regular expression; returns matching lines as "path:line: text", sorted by path then line number.
Use it to find where something is defined or used. At most ${MAX_MATCHES} lines are shown (the total is stated when there are more) and ${MAX_LINE_CHARS} characters of each line. Searches the workspace or \`path\`, including hidden files; skips files ignored by .gitignore/.ignore/.rgignore (name an ignored directory, e.g. node_modules/pkg, in \`path\` to search it), the .git directory, binary files and files over 2 MB (the result names the large files it skipped).
Regex syntax (the subset PCRE, JavaScript and ripgrep share): literals, . [abc] [^a-z] [[:alpha:]], \\d \\w \\b (ASCII) and \\s with their negations, \\p{L}, \\xHH, \\t, groups (...) (?:...) (?<name>...), |, * + ? {n,m} (lazy with ?), ^ and $ at line ends, a leading (?i). Each line is matched on its own: no \\n, look-around or backreferences. Escape literal ( ) [ ] { } . * + ? | ^ $ \\ with a backslash.`;

/** `grep_search`: regex search over the workspace, the same results with or without ripgrep. */
export function grepSearchTool() {
  return defineTool({
    name: 'grep_search',
    kind: 'search',
    description: DESCRIPTION,
    parameters: z.object({
      pattern: z
        .string()
        .min(1)
        .describe('The regular expression, e.g. "function\\s+load\\w*" or "TODO\\(".'),
      path: z
        .string()
        .optional()
        .describe(
          'File or directory to search, relative to the workspace root. Default: the whole workspace.',
        ),
      filePattern: z
        .string()
        .optional()
        .describe(
          'Which files to search. Without "/" a glob on the file name ("*.ts", "*.{ts,tsx}", "Makefile"); with "/" a glob on the path as shown in results ("src/**/*.test.ts"). Ignored when path is a file.',
        ),
      caseInsensitive: z.boolean().optional().describe('Ignore case (Unicode case folding). Default false.'),
    }),
    async execute(args, context) {
      const compiled = compilePattern(args.pattern, args.caseInsensitive === true);
      if (!compiled.ok) return toolError('invalid_regex', compiled.message);
      let target: ResolvedPath;
      try {
        target = await context.workspace.resolveForRead(args.path ?? '.');
      } catch (error) {
        if (error instanceof PathError) return toolError(error.kind, error.message);
        throw error;
      }
      const info = await stat(target.absolute).catch(() => undefined);
      if (info === undefined) {
        return toolError(
          'not_found',
          `${target.display} does not exist. Check the path (relative to the workspace root).`,
        );
      }
      const isFile = info.isFile();
      if (isFile) {
        const refusal = await checkFile(target, info.size);
        if (refusal !== undefined) return refusal;
      } else if (!info.isDirectory()) {
        return toolError('invalid_path', `${target.display} is neither a file nor a directory.`);
      }
      const filter = isFile || args.filePattern === undefined ? {} : fileFilter(args.filePattern);
      if ('error' in filter) return filter.error;
      const request: GrepRequest = {
        target: target.absolute,
        isFile,
        targetDisplay: target.display,
        pattern: compiled.pattern,
        ...filter,
        collector: new MatchCollector(),
        signal: context.signal,
      };
      const failure = await runSearch(request, context);
      if (failure !== undefined) return failure;
      if (context.signal.aborted) return toolError('cancelled', 'The search was cancelled.');
      return report(
        request.collector,
        args.pattern,
        target.display === '.' ? 'the workspace' : target.display,
      );
    },
  });
}

/** Runs ripgrep when allowed and present, else (or when it fails to run) the built-in searcher. */
async function runSearch(request: GrepRequest, context: ToolContext): Promise<ToolResult | undefined> {
  const rg = context.settings.useRipgrep ? findRipgrep() : undefined;
  if (rg !== undefined) {
    const outcome = await searchRipgrep(rg, context.workspace.root, request);
    if (outcome.ok) return undefined;
    if (outcome.invalid) return toolError('invalid_regex', outcome.message);
    request.collector = new MatchCollector();
  }
  await searchBuiltin(request);
  return undefined;
}

/** A file named as `path` is searched whatever the filters say, but never a binary or oversized one. */
async function checkFile(target: ResolvedPath, size: number): Promise<ToolResult | undefined> {
  if (size > MAX_FILE_BYTES) {
    return toolError(
      'too_large',
      `${target.display} is ${size} bytes, over the 2 MB search limit. Read it in parts instead.`,
    );
  }
  const bytes = await readFile(target.absolute);
  const utf16 =
    bytes.length >= 2 &&
    ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff));
  if (!utf16 && bytes.includes(0)) {
    return toolError(
      'binary_file',
      `${target.display} is a binary file (it contains NUL bytes); grep_search only searches text.`,
    );
  }
  return undefined;
}

type Filter = Pick<GrepRequest, 'nameGlob' | 'nameFilter' | 'pathFilter'>;

/** A glob without "/" matches names (a ripgrep file type); with "/", shown paths (names still narrow the walk). */
function fileFilter(glob: string): Filter | { error: ToolResult } {
  const pattern = glob.startsWith('./') ? glob.slice(2) : glob;
  if (!balanced(pattern)) {
    return {
      error: toolError(
        'invalid_glob',
        `filePattern ${JSON.stringify(glob)} has an unclosed [ or {. Close it, or escape it with \\.`,
      ),
    };
  }
  const name = pattern.replace(/^(?:\*\*\/)+/, '');
  const options = { dot: true, nonegate: true, noextglob: true };
  if (!name.includes('/')) return { nameGlob: name, nameFilter: picomatch(name, options) };
  const last = pattern.slice(pattern.lastIndexOf('/') + 1);
  const usable = last !== '' && !last.includes('**') && !pattern.includes('{');
  return {
    pathFilter: picomatch(pattern, options),
    ...(usable ? { nameGlob: last, nameFilter: picomatch(last, options) } : {}),
  };
}

function balanced(glob: string): boolean {
  let square = false;
  let curly = 0;
  for (let at = 0; at < glob.length; at++) {
    const char = glob[at];
    if (char === '\\') at++;
    else if (square) square = char !== ']';
    else if (char === '[') square = true;
    else if (char === '{') curly++;
    else if (char === '}') curly--;
  }
  return !square && curly === 0;
}

/** Names the files passed over for their size, so "no match" is not read as "not there". */
function tooLargeNote(collector: MatchCollector): string | undefined {
  const skipped = collector.tooLarge;
  if (skipped.length === 0) return undefined;
  const names =
    skipped.slice(0, 5).join(', ') + (skipped.length > 5 ? `, and ${skipped.length - 5} more` : '');
  return `[${skipped.length} ${skipped.length === 1 ? 'file' : 'files'} over 2 MB not searched: ${names}. Read a part of one with read_file (startLine/endLine), or search it with run_command and grep.]`;
}

function report(collector: MatchCollector, pattern: string, where: string): ToolResult {
  const shown = collector.shown();
  const files = collector.files;
  const skipped = tooLargeNote(collector);
  if (collector.total === 0) {
    return {
      output: [
        `No lines match ${JSON.stringify(pattern)} in ${where}.`,
        ...(skipped === undefined ? [] : [skipped]),
      ].join('\n'),
      summary:
        skipped === undefined
          ? 'no matches'
          : `no matches (${collector.tooLarge.length} large files skipped)`,
    };
  }
  const lines = shown.map((match) => `${match.file}:${match.line}: ${match.text}${match.cut ? '…' : ''}`);
  const notes: string[] = [];
  if (collector.total > shown.length) {
    notes.push(
      `[${shown.length} of ${collector.total} matching lines (in ${files} files) shown: the limit is ${MAX_MATCHES}. Narrow the search with a more specific pattern, a path or a filePattern.]`,
    );
  }
  if (shown.some((match) => match.cut)) {
    notes.push(
      `[Lines longer than ${MAX_LINE_CHARS} characters are cut and end with "…"; read the file to see them whole.]`,
    );
  }
  if (skipped !== undefined) notes.push(skipped);
  const count = `${collector.total} ${collector.total === 1 ? 'match' : 'matches'} in ${files} ${files === 1 ? 'file' : 'files'}`;
  return {
    output: [...lines, ...(notes.length > 0 ? ['', ...notes] : [])].join('\n'),
    summary: collector.total > shown.length ? `${count} (${shown.length} shown)` : count,
  };
}
