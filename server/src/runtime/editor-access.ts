/**
 * The client's editor as the tools see it (§7.5): its buffers through `fs/readTextFile` and
 * `fs/writeTextFile`, its terminal through `terminal/run`, each only where the client declared it.
 * A read or write the editor cannot serve falls back to the disk, logged, so a slow or broken
 * editor never stops a run; a command it cannot run is an error for the model, never run twice.
 */
import type { ClientCapabilities } from '#protocol';
import { PROVIDER_KEYS } from '../tools/commands/env.ts';
import { MAX_TEXT_FILE_BYTES } from '../tools/files/helpers.ts';
import type { EditorAccess, EditorCommand } from '../tools/types.ts';
import type { Logger } from '../support/log.ts';
import type { ClientChannel } from './contract.ts';

/** How long a read or write waits for the editor before the disk is used instead. */
const EDITOR_FILE_TIMEOUT_MS = 10_000;
/** Beyond the command's own timeout, how long the editor may take to report that it killed it. */
const TERMINAL_GRACE_MS = 10_000;

export interface EditorScope {
  sessionId: string;
  runId: string;
  agentId: string;
  toolCallId: string;
  /** The run's: aborts what the editor is doing when the run is cancelled. */
  signal: AbortSignal;
}

export function editorAccess(
  deps: {
    client: ClientChannel;
    capabilities: ClientCapabilities;
    log: Logger;
    /** The server's own environment, against which a command's is described as set/unset. */
    env: NodeJS.ProcessEnv;
  },
  scope: EditorScope,
): EditorAccess | undefined {
  const { client, capabilities, log } = deps;
  const { sessionId, signal } = scope;
  const access: EditorAccess = {};
  const within = (ms: number) => AbortSignal.any([signal, AbortSignal.timeout(ms)]);
  /** A failure worth a line in the log: not one that only follows the run's cancellation. */
  const failed = (what: string, error: unknown): void => {
    if (signal.aborted) return;
    const why = error instanceof Error ? error.message : String(error);
    log.warn(`the editor could not ${what}: ${why}; using the disk`);
  };

  if (capabilities.fs?.readTextFile === true) {
    access.readText = async (path) => {
      try {
        const { text } = await client.readTextFile({ sessionId, path }, within(EDITOR_FILE_TIMEOUT_MS));
        // The editor's text is a file the tools load: the same bound as a file on disk.
        if (text !== null && text.length > MAX_TEXT_FILE_BYTES) {
          log.warn(`the editor's text of ${path} is larger than a file the tools load; using the disk`);
          return undefined;
        }
        return text ?? undefined;
      } catch (error) {
        failed(`read ${path}`, error);
        return undefined;
      }
    };
  }
  if (capabilities.fs?.writeTextFile === true) {
    access.writeText = async (path, text) => {
      try {
        await client.writeTextFile({ sessionId, path, text }, within(EDITOR_FILE_TIMEOUT_MS));
      } catch (error) {
        failed(`write ${path}`, error);
      }
    };
  }
  if (capabilities.terminal === true) {
    access.runCommand = (command: EditorCommand) =>
      client.runTerminal(
        {
          sessionId,
          runId: scope.runId,
          agentId: scope.agentId,
          toolCallId: scope.toolCallId,
          command: command.command,
          ...(command.approvedCommand === undefined ? {} : { approvedCommand: command.approvedCommand }),
          cwd: command.cwd,
          ...environmentChange(deps.env, command.env),
          timeoutMs: command.timeoutMs,
          outputByteLimit: command.outputByteLimit,
        },
        within(command.timeoutMs + TERMINAL_GRACE_MS),
      );
  }
  return Object.keys(access).length === 0 ? undefined : access;
}

/**
 * A command's environment as a change to the editor's, which is presumed to be the server's own:
 * what it sets or changes, and what it must not see — what was removed from the server's own, and
 * the provider keys by name, in case the editor holds some the server was not given.
 */
export function environmentChange(
  own: NodeJS.ProcessEnv,
  command: NodeJS.ProcessEnv,
): { env: Record<string, string>; unsetEnv: string[] } {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(command)) {
    if (value !== undefined && own[name] !== value) env[name] = value;
  }
  const unset = new Set(PROVIDER_KEYS);
  for (const name of Object.keys(own)) if (command[name] === undefined) unset.add(name);
  return { env, unsetEnv: [...unset].sort() };
}
