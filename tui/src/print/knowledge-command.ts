/**
 * `santra skills [--json] [--cwd DIR]` and `santra memory [show|path|add TEXT|edit] [--user]
 * [--json] [--cwd DIR]`: the skills this project and the user have (skills/list, §7.9) and the
 * memory files (memory/show, memory/add, §7.10), through the protocol like every client. `edit`
 * opens the file in $VISUAL or $EDITOR: the file is the user's own, and Santra reads it afresh
 * for every prompt.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT } from './args.ts';
import { type ListEnvironment, withProjectSession } from './list-command.ts';
import { memoryText, skillsText } from '../client/knowledge-text.ts';

export const SKILLS_USAGE = 'santra skills [--json] [--cwd DIR]';
export const MEMORY_USAGE = 'santra memory [show|path|add TEXT|edit] [--user] [--json] [--cwd DIR]';

export type KnowledgeOptions =
  | { what: 'skills'; json: boolean; cwd: string; cwdGiven: boolean }
  | {
      what: 'memory';
      action: 'show' | 'path' | 'add' | 'edit';
      text?: string;
      scope: 'project' | 'user';
      json: boolean;
      cwd: string;
      cwdGiven: boolean;
    };

/** The options of `santra skills …` or `santra memory …`, or what is wrong with them. */
export function parseKnowledgeArgs(
  what: 'skills' | 'memory',
  args: readonly string[],
  cwd: string,
): KnowledgeOptions | { error: string } {
  const usage = what === 'skills' ? SKILLS_USAGE : MEMORY_USAGE;
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      options: { json: { type: 'boolean' }, cwd: { type: 'string' }, user: { type: 'boolean' } },
    });
  } catch (error) {
    return { error: `${error instanceof Error ? error.message : String(error)}; usage: ${usage}` };
  }
  if (parsed.values.cwd === '') return { error: '--cwd needs a directory' };
  const common = {
    json: parsed.values.json ?? false,
    cwd: resolve(cwd, parsed.values.cwd ?? '.'),
    cwdGiven: parsed.values.cwd !== undefined,
  };
  const [sub, ...rest] = parsed.positionals;
  if (what === 'skills') {
    if (parsed.values.user !== undefined) return { error: `--user is for santra memory; usage: ${usage}` };
    if (sub !== undefined && sub !== 'list')
      return { error: `santra skills takes no arguments, got "${sub}"; usage: ${usage}` };
    return { what, ...common };
  }
  const action = sub ?? 'show';
  if (action !== 'show' && action !== 'path' && action !== 'add' && action !== 'edit')
    return { error: `santra memory has no command "${action}"; usage: ${usage}` };
  const scope = parsed.values.user === true ? 'user' : 'project';
  if (action === 'add') {
    const text = rest.join(' ').trim();
    if (text === '')
      return {
        error: `santra memory add needs the fact to remember, e.g. santra memory add "tests run with npm test"`,
      };
    return { what, action, text, scope, ...common };
  }
  if (rest.length > 0)
    return { error: `santra memory ${action} takes no arguments, got "${rest[0]}"; usage: ${usage}` };
  return { what, action, scope, ...common };
}

export async function runKnowledge(options: KnowledgeOptions, environment: ListEnvironment): Promise<number> {
  const { stdout } = process;
  return withProjectSession(options, environment, async (session) => {
    if (options.what === 'skills') {
      const result = await session.request('skills/list', {});
      stdout.write(options.json ? `${JSON.stringify(result)}\n` : skillsText(result));
      return result.problems.length > 0 ? EXIT.failure : EXIT.ok;
    }
    if (options.action === 'add') {
      const result = await session.request('memory/add', { scope: options.scope, text: options.text ?? '' });
      stdout.write(
        options.json
          ? `${JSON.stringify(result)}\n`
          : result.added === undefined
            ? `${result.file.path} already holds that.\n`
            : `Remembered in ${result.file.path}: ${result.added}\n${result.dropped.length === 0 ? '' : `Dropped to keep the file short: ${result.dropped.join('; ')}\n`}`,
      );
      return EXIT.ok;
    }
    const shown = await session.request('memory/show', {});
    const file = shown.files.find((each) => each.scope === options.scope);
    if (options.action === 'path') {
      stdout.write(
        options.json
          ? `${JSON.stringify(shown.files.map((each) => each.path))}\n`
          : `${shown.files.map((each) => `${each.scope}\t${each.path}`).join('\n')}\n`,
      );
      return EXIT.ok;
    }
    if (options.action === 'edit' && file !== undefined) return editFile(file.path);
    stdout.write(options.json ? `${JSON.stringify(shown)}\n` : memoryText(shown));
    return EXIT.ok;
  });
}

/** Opens `path` in $VISUAL, $EDITOR or vi, on this terminal, and waits for it. */
function editFile(path: string): number {
  const editor =
    [process.env.VISUAL, process.env.EDITOR]
      .map((value) => value?.trim())
      .find((value) => value !== undefined && value !== '') ?? 'vi';
  mkdirSync(dirname(path), { recursive: true });
  // Through the shell, as git does, so "code --wait" works; the path is passed as an argument, never spliced.
  const ran = spawnSync('/bin/sh', ['-c', `${editor} "$1"`, 'santra-editor', path], { stdio: 'inherit' });
  if (ran.error !== undefined || ran.status === 127) {
    process.stderr.write(
      `santra: could not start the editor \`${editor}\`; set $VISUAL or $EDITOR to one that exists\n`,
    );
    return EXIT.failure;
  }
  return ran.status === 0 ? EXIT.ok : EXIT.failure;
}
