/**
 * Command-line handling of `santra-server`. It loads nothing heavy, so `--version` and `--help`
 * answer as fast as Node starts.
 */
import { parseArgs } from 'node:util';
import { MIN_MESSAGE_BYTES, PROTOCOL_VERSION } from '#protocol/version';
import type { AdapterMode } from '../connection/adapters/adapter.ts';
import { DEFAULT_FRAMING_LIMITS } from '../connection/framing.ts';
import { isLogLevel, type LogLevel } from '../support/log.ts';
import { SANTRA_VERSION } from '../support/version.ts';

export const EXIT_USAGE = 2;

export interface ServerSettings {
  maxMessageBytes: number;
  maxConcurrentRequests: number;
  logLevel: LogLevel;
  /** Allow every gated action without asking a client (protected paths excepted). */
  autoApprove: boolean;
  /** Directories outside the workspace the tools may use. */
  allowDirs: string[];
  /** --replay: the recording (a session file) that answers every model call. */
  replay?: string;
}

export type CliAction =
  | { action: 'version'; text: string }
  | { action: 'help'; text: string }
  | { action: 'usage_error'; text: string }
  | { action: 'serve'; settings: ServerSettings }
  | { action: 'adapter'; mode: AdapterMode; settings: ServerSettings };

const DEFAULT_MAX_CONCURRENT_REQUESTS = 64;

export const HELP = `santra-server ${SANTRA_VERSION} — the Santra agent runtime, speaking the Santra protocol ${PROTOCOL_VERSION}
(JSON-RPC 2.0 with LSP Content-Length framing) on stdin/stdout. Clients start it; you rarely run it by hand.

Usage: santra-server [options]
       santra-server lsp [options]   speak the Language Server Protocol instead (Helix and other
                                     LSP editors: code actions and commands start Santra runs)
       santra-server acp [options]   speak the Agent Client Protocol instead (Zed, JetBrains IDEs,
                                     CodeCompanion, avante)

Options:
  --max-message-bytes <n>        largest message accepted, in bytes (default ${DEFAULT_FRAMING_LIMITS.maxMessageBytes})
  --max-concurrent-requests <n>  most client requests in flight at once (default ${DEFAULT_MAX_CONCURRENT_REQUESTS})
  --log-level <level>            error, warn, info or debug, written to stderr (default warn;
                                 SANTRA_LOG_LEVEL sets it too)
  --auto-approve                 allow every file change and command without asking the client,
                                 except protected locations (.git/, .santra/, .agents/, Santra's
                                 config, shell start-up files): those are still put to the client
                                 as protected approvals, and refused when it cannot answer
  --allow-dir <dir>              let tools read and write <dir> outside the workspace (repeatable)
  --replay <file>                answer every model call from a recording (a session file, or
                                 session/export's JSON) instead of a provider: prompts run again
                                 for real, tools and all, with no key and no network; a call the
                                 recording has no answer for ends the run with a
                                 replay_divergence error saying where (docs/sessions.md)
  -v, --version                  print the package and protocol versions
  -h, --help                     print this help

Exit codes: 0 after shutdown and exit; 1 on exit or end of input without shutdown;
2 on a usage error (also a --replay file that cannot be read or holds no model output);
3 when the input's framing cannot be trusted (a bad Content-Length header, or one over 1 GiB).
The protocol is specified in protocol-spec/README.md.`;

export function parseCli(argv: readonly string[], env: NodeJS.ProcessEnv): CliAction {
  let values: ReturnType<typeof parse>['values'];
  let positionals: string[];
  try {
    ({ values, positionals } = parse(argv));
  } catch (error) {
    return usageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help) return { action: 'help', text: HELP };
  if (values.version) {
    return { action: 'version', text: `santra-server ${SANTRA_VERSION} (protocol ${PROTOCOL_VERSION})` };
  }
  const logLevel = values['log-level'] ?? env.SANTRA_LOG_LEVEL ?? 'warn';
  if (!isLogLevel(logLevel)) {
    const from = values['log-level'] === undefined ? 'SANTRA_LOG_LEVEL' : '--log-level';
    return usageError(`${from} must be error, warn, info or debug, got "${logLevel}"`);
  }
  const maxMessageBytes = positiveInteger(
    '--max-message-bytes',
    values['max-message-bytes'],
    DEFAULT_FRAMING_LIMITS.maxMessageBytes,
  );
  if (typeof maxMessageBytes === 'string') return usageError(maxMessageBytes);
  if (maxMessageBytes < MIN_MESSAGE_BYTES)
    return usageError(
      `--max-message-bytes must be at least ${MIN_MESSAGE_BYTES} (the protocol's minimum, §1.4: less would refuse an ordinary initialize), got ${maxMessageBytes}`,
    );
  const maxConcurrentRequests = positiveInteger(
    '--max-concurrent-requests',
    values['max-concurrent-requests'],
    DEFAULT_MAX_CONCURRENT_REQUESTS,
  );
  if (typeof maxConcurrentRequests === 'string') return usageError(maxConcurrentRequests);
  if (values.replay !== undefined && values.replay.trim() === '')
    return usageError('--replay needs a session file');
  const command = adapterMode(positionals);
  if ('error' in command) return usageError(command.error);
  const settings: ServerSettings = {
    maxMessageBytes,
    maxConcurrentRequests,
    logLevel,
    autoApprove: values['auto-approve'] === true,
    allowDirs: values['allow-dir'] ?? [],
    ...(values.replay === undefined ? {} : { replay: values.replay }),
  };
  return command.mode === undefined
    ? { action: 'serve', settings }
    : { action: 'adapter', mode: command.mode, settings };
}

/** The mode word (`lsp`, `acp`) if any; anything else is a usage error. */
function adapterMode(positionals: readonly string[]): { mode?: AdapterMode } | { error: string } {
  const [word, extra] = positionals;
  if (word === undefined) return {};
  if (word !== 'lsp' && word !== 'acp')
    return {
      error: `unknown command "${word}": santra-server takes lsp, acp or no command (the Santra protocol)`,
    };
  if (extra !== undefined) return { error: `santra-server ${word} takes options only, got "${extra}"` };
  return { mode: word };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: true,
    options: {
      version: { type: 'boolean', short: 'v' },
      help: { type: 'boolean', short: 'h' },
      'log-level': { type: 'string' },
      'max-message-bytes': { type: 'string' },
      'max-concurrent-requests': { type: 'string' },
      'auto-approve': { type: 'boolean' },
      'allow-dir': { type: 'string', multiple: true },
      replay: { type: 'string' },
    },
  });
}

function positiveInteger(flag: string, value: string | undefined, fallback: number): number | string {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    return `${flag} must be a positive integer, got "${value}"`;
  }
  return Number(value);
}

function usageError(message: string): CliAction {
  return { action: 'usage_error', text: `santra-server: ${message}\nRun santra-server --help for usage.` };
}
