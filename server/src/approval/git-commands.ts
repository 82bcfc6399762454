/**
 * git invocations that make git run code later, or run a program named in their own words,
 * however they are spelled once the shell has removed the quotes: `git config` (any key: an
 * alias, a pager, a filter driver all run programs), `git -c`, `git remote add`/`set-url` (an
 * `ext::` URL or a transport helper runs on the next fetch), `git submodule` (its update command
 * and clone configuration), `git filter-branch` and `git rebase --exec` (shell code from their
 * arguments), `git update-index --fsmonitor`, `git init`/`clone --template` (hooks copied in), and
 * the options that name a program (`--upload-pack`, `--receive-pack`, `--exec`, `-O`,
 * `--extcmd`). These are protected commands: asked even after "allow all" (protected-paths.ts).
 * Reads stay unasked: `git config --get`, `git remote -v`.
 */

/** What the user is told for each kind of git change. */
const CONFIG = "git's configuration (it can make later git commands run programs)";
const REMOTE = 'a git remote (its URL can name a program git runs on the next fetch: ext::, a remote helper)';
const SUBMODULE = 'git submodules (their configuration and update commands run programs)';
const TEMPLATE = 'a git template directory (its hooks are copied into the new repository)';
const SHELL_CODE = 'git runs shell code from its arguments';
const PROGRAM = 'git runs a program named in its arguments';
const UNKNOWN = 'a git option or subcommand only known when the shell runs';

// Global options that take their value as the next word.
const GLOBAL_WITH_VALUE = new Set([
  '-C',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--super-prefix',
  '--list-cmds',
]);

// Options, per subcommand, that name a program git runs (abbreviations count: git accepts them).
const PROGRAM_OPTIONS: Record<string, { long: readonly string[]; short?: string }> = {
  fetch: { long: ['--upload-pack'] },
  pull: { long: ['--upload-pack'] },
  clone: { long: ['--upload-pack', '--template', '--config'], short: 'uc' },
  'ls-remote': { long: ['--upload-pack'], short: 'u' },
  push: { long: ['--receive-pack', '--exec'] },
  'send-pack': { long: ['--receive-pack', '--exec'] },
  'fetch-pack': { long: ['--upload-pack', '--exec'] },
  archive: { long: ['--exec'] },
  rebase: { long: ['--exec'], short: 'x' },
  difftool: { long: ['--extcmd'], short: 'x' },
  grep: { long: ['--open-files-in-pager'], short: 'O' },
  init: { long: ['--template'] },
  'update-index': { long: ['--fsmonitor'] },
  'send-email': { long: ['--to-cmd', '--cc-cmd', '--header-cmd', '--sendmail-cmd', '--smtp-server'] },
};

// Subcommands that change what git runs whatever their arguments (but these reads).
const ALWAYS: Record<string, { reason: string; reads: readonly string[] }> = {
  submodule: { reason: SUBMODULE, reads: ['status', 'summary'] },
  'filter-branch': { reason: SHELL_CODE, reads: [] },
  instaweb: { reason: PROGRAM, reads: [] },
};

/**
 * Why running `argv` (argv[0] is `git` or `git-<subcommand>`; undefined for a word only the
 * running shell knows) needs a person, or undefined.
 */
export function gitCommandReason(argv: ReadonlyArray<string | undefined>): string | undefined {
  const program = argv[0]?.slice(argv[0].lastIndexOf('/') + 1) ?? '';
  let i = 1;
  let subcommand: string | undefined;
  if (program.startsWith('git-')) subcommand = program.slice(4);
  else {
    for (; i < argv.length; i++) {
      const word = argv[i];
      if (word === undefined) return UNKNOWN;
      if (!word.startsWith('-')) break;
      if (word === '-c' || /^-c./s.test(word) || word.startsWith('--config-env')) return CONFIG;
      if (word.startsWith('--exec-path=')) return PROGRAM;
      if (GLOBAL_WITH_VALUE.has(word)) i++;
    }
    if (i >= argv.length) return undefined;
    subcommand = argv[i];
    i++;
  }
  if (subcommand === undefined) return UNKNOWN;
  const args = argv.slice(i);
  const always = ALWAYS[subcommand];
  if (always !== undefined) return isRead(args, always.reads) ? undefined : always.reason;
  if (subcommand === 'config') return configReads(args) ? undefined : CONFIG;
  if (subcommand === 'remote') return isRead(args, REMOTE_READS, ['-v', '--verbose']) ? undefined : REMOTE;
  if (subcommand === 'bisect' && args[0] === 'run') return PROGRAM;
  const options = PROGRAM_OPTIONS[subcommand];
  if (options === undefined) return undefined;
  for (const arg of args) {
    if (arg === undefined) return UNKNOWN;
    if (arg === '--') break;
    if (arg.startsWith('--')) {
      const name = arg.slice(2).split('=')[0] ?? '';
      const hit = options.long.find((flag) => name.length > 0 && flag.slice(2).startsWith(name));
      if (hit !== undefined) return hit === '--template' ? TEMPLATE : hit === '--config' ? CONFIG : PROGRAM;
    } else if (
      arg.startsWith('-') &&
      [...arg.slice(1)].some((letter) => options.short?.includes(letter) === true)
    )
      return subcommand === 'clone' && arg.includes('c') ? CONFIG : PROGRAM;
  }
  return undefined;
}

// `git config` actions that only read.
const CONFIG_READS = new Set([
  '--get', '--get-all', '--get-regexp', '--get-urlmatch', '--get-color', '--get-colorbool', '-l', '--list',
]); // prettier-ignore

// Options that change nothing by themselves (where to read, how to print), some with a value.
const CONFIG_NEUTRAL = new Set([
  '--global', '--system', '--local', '--worktree', '--show-origin', '--show-scope', '--name-only', '-z',
  '--null', '--includes', '--no-includes', '--bool', '--int', '--bool-or-int', '--path', '--expiry-date',
]); // prettier-ignore
const CONFIG_NEUTRAL_WITH_VALUE = new Set(['-f', '--file', '--blob', '--type', '--default']);

/** True when `git config <args>` only reads (`--get`, `--list`, `get`, `list`, or one key alone). */
function configReads(args: ReadonlyArray<string | undefined>): boolean {
  const positionals: string[] = [];
  let reads = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === undefined) return false;
    if (CONFIG_READS.has(arg)) reads = true;
    else if (CONFIG_NEUTRAL_WITH_VALUE.has(arg)) i++;
    else if (/^--(?:file|blob|type|default)=/.test(arg) || CONFIG_NEUTRAL.has(arg)) continue;
    else if (arg.startsWith('-')) return false;
    else positionals.push(arg);
  }
  // The newer `git config get|list …` form.
  if (positionals[0] === 'get' || positionals[0] === 'list') return positionals.length <= 3;
  return reads ? positionals.length <= 2 : positionals.length <= 1;
}

const REMOTE_READS = ['show', 'get-url'];

/** True when the first word after `skipped` options is absent or one of `reads`. */
function isRead(
  args: ReadonlyArray<string | undefined>,
  reads: readonly string[],
  skipped: readonly string[] = [],
): boolean {
  let i = 0;
  while (i < args.length && skipped.includes(args[i] ?? '')) i++;
  if (i >= args.length) return true;
  const first = args[i];
  return first !== undefined && reads.includes(first);
}
