/**
 * One santra-server child process and the protocol conversation with it: spawn, handshake,
 * `prompt`, cancellation, and the orderly (or forced) end. The server's stdout carries protocol
 * only; its stderr is passed through (--verbose) or kept as a tail to show if it dies.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import {
  type CancellationToken,
  CancellationTokenSource,
  createMessageConnection,
  ErrorCodes,
  type MessageConnection,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node';
import {
  ApproveParams,
  AskParams,
  type ClientCapabilities,
  type ClientRequestName,
  InitializeResult,
  isCompatibleVersion,
  JsonRpcErrorCodes,
  methods,
  type ParamsOf,
  type ResultOf,
  type Phase,
  PROTOCOL_VERSION,
  PromptResult,
} from '#protocol';
import { type Approvals, QuestionUnanswerable, QuestionWithdrawn } from './approvals.ts';
import { parsePhase } from './output.ts';

/** A failure that ends `santra -p`, with the one-line message for stderr. */
export { PrintError } from './print-error.ts';
import { PrintError } from './print-error.ts';

const STDERR_TAIL_LINES = 50;
const TRANSPORT_ERRORS = new Set<number>([
  ErrorCodes.MessageWriteError,
  ErrorCodes.MessageReadError,
  ErrorCodes.PendingResponseRejected,
  ErrorCodes.ConnectionInactive,
]);
const GRACE_MS = 2000;

export interface SessionOptions {
  /** The started santra-server process; the session owns it from now on. */
  server: ChildProcessWithoutNullStreams;
  workspaceRoot: string;
  /** `clientInfo.name` in `initialize`: `santra-print` (the default) or `santra-tui`. */
  clientName?: string;
  clientVersion: string;
  capabilities: ClientCapabilities;
  /** Answers `approve` and `ask` (on the terminal, by policy, or from a recording). */
  approvals: Pick<Approvals, 'approve' | 'ask'>;
  /** Pass the server's stderr through to ours (otherwise only its tail is kept). */
  verbose: boolean;
  stderr: NodeJS.WritableStream;
  onPhase: (raw: unknown, phase: Phase | undefined) => void;
}

export class ServerSession {
  readonly #options: SessionOptions;
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #connection: MessageConnection;
  readonly #tail: string[] = [];
  /** Rejects with a PrintError when the server goes away without being asked to. */
  readonly #died: Promise<never>;
  readonly #closed: Promise<void>;
  #closing = false;
  #prompt: CancellationTokenSource | undefined;

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
    this.#connection = createMessageConnection(
      new StreamMessageReader(this.#child.stdout),
      new StreamMessageWriter(this.#child.stdin),
    );
    this.#connection.onError(() => {}); // Transport errors surface as the death of the server.
    this.#listen();
    this.#connection.listen();
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
    const raw = await this.#request('initialize', params, undefined, 'initialize');
    const result = InitializeResult.safeParse(raw);
    if (!result.success) {
      throw new PrintError(
        `santra: santra-server answered initialize with an invalid result; is it a Santra server?`,
      );
    }
    if (!isCompatibleVersion(PROTOCOL_VERSION, result.data.protocolVersion)) {
      throw new PrintError(
        `santra: santra-server speaks protocol ${result.data.protocolVersion}, this santra speaks ${PROTOCOL_VERSION}; install matching versions`,
      );
    }
    await this.#connection.sendNotification('initialized', {});
    return result.data;
  }

  /** Runs one prompt to its end. Rejects with a PrintError when it fails or the server dies. */
  async prompt(params: ParamsOf<'prompt'>): Promise<PromptResult> {
    this.#prompt = new CancellationTokenSource();
    try {
      const raw = await this.#request('prompt', params, this.#prompt, 'the prompt');
      const result = PromptResult.safeParse(raw);
      if (!result.success) {
        throw new PrintError('santra: santra-server answered the prompt with an invalid result');
      }
      return result.data;
    } finally {
      this.#prompt.dispose();
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
    const parsed = methods[method].result.safeParse(await this.#request(method, params, undefined, method));
    if (!parsed.success)
      throw new PrintError(`santra: santra-server answered ${method} with an invalid result`);
    return parsed.data as ResultOf<M>;
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
    this.#prompt?.cancel();
  }

  /** Ends the conversation: `shutdown`, `exit`, then waits for the process (killing it if it lingers). */
  async close(): Promise<void> {
    if (this.#closing) return this.#closed;
    this.#closing = true;
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      const shutdown = this.#connection.sendRequest('shutdown').then(
        () => this.#connection.sendNotification('exit').then(() => true),
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
    this.#connection.dispose();
  }

  /** Kills the server at once (a second Ctrl-C, or one that would not exit). */
  kill(): void {
    this.#closing = true;
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill('SIGKILL');
  }

  async #request(
    method: string,
    params: unknown,
    cancel: CancellationTokenSource | undefined,
    what: string,
  ): Promise<unknown> {
    try {
      const sent =
        cancel === undefined
          ? this.#connection.sendRequest(method, params)
          : this.#connection.sendRequest(method, params, cancel.token);
      return await Promise.race([sent, this.#died]);
    } catch (error) {
      if (error instanceof PrintError) throw error;
      // A message that could not be written or answered means the process is gone or going:
      // report that, with its stderr, rather than the broken pipe.
      if (error instanceof ResponseError && TRANSPORT_ERRORS.has(error.code)) {
        await Promise.race([this.#died, delay(GRACE_MS)]);
      }
      const message = error instanceof Error ? error.message : String(error);
      throw new PrintError(`santra: santra-server refused ${what}: ${message}`);
    }
  }

  #listen(): void {
    const { approvals, onPhase } = this.#options;
    this.#connection.onNotification('phase', (raw: unknown) => onPhase(raw, parsePhase(raw)));
    this.#connection.onRequest('approve', async (raw: unknown, token: CancellationToken) => {
      const params = ApproveParams.safeParse(raw);
      if (!params.success) return invalidParams('approve', params.error.issues);
      return answer('approve', () => approvals.approve(params.data, abortOn(token)));
    });
    this.#connection.onRequest('ask', async (raw: unknown, token: CancellationToken) => {
      const params = AskParams.safeParse(raw);
      if (!params.success) return invalidParams('ask', params.error.issues);
      return answer('ask', () => approvals.ask(params.data, abortOn(token)));
    });
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

async function answer<T>(
  method: string,
  ask: () => Promise<T>,
): Promise<T | ResponseError<{ retryable: boolean }>> {
  try {
    return await ask();
  } catch (error) {
    if (error instanceof QuestionWithdrawn) {
      return new ResponseError(JsonRpcErrorCodes.RequestCancelled, `${method} was cancelled`, {
        retryable: true,
      });
    }
    const message =
      error instanceof QuestionUnanswerable ? error.message : `santra failed to answer: ${String(error)}`;
    return new ResponseError(JsonRpcErrorCodes.RequestFailed, message, { retryable: false });
  }
}

function invalidParams(method: string, issues: readonly { path: PropertyKey[]; message: string }[]) {
  const described = issues.map((issue) => `params.${issue.path.join('.')}: ${issue.message}`);
  return new ResponseError(
    JsonRpcErrorCodes.InvalidParams,
    `Invalid params for ${method}: ${described.join('; ')}`,
    {
      retryable: false,
    },
  );
}

function abortOn(token: CancellationToken): AbortSignal {
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort();
  else token.onCancellationRequested(() => controller.abort());
  return controller.signal;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
