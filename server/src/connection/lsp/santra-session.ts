/**
 * One workspace's Santra: a fresh server behind an in-process link, spoken to exactly as any
 * client would (protocol §3 lifecycle, §7 runs), so `santra lsp` adds no behaviour of its own.
 * Runs of one workspace continue one Santra session, so a follow-up ("ask" after "explain")
 * sees what came before; the protocol runs one prompt at a time per session.
 */
import {
  type ApproveParams,
  type ApproveResult,
  type AskParams,
  type AskResult,
  type InitializeParams,
  type InitializeResult,
  type Phase,
  PROTOCOL_VERSION,
  type PromptParams,
  type PromptResult,
} from '#protocol';
import { type CancellationToken, CancellationTokenSource } from 'vscode-languageserver-protocol';
import type { InProcessLink } from '../adapters/in-process.ts';
import type { Declined } from './interactions.ts';

export interface SessionHandlers {
  approve(params: ApproveParams, token: CancellationToken): Promise<ApproveResult>;
  ask(params: AskParams, token: CancellationToken): Promise<AskResult | Declined>;
}

export interface RunHandle {
  /** Resolves with the prompt's result, after every phase of the run. */
  readonly result: Promise<PromptResult>;
  /** Cancels the run (protocol §6.2): it ends with status `cancelled`. */
  cancel(): void;
}

/** How long `close` waits for the Santra server to answer `shutdown` before it hangs up. */
const SHUTDOWN_WAIT_MS = 10_000;

export class SantraSession {
  readonly root: string;
  readonly #link: InProcessLink;
  #sessionId: string | undefined;
  #running: RunHandle | undefined;
  #onPhase: ((phase: Phase) => void) | undefined;

  private constructor(root: string, link: InProcessLink) {
    this.root = root;
    this.#link = link;
  }

  /** Opens and initializes a Santra server for `root`; rejects with the server's error message. */
  static async open(
    link: InProcessLink,
    init: Omit<InitializeParams, 'protocolVersion' | 'capabilities'>,
    handlers: SessionHandlers,
  ): Promise<SantraSession> {
    const session = new SantraSession(init.workspaceRoot, link);
    const client = link.client;
    client.onNotification('phase', (phase: Phase) => session.#onPhase?.(phase));
    client.onRequest('approve', (params: ApproveParams, token: CancellationToken) =>
      handlers.approve(params, token),
    );
    client.onRequest('ask', (params: AskParams, token: CancellationToken) => handlers.ask(params, token));
    client.listen();
    try {
      await client.sendRequest<InitializeResult>('initialize', {
        ...init,
        protocolVersion: PROTOCOL_VERSION,
        capabilities: { approve: true, ask: true },
      } satisfies InitializeParams);
    } catch (error) {
      await link.close();
      throw error;
    }
    await client.sendNotification('initialized', {});
    return session;
  }

  get busy(): boolean {
    return this.#running !== undefined;
  }

  /** Starts a run in this workspace's session; `onPhase` sees each of its phases in order. */
  prompt(params: Omit<PromptParams, 'sessionId'>, onPhase: (phase: Phase) => void): RunHandle {
    const cancellation = new CancellationTokenSource();
    this.#onPhase = onPhase;
    const result = this.#link.client
      .sendRequest<PromptResult>(
        'prompt',
        { ...params, ...(this.#sessionId === undefined ? {} : { sessionId: this.#sessionId }) },
        cancellation.token,
      )
      .then((answer) => {
        this.#sessionId = answer.sessionId;
        return answer;
      })
      .finally(() => {
        this.#running = undefined;
        this.#onPhase = undefined;
        cancellation.dispose();
      });
    const handle = { result, cancel: () => cancellation.cancel() };
    this.#running = handle;
    return handle;
  }

  cancel(): boolean {
    this.#running?.cancel();
    return this.#running !== undefined;
  }

  /** Ends the Santra server as a client should (`shutdown`, `exit`), or hangs up if it will not. */
  async close(): Promise<void> {
    const client = this.#link.client;
    const shutdown = client.sendRequest('shutdown').then(
      () => client.sendNotification('exit'),
      () => undefined,
    );
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_WAIT_MS)));
    await Promise.race([shutdown.then(() => this.#link.ended), late]);
    clearTimeout(timer);
    await this.#link.close();
  }
}
