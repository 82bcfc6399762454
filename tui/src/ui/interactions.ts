/**
 * The server's `approve` and `ask` requests as a queue the UI shows one at a time: several agents
 * of a swarm may ask at once, and each request waits for its own answer. A request the server
 * withdraws ($/cancelRequest, e.g. when the run is cancelled) leaves the queue at once and is
 * answered RequestCancelled by the session (QuestionWithdrawn).
 */
import type { ApproveParams, ApproveResult, AskParams, AskResult } from '#protocol';
import { QuestionWithdrawn } from '../client/print-error.ts';

export type Interaction =
  | { id: number; kind: 'approve'; params: ApproveParams; answer: (result: ApproveResult) => void }
  | { id: number; kind: 'ask'; params: AskParams; answer: (result: AskResult) => void };

/** An approval the user answered: what was asked, and the answer. */
export type Answered = { params: ApproveParams; result: ApproveResult };

export class Interactions {
  #queue: Interaction[] = [];
  #nextId = 1;
  #withdraw = new Map<number, () => void>();
  readonly #onChange: (queue: readonly Interaction[]) => void;
  readonly #onApproved: ((answered: Answered) => void) | undefined;

  /** `onApproved`: each approval the user answers, as it is answered (the transcript shows it). */
  constructor(onChange: (queue: readonly Interaction[]) => void, onApproved?: (answered: Answered) => void) {
    this.#onChange = onChange;
    this.#onApproved = onApproved;
  }

  get queue(): readonly Interaction[] {
    return this.#queue;
  }

  approve(params: ApproveParams, signal: AbortSignal): Promise<ApproveResult> {
    return this.#enqueue<ApproveResult>(signal, (id, answer) => ({
      id,
      kind: 'approve',
      params,
      answer: (result) => {
        if (answer(result)) this.#onApproved?.({ params, result });
      },
    }));
  }

  ask(params: AskParams, signal: AbortSignal): Promise<AskResult> {
    return this.#enqueue(signal, (id, answer) => ({ id, kind: 'ask', params, answer }));
  }

  /** Withdraws every request on screen (the user cancelled the run). */
  withdrawAll(): void {
    for (const withdraw of [...this.#withdraw.values()]) withdraw();
  }

  /** `make` builds the request; its `answer` returns whether it was the answer (not one too late). */
  #enqueue<R>(
    signal: AbortSignal,
    make: (id: number, answer: (result: R) => boolean) => Interaction,
  ): Promise<R> {
    if (signal.aborted) return Promise.reject(new QuestionWithdrawn('the question was withdrawn'));
    const id = this.#nextId++;
    return new Promise<R>((resolve, reject) => {
      const settle = () => {
        signal.removeEventListener('abort', onAbort);
        this.#withdraw.delete(id);
        this.#queue = this.#queue.filter((item) => item.id !== id);
        this.#onChange(this.#queue);
      };
      const onAbort = () => {
        settle();
        reject(new QuestionWithdrawn('the question was withdrawn before it was answered'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#withdraw.set(id, onAbort);
      this.#queue = [
        ...this.#queue,
        make(id, (result) => {
          if (!this.#withdraw.has(id)) return false; // answered or withdrawn already
          settle();
          resolve(result);
          return true;
        }),
      ];
      this.#onChange(this.#queue);
    });
  }
}
