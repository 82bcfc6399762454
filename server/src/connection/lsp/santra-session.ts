/**
 * One workspace's Santra: a fresh server behind an in-process link, spoken to through the
 * adapters' Santra client (adapters/santra-client.ts) exactly as any client would (protocol §3
 * lifecycle, §7 runs), so `santra lsp` adds no behaviour of its own; it lends Santra the editor's
 * buffers (§7.5) so Santra reads and edits what the user sees. Runs of one workspace
 * continue one Santra session, so a follow-up ("ask" after "explain") sees what came before; the
 * protocol runs one prompt at a time per session.
 */
import type {
  ApproveParams,
  ApproveResult,
  AskParams,
  AskResult,
  Phase,
  PromptParams,
  PromptResult,
  UndoneChange,
} from '#protocol';
import {
  type CancellationToken,
  CancellationTokenSource,
  ResponseError,
} from 'vscode-languageserver-protocol';
import {
  type LentCapabilities,
  type OpenOptions,
  Declined as SantraDeclined,
  SantraClient,
} from '../adapters/santra-client.ts';
import type { WriteOutcome } from './buffer-sync.ts';
import type { UndoScope } from './commands.ts';
import type { Declined } from './interactions.ts';

export interface SessionHandlers {
  approve(params: ApproveParams, token: CancellationToken): Promise<ApproveResult>;
  ask(params: AskParams, token: CancellationToken): Promise<AskResult | Declined>;
  /** The editor's text of the file at `path`, unsaved changes included; null: not open. */
  readText(path: string): Promise<string | null>;
  /** Puts an approved text into the editor's buffer of the file, if open. */
  writeText(path: string, text: string, signal: AbortSignal): Promise<WriteOutcome>;
}

export interface RunHandle {
  /** Resolves with the prompt's result, after every phase of the run. */
  readonly result: Promise<PromptResult>;
  /** Cancels the run (protocol §6.2): it ends with status `cancelled`. */
  cancel(): void;
}

/** A workspace's link as SantraClient.open takes it; `lend` names the buffers the handlers serve. */
export type SessionInit = Omit<OpenOptions, 'tag'> & { lend: LentCapabilities };

export class SantraSession {
  readonly root: string;
  readonly #client: SantraClient;
  #sessionId: string | undefined;
  #running: RunHandle | undefined;
  #onPhase: ((phase: Phase) => void) | undefined;

  private constructor(root: string, client: SantraClient, handlers: SessionHandlers) {
    this.root = root;
    this.#client = client;
    client.setHandlers({
      onPhase: (phase) => this.#onPhase?.(phase),
      onApprove: (params, signal) => handlers.approve(params, tokenOf(signal)),
      onAsk: async (params, signal) => {
        const answer = await handlers.ask(params, tokenOf(signal));
        if (answer instanceof ResponseError) throw new SantraDeclined(answer.message);
        return answer;
      },
      onReadTextFile: async ({ path }) => ({ text: await handlers.readText(path) }),
      onWriteTextFile: async ({ path, text }, signal) => {
        const outcome = await handlers.writeText(path, text, signal);
        if (!outcome.written) throw new SantraDeclined(outcome.reason);
        return {};
      },
    });
  }

  /** Opens and initializes a Santra server for the workspace; rejects with the server's error message. */
  static async open(init: SessionInit, handlers: SessionHandlers): Promise<SantraSession> {
    const client = await SantraClient.open({ ...init, tag: 'lsp' });
    return new SantraSession(init.workspaceRoot, client, handlers);
  }

  get busy(): boolean {
    return this.#running !== undefined;
  }

  /** Starts a run in this workspace's session; `onPhase` sees each of its phases in order. */
  prompt(params: Omit<PromptParams, 'sessionId'>, onPhase: (phase: Phase) => void): RunHandle {
    const cancellation = new AbortController();
    this.#onPhase = onPhase;
    const result = this.#client
      .prompt(
        { ...params, ...(this.#sessionId === undefined ? {} : { sessionId: this.#sessionId }) },
        cancellation.signal,
      )
      .then((answer) => {
        this.#sessionId = answer.sessionId;
        return answer;
      })
      .finally(() => {
        this.#running = undefined;
        this.#onPhase = undefined;
      });
    const handle = { result, cancel: () => cancellation.abort() };
    this.#running = handle;
    return handle;
  }

  cancel(): boolean {
    this.#running?.cancel();
    return this.#running !== undefined;
  }

  /**
   * Puts back what this workspace's runs changed (protocol §10.7 session/undo): the files are
   * restored on disk, asking first about one changed since. Nothing before the first run.
   */
  async undo(scope: UndoScope): Promise<UndoneChange[]> {
    if (this.#sessionId === undefined) return [];
    const { changes } = await this.#client.request('session/undo', { sessionId: this.#sessionId, scope });
    return changes;
  }

  /** Ends the Santra server as a client should (`shutdown`, `exit`), or hangs up if it will not. */
  close(): Promise<void> {
    return this.#client.close();
  }
}

/** The LSP side's cancellation token for a request Santra may withdraw (`signal`). */
function tokenOf(signal: AbortSignal): CancellationToken {
  const source = new CancellationTokenSource();
  if (signal.aborted) source.cancel();
  else signal.addEventListener('abort', () => source.cancel(), { once: true });
  return source.token;
}
