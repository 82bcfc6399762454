/**
 * The connection's life (§3): where it stands (awaiting initialize … shut down, ended), the
 * requests running now, and the three ways it ends — `exit`, the client closing its input, a
 * framing error — each answering what was received before the runtime saves and the process exits.
 */

import { errorMessage } from '../support/errno.ts';
import type { Logger } from '../support/log.ts';
import { withTimeout } from '../support/time-limit.ts';
import type { Runtime } from '../runtime/contract.ts';

/** Why the connection ended, and the process exit code that goes with it. */
export interface ConnectionEnd {
  reason: 'exit' | 'input_closed' | 'framing_error';
  /** 0 after `shutdown`; 1 without it; 3 when the framing could not be trusted. */
  exitCode: 0 | 1 | 3;
}

export type LifecycleState = 'awaiting_initialize' | 'initializing' | 'running' | 'shut_down' | 'ended';

export interface LifecycleParts {
  runtime: Pick<Runtime, 'shutdown'>;
  /** Counts the client's requests not yet answered. */
  inbound: { readonly inFlight: number; inFlightAtMost(atMost: number): Promise<void> };
  /** Resolves once every frame written so far is out. */
  drained(): Promise<void>;
  /** Fails the server's own requests still waiting for an answer. */
  closeClientRequests(reason: string): void;
  /** Releases the transport; called last. */
  dispose(): void;
  log: Logger;
  /** How long an ending waits for running requests to be answered, and then for the runtime to save, in ms (each). */
  graceMs: number;
}

export class ConnectionLifecycle {
  state: LifecycleState = 'awaiting_initialize';
  /** Set when stdin has ended: requests already received are still answered, all cancelled. */
  inputClosed = false;
  readonly ended: Promise<ConnectionEnd>;
  readonly #parts: LifecycleParts;
  readonly #running = new Set<AbortController>();
  #runtimeStopped: Promise<void> | undefined;
  #resolveEnded: (end: ConnectionEnd) => void = () => {};

  constructor(parts: LifecycleParts) {
    this.#parts = parts;
    this.ended = new Promise((resolve) => {
      this.#resolveEnded = resolve;
    });
  }

  /** A request starts running; abort its controller to cancel it, and `release` it once answered. */
  started(controller: AbortController): { release(): void } {
    this.#running.add(controller);
    return { release: () => this.#running.delete(controller) };
  }

  /** Cancels what runs, lets every other request be answered first (§3.3), then saves. */
  async shutdown(): Promise<null> {
    this.state = 'shut_down';
    this.#abortRunning('server shutting down');
    await this.#answered(1, 'shutdown');
    await this.#stopRuntime();
    return null;
  }

  async end(result: ConnectionEnd): Promise<void> {
    if (this.state === 'ended') return;
    this.state = 'ended';
    const { graceMs, log } = this.#parts;
    await this.#stopRuntime();
    await withTimeout(this.#parts.drained(), graceMs, () => new Error('output did not drain')).catch(() =>
      log.warn('output did not drain before exit'),
    );
    this.#parts.closeClientRequests('the connection has ended');
    this.#parts.dispose();
    this.#resolveEnded(result);
  }

  /** The `exit` notification: exit code 0 only after `shutdown` (§3.4). */
  exit(): Promise<void> {
    return this.end({ reason: 'exit', exitCode: this.state === 'shut_down' ? 0 : 1 });
  }

  /**
   * End of input: the requests already received are still answered — each cancelled, since no
   * answer to an `approve` can arrive any more — before the connection ends (§3.5).
   */
  async inputEnded(): Promise<void> {
    if (this.inputClosed || this.state === 'ended') return;
    this.inputClosed = true;
    this.#abortRunning('the client closed its input');
    this.#parts.closeClientRequests('the client closed its input, so no answer can arrive');
    await this.#answered(0, 'the input closed');
    await this.end({ reason: 'input_closed', exitCode: this.state === 'shut_down' ? 0 : 1 });
  }

  #abortRunning(reason: string): void {
    for (const controller of this.#running) controller.abort(new Error(reason));
  }

  /**
   * Resolves once at most `atMost` client requests are unanswered, or after the grace period.
   * Cancelled runs answer within a second (§6.2); the grace period only bounds a stuck handler.
   */
  async #answered(atMost: number, occasion: string): Promise<void> {
    const { inbound, graceMs, log } = this.#parts;
    await withTimeout(inbound.inFlightAtMost(atMost), graceMs, () => new Error('unanswered')).catch(() =>
      log.warn(`${inbound.inFlight - atMost} request(s) still unanswered ${graceMs} ms after ${occasion}`),
    );
  }

  /** Aborts all running requests and lets the runtime save its state, at most once and within the grace period. */
  #stopRuntime(): Promise<void> {
    if (this.#runtimeStopped === undefined) {
      const { runtime, graceMs, log } = this.#parts;
      this.#abortRunning('server shutting down');
      this.#runtimeStopped = withTimeout(
        runtime.shutdown(),
        graceMs,
        () => new Error(`did not finish within ${graceMs} ms`),
      ).catch((error: unknown) => {
        log.error(`runtime shutdown failed: ${errorMessage(error)}`);
      });
    }
    return this.#runtimeStopped;
  }
}
