/**
 * An editor adapter's side of one in-process Santra link: a Santra protocol client like any other
 * (initialize with the editor's workspace as root, typed requests checked against the method
 * table, `prompt` with cancellation, `approve` and `ask` answered, shutdown and exit). Everything
 * `santra acp` and `santra lsp` do to Santra goes through here, so each stays an adapter onto the
 * protocol rather than a second way into the runtime.
 */
import {
  type CancellationToken,
  CancellationTokenSource,
  type MessageConnection,
  ResponseError,
} from 'vscode-jsonrpc/node';
import {
  type ApproveParams,
  type ApproveResult,
  type AskParams,
  type AskResult,
  type ClientCapabilities,
  type ClientRequestName,
  type FsReadTextFileParams,
  type FsReadTextFileResult,
  type FsWriteTextFileParams,
  type FsWriteTextFileResult,
  JsonRpcErrorCodes,
  methods,
  type ParamsOf,
  type Phase,
  Phase as PhaseSchema,
  PROTOCOL_VERSION,
  type PromptResult,
  PromptResult as PromptResultSchema,
  type ResultOf,
  type ServerRequestName,
  type TerminalRunParams,
  type TerminalRunResult,
} from '#protocol';
import type { InProcessLink } from './in-process.ts';
import type { Logger } from '../../support/log.ts';

/** What the adapter does with what Santra sends it during a run. */
export interface SantraHandlers {
  onPhase(phase: Phase): void;
  /** Resolves with the decision; rejects with a `Declined` to answer RequestFailed. */
  onApprove(params: ApproveParams, signal: AbortSignal): Promise<ApproveResult>;
  onAsk(params: AskParams, signal: AbortSignal): Promise<AskResult>;
  /** Present when the link declared `capabilities.fs.readTextFile` (§7.5). */
  onReadTextFile?(params: FsReadTextFileParams, signal: AbortSignal): Promise<FsReadTextFileResult>;
  /** Present when the link declared `capabilities.fs.writeTextFile`. */
  onWriteTextFile?(params: FsWriteTextFileParams, signal: AbortSignal): Promise<FsWriteTextFileResult>;
  /** Present when the link declared `capabilities.terminal`. */
  onTerminalRun?(params: TerminalRunParams, signal: AbortSignal): Promise<TerminalRunResult>;
}

/** What an editor lends Santra (§7.5): declared in `initialize`, served by the matching handlers. */
export type LentCapabilities = Pick<ClientCapabilities, 'fs' | 'terminal'>;

/** The user (or the editor) would not or could not answer: Santra is told RequestFailed with why. */
export class Declined extends Error {}

/** A request Santra refused: its code and message pass on to the editor. */
export class SantraRefused extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

/** How an adapter opens a link: see SantraClient.open. */
export interface OpenOptions {
  link: InProcessLink;
  log: Logger;
  workspaceRoot: string;
  clientName: string;
  clientVersion?: string;
  /** The connection's default model (initialize's `model`); absent: the configured one. */
  model?: string;
  /** Which adapter this is, for the log: "acp", "lsp". */
  tag: string;
  /** The editor's files and terminals, lent to Santra; set the matching handlers before a prompt. */
  lend?: LentCapabilities;
}

const SHUTDOWN_GRACE_MS = 5000;

export class SantraClient {
  readonly #link: InProcessLink;
  readonly #connection: MessageConnection;
  readonly #log: Logger;
  /** Starts each log line: which adapter speaks ("acp", "lsp"). */
  readonly #tag: string;
  #handlers: SantraHandlers | undefined;
  #closing: Promise<void> | undefined;

  private constructor(link: InProcessLink, log: Logger, tag: string) {
    this.#link = link;
    this.#connection = link.client;
    this.#log = log;
    this.#tag = tag;
    this.#listen();
    this.#connection.listen();
  }

  /**
   * A fresh link, initialized on `workspaceRoot`. A root Santra refuses (not absolute, missing)
   * closes the link and rejects with its message.
   */
  static async open(options: OpenOptions): Promise<SantraClient> {
    const client = new SantraClient(options.link, options.log, options.tag);
    try {
      await client.request('initialize', {
        protocolVersion: PROTOCOL_VERSION,
        clientInfo: {
          name: options.clientName,
          ...(options.clientVersion === undefined ? {} : { version: options.clientVersion }),
        },
        workspaceRoot: options.workspaceRoot,
        capabilities: { approve: true, ask: true, diffs: true, ...options.lend },
        ...(options.model === undefined ? {} : { model: options.model }),
      });
      await client.#connection.sendNotification('initialized', {});
      return client;
    } catch (error) {
      await client.close();
      throw error;
    }
  }

  /** Where the phases, approvals and questions of this link's runs go. */
  setHandlers(handlers: SantraHandlers): void {
    this.#handlers = handlers;
  }

  /** Any request of the method table; its result checked against the table's schema. */
  async request<M extends Exclude<ClientRequestName, 'prompt' | 'shutdown'>>(
    method: M,
    params: ParamsOf<M>,
  ): Promise<ResultOf<M>> {
    const raw = await this.#send(method, params, undefined);
    const parsed = methods[method].result.safeParse(raw);
    if (!parsed.success)
      throw new SantraRefused(JsonRpcErrorCodes.InternalError, `${method}: invalid result`);
    return parsed.data as ResultOf<M>;
  }

  /**
   * Runs one prompt; `signal` cancels it with `$/cancelRequest`, and Santra still answers (status
   * `cancelled`) after every phase of the run.
   */
  async prompt(params: ParamsOf<'prompt'>, signal: AbortSignal): Promise<PromptResult> {
    const cancel = new CancellationTokenSource();
    const onAbort = () => cancel.cancel();
    signal.addEventListener('abort', onAbort);
    if (signal.aborted) cancel.cancel();
    try {
      const parsed = PromptResultSchema.safeParse(await this.#send('prompt', params, cancel.token));
      if (!parsed.success) throw new SantraRefused(JsonRpcErrorCodes.InternalError, 'prompt: invalid result');
      return parsed.data;
    } finally {
      signal.removeEventListener('abort', onAbort);
      cancel.dispose();
    }
  }

  /** Ends the link as a client should: shutdown (runs cancelled, sessions saved), exit; else close. */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    const polite = (async () => {
      await this.#connection.sendRequest('shutdown');
      await this.#connection.sendNotification('exit');
      await this.#link.ended;
    })();
    const timer = new Promise<'late'>((resolve) =>
      setTimeout(() => resolve('late'), SHUTDOWN_GRACE_MS).unref(),
    );
    const outcome = await Promise.race([polite.then(() => 'done' as const), timer]).catch(
      () => 'failed' as const,
    );
    if (outcome !== 'done')
      this.#log.warn(`${this.#tag}: a Santra link did not shut down cleanly (${outcome}); closing it`);
    await this.#link.close();
  }

  async #send(method: string, params: unknown, token: CancellationToken | undefined): Promise<unknown> {
    try {
      return token === undefined
        ? await this.#connection.sendRequest(method, params)
        : await this.#connection.sendRequest(method, params, token);
    } catch (error) {
      if (error instanceof ResponseError) throw new SantraRefused(error.code, error.message);
      throw error;
    }
  }

  #listen(): void {
    this.#connection.onNotification('phase', (raw: unknown) => {
      const phase = PhaseSchema.safeParse(raw);
      if (phase.success) this.#handlers?.onPhase(phase.data);
      else this.#log.warn(`${this.#tag}: ignored a phase that does not match the protocol`);
    });
    this.#serve('approve', (params, signal) => this.#handlers?.onApprove(params, signal));
    this.#serve('ask', (params, signal) => this.#handlers?.onAsk(params, signal));
    this.#serve('fs/readTextFile', (params, signal) => this.#handlers?.onReadTextFile?.(params, signal));
    this.#serve('fs/writeTextFile', (params, signal) => this.#handlers?.onWriteTextFile?.(params, signal));
    this.#serve('terminal/run', (params, signal) => this.#handlers?.onTerminalRun?.(params, signal));
  }

  /** Serves one of Santra's requests: params checked against the method table, then `handle`d. */
  #serve<M extends ServerRequestName>(
    method: M,
    handle: (params: ParamsOf<M>, signal: AbortSignal) => Promise<ResultOf<M>> | undefined,
  ): void {
    this.#connection.onRequest(method, (raw: unknown, token: CancellationToken) => {
      const params = methods[method].params.safeParse(raw);
      if (!params.success) return invalid(method);
      return this.#answer(method, (signal) => handle(params.data as ParamsOf<M>, signal), token);
    });
  }

  /** Answers one of Santra's requests; a decline or failure is RequestFailed, which Santra treats as no. */
  async #answer<T>(
    method: string,
    ask: (signal: AbortSignal) => Promise<T> | undefined,
    token: CancellationToken,
  ): Promise<T | ResponseError<{ retryable: boolean }>> {
    const controller = new AbortController();
    token.onCancellationRequested(() => controller.abort());
    try {
      const answer = ask(controller.signal);
      if (answer === undefined) return declined(`${method}: no editor session here serves it`);
      return await answer;
    } catch (error) {
      if (controller.signal.aborted) {
        return new ResponseError(JsonRpcErrorCodes.RequestCancelled, `${method} was cancelled`, {
          retryable: true,
        });
      }
      if (error instanceof Declined) return declined(error.message);
      this.#log.warn(
        `${this.#tag}: ${method} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
      return declined(
        `the editor could not be asked: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}

function declined(message: string): ResponseError<{ retryable: boolean }> {
  return new ResponseError(JsonRpcErrorCodes.RequestFailed, message, { retryable: false });
}

function invalid(method: string): ResponseError<{ retryable: boolean }> {
  return new ResponseError(JsonRpcErrorCodes.InvalidParams, `Invalid params for ${method}`, {
    retryable: false,
  });
}
