/**
 * The editor's files and terminals, lent to Santra (protocol §7.5): what the ACP client declares
 * becomes what the Santra link declares, and Santra's requests become the ACP client's.
 *
 * fs/readTextFile → `fs/read_text_file` (the editor's buffer, unsaved changes included); an error
 *   is declined, and Santra reads the disk.
 * fs/writeTextFile → `fs/write_text_file` (the editor puts the text into its buffer and saves it);
 *   an error is declined, and Santra writes the disk itself.
 * terminal/run → an ACP terminal running `/bin/sh -c command`, shown on the command's tool call,
 *   waited for up to the timeout, killed on timeout or cancellation, and always released.
 */
import type {
  AgentContext,
  ClientCapabilities,
  EnvVariable,
  TerminalExitStatus,
  TerminalOutputResponse,
} from '@agentclientprotocol/sdk';
import type {
  FsReadTextFileParams,
  FsReadTextFileResult,
  FsWriteTextFileParams,
  FsWriteTextFileResult,
  TerminalRunParams,
  TerminalRunResult,
} from '#protocol';
import type { Logger } from '../../support/log.ts';
import type { Editor } from './permissions.ts';
import { charBoundarySuffix } from '../../support/utf8-cut.ts';
import { Declined, type LentCapabilities } from '../adapters/santra-client.ts';

/** What the Santra link declares: exactly what the ACP client offers, nothing it did not. */
export function lentCapabilities(capabilities: ClientCapabilities): LentCapabilities {
  const fs = {
    ...(capabilities.fs?.readTextFile === true ? { readTextFile: true } : {}),
    ...(capabilities.fs?.writeTextFile === true ? { writeTextFile: true } : {}),
  };
  return {
    ...(Object.keys(fs).length === 0 ? {} : { fs }),
    ...(capabilities.terminal === true ? { terminal: true } : {}),
  };
}

/** The ACP session the requests belong to, as the permissions see it, and where to log. */
export type LendingEditor = Pick<Editor, 'context' | 'sessionId'> & { log: Logger };

export async function readFromEditor(
  editor: LendingEditor,
  params: FsReadTextFileParams,
  signal: AbortSignal,
): Promise<FsReadTextFileResult> {
  const { content } = await orDeclined(signal, `read ${params.path}`, () =>
    editor.context.request(
      'fs/read_text_file',
      { sessionId: editor.sessionId, path: params.path },
      { cancellationSignal: signal, stopWaitingOnCancel: true },
    ),
  );
  return { text: content };
}

export async function writeToEditor(
  editor: LendingEditor,
  params: FsWriteTextFileParams,
  signal: AbortSignal,
): Promise<FsWriteTextFileResult> {
  await orDeclined(signal, `write ${params.path}`, () =>
    editor.context.request(
      'fs/write_text_file',
      { sessionId: editor.sessionId, path: params.path, content: params.text },
      { cancellationSignal: signal, stopWaitingOnCancel: true },
    ),
  );
  return {};
}

/** The editor's answer; its failure Declined (Santra then uses the disk), unless the run was cancelled. */
async function orDeclined<T>(signal: AbortSignal, what: string, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (signal.aborted) throw error;
    throw new Declined(`the editor could not ${what}: ${reason(error)}`);
  }
}

/**
 * Runs an approved command in an editor terminal. `show` puts the terminal on the command's tool
 * call as soon as it exists, so the user watches it run. On cancellation the terminal is killed
 * and released, and the cancellation is rethrown.
 */
export async function runInTerminal(
  editor: LendingEditor,
  params: TerminalRunParams,
  signal: AbortSignal,
  show: (terminalId: string) => void,
): Promise<TerminalRunResult> {
  const { context, sessionId } = editor;
  const { terminalId } = await context.request('terminal/create', {
    sessionId,
    command: '/bin/sh',
    args: ['-c', params.command],
    cwd: params.cwd,
    env: environment(params),
    outputByteLimit: params.outputByteLimit,
  });
  const terminal = { sessionId, terminalId };
  try {
    show(terminalId);
    const ended = await waitForExit(context, terminal, params.timeoutMs, signal);
    if (ended === 'cancelled') {
      await context.request('terminal/kill', terminal);
      throw new Error('the run was cancelled; the command was killed');
    }
    if (ended === 'timeout') await context.request('terminal/kill', terminal);
    const output: TerminalOutputResponse = await context.request('terminal/output', terminal);
    const status = ended === 'timeout' ? (output.exitStatus ?? {}) : ended;
    const kept = keepEnd(output.output, params.outputByteLimit);
    return {
      output: kept,
      truncated: output.truncated || kept !== output.output,
      exitCode: status.exitCode ?? null,
      signal: status.signal ?? null,
      timedOut: ended === 'timeout',
    };
  } finally {
    await context
      .request('terminal/release', terminal)
      .catch((error: unknown) =>
        editor.log.warn(`acp: terminal ${terminalId} was not released: ${reason(error)}`),
      );
  }
}

/**
 * The variables to set on top of the editor's environment. ACP can only set variables, so those
 * that must not reach the command (provider keys) are set empty; they win over `env`.
 */
function environment(params: TerminalRunParams): EnvVariable[] {
  const unset = new Set(params.unsetEnv);
  return [
    ...Object.entries(params.env)
      .filter(([name]) => !unset.has(name))
      .map(([name, value]) => ({ name, value })),
    ...[...unset].map((name) => ({ name, value: '' })),
  ];
}

async function waitForExit(
  context: AgentContext,
  terminal: { sessionId: string; terminalId: string },
  timeoutMs: number,
  signal: AbortSignal,
): Promise<TerminalExitStatus | 'timeout' | 'cancelled'> {
  const stop = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
  try {
    return await context.request('terminal/wait_for_exit', terminal, {
      cancellationSignal: stop,
      stopWaitingOnCancel: true,
    });
  } catch (error) {
    if (signal.aborted) return 'cancelled';
    if (stop.aborted) return 'timeout';
    throw error;
  }
}

/**
 * At most `limit` bytes of `text`, keeping the end (Santra's contract), for a client that returned
 * more than it was asked to keep. The cut moves forward to a character boundary.
 */
export function keepEnd(text: string, limit: number): string {
  const bytes = Buffer.from(text, 'utf8');
  return bytes.length <= limit ? text : charBoundarySuffix(bytes, limit).toString('utf8');
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
