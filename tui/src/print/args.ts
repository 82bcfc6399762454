/**
 * Command-line parsing of `santra`. Pure: argv in, a command out, so every usage error is a table
 * row in a test. It imports nothing heavy, because `--version` and `--help` must answer as fast as
 * Node starts.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PROTOCOL_VERSION } from '#protocol/version';

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
}

/** What `santra models`, `santra agents` and `santra sessions` were asked to do. */
export interface ListOptions {
  /** `doctor`: whether the OS sandbox works here (doctor.ts). */
  what: 'models' | 'agents' | 'sessions' | 'doctor';
  json: boolean;
  /** `santra sessions --latest`: only the newest session of this project. */
  latest?: boolean;
  /** `santra sessions --path`: the session files' paths, one a line, instead of the table. */
  path?: boolean;
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
  /**
   * `santra` on a terminal: the interactive UI, going on with a saved session when asked
   * (`--continue`: the latest of this project; `--resume <id>`).
   */
  | { action: 'interactive'; resume?: { latest: true } | { id: string } };

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
       santra sessions [--json]            the saved sessions of this project, newest first
       santra doctor [--json]              whether commands can be sandboxed here, and if not, the fix
       santra sessions --latest --path     the newest one only (--latest), as its session file's
                                           path (--path): santra -p --replay "$(santra sessions
                                           --latest --path)" replays it
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
                                           put a job on that queue; --wait prints its result
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
  --verbose                    show tool calls, results and status lines, and the server's log, on stderr
  --resume <id>                continue a saved session (santra sessions lists them): the model gets
                               its whole conversation
  -c, --continue               continue the latest session of this project
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
  agent: { type: 'string' },
  cwd: { type: 'string' },
  'approve-all': { type: 'boolean' },
  'max-budget-usd': { type: 'string' },
  verbose: { type: 'boolean' },
  resume: { type: 'string' },
  continue: { type: 'boolean', short: 'c' },
  replay: { type: 'string' },
  json: { type: 'boolean' },
  latest: { type: 'boolean' },
  path: { type: 'boolean' },
  version: { type: 'boolean', short: 'v' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Options that only make sense with `-p`. */
const PRINT_ONLY = [
  'output-format',
  'model',
  'agent',
  'cwd',
  'approve-all',
  'max-budget-usd',
  'verbose',
  'resume',
  'continue',
  'replay',
] as const;

/** Options of `santra sessions` alone. */
const SESSIONS_ONLY = ['latest', 'path'] as const;

/** Parses the arguments after `santra` (process.argv.slice(2)). */
export function parseCommandLine(argv: readonly string[], context: ParseContext): Command {
  let parsed: ReturnType<typeof parse>;
  // The editor modes are the server's: their options are its options, checked there.
  const [first, ...rest] = argv;
  if (first === 'lsp' || first === 'acp') return { action: 'adapter', mode: first, args: rest };
  if (first === 'import') return { action: 'import', args: rest };
  if (first === 'worker' || first === 'submit') return { action: 'fleet', command: first, args: rest };
  try {
    parsed = parse(argv);
  } catch (error) {
    return usageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) return { action: 'help' };
  if (values.version) return { action: 'version' };
  const word = positionals[0];
  if (!values.print && (word === 'models' || word === 'agents' || word === 'sessions' || word === 'doctor')) {
    const misplaced = PRINT_ONLY.find((name) => name !== 'cwd' && values[name] !== undefined);
    if (misplaced !== undefined) return usageError(`--${misplaced} only works with -p/--print`);
    if (positionals.length > 1)
      return usageError(`santra ${word} takes no arguments, got "${positionals[1]}"`);
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
      (name) => name !== 'resume' && name !== 'continue' && values[name] !== undefined,
    );
    if (misplaced !== undefined) return usageError(`--${misplaced} only works with -p/--print`);
    if (values.resume !== undefined && values.continue === true)
      return usageError('--resume and --continue both name a session: give one of them');
    if (values.resume !== undefined && values.resume.trim() === '')
      return usageError('--resume needs a session id (santra sessions lists them), e.g. --resume ses_…');
    if (values.resume !== undefined) return { action: 'interactive', resume: { id: values.resume.trim() } };
    if (values.continue === true) return { action: 'interactive', resume: { latest: true } };
    return { action: 'interactive' };
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
  if (values.resume !== undefined && values.resume.trim() === '')
    return usageError('--resume needs a session id (santra sessions lists them), e.g. --resume ses_…');
  const budget = values['max-budget-usd'] === undefined ? undefined : budgetUsd(values['max-budget-usd']);
  if (budget === null)
    return usageError(
      `--max-budget-usd needs an amount of US dollars greater than 0, e.g. --max-budget-usd 2.50; got "${values['max-budget-usd']}"`,
    );
  return {
    action: 'print',
    options: {
      prompt,
      outputFormat,
      model: values.model,
      agent: values.agent?.trim(),
      cwd: resolve(context.cwd, values.cwd ?? '.'),
      cwdGiven: values.cwd !== undefined,
      approveAll: values['approve-all'] ?? false,
      verbose: values.verbose ?? false,
      resume: values.resume?.trim(),
      continueLatest: values.continue ?? false,
      ...(values.replay === undefined ? {} : { replay: resolve(context.cwd, values.replay) }),
      ...(budget === undefined ? {} : { maxBudgetUsd: budget }),
    },
  };
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
  const clash = (['model', 'agent', 'resume', 'continue'] as const).find(
    (name) => values[name] !== undefined,
  );
  if (clash === undefined) return true;
  const named = { model: 'models', agent: 'agents', resume: 'session', continue: 'session' }[clash];
  return `--replay runs the recording's ${named}; leave out --${clash}`;
}

function parse(argv: readonly string[]) {
  return parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: true });
}

function isOutputFormat(value: string): value is OutputFormat {
  return (OUTPUT_FORMATS as readonly string[]).includes(value);
}

function usageError(message: string): Command {
  return { action: 'usage_error', message };
}
