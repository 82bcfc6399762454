/**
 * What a shell line can write, read from its words (shell-reach.ts), for the protected-location
 * check. The plan is either a reason to ask whatever the paths are — a protected name in a word,
 * a git command that makes git run code (git-commands.ts), a word only the running shell knows
 * in a command that may write, shell code the check cannot read — or the list of paths the line
 * may write, in order, with the `cd`s between them. command-reach.ts then resolves those paths
 * in the workspace (globs, symlinks, git's configured hooks directory).
 *
 * Commands that only read or print (command-allowlist.ts `onlyReads`) add nothing but their
 * redirections; every other command's every word is taken as a path it may write. Shell code
 * inside a word — `sh -c '…'`, `eval …`, a here-document fed to a shell — is read the same way;
 * a shell reading commands from a pipe is asked about.
 */
import { onlyReads } from './command-allowlist.ts';
import { gitCommandReason } from './git-commands.ts';
import { type ReachCommand, type ReachWord, readShell } from './shell-reach.ts';

export type PlanStep =
  /** The directory changes; `target` undefined when only the running shell knows where (`cd $d`, `cd -`). */
  | { kind: 'cd'; target: string | undefined; glob: boolean }
  /** A word a command may write to as a path. */
  | { kind: 'path'; text: string; glob: boolean };

export interface CommandPlan {
  /** Why a person must decide whatever the paths are; undefined when the paths decide. */
  reason: string | undefined;
  steps: PlanStep[];
}

export interface PlanOptions {
  /** What `~` and a bare `cd` mean. */
  home: string | undefined;
  /**
   * Why a word's text names a protected location (a `.git` segment, a shell start-up file,
   * Santra's configuration), or undefined: protected-paths.ts's rule for text.
   */
  textReason: (text: string) => string | undefined;
}

const SHELLS = new Set([
  'sh',
  'bash',
  'dash',
  'zsh',
  'ksh',
  'mksh',
  'ash',
  'yash',
  'posh',
  'fish',
  'csh',
  'tcsh',
]);

// Programs that run the rest of their words as a command (after options, a duration, a file…).
const WRAPPERS = new Set([
  'env', 'command', 'builtin', 'exec', 'nice', 'nohup', 'timeout', 'sudo', 'doas', 'stdbuf', 'setsid',
  'ionice', 'chrt', 'taskset', 'unbuffer', 'strace', 'ltrace', 'chroot', 'busybox', 'flock', 'su',
  'runuser', 'script', 'watch', 'caffeinate', 'xvfb-run', 'nsenter', 'unshare', 'firejail',
]); // prettier-ignore

// Programs that run a command with arguments they build at run time (from input, from files found).
const BUILDERS = new Set(['xargs', 'parallel']);

// Environment variables that point git at other configuration, templates or programs.
const GIT_STEERING = /^GIT_(?:CONFIG\w*|TEMPLATE_DIR|EXEC_PATH)=/;

// Programs a wrapper may run that the plan looks into.
const FOLLOWED = /^(?:git|git-.+|eval|find)$/s;

const MAX_DEPTH = 4;

/** The plan of `line`. Contract: never throws. */
export function planCommand(line: string, options: PlanOptions): CommandPlan {
  const steps: PlanStep[] = [];
  const reason = new Planner(options, steps).line(line, 0);
  return { reason, steps };
}

const single = (word: ReachWord | undefined): string | undefined =>
  word?.texts?.length === 1 ? word.texts[0] : undefined;

class Planner {
  readonly #options: PlanOptions;
  readonly #steps: PlanStep[];

  constructor(options: PlanOptions, steps: PlanStep[]) {
    this.#options = options;
    this.#steps = steps;
  }

  line(line: string, depth: number): string | undefined {
    if (depth > MAX_DEPTH) return 'shell code nested too deep to read';
    const reading = readShell(line, this.#options.home);
    if ('unreadable' in reading) return `the line cannot be read with certainty: ${reading.unreadable}`;
    for (const command of reading.commands) {
      const reason = this.#command(command, depth);
      if (reason !== undefined) return reason;
    }
    return undefined;
  }

  #command(command: ReachCommand, depth: number): string | undefined {
    for (const { operator, target } of command.redirects) {
      if (!writes(operator, target)) continue;
      const reason = this.#paths([target]);
      if (reason !== undefined) return reason;
    }
    const first = command.words.findIndex((word) => !word.assignment);
    const assignments = first === -1 ? command.words : command.words.slice(0, first);
    for (const word of assignments) {
      const reason = this.#text(word);
      if (reason !== undefined) return reason;
    }
    if (first === -1) return undefined;
    return this.#program(command.words.slice(first), command, depth);
  }

  /** A simple command from its program word on (after assignments, or inside a wrapper). */
  #program(argv: readonly ReachWord[], command: ReachCommand, depth: number): string | undefined {
    const program = single(argv[0]);
    if (program === undefined) return 'the program this line runs is only known when the shell runs';
    const name = program.slice(program.lastIndexOf('/') + 1);
    const args = argv.slice(1);
    if (name === 'git' || name.startsWith('git-')) {
      const reason = gitCommandReason(argv.map(single));
      if (reason !== undefined) return reason;
    } else if (SHELLS.has(name)) return this.#shell(args, command, depth);
    else if (name === 'eval') return this.#code(args, depth);
    else if (name === 'cd' || name === 'pushd') {
      const operands = args.filter((word) => single(word) === '-' || !single(word)?.startsWith('-'));
      // `cd -` goes back, and a bare `pushd` swaps, to a directory only the running shell knows.
      const target =
        operands.length === 0
          ? name === 'cd'
            ? this.#options.home
            : undefined
          : single(operands[0]) === '-'
            ? undefined
            : single(operands[0]);
      this.#steps.push({ kind: 'cd', target, glob: operands[0]?.glob ?? false });
      return undefined;
    } else if (name === 'popd') {
      this.#steps.push({ kind: 'cd', target: undefined, glob: false });
      return undefined;
    } else if (BUILDERS.has(name)) {
      const built = args.slice(operandIndex(args, XARGS_WITH_VALUE));
      if (built.length > 0 && !onlyReads(asWords(built)))
        return `${name} runs a command with arguments it builds when it runs, which the check cannot see`;
    } else if (name === 'find') {
      const reason = findExecReason(args);
      if (reason !== undefined) return reason;
    } else if (WRAPPERS.has(name)) {
      const reason = this.#wrapped(name, args, command, depth);
      if (reason !== undefined) return reason;
    }
    if (onlyReads(asWords(argv))) return undefined;
    return this.#paths(args);
  }

  /** `sh -c 'code'`, `sh <<EOF`, `sh script`, or a shell reading its input. */
  #shell(args: readonly ReachWord[], command: ReachCommand, depth: number): string | undefined {
    let i = 0;
    let code = false;
    for (; i < args.length; i++) {
      const word = single(args[i]);
      if (word === undefined) return 'a shell option only known when the shell runs';
      if (word === '--') {
        i++;
        break;
      }
      if (!/^[-+]./s.test(word)) break;
      if (/^-[A-Za-z]*c/.test(word)) code = true;
      if (/^[-+][oO]$/.test(word) || word === '--rcfile' || word === '--init-file') i++;
    }
    if (code) return this.#code(args.slice(i, i + 1), depth);
    // A script file runs like any other program; its path and arguments are checked as words.
    if (i < args.length) return this.#paths(args);
    if (command.heredocs.length === 0)
      return 'a shell reads its commands from its input, which the check cannot see';
    for (const body of command.heredocs) {
      const reason = this.line(body, depth + 1);
      if (reason !== undefined) return reason;
    }
    return undefined;
  }

  /** Words that the program joins and runs as shell code (`eval`, `sh -c`). */
  #code(words: readonly ReachWord[], depth: number): string | undefined {
    const texts = words.map(single);
    if (texts.some((text) => text === undefined))
      return 'shell code built from values only known when the shell runs';
    return this.line(texts.join(' '), depth + 1);
  }

  /** A wrapper's later words that start a command of interest, or hold shell code, are followed. */
  #wrapped(
    name: string,
    args: readonly ReachWord[],
    command: ReachCommand,
    depth: number,
  ): string | undefined {
    for (const [index, word] of args.entries()) {
      const text = single(word);
      if (text === undefined) continue;
      const previous = single(args[index - 1]);
      // `su -c`, `flock -c`, `script -c`, `env -S`: a string run by a shell (or split like one).
      // Read as code and also as a word (`ionice -c 3` is a class, not code): reading more only asks more.
      const code =
        previous === '-c' || previous === '--command' || previous === '-S' || previous === '--split-string'
          ? [word]
          : name === 'watch' && !text.startsWith('-')
            ? args.slice(index)
            : undefined;
      const reason = code === undefined ? undefined : this.#code(code, depth);
      if (reason !== undefined) return reason;
      if (name === 'env' && (previous === '-C' || previous === '--chdir' || text.startsWith('--chdir='))) {
        const target = text.replace(/^--chdir=/, '');
        if (target !== '-C' && target !== '--chdir')
          this.#steps.push({ kind: 'cd', target, glob: word.glob });
      }
      const base = text.slice(text.lastIndexOf('/') + 1);
      if (FOLLOWED.test(base) || SHELLS.has(base) || BUILDERS.has(base) || WRAPPERS.has(base))
        return this.#program(args.slice(index), command, depth);
    }
    return undefined;
  }

  /** Each word of a command that may write: its text, then (in command-reach.ts) where it leads. */
  #paths(words: readonly ReachWord[]): string | undefined {
    for (const word of words) {
      const reason = this.#text(word);
      if (reason !== undefined) return reason;
      for (const text of word.texts ?? []) this.#steps.push({ kind: 'path', text, glob: word.glob });
    }
    return undefined;
  }

  #text(word: ReachWord): string | undefined {
    if (word.texts === undefined)
      return 'a word of a command that may write is only known when the shell runs ($…)';
    for (const text of word.texts) {
      if (GIT_STEERING.test(text)) return CONFIG_VARIABLE;
      const reason = this.#options.textReason(text);
      if (reason !== undefined) return reason;
    }
    return undefined;
  }
}

const CONFIG_VARIABLE = "git's configuration, through an environment variable (it can make git run programs)";

/** Output redirections write their target; `>&2` and `<&-` only copy or close a descriptor. */
function writes(operator: string, target: ReachWord): boolean {
  if (operator === '<' || operator === '<<<' || operator === '<&') return false;
  if (operator === '>&' && /^(?:\d+|-)$/.test(single(target) ?? '')) return false;
  return true;
}

const asWords = (words: readonly ReachWord[]) =>
  words.map((word) => ({ value: single(word), glob: word.glob }));

// xargs's options that take the next word as their value.
const XARGS_WITH_VALUE = new Set([
  '-I', '-L', '-n', '-P', '-s', '-d', '-a', '-E', '--max-args', '--max-procs', '--max-chars', '--delimiter',
  '--arg-file', '--max-lines', '--replace', '--eof', '-j', '--jobs',
]); // prettier-ignore

/** The index of the first word that is not an option (nor an option's value). */
function operandIndex(args: readonly ReachWord[], withValue: ReadonlySet<string>): number {
  for (let i = 0; i < args.length; i++) {
    const text = single(args[i]);
    if (text === undefined || !text.startsWith('-')) return i;
    if (text === '--') return i + 1;
    if (withValue.has(text)) i++;
  }
  return args.length;
}

/** find's `-exec`, `-execdir`, `-ok`, `-okdir` run a command on every file found: fine only if it only reads. */
function findExecReason(args: readonly ReachWord[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const text = single(args[i]);
    if (text !== '-exec' && text !== '-execdir' && text !== '-ok' && text !== '-okdir') continue;
    let end = i + 1;
    while (end < args.length && single(args[end]) !== ';' && single(args[end]) !== '+') end++;
    if (!onlyReads(asWords(args.slice(i + 1, end))))
      return 'find runs a command on the files it finds, which the check cannot see';
    i = end;
  }
  return undefined;
}
