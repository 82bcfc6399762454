/**
 * Command-line parsing of `santra`. Pure: argv in, a command out, so every usage error is a table
 * row in a test. It imports nothing heavy, because `--version` and `--help` must answer as fast as
 * Node starts.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PROTOCOL_VERSION } from '#protocol/version';
import type { PermissionMode } from '#protocol';

/** The permission modes (§7.8), in Shift+Tab's order; listed here so `--help` loads no schema. */
export const PERMISSION_MODES = [
  'default',
  'acceptEdits',
  'plan',
  'bypassPermissions',
] as const satisfies readonly PermissionMode[];

/** Exit codes of `santra`. */
export const EXIT = {
  /** The run completed. */
  ok: 0,
  /** The run ended in error or was interrupted, or the server could not be started or died. */
  failure: 1,
  /** The command line (or the prompt) was unusable. */
  usage: 2,
  /**
   * The run completed but its answer is not whole: cut off at the model's output limit, or the
   * model declined (the answer ends with a notice, and stderr says which).
   */
  incomplete: 3,
  /**
   * The run stopped because its budget could not pay for the next model call (`--max-budget-usd`,
   * or the config's `budget`); nothing of it is left running.
   */
  budget: 4,
  /** The user pressed Ctrl-C (128 + SIGINT, as shells report it). */
  interrupted: 130,
} as const;

export const OUTPUT_FORMATS = ['text', 'json', 'stream-json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** What `santra -p` was asked to do. */
export interface PrintOptions {
  /** The prompt, or undefined when it is to be read from stdin (`-p` without text, stdin not a TTY). */
  prompt: string | undefined;
  outputFormat: OutputFormat;
  model: string | undefined;
  /**
   * `--fallback-model` (repeatable, or comma-separated): models to continue on, in order, when the
   * model fails with an error another model can answer; undefined: the config's `fallbackModels`.
   */
  fallbackModels?: string[];
  /** The agent that answers (a built-in or one from .agents/); undefined: the route the server picks. */
  agent: string | undefined;
  /**
   * Absolute path of the directory santra works from: `--cwd`, or the current directory. Whether it
   * exists is checked when the run starts; the workspace root is found from it (project-root.ts).
   */
  cwd: string;
  /** `--cwd` was given: it is the workspace root, whatever repository it is in. */
  cwdGiven: boolean;
  approveAll: boolean;
  verbose: boolean;
  /** `--resume <id>`: continue this saved session. */
  resume: string | undefined;
  /** `--continue`: continue the latest session of this project. */
  continueLatest: boolean;
  /** `--replay <file>`, absolute: execute this recording again (replay.ts); there is no prompt. */
  replay?: string;
  /** `--max-budget-usd <amount>`: the most the run may cost, sub-agents included. */
  maxBudgetUsd?: number;
  /** `--permission-mode <mode>`: the session's permission mode from this prompt on (§7.8). */
  permissionMode?: PermissionMode;
}

/** What `santra models`, `santra agents` and `santra sessions` were asked to do. */
export interface ListOptions {
  /** `doctor`: whether the OS sandbox works here (doctor.ts). */
  what: 'models' | 'agents' | 'sessions' | 'doctor' | 'hooks';
  json: boolean;
  /** `santra sessions --latest`: only the newest session of this project. */
  latest?: boolean;
  /** `santra sessions --path`: the session files' paths, one a line, instead of the table. */
  path?: boolean;
  /**
   * `santra sessions name <session> <name>` (or `--clear`): names the session, given by its id, name
   * or id prefix; `name` null removes its name (session/rename).
   */
  rename?: { session: string; name: string | null };
  cwd: string;
  cwdGiven: boolean;
}

export type Command =
  | { action: 'help' }
  | { action: 'version' }
  | { action: 'usage_error'; message: string }
  | { action: 'print'; options: PrintOptions }
  | { action: 'list'; options: ListOptions }
  /** `santra replay <file>`: a recorded session played in the terminal UI (ui/replay-main.ts). */
  | { action: 'replay'; file: string }
  /** `santra lsp|acp [options]`: the server speaking an editor protocol; it checks the options. */
  | { action: 'adapter'; mode: 'lsp' | 'acp'; args: string[] }
  /** `santra import …`: other agents' transcripts as sessions; import/import-command.ts reads the rest. */
  | { action: 'import'; args: string[] }
  /** `santra worker|submit …`: the worker fleet on BullMQ; fleet/ reads the rest (docs/fleet.md). */
  | { action: 'fleet'; command: 'worker' | 'submit'; args: string[] }
  /** `santra attach <session> …`: join a session running elsewhere; attach/ reads the rest. */
  | { action: 'attach'; args: string[] }
  /** `santra send [--session ID|NAME] "text"`: an event into a session; send/ reads the rest. */
  | { action: 'send'; args: string[] }
  /** `santra mcp …`: the MCP servers (mcp/list); print/mcp-command.ts reads the rest (docs/mcp.md). */
  | { action: 'mcp'; args: string[] }
  /** `santra skills …` and `santra memory …` (§7.9, §7.10); print/knowledge-command.ts reads the rest. */
  | { action: 'knowledge'; what: 'skills' | 'memory'; args: string[] }
  /**
   * `santra` on a terminal: the interactive UI, going on with a saved session when asked
   * (`--continue`: the latest of this project; `--resume <id>`).
   */
  | {
      action: 'interactive';
      resume?: { latest: true } | { id: string };
      /** `--permission-mode`: the mode the UI starts in (Shift+Tab changes it). */
      permissionMode?: PermissionMode;
    };

export interface ParseContext {
  /** Whether stdin is a terminal: `-p` without text reads the prompt from stdin only when it is not. */
  stdinIsTTY: boolean;
  /** The directory relative `--cwd` values are resolved against. */
  cwd: string;
  /** Whether stdin and stdout are both a terminal: `santra` alone is then the interactive UI. */
  terminal?: boolean;
}

/** The help text. */
export function helpText(version: string): string {
  return `santra ${version} — an AI coding assistant for the terminal (protocol ${PROTOCOL_VERSION})

Usage: santra [options]                   the interactive UI (on a terminal)
       santra --continue | --resume <id>   the UI, going on with the latest session or that one
       santra -p [options] "prompt"        answer one prompt without the UI, then exit
       echo "prompt" | santra -p [options]
       santra -p --replay <file> [options]  execute a recorded session again (docs/sessions.md)
       santra models [--json]              the models you can use with --model
       santra agents [--json]              the agents you can use with --agent
       santra hooks [--json]               the hooks that run, and where each comes from: your
                                           config, or the project's .santra/settings.json
                                           (trusted or not) (docs/hooks.md)
       santra mcp list [--json]            the MCP servers: state, tools, errors (docs/mcp.md)
       santra mcp login SERVER             sign in to a remote MCP server that wants OAuth: prints
                                           the URL to open, waits for the sign-in, keeps the tokens
       santra mcp logout SERVER            forget that sign-in (its tokens), here and on disk
       santra skills [--json]              the skills the model can load, and SKILL.md files skipped
                                           with what to fix (docs/skills.md)
       santra memory [show|path|edit|add TEXT] [--user]
                                           the project's and your memory files (docs/memory.md)
       santra sessions [--json]            the saved sessions of this project, newest first
       santra doctor [--json]              whether commands can be sandboxed here, and if not, the fix
       santra sessions --latest --path     the newest one only (--latest), as its session file's
                                           path (--path): santra -p --replay "$(santra sessions
                                           --latest --path)" replays it
       santra sessions name <session> <name>
                                           name a session (by its id, name or the start of its
                                           id); --resume and --continue then take the name;
                                           --clear instead of a name removes it (docs/sessions.md)
       santra lsp [server options]         Santra as a language server for Helix and other LSP
                                           editors (docs/editors/helix.md)
       santra acp [server options]         Santra as an Agent Client Protocol agent for Zed,
                                           JetBrains IDEs, CodeCompanion (docs/editors/)
       santra import claude|codex|pi FILE… | --all
                                           another agent's transcripts (Claude Code, Codex, pi)
                                           as sessions of this project; --all: every one of
                                           this project's (docs/sessions.md)
       santra worker --redis URL [--concurrency N] [--queue NAME]
                                           run santra jobs from a BullMQ queue on Redis, each
                                           headless in a server of its own (docs/fleet.md)
       santra submit --redis URL [--cwd DIR] [--session ID] [--wait] -p "…"
                                           put a job on that queue; --wait prints its result;
                                           --repo URL --ref REF instead of --cwd: the worker
                                           checks the repository out for the job
       santra attach <session> [--after-seq N] [--watch] [--until-done]
                                           join a session running elsewhere (the TUI, a
                                           worker's job): what it missed, then live; answers
                                           its approvals on this terminal (docs/sessions.md)
       santra send [--session ID|NAME] [--source NAME] "text"
                                           deliver an event (a CI failure, a watcher's
                                           news) to a session, the latest without
                                           --session: untrusted data for its model
                                           (docs/sessions.md)
       santra replay <file>                play a recorded session (a session file or a
                                           session/export json) in the terminal UI; it reads
                                           the file only: no server, model or key (Space pause,
                                           +/- speed, End jump to the end, q quit)

Options:
  -p, --print                  run one prompt headless: the answer goes to stdout, errors to stderr
  --output-format <format>     text (default: the answer as it streams), json (one object at the
                               end: runId, sessionId, status, output, usage, costUsd) or stream-json
                               (one JSON line per phase, then {"type":"result", ...})
  --model <id>                 model for this prompt, as provider/model or a model id
  --fallback-model <id>        a model to continue on when the model is overloaded, down or rate
                               limited for long (repeat it, or separate ids with commas, for a
                               chain; instead of the config's fallbackModels; docs/configuration.md)
  --agent <id>                 the agent that answers: a built-in one (orchestrator, reader, …) or
                               one from .agents/*.json (default: chosen from the prompt)
  --cwd <dir>                  the workspace the agent works in (default: the project the current
                               directory is in — the nearest directory above it with .git — or,
                               outside a repository, the current directory)
  --approve-all                approve every file change and command without asking, except
                               protected locations (.git/, .santra/, .agents/, Santra's config,
                               shell start-up files), which are still asked (or rejected without
                               a terminal)
  --max-budget-usd <amount>    the most the run may cost, in US dollars, its sub-agents included:
                               every model call reserves its worst case first, and the run stops
                               (exit code 4) before a call the rest of the budget cannot pay
  --permission-mode <mode>     default (ask), acceptEdits (file changes in the workspace allowed,
                               commands asked), plan (read-only; prints the plan the agent
                               presents) or bypassPermissions (allow what would be asked; protected
                               locations are still asked); also for the interactive UI (docs/modes.md)
  --verbose                    show tool calls, results and status lines, and the server's log, on stderr
  --resume <session>           continue a saved session, by its id, its name or the start of its id
                               (santra sessions lists them): the model gets its whole conversation
  -c, --continue [name]        continue the latest session of this project, or the one named
                               (santra -p --continue auth-refactor "…")
  --replay <file>              execute a recording (a session file) again in this workspace: its
                               prompts in order, its approvals and answers as recorded, every model
                               call answered from the file — no key, no network; stops where the
                               run no longer matches the recording
  -v, --version                print the version
  -h, --help                   print this help

Without --approve-all, file changes and commands are asked about on the terminal; when stdin is not
a terminal they are rejected. Put -- before a prompt that starts with "-".

Exit codes: 0 the run completed; 1 it ended in error or was interrupted, or the server failed;
2 a usage error; 3 the run completed but the answer is not whole (cut off at the model's output
limit, or the model declined; stderr says which); 4 the run stopped at its budget; 130 cancelled
with Ctrl-C.

The agent runtime is santra-server, a stdio server speaking the Santra protocol (see
protocol-spec/README.md); santra starts the one installed next to it.
Developer option: SANTRA_SERVER=<path> runs that server instead (a .js or .ts file is run with
this Node; anything else is executed directly).`;
}

const OPTIONS = {
  print: { type: 'boolean', short: 'p' },
  'output-format': { type: 'string' },
  model: { type: 'string' },
  'fallback-model': { type: 'string', multiple: true },
  agent: { type: 'string' },
  cwd: { type: 'string' },
  'approve-all': { type: 'boolean' },
  'max-budget-usd': { type: 'string' },
  'permission-mode': { type: 'string' },
  verbose: { type: 'boolean' },
  resume: { type: 'string' },
  continue: { type: 'boolean', short: 'c' },
  replay: { type: 'string' },
  json: { type: 'boolean' },
  latest: { type: 'boolean' },
  path: { type: 'boolean' },
  clear: { type: 'boolean' },
  version: { type: 'boolean', short: 'v' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Options that only make sense with `-p`. */
const PRINT_ONLY = [
  'output-format',
  'model',
  'fallback-model',
  'agent',
  'cwd',
  'approve-all',
  'max-budget-usd',
  'permission-mode',
  'verbose',
  'resume',
  'continue',
  'replay',
] as const;

const RESUME_NEEDS =
  '--resume needs a session id (santra sessions lists them), its name or the start of its id, e.g. --resume ses_… or --resume auth-refactor';

/** Options of `santra sessions` alone. */
const SESSIONS_ONLY = ['latest', 'path', 'clear'] as const;

/** Parses the arguments after `santra` (process.argv.slice(2)). */
export function parseCommandLine(argv: readonly string[], context: ParseContext): Command {
  let parsed: ReturnType<typeof parse>;
  // The editor modes are the server's: their options are its options, checked there.
  const [first, ...rest] = argv;
  if (first === 'lsp' || first === 'acp') return { action: 'adapter', mode: first, args: rest };
  if (first === 'import') return { action: 'import', args: rest };
  if (first === 'worker' || first === 'submit') return { action: 'fleet', command: first, args: rest };
  if (first === 'mcp') return { action: 'mcp', args: rest };
  if (first === 'skills' || first === 'memory') return { action: 'knowledge', what: first, args: rest };
  if (first === 'attach') return { action: 'attach', args: rest };
  if (first === 'send') return { action: 'send', args: rest };
  try {
    parsed = parse(argv);
  } catch (error) {
    return usageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) return { action: 'help' };
  if (values.version) return { action: 'version' };
  const word = positionals[0];
  if (
    !values.print &&
    (word === 'models' || word === 'agents' || word === 'sessions' || word === 'doctor' || word === 'hooks')
  ) {
    const misplaced = PRINT_ONLY.find((name) => name !== 'cwd' && values[name] !== undefined);
    if (misplaced !== undefined) return usageError(`--${misplaced} only works with -p/--print`);
    const rename =
      word === 'sessions' && positionals[1] === 'name' ? renameArgs(positionals, values) : undefined;
    if (typeof rename === 'string') return usageError(rename);
    if (rename === undefined && values.clear === true)
      return usageError('--clear works with santra sessions name <session> --clear');
    if (positionals.length > 1 && rename === undefined)
      return usageError(
        word === 'sessions'
          ? `santra sessions takes no arguments but "name", got "${positionals[1]}": santra sessions name <session> <name>`
          : `santra ${word} takes no arguments, got "${positionals[1]}"`,
      );
    if (values.cwd !== undefined && values.cwd === '') return usageError('--cwd needs a directory');
    const sessionsOnly = SESSIONS_ONLY.find((name) => values[name] !== undefined);
    if (sessionsOnly !== undefined && word !== 'sessions')
      return usageError(`--${sessionsOnly} works with santra sessions, not santra ${word}`);
    if (values.path === true && values.json === true)
      return usageError('--path prints file paths, --json the list as data: give one of them');
    return {
      action: 'list',
      options: {
        what: word,
        json: values.json ?? false,
        ...(values.latest === true ? { latest: true } : {}),
        ...(values.path === true ? { path: true } : {}),
        ...(rename === undefined ? {} : { rename }),
        cwd: resolve(context.cwd, values.cwd ?? '.'),
        cwdGiven: values.cwd !== undefined,
      },
    };
  }
  if (!values.print && word === 'replay') {
    const misplaced = [...PRINT_ONLY, 'json' as const, ...SESSIONS_ONLY].find(
      (name) => values[name] !== undefined,
    );
    if (misplaced !== undefined) return usageError(`santra replay takes no options, got --${misplaced}`);
    const file = positionals[1];
    if (file === undefined || file === '' || positionals.length > 2)
      return usageError('santra replay takes one file: santra replay <session file>');
    return { action: 'replay', file: resolve(context.cwd, file) };
  }
  if (values.json !== undefined)
    return usageError('--json works with santra models, santra agents and santra sessions');
  const sessionsOnly = SESSIONS_ONLY.find((name) => values[name] !== undefined);
  if (sessionsOnly !== undefined) return usageError(`--${sessionsOnly} works with santra sessions`);
  if (!values.print && positionals.length === 0 && context.terminal === true) {
    // The interactive UI takes a session to go on with, as -p does; nothing else of -p's.
    const misplaced = PRINT_ONLY.find(
      (name) =>
        name !== 'resume' && name !== 'continue' && name !== 'permission-mode' && values[name] !== undefined,
    );
    if (misplaced !== undefined) return usageError(`--${misplaced} only works with -p/--print`);
    const mode = permissionMode(values['permission-mode']);
    if (mode === null) return usageError(permissionModeError(values['permission-mode']));
    const startIn = mode === undefined ? {} : { permissionMode: mode };
    if (values.resume !== undefined && values.continue === true)
      return usageError('--resume and --continue both name a session: give one of them');
    if (values.resume !== undefined && values.resume.trim() === '') return usageError(RESUME_NEEDS);
    if (values.resume !== undefined)
      return { action: 'interactive', resume: { id: values.resume.trim() }, ...startIn };
    if (values.continue === true) return { action: 'interactive', resume: { latest: true }, ...startIn };
    return { action: 'interactive', ...startIn };
  }
  if (!values.print) {
    const misplaced = PRINT_ONLY.find((name) => values[name] !== undefined);
    if (misplaced !== undefined) return usageError(`--${misplaced} only works with -p/--print`);
    if (positionals.length > 0) {
      return usageError(
        `unexpected argument "${positionals[0]}"; to run a prompt, use santra -p "${positionals[0]}"`,
      );
    }
    return { action: 'help' };
  }
  if (positionals.length > 1) {
    return usageError(
      `-p takes one prompt, got ${positionals.length} arguments; put the prompt in quotes: santra -p "${positionals.join(' ')}"`,
    );
  }
  const prompt = positionals[0];
  if (values.replay !== undefined) {
    const replay = replayOptions(values, prompt);
    if (typeof replay === 'string') return usageError(replay);
  }
  if (prompt === undefined && context.stdinIsTTY && values.replay === undefined) {
    return usageError(
      '-p needs a prompt: santra -p "what to do", or pipe it in: echo "what to do" | santra -p',
    );
  }
  if (prompt !== undefined && prompt.trim() === '') return usageError('the prompt is empty');
  const outputFormat = values['output-format'] ?? 'text';
  if (!isOutputFormat(outputFormat)) {
    return usageError(`--output-format must be ${OUTPUT_FORMATS.join(', ')}, got "${outputFormat}"`);
  }
  if (values.model !== undefined && values.model.trim() === '') {
    return usageError('--model needs a model id, e.g. --model anthropic/claude-sonnet-5-5');
  }
  if (values.agent !== undefined && values.agent.trim() === '') {
    return usageError('--agent needs an agent id, e.g. --agent reader');
  }
  if (values.cwd !== undefined && values.cwd === '') return usageError('--cwd needs a directory');
  if (values.resume !== undefined && values.continue === true)
    return usageError('--resume and --continue both name a session: give one of them');
  if (values.resume !== undefined && values.resume.trim() === '') return usageError(RESUME_NEEDS);
  const budget = values['max-budget-usd'] === undefined ? undefined : budgetUsd(values['max-budget-usd']);
  if (budget === null)
    return usageError(
      `--max-budget-usd needs an amount of US dollars greater than 0, e.g. --max-budget-usd 2.50; got "${values['max-budget-usd']}"`,
    );
  const mode = permissionMode(values['permission-mode']);
  if (mode === null) return usageError(permissionModeError(values['permission-mode']));
  const fallbackModels = values['fallback-model']
    ?.flatMap((value) => value.split(','))
    .map((id) => id.trim());
  if (fallbackModels?.some((id) => id === '') === true)
    return usageError(
      '--fallback-model needs model ids, e.g. --fallback-model openai/gpt-5.1 or --fallback-model openai/gpt-5.1,anthropic/claude-haiku-4-5',
    );
  return {
    action: 'print',
    options: {
      prompt,
      outputFormat,
      model: values.model,
      ...(fallbackModels === undefined ? {} : { fallbackModels }),
      agent: values.agent?.trim(),
      cwd: resolve(context.cwd, values.cwd ?? '.'),
      cwdGiven: values.cwd !== undefined,
      approveAll: values['approve-all'] ?? false,
      verbose: values.verbose ?? false,
      resume: values.resume?.trim(),
      continueLatest: values.continue ?? false,
      ...(values.replay === undefined ? {} : { replay: resolve(context.cwd, values.replay) }),
      ...(budget === undefined ? {} : { maxBudgetUsd: budget }),
      ...(mode === undefined ? {} : { permissionMode: mode }),
    },
  };
}

/** `santra sessions name <session> <name>|--clear`: what to name, or why the words do not say it. */
function renameArgs(
  positionals: readonly string[],
  values: { clear?: boolean; json?: boolean; latest?: boolean; path?: boolean },
): { session: string; name: string | null } | string {
  const usage =
    'santra sessions name <session> <name> names a session (its id, name or the start of its id), e.g. santra sessions name ses_3f2a auth-refactor; santra sessions name <session> --clear removes its name';
  const [, , session, name, ...extra] = positionals;
  if (values.latest === true || values.path === true) return `--latest and --path list sessions; ${usage}`;
  if (session === undefined || session.trim() === '' || extra.length > 0) return usage;
  if (values.clear === true) return name === undefined ? { session: session.trim(), name: null } : usage;
  if (name === undefined || name.trim() === '') return usage;
  return { session: session.trim(), name: name.trim() };
}

/** `--permission-mode`'s value; undefined when not given, null when it names no mode. */
function permissionMode(text: string | undefined): PermissionMode | undefined | null {
  if (text === undefined) return undefined;
  return PERMISSION_MODES.find((mode) => mode === text.trim()) ?? null;
}

function permissionModeError(text: string | undefined): string {
  return `--permission-mode must be ${PERMISSION_MODES.join(', ')}, got "${text ?? ''}"`;
}

/** "2.50" or "$2.50" as a number of dollars; null for anything else, or nothing to spend. */
function budgetUsd(text: string): number | null {
  const match = /^\s*\$?(\d+(?:\.\d*)?|\.\d+)\s*$/.exec(text);
  const amount = match === null ? Number.NaN : Number(match[1]);
  return Number.isFinite(amount) && amount > 0 && amount <= 1_000_000 ? amount : null;
}

/** What `--replay` cannot be combined with: the recording names the prompts, models, agents and session. */
function replayOptions(
  values: ReturnType<typeof parse>['values'],
  prompt: string | undefined,
): string | true {
  if (values.replay?.trim() === '') return '--replay needs a session file';
  if (prompt !== undefined) return `--replay sends the recording's prompts; give no prompt, got "${prompt}"`;
  const clash = (['model', 'fallback-model', 'agent', 'resume', 'continue'] as const).find(
    (name) => values[name] !== undefined,
  );
  if (clash === undefined) return true;
  const named = {
    model: 'models',
    'fallback-model': 'models',
    agent: 'agents',
    resume: 'session',
    continue: 'session',
  }[clash];
  return `--replay runs the recording's ${named}; leave out --${clash}`;
}

function parse(argv: readonly string[]) {
  return parseArgs({ args: continueNamed(argv), options: OPTIONS, strict: true, allowPositionals: true });
}

/**
 * `--continue NAME` (or `--continue=NAME`, `-c NAME`) goes on with the session of that name (or id,
 * or id prefix): it is `--resume NAME`. `--continue` alone is the latest session. With -p, the word
 * after `--continue` is a name only when a prompt follows it; otherwise it is the prompt
 * (`santra -p --continue "fix it"`). Without -p, the interactive UI takes no prompt: it is a name.
 */
function continueNamed(argv: readonly string[]): string[] {
  const out: string[] = [];
  const print = argv.includes('-p') || argv.includes('--print');
  // With --resume as well, both name a session: `--continue` is kept, for the error that says so.
  const resume = argv.some((token) => token === '--resume' || token.startsWith('--resume='));
  const named = (name: string) => (resume ? ['--continue'] : ['--resume', name]);
  for (let index = 0; index < argv.length; index++) {
    const token = argv[index] as string;
    if (token === '--') {
      out.push(...argv.slice(index));
      break;
    }
    if (token.startsWith('--continue=')) {
      out.push(...named(token.slice('--continue='.length)));
      continue;
    }
    const next = argv[index + 1];
    const withName =
      (token === '--continue' || token === '-c') &&
      next !== undefined &&
      !next.startsWith('-') &&
      (!print || positionalAfter(argv, index + 2));
    if (withName) {
      out.push(...named(next));
      index++;
      continue;
    }
    out.push(token);
  }
  return out;
}

/** Whether a positional argument (the prompt) comes at or after `from`: a word that is no option's value. */
function positionalAfter(argv: readonly string[], from: number): boolean {
  const takesValue = (token: string) => {
    const name = token.startsWith('--') ? token.slice(2) : undefined;
    const option = name === undefined ? undefined : (OPTIONS as Record<string, { type: string }>)[name];
    return option?.type === 'string';
  };
  for (let index = from; index < argv.length; index++) {
    const token = argv[index] as string;
    if (token === '--') return index + 1 < argv.length;
    if (token.startsWith('-')) {
      if (takesValue(token)) index++;
      continue;
    }
    return true;
  }
  return false;
}

function isOutputFormat(value: string): value is OutputFormat {
  return (OUTPUT_FORMATS as readonly string[]).includes(value);
}

function usageError(message: string): Command {
  return { action: 'usage_error', message };
}
