/**
 * The stdio server: stdout carries protocol frames only, so console output is sent to stderr
 * before anything else runs.
 */
import { Console } from 'node:console';
import type { ServerSettings } from './cli.ts';
import { serve } from './connection/connection.ts';
import { DEFAULT_FRAMING_LIMITS } from './connection/framing.ts';
import { createLogger } from './log.ts';
import { createRuntime } from './runtime.ts';

/** Exit code when the server itself fails unexpectedly. */
export const EXIT_INTERNAL_ERROR = 4;

export async function runStdioServer(settings: ServerSettings): Promise<void> {
  globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });
  const log = createLogger((line) => process.stderr.write(line), settings.logLevel);
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

  const runtime = createRuntime({ log });
  const connection = serve({
    input: process.stdin,
    output: process.stdout,
    runtime,
    log,
    limits: {
      maxMessageBytes: settings.maxMessageBytes,
      maxHeaderBytes: DEFAULT_FRAMING_LIMITS.maxHeaderBytes,
      maxConcurrentRequests: settings.maxConcurrentRequests,
    },
  });
  const end = await connection.ended;
  log.info(`connection ended (${end.reason}), exiting with code ${end.exitCode}`);
  process.exit(end.exitCode);
}
