/**
 * `santra import claude|codex|pi [FILE…] [--all] [--json] [--cwd DIR]`: other agents' transcripts
 * as sessions of this project, through the server's `session/import` (docs/sessions.md). Each
 * file is sent by its path (the server runs beside this client; a transcript may be larger than a
 * protocol message), one at a time; one that cannot be imported is said on stderr and the others
 * still are. Importing a file again gives the same session.
 *
 * Exit codes: 0 every file imported (or nothing found with --all), 1 one could not be, 2 a usage
 * error.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ImportFormat, ResultOf } from '#protocol';
import { findWorkplace } from '../client/project-root.ts';
import { isDirectory } from '../client/server-process.ts';
import { PrintError } from '../client/session.ts';
import { EXIT } from '../print/args.ts';
import { type ListEnvironment, unattendedSession } from '../print/list-command.ts';
import { findTranscripts } from './discover.ts';

type ImportResult = ResultOf<'session/import'>;

export const FORMATS: readonly ImportFormat[] = ['claude', 'codex', 'pi'];

const AGENTS: Readonly<Record<ImportFormat, string>> = { claude: 'Claude Code', codex: 'Codex', pi: 'pi' };

export interface ImportOptions {
  format: ImportFormat;
  /** Absolute paths; empty with `all`. */
  files: string[];
  all: boolean;
  json: boolean;
  cwd: string;
  cwdGiven: boolean;
}

export const IMPORT_USAGE = 'santra import claude|codex|pi FILE… | --all [--json] [--cwd DIR]';

/** The arguments after `santra import`: the options, or why they are unusable. */
export function parseImportArgs(argv: readonly string[], cwd: string): ImportOptions | { error: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { all: { type: 'boolean' }, json: { type: 'boolean' }, cwd: { type: 'string' } },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
  const [format, ...files] = parsed.positionals;
  if (format === undefined) return { error: `santra import needs the agent: ${IMPORT_USAGE}` };
  if (!(FORMATS as readonly string[]).includes(format))
    return { error: `santra import reads claude, codex or pi transcripts, not "${format}": ${IMPORT_USAGE}` };
  const all = parsed.values.all === true;
  if (all && files.length > 0) return { error: 'give transcript files or --all, not both' };
  if (!all && files.length === 0)
    return { error: `name the transcripts to import, or --all for this project's: ${IMPORT_USAGE}` };
  if (parsed.values.cwd === '') return { error: '--cwd needs a directory' };
  return {
    format: format as ImportFormat,
    files: files.map((file) => resolve(cwd, file)),
    all,
    json: parsed.values.json === true,
    cwd: resolve(cwd, parsed.values.cwd ?? '.'),
    cwdGiven: parsed.values.cwd !== undefined,
  };
}

export type ImportEnvironment = ListEnvironment;

export async function runImport(options: ImportOptions, environment: ImportEnvironment): Promise<number> {
  const { stdout, stderr } = process;
  if (!isDirectory(options.cwd)) {
    stderr.write(`santra: --cwd ${options.cwd}: no such directory\n`);
    return EXIT.usage;
  }
  const place = findWorkplace(options.cwd, options.cwdGiven);
  let files = options.files;
  if (options.all) {
    const found = findTranscripts(options.format, place.root, process.env);
    if (found.files.length === 0) {
      stderr.write(
        `santra: no ${AGENTS[options.format]} transcripts of ${place.root} (looked in ${found.lookedIn})\n`,
      );
      return EXIT.ok;
    }
    files = found.files;
  }
  const session = unattendedSession(environment, place.root, stderr);
  if (session === undefined) return EXIT.failure;
  let failed = 0;
  try {
    const initialized = await session.initialize();
    if (!initialized.capabilities.methods.includes('session/import')) {
      stderr.write('santra: this santra-server cannot import transcripts (it has no session/import)\n');
      return EXIT.failure;
    }
    for (const file of files) {
      try {
        const result = await session.request('session/import', { format: options.format, path: file });
        stdout.write(options.json ? `${JSON.stringify({ file, ...result })}\n` : importLine(file, result));
        for (const warning of result.warnings) stderr.write(`santra: warning: ${warning}\n`);
      } catch (error) {
        if (!(error instanceof PrintError)) throw error;
        failed++;
        const reason = refusal(error.message);
        stderr.write(`santra: ${reason.startsWith(file) ? reason : `${file}: ${reason}`}\n`);
        if (options.json) stdout.write(`${JSON.stringify({ file, error: reason })}\n`);
      }
    }
  } catch (error) {
    stderr.write(`${error instanceof PrintError ? error.message : `santra: ${String(error)}`}\n`);
    return EXIT.failure;
  } finally {
    await session.close();
  }
  if (!options.json && files.length > failed)
    stderr.write('Go on with one: santra --resume <session id> (or santra -p --resume <session id> "…").\n');
  return failed === 0 ? EXIT.ok : EXIT.failure;
}

/** The server's reason alone: the transcript's file and line, or the path's problem. */
function refusal(message: string): string {
  return message
    .replace(/^santra: /, '')
    .replace(/^santra-server refused session\/import: /, '')
    .replace(/^Invalid params for session\/import: (params\.\w+: )?/, '');
}

/** One line per file: what became of it. */
export function importLine(file: string, result: ImportResult): string {
  const id = result.session.sessionId;
  const { counts } = result;
  const prompts = `${counts.runs} prompt${counts.runs === 1 ? '' : 's'}`;
  const calls =
    counts.toolCalls === 0
      ? ''
      : `; ${counts.toolCalls} tool call${counts.toolCalls === 1 ? '' : 's'}: ${counts.mappedToolCalls} as Santra's tools, ${counts.textToolCalls} as text`;
  switch (result.outcome) {
    case 'unchanged':
      return `${file}: already imported as ${id}, unchanged\n`;
    case 'appended':
      return `${file}: ${prompts} added to ${id} (${counts.messages} messages${calls})\n`;
    case 'created':
      return `${file}: imported as ${id} (${prompts}, ${counts.messages} messages${calls})\n${
        result.reason === undefined ? '' : `  ${result.reason}\n`
      }`;
    default: {
      const exhaustive: never = result.outcome;
      throw new Error(`unknown outcome ${String(exhaustive)}`);
    }
  }
}
