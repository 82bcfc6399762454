/**
 * One santra-server child process and the protocol conversation with it: spawn, handshake,
 * `prompt`, cancellation, and the orderly (or forced) end. The server's stdout carries protocol
 * only; its stderr is passed through (--verbose) or kept as a tail to show if it dies.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import {
  type ApproveParams,
  type ApproveResult,
  type AskParams,
  type AskResult,
  type ClientCapabilities,
  type ClientRequestName,
  type InitializeResult,
  type ParamsOf,
  type Phase,
  PROTOCOL_VERSION,
  type PromptResult,
  type ResultOf,
} from '#protocol';
import {
  ConnectionLost,
  Declined,
  IncompatibleVersion,
  InvalidResult,
  ProtocolClient,
  Withdrawn,
} from '#protocol/client';

/** A failure that ends `santra -p`, with the one-line message for stderr. */
export { PrintError } from './print-error.ts';
import { PrintError, QuestionUnanswerable, QuestionWithdrawn } from './print-error.ts';

const STDERR_TAIL_LINES = 50;
const GRACE_MS = 2000;

/**
 * Whoever answers the server's questions: rejects with QuestionWithdrawn when the server withdrew
 * one, QuestionUnanswerable when it cannot be answered here.
 */
export interface Answerer {
  approve(params: ApproveParams, signal: AbortSignal): Promise<ApproveResult>;
  ask(params: AskParams, signal: AbortSignal): Promise<AskResult>;
}

export interface SessionOptions {
  /** The started santra-server process; the session owns it from now on. */
  server: ChildProcessWithoutNullStreams;
  workspaceRoot: string;
  /** `clientInfo.name` in `initialize`: `santra-print` (the default) or `santra-tui`. */
  clientName?: string;
  clientVersion: string;
  capabilities: ClientCapabilities;
  /** Answers `approve` and `ask` (on the terminal, by policy, or from a recording). */
  approvals: Answerer;
  /** Pass the server's stderr through to ours (otherwise only its tail is kept). */
  verbose: boolean;
  stderr: NodeJS.WritableStream;
  onPhase: (raw: unknown, phase: Phase | undefined) => void;
}

export class ServerSession {
  readonly #options: SessionOptions;
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #client: ProtocolClient;
  readonly #tail: string[] = [];
  /** Rejects with a PrintError when the server goes away without being asked to. */
  readonly #died: Promise<never>;
  readonly #closed: Promise<void>;
  #closing = false;
  #prompt: AbortController | undefined;

  constructor(options: SessionOptions) {
    this.#options = options;
    this.#child = options.server;
    this.#child.stdin.on('error', () => {}); // EPIPE once it has died; the exit is reported below.
    this.#collectStderr();
    let spawnError: Error | undefined;
    this.#child.on('error', (error) => (spawnError = error));
    this.#closed = new Promise((resolve) => this.#child.on('close', () => resolve()));
    this.#died = this.#closed.then(() => {
      throw new PrintError(this.#deathMessage(spawnError));
    });
    this.#died.catch(() => {});
    const { approvals, onPhase } = options;
    this.#client = ProtocolClient.overStreams(this.#child.stdout, this.#child.stdin, {
      onPhase: (phase, raw) => onPhase(raw, phase),
    });
    this.#client.serve('approve', (params, signal) => answered(approvals.approve(params, signal)));
    this.#client.serve('ask', (params, signal) => answered(approvals.ask(params, signal)));
  }

  /**
   * Opens the connection: `initialize`, then `initialized`. Resolves with the server's answer (its
   * capabilities.methods say which optional methods it offers). Rejects with a PrintError.
   */
  async initialize(): Promise<InitializeResult> {
    const params: ParamsOf<'initialize'> = {
      protocolVersion: PROTOCOL_VERSION,
      clientInfo: { name: this.#options.clientName ?? 'santra-print', version: this.#options.clientVersion },
      workspaceRoot: this.#options.workspaceRoot,
      capabilities: this.#options.capabilities,
    };
    try {
      return await this.#request(() => this.#client.initialize(params), 'initialize');
    } catch (error) {
      if (error instanceof PrintError && error.cause instanceof IncompatibleVersion) {
        throw new PrintError(
          `santra: santra-server speaks protocol ${error.cause.serverVersion}, this santra speaks ${PROTOCOL_VERSION}; install matching versions`,
        );
      }
      if (error instanceof PrintError && error.cause instanceof InvalidResult) {
        throw new PrintError(
          `santra: santra-server answered initialize with an invalid result; is it a Santra server?`,
        );
      }
      throw error;
    }
  }

  /** Runs one prompt to its end. Rejects with a PrintError when it fails or the server dies. */
  async prompt(params: ParamsOf<'prompt'>): Promise<PromptResult> {
    this.#prompt = new AbortController();
    try {
      return await this.#request(
        () => this.#client.request('prompt', params, this.#prompt?.signal),
        'the prompt',
      );
    } finally {
      this.#prompt = undefined;
    }
  }

  /**
   * Any request a client sends, its result checked against the method table's result schema.
   * Rejects with a PrintError: the server's message when it refused, or an invalid result.
   */
  async request<M extends Exclude<ClientRequestName, 'initialize' | 'prompt' | 'shutdown'>>(
    method: M,
    params: ParamsOf<M>,
  ): Promise<ResultOf<M>> {
    return this.#request(() => this.#client.request(method, params), method);
  }

  /** The models the server knows, with the current one. Rejects with a PrintError. */
  models(): Promise<ResultOf<'model/list'>> {
    return this.request('model/list', {});
  }

  /** The agents of this workspace, and the custom agent files that were skipped. Rejects with a PrintError. */
  agents(): Promise<ResultOf<'agents/list'>> {
    return this.request('agents/list', {});
  }

  /** Saved sessions of this workspace, newest first (one page). Rejects with a PrintError. */
  sessions(limit?: number): Promise<ResultOf<'session/list'>> {
    return this.request('session/list', limit === undefined ? {} : { limit });
  }

  /**
   * Loads a saved session for the next prompt; with `afterSeq`, its saved phases above that seq
   * come again (through onPhase) before the answer. Rejects with a PrintError (the server's message).
   */
  resume(sessionId: string, afterSeq?: number): Promise<ResultOf<'session/resume'>> {
    return this.request('session/resume', afterSeq === undefined ? { sessionId } : { sessionId, afterSeq });
  }

  /** Asks the server to cancel the running prompt ($/cancelRequest); it still answers it. */
  cancelPrompt(): void {
    this.#prompt?.abort();
  }

  /** Ends the conversation: `shutdown`, `exit`, then waits for the process (killing it if it lingers). */
  async close(): Promise<void> {
    if (this.#closing) return this.#closed;
    this.#closing = true;
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      const shutdown = this.#client.shutdown().then(
        () => true,
        () => false,
      );
      const exitSent = await Promise.race([shutdown, this.#closed.then(() => false), delay(GRACE_MS)]);
      // A server told to `exit` leaves on its own; closing its stdin first would race that
      // notification against the end of the stream.
      if (exitSent === true) await Promise.race([this.#closed, delay(GRACE_MS)]);
      this.#child.stdin.end();
      await Promise.race([this.#closed, delay(GRACE_MS)]);
      this.kill();
    }
    await this.#closed;
    this.#client.dispose();
  }

  /** Kills the server at once (a second Ctrl-C, or one that would not exit). */
  kill(): void {
    this.#closing = true;
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill('SIGKILL');
  }

  /**
   * A request's answer, or a PrintError: the server's message when it refused, an invalid result,
   * or the death of the server (with its stderr) when the connection broke.
   */
  async #request<T>(send: () => Promise<T>, what: string): Promise<T> {
    try {
      return await Promise.race([send(), this.#died]);
    } catch (error) {
      if (error instanceof PrintError) throw error;
      // A message that could not be written or answered means the process is gone or going:
      // report that, with its stderr, rather than the broken pipe.
      if (error instanceof ConnectionLost) await Promise.race([this.#died, delay(GRACE_MS)]);
      if (error instanceof InvalidResult) {
        throw new PrintError(`santra: santra-server answered ${what} with an invalid result`, {
          cause: error,
        });
      }
      const message = error instanceof Error ? error.message : String(error);
      throw new PrintError(`santra: santra-server refused ${what}: ${message}`, { cause: error });
    }
  }

  #collectStderr(): void {
    let partial = '';
    this.#child.stderr.on('data', (chunk: Buffer) => {
      if (this.#options.verbose) {
        this.#options.stderr.write(chunk);
        return;
      }
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      this.#tail.push(...lines);
      this.#tail.splice(0, Math.max(0, this.#tail.length - STDERR_TAIL_LINES));
    });
    this.#child.stderr.on('end', () => {
      if (partial !== '') this.#tail.push(partial);
      this.#tail.splice(0, Math.max(0, this.#tail.length - STDERR_TAIL_LINES));
    });
  }

  #deathMessage(spawnError: Error | undefined): string {
    const [command, ...args] = this.#child.spawnargs;
    // `node [flags] server.js`, or the server itself: name the script, not a Node flag.
    const program = args.findLast((arg) => !arg.startsWith('-')) ?? command ?? 'santra-server';
    if (spawnError !== undefined) {
      return `santra: could not start santra-server (${program}): ${spawnError.message}`;
    }
    const { exitCode, signalCode } = this.#child;
    const how = signalCode === null ? `with code ${exitCode}` : `on signal ${signalCode}`;
    const tail =
      this.#options.verbose || this.#tail.length === 0
        ? ''
        : `\nits last ${this.#tail.length} stderr lines:\n${this.#tail.map((line) => `  | ${line}`).join('\n')}`;
    return `santra: santra-server (${program}) exited unexpectedly ${how}${tail}`;
  }
}

/**
 * The answer of the terminal (or a policy, or a recording), in the client library's terms: a
 * question withdrawn is Withdrawn, one that cannot be answered here is Declined with why.
 */
async function answered<T>(answer: Promise<T>): Promise<T> {
  try {
    return await answer;
  } catch (error) {
    if (error instanceof QuestionWithdrawn) throw new Withdrawn(error.message);
    if (error instanceof QuestionUnanswerable) throw new Declined(error.message);
    throw new Declined(`santra failed to answer: ${String(error)}`);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
