/**
 * An editor adapter's side of one in-process Santra link: a Santra protocol client like any other
 * (initialize with the editor's workspace as root, typed requests checked against the method
 * table, `prompt` with cancellation, `approve` and `ask` answered, shutdown and exit). Everything
 * `santra acp` and `santra lsp` do to Santra goes through here, so each stays an adapter onto the
 * protocol rather than a second way into the runtime.
 */
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
  type ParamsOf,
  type Phase,
  PROTOCOL_VERSION,
  type PromptResult,
  type ResultOf,
  type ServerRequestName,
  type TerminalRunParams,
  type TerminalRunResult,
} from '#protocol';
import { Declined, ProtocolClient, ProtocolError } from '#protocol/client';
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
export { Declined };

/** A request Santra refused (or answered with what the protocol does not allow): its code and message pass on to the editor. */
export { ProtocolError as SantraRefused };

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
  readonly #client: ProtocolClient;
  readonly #log: Logger;
  /** Starts each log line: which adapter speaks ("acp", "lsp"). */
  readonly #tag: string;
  #handlers: SantraHandlers | undefined;
  #closing: Promise<void> | undefined;

  private constructor(link: InProcessLink, log: Logger, tag: string) {
    this.#link = link;
    this.#log = log;
    this.#tag = tag;
    this.#client = new ProtocolClient(link.client, {
      onPhase: (phase) => {
        if (phase !== undefined) this.#handlers?.onPhase(phase);
        else this.#log.warn(`${this.#tag}: ignored a phase that does not match the protocol`);
      },
      onHandlerError: (method, error) =>
        this.#log.warn(
          `${this.#tag}: ${method} failed: ${error instanceof Error ? error.message : String(error)}`,
        ),
    });
    this.#serve('approve', (params, signal) => this.#handlers?.onApprove(params, signal));
    this.#serve('ask', (params, signal) => this.#handlers?.onAsk(params, signal));
    this.#serve('fs/readTextFile', (params, signal) => this.#handlers?.onReadTextFile?.(params, signal));
    this.#serve('fs/writeTextFile', (params, signal) => this.#handlers?.onWriteTextFile?.(params, signal));
    this.#serve('terminal/run', (params, signal) => this.#handlers?.onTerminalRun?.(params, signal));
  }

  /**
   * A fresh link, initialized on `workspaceRoot`. A root Santra refuses (not absolute, missing)
   * closes the link and rejects with its message.
   */
  static async open(options: OpenOptions): Promise<SantraClient> {
    const client = new SantraClient(options.link, options.log, options.tag);
    try {
      await client.#client.initialize({
        protocolVersion: PROTOCOL_VERSION,
        clientInfo: {
          name: options.clientName,
          ...(options.clientVersion === undefined ? {} : { version: options.clientVersion }),
        },
        workspaceRoot: options.workspaceRoot,
        capabilities: { approve: true, ask: true, diffs: true, ...options.lend },
        ...(options.model === undefined ? {} : { model: options.model }),
      });
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

  /** Any request of the method table; its result checked against the table's schema. Rejects with SantraRefused. */
  request<M extends Exclude<ClientRequestName, 'initialize' | 'prompt' | 'shutdown'>>(
    method: M,
    params: ParamsOf<M>,
  ): Promise<ResultOf<M>> {
    return this.#client.request(method, params);
  }

  /**
   * Runs one prompt; `signal` cancels it with `$/cancelRequest`, and Santra still answers (status
   * `cancelled`) after every phase of the run.
   */
  prompt(params: ParamsOf<'prompt'>, signal: AbortSignal): Promise<PromptResult> {
    return this.#client.request('prompt', params, signal);
  }

  /** Ends the link as a client should: shutdown (runs cancelled, sessions saved), exit; else close. */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    const polite = (async () => {
      await this.#client.shutdown();
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

  /** Serves one of Santra's requests with the handler set for this link's runs, if any. */
  #serve<M extends ServerRequestName>(
    method: M,
    handle: (params: ParamsOf<M>, signal: AbortSignal) => Promise<ResultOf<M>> | undefined,
  ): void {
    this.#client.serve(method, async (params, signal) => {
      const answer = handle(params, signal);
      if (answer === undefined) throw new Declined(`${method}: no editor session here serves it`);
      try {
        return await answer;
      } catch (error) {
        if (error instanceof Declined || signal.aborted) throw error;
        const message = error instanceof Error ? error.message : String(error);
        this.#log.warn(`${this.#tag}: ${method} failed: ${message}`);
        throw new Declined(`the editor could not be asked: ${message}`, { cause: error });
      }
    });
  }
}
