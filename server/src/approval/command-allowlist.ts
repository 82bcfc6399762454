/**
 * Which command lines may run without asking, judged by their words: only lines whose every
 * simple command is a read-only program on an explicit allowlist, with none of the flags that
 * make that program write files, run others or follow symlinks out of the workspace. It fails
 * closed: a line the tokenizer cannot read with certainty (shell-words.ts) is never allowlisted,
 * it is asked about. What the words cannot show — where a symlink or a glob leads, what the
 * repository makes git run — is command-site.ts's part.
 */
import { parseCommandLine, type ShellWord } from './shell-words.ts';

/** Read-only commands allowed by default. */
export const DEFAULT_READ_ONLY: readonly string[] = [
  'ls',
  'cat',
  'pwd',
  'head',
  'tail',
  'wc',
  'grep',
  'rg',
  'find',
  'git status',
  'git diff',
  'git log',
  'git show',
];

/**
 * Programs never allowlisted, whatever the list says: shells, interpreters and programs that
 * run their arguments as another command, or whose scripts can write files and run commands
 * (sed's `w` and `e`, awk's `system`), so no flag check can make them read-only.
 */
const NEVER = new Set([
  '.', 'source', 'exec', 'eval', 'command', 'builtin', 'sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh',
  'fish', 'csh', 'tcsh', 'busybox', 'env', 'xargs', 'nohup', 'nice', 'ionice', 'timeout', 'sudo',
  'doas', 'su', 'watch', 'strace', 'ltrace', 'chroot', 'setsid', 'stdbuf', 'unbuffer', 'parallel',
  'script', 'flock', 'sed', 'awk', 'gawk', 'mawk', 'nawk', 'perl', 'python', 'python3', 'node',
  'deno', 'bun', 'ruby', 'php', 'lua', 'tee', 'dd', 'less', 'more', 'vi', 'vim', 'nvim', 'emacs',
]); // prettier-ignore

interface FlagRules {
  /** Long options (`--output`); an abbreviation (`--out`) counts too, as git and getopt_long accept them. */
  long?: readonly string[];
  /** Short option letters, refused anywhere in a cluster (`-rno` holds `-o`). */
  short?: string;
  /** Single-dash words refused exactly (find's primaries). */
  words?: readonly string[];
  /**
   * Unquoted globs are refused too: a file named `-delete` would turn `find *` into
   * `find -delete`. (For the others the inspection asks when a glob expands to an option.)
   */
  noGlobs?: true;
}

/**
 * Flags that make an allowlisted program write a file, run another program, follow symlinks
 * while it walks a tree (a link inside the workspace would lead it out), or read the names of
 * the files to read from a file (which could name any file).
 */
const DANGEROUS_FLAGS = new Map<string, FlagRules>(
  Object.entries({
    find: {
      words: [
        '-exec',
        '-execdir',
        '-ok',
        '-okdir',
        '-delete',
        '-fprint',
        '-fprint0',
        '-fprintf',
        '-fls',
        '-L',
        '-H',
        '-follow',
        '-files0-from',
      ],
      noGlobs: true,
    },
    git: {
      long: [
        '--output',
        '--exec-path',
        '--config-env',
        '--ext-diff',
        '--open-files-in-pager',
        '--git-dir',
        '--work-tree',
        '--upload-pack',
        '--exec',
      ],
      short: 'cO',
      noGlobs: true,
    },
    rg: { long: ['--pre', '--hostname-bin', '--follow'], short: 'L', noGlobs: true },
    grep: { long: ['--dereference-recursive'], short: 'R' },
    ls: { long: ['--dereference'], short: 'L' },
    wc: { long: ['--files0-from'] },
    du: { long: ['--files0-from', '--dereference'], short: 'L' },
    sort: { long: ['--output', '--compress-program', '--files0-from'], short: 'o', noGlobs: true },
    tree: { long: ['--output'], short: 'ol', noGlobs: true },
  } satisfies Record<string, FlagRules>),
);

/**
 * True only when every simple command of `command` is on the allowlist and the line contains
 * nothing that could write or run something else, nor a path leading out of the workspace
 * (absolute, `..`). An empty line is not allowlisted. An allowlist entry like "ls" matches the
 * program with any arguments; a longer one like "git status" the program followed by exactly
 * those leading subcommand words.
 */
export function isAllowlisted(command: string, allowlist: readonly string[]): boolean {
  const commands = parseCommandLine(command);
  if (commands === undefined || commands.length === 0) return false;
  const entries = allowlist.map((entry) => entry.trim().split(/\s+/)).filter((entry) => entry[0] !== '');
  return commands.every((words) => isAllowedCommand(words, entries));
}

/**
 * The simple commands of a line (split at &&, ||, ;, |, & and newlines) as the argv of each,
 * quotes removed; undefined when it cannot be parsed with certainty.
 */
export function splitCommand(command: string): string[][] | undefined {
  return parseCommandLine(command)?.map((words) => words.map((word) => word.value));
}

/** What acceptEdits lets run unasked besides file changes: making, copying and moving files. */
const FILE_COMMANDS: ReadonlySet<string> = new Set(['mkdir', 'touch', 'cp', 'mv']);

/**
 * True when every simple command of the line only makes, copies or moves files (`mkdir -p src/x
 * && touch src/x/a.ts`), by its bare program name, with no variable assignment before it and no
 * argument that names a place outside the workspace (an absolute path, `..`, `~`): what
 * acceptEdits lets run unasked, as Claude Code's does, once command-site.ts found that every
 * argument, globs and symlinks resolved, stays in the workspace. It fails closed: a line the
 * parser cannot read with certainty (a redirection, an expansion) is not one.
 */
export function onlyEditsFiles(command: string): boolean {
  const commands = parseCommandLine(command);
  if (commands === undefined || commands.length === 0) return false;
  return commands.every((words) => {
    const [program, ...args] = words;
    if (program === undefined || !FILE_COMMANDS.has(program.value)) return false;
    return words.every((word) => !word.assignment) && args.every((word) => !leavesWorkspace(word.value));
  });
}

// Programs that only print, for the protected-location check: whatever their arguments, they
// write no file (a redirection is judged apart).
const PRINTING = [
  'echo', 'printf', 'true', 'false', 'test', '[', '[[', 'sleep', 'which', 'type', 'basename', 'dirname',
  'realpath', 'readlink', 'stat', 'date', 'uname', 'whoami', 'id', 'exit', 'return', ':', 'wait',
]; // prettier-ignore
const ONLY_READS = [...DEFAULT_READ_ONLY, ...PRINTING].map((entry) => entry.split(' '));

/**
 * True when a simple command only reads or prints, whatever the allowlist the user configured:
 * a default read-only program or one that prints, with none of its flags that write or run
 * another program. A word is undefined where an expansion decides it; that is fine for a
 * program without dangerous flags (`echo $x`), not for one with them (`git log $x` could be
 * `--output=…`). Used by protected-paths.ts, which never asks about a command that only reads.
 */
export function onlyReads(words: ReadonlyArray<{ value: string | undefined; glob: boolean }>): boolean {
  const argv = words.map((word) => word.value);
  const program = argv[0];
  if (program === undefined) return false;
  const base = program.slice(program.lastIndexOf('/') + 1);
  if (NEVER.has(program) || NEVER.has(base)) return false;
  if (!ONLY_READS.some((entry) => entry.every((word, index) => argv[index] === word))) return false;
  const rules = DANGEROUS_FLAGS.get(base);
  if (rules === undefined) return true;
  if (rules.noGlobs === true && words.some((word) => word.glob)) return false;
  return argv.slice(1).every((arg) => arg !== undefined && !isDangerousFlag(arg, rules));
}

function isAllowedCommand(words: readonly ShellWord[], entries: readonly string[][]): boolean {
  const argv = words.map((word) => word.value);
  const program = argv[0] ?? '';
  const base = program.slice(program.lastIndexOf('/') + 1);
  if (NEVER.has(program) || NEVER.has(base)) return false;
  if (!entries.some((entry) => entry.every((word, index) => argv[index] === word))) return false;
  // By the program's base name too, so a listed /usr/bin/find gets find's rules.
  if (argv.slice(1).some(leavesWorkspace)) return false;
  const rules = DANGEROUS_FLAGS.get(base);
  if (rules === undefined) return true;
  if (rules.noGlobs === true && words.some((word) => word.glob)) return false;
  return !argv.slice(1).some((arg) => isDangerousFlag(arg, rules));
}

// An absolute path, a `..` segment or a home directory, also after `--flag=` or a short flag:
// read-only is not enough to run unasked, the read must stay in the workspace as the tools' do.
// (A symlink inside the workspace can still lead out: command-site.ts resolves each path.)
// After a colon too: git's `HEAD:../x` names a path relative to the directory it runs in.
const OUTSIDE = /(?:^|=|^-[A-Za-z]+)\/|(?:^|[=/:]|^-[A-Za-z]+)\.\.(?:$|\/)|=~/;

function leavesWorkspace(arg: string): boolean {
  return OUTSIDE.test(arg);
}

function isDangerousFlag(arg: string, rules: FlagRules): boolean {
  if (rules.words?.includes(arg) === true) return true;
  if (arg.startsWith('--')) {
    const name = arg.slice(2).split('=')[0] ?? '';
    return name !== '' && (rules.long ?? []).some((flag) => flag.slice(2).startsWith(name));
  }
  if (arg.startsWith('-') && arg.length > 1) {
    return [...arg.slice(1)].some((letter) => rules.short?.includes(letter) === true);
  }
  return false;
}
