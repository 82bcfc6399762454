/**
 * The stdio server: stdout carries protocol frames only, so console output is sent to stderr
 * before anything else runs.
 */
import { Console } from 'node:console';
import { EXIT_USAGE, type ServerSettings } from './cli.ts';
import { type AdapterMode, type LinkExtras, loadAdapter } from '../connection/adapters/adapter.ts';
import { linkInProcess } from '../connection/adapters/in-process.ts';
import { type ConnectionLimits, serve } from '../connection/connection.ts';
import { DEFAULT_FRAMING_LIMITS } from '../connection/framing.ts';
import { createLogger, type Logger, Redactor } from '../support/log.ts';
import { SANTRA_VERSION } from '../support/version.ts';
import type { ResilienceOptions } from '../providers/resilience.ts';
import type { Runtime } from '../runtime/contract.ts';
import { createRuntime } from '../runtime/runtime.ts';
import { type Recording, readRecording } from '../sessions/recorded-model.ts';

/** Exit code when the server itself fails unexpectedly. */
export const EXIT_INTERNAL_ERROR = 4;

/**
 * Developer knobs for the retry and timeout policy (tests shrink them to milliseconds):
 * SANTRA_RETRY_BASE_MS, SANTRA_RETRY_MAX_WAIT_MS, SANTRA_TIMEOUT_FIRST_MS, SANTRA_TIMEOUT_IDLE_MS,
 * SANTRA_TIMEOUT_TOTAL_MS, SANTRA_WAITING_NOTICE_MS.
 */
function resilienceFromEnv(env: NodeJS.ProcessEnv): Partial<ResilienceOptions> {
  const read = (name: string) => {
    const value = Number(env[name]);
    return env[name] !== undefined && Number.isFinite(value) && value >= 0 ? value : undefined;
  };
  const settings: Partial<ResilienceOptions> = {};
  const pairs: Array<[keyof ResilienceOptions, string]> = [
    ['baseDelayMs', 'SANTRA_RETRY_BASE_MS'],
    ['maxWaitMs', 'SANTRA_RETRY_MAX_WAIT_MS'],
    ['firstActivityMs', 'SANTRA_TIMEOUT_FIRST_MS'],
    ['idleMs', 'SANTRA_TIMEOUT_IDLE_MS'],
    ['totalMs', 'SANTRA_TIMEOUT_TOTAL_MS'],
    ['waitingNoticeMs', 'SANTRA_WAITING_NOTICE_MS'],
  ];
  for (const [key, name] of pairs) {
    const value = read(name);
    if (value !== undefined) settings[key] = value;
  }
  return settings;
}

/** What every mode of the server sets up before it speaks to anyone: logging and crash handling. */
function prepareProcess(settings: ServerSettings): { log: Logger; redactor: Redactor } {
  globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });
  const redactor = new Redactor();
  const log = createLogger((line) => process.stderr.write(line), settings.logLevel, redactor);
  process.on('uncaughtException', (error) => {
    log.error(`uncaught exception: ${error.stack ?? error.message}`);
    process.exit(EXIT_INTERNAL_ERROR);
  });
  process.on('unhandledRejection', (reason) => {
    log.error(
      `unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`,
    );
  });
  // A client that goes away must not take the server down with EPIPE; the end of stdin ends it.
  process.stdout.on('error', (error) => log.warn(`stdout: ${error.message}`));
  if (settings.autoApprove) {
    process.stderr.write(
      'santra-server: WARNING: --auto-approve: every file change and command will run WITHOUT asking the user (except protected locations: .git/, .santra/, .agents/, the config, shell start-up files).\n',
    );
  }
  return { log, redactor };
}

/** The recording of --replay, or an exit code when it cannot be read. */
async function loadReplay(settings: ServerSettings, log: Logger): Promise<Recording | undefined | number> {
  if (settings.replay === undefined) return undefined;
  const read = await readRecording(settings.replay);
  if ('error' in read) {
    process.stderr.write(`santra-server: --replay: ${read.error}\n`);
    return EXIT_USAGE;
  }
  for (const warning of read.warnings) log.warn(`--replay: ${warning}`);
  log.info(
    `replaying ${settings.replay}: ${read.recording.runs.length} runs, ${read.recording.outputs} model outputs`,
  );
  return read.recording;
}

function limitsOf(settings: ServerSettings): ConnectionLimits {
  return {
    maxMessageBytes: settings.maxMessageBytes,
    maxHeaderBytes: DEFAULT_FRAMING_LIMITS.maxHeaderBytes,
    maxConcurrentRequests: settings.maxConcurrentRequests,
  };
}

/**
 * What both modes share once the process is set up: the --replay recording read, and a factory of
 * runtimes with the settings. Undefined (the exit code set) when the recording cannot be read.
 */
async function prepareServer(
  settings: ServerSettings,
): Promise<{ log: Logger; newRuntime: (extras?: LinkExtras) => Runtime } | undefined> {
  const { log, redactor } = prepareProcess(settings);
  const replay = await loadReplay(settings, log);
  if (typeof replay === 'number') {
    process.exitCode = replay;
    return undefined;
  }
  const newRuntime = (extras: LinkExtras = {}) =>
    createRuntime({
      ...(extras.mcpServers === undefined ? {} : { editorMcpServers: extras.mcpServers }),
      ...(replay === undefined ? {} : { replay }),
      autoApprove: settings.autoApprove,
      allowedDirs: settings.allowDirs,
      log,
      redactor,
      env: process.env,
      resilience: resilienceFromEnv(process.env),
    });
  return { log, newRuntime };
}

export async function runStdioServer(settings: ServerSettings): Promise<void> {
  const server = await prepareServer(settings);
  if (server === undefined) return;
  const { log, newRuntime } = server;
  const connection = serve({
    input: process.stdin,
    output: process.stdout,
    runtime: newRuntime(),
    log,
    limits: limitsOf(settings),
  });
  const end = await connection.ended;
  log.info(`connection ended (${end.reason}), exiting with code ${end.exitCode}`);
  await exitAfterFlush(end.exitCode);
}

/**
 * `santra-server lsp` and `santra-server acp`: the editor speaks LSP or ACP on stdin/stdout, and
 * the adapter drives Santra through in-process links, each with a runtime of its own.
 */
export async function runAdapterServer(settings: ServerSettings, mode: AdapterMode): Promise<void> {
  const server = await prepareServer(settings);
  if (server === undefined) return;
  const { log, newRuntime } = server;
  const adapter = await loadAdapter(mode);
  const code = await adapter({
    input: process.stdin,
    output: process.stdout,
    openLink: (extras) => linkInProcess({ runtime: newRuntime(extras), log, limits: limitsOf(settings) }),
    log,
    serverVersion: SANTRA_VERSION,
  });
  log.info(`${mode} adapter ended, exiting with code ${code}`);
  await exitAfterFlush(code);
}

/**
 * Writes to a pipe are asynchronous on Linux and process.exit drops what is still queued: the
 * connection has flushed stdout; let the log's last lines (the reason for a framing error) out too.
 */
async function exitAfterFlush(code: number): Promise<never> {
  process.exitCode = code;
  await flushed(process.stderr, 1000);
  process.exit(code);
}

/** Resolves once everything written to `stream` so far has been handed to the OS, or after `ms`. */
function flushed(stream: NodeJS.WriteStream, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    stream.write('', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
