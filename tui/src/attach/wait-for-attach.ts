/**
 * How a worker's job with `approvalPolicy: "attach"` answers its server's approvals and questions:
 * it does not. It holds each one open for `timeoutSeconds` while the server puts it to the
 * clients attached to the session (`santra attach`, protocol §10.11); the first of them to answer
 * decides and the server withdraws this request. When nobody has answered by then, it refuses.
 */
import type { ApproveParams, ApproveResult, AskParams, AskResult } from '#protocol';
import type { Answerer } from '../client/session.ts';
import { QuestionUnanswerable, QuestionWithdrawn } from '../client/print-error.ts';
import { describeAction } from '../print/approvals.ts';

export interface WaitForAttachOptions {
  timeoutSeconds: number;
  /** The session, once known: named in what the worker says, so the user knows what to attach to. */
  sessionId: () => string | undefined;
  /** A line of the job's log (the worker's stderr). */
  note: (line: string) => void;
  /** What was refused, one line each: the job's result lists them. */
  refused: (line: string) => void;
}

export class WaitForAttach implements Answerer {
  readonly #options: WaitForAttachOptions;

  constructor(options: WaitForAttachOptions) {
    this.#options = options;
  }

  async approve(params: ApproveParams, signal: AbortSignal): Promise<ApproveResult> {
    const what = describeAction(params);
    if (await this.#wait(what, signal))
      throw new QuestionWithdrawn(`withdrawn (answered by an attached client): ${what}`);
    this.#options.refused(
      `rejected ${what}: no client attached and answered within ${this.#options.timeoutSeconds} s`,
    );
    return { decision: 'reject' };
  }

  async ask(params: AskParams, signal: AbortSignal): Promise<AskResult> {
    const what = `the question "${params.prompt.slice(0, 80)}"`;
    if (await this.#wait(what, signal))
      throw new QuestionWithdrawn(`withdrawn (answered by an attached client): ${what}`);
    this.#options.refused(
      `unanswered ${what}: no client attached and answered within ${this.#options.timeoutSeconds} s`,
    );
    throw new QuestionUnanswerable(
      `no client attached to the session answered within ${this.#options.timeoutSeconds} s`,
    );
  }

  /** True when the request was withdrawn (answered elsewhere); false when the time ran out. */
  #wait(what: string, signal: AbortSignal): Promise<boolean> {
    const { timeoutSeconds, sessionId, note } = this.#options;
    const id = sessionId();
    note(
      `santra: waiting up to ${timeoutSeconds} s for an attached client to answer: ${what}${id === undefined ? '' : ` (santra attach ${id})`}`,
    );
    return new Promise((resolve) => {
      if (signal.aborted) return resolve(true);
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', withdrawn);
        resolve(false);
      }, timeoutSeconds * 1000);
      const withdrawn = () => {
        clearTimeout(timer);
        resolve(true);
      };
      signal.addEventListener('abort', withdrawn, { once: true });
    });
  }
}
