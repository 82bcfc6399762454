/**
 * Santra's `approve` and `ask` requests, put to the person at the editor. LSP's one way to ask is
 * `window/showMessageRequest` (buttons, no free text), and not every editor has it — Helix
 * releases up to 25.07 do not. So an interaction goes to `showMessageRequest` when the editor
 * declared it (`window.showMessage`) and has choices to offer; otherwise it waits as a pending
 * interaction that the editor answers through code actions (one per choice) or the `santra.answer`
 * command, which also carries free text: a question's answer, or an approval's feedback. Code
 * actions and commands reach Santra only from files whose language has santra among its servers.
 */
import type { ApproveParams, ApproveResult, AskParams, AskResult } from '#protocol';
import { JsonRpcErrorCodes } from '#protocol';
import {
  type CancellationToken,
  ErrorCodes,
  MessageType,
  ResponseError,
  ShowMessageRequest,
} from 'vscode-languageserver-protocol';
import { showMessage } from './messages.ts';
import type { Connection } from 'vscode-languageserver';
import { approvalDetail, approvalSummary } from './approval-text.ts';
import { hunkButtons, linesLabel, type PendingHunk, pendingHunks } from './hunk-actions.ts';

/** A request declined with RequestFailed (protocol §7.3, §7.4). */
export type Declined = ResponseError<{ retryable: boolean }>;

export interface Choice {
  title: string;
  /** What answering with this choice sends back: a decision or an option's value. */
  answer: string;
  /** With answer `allow`: only these hunks of the change (§7.3.2). */
  hunks?: string[];
}

/** What the editor answered: a choice's answer or free text, and the hunks it names if any. */
export interface Answer {
  answer: string;
  hunks?: string[];
}

export interface PendingInteraction {
  id: string;
  kind: 'approve' | 'ask';
  /** One line naming what is asked, for code action titles. */
  subject: string;
  choices: Choice[];
  /** A change of several hunks: each can be applied alone, from a code action on its lines. */
  hunks: PendingHunk[];
}

interface Waiting extends PendingInteraction {
  settle: (answer: Answer) => void;
}

/** The editor turned out not to answer showMessageRequest. */
const UNSUPPORTED = Symbol('unsupported');

const APPROVE_CHOICES: Choice[] = [
  { title: 'allow', answer: 'allow' },
  { title: 'allow all', answer: 'allow_all' },
  { title: 'reject', answer: 'reject' },
];
/** A protected location is decided one action at a time (protocol §7.3): no allow-all offered. */
const PROTECTED_CHOICES: Choice[] = [
  { title: 'allow', answer: 'allow' },
  { title: 'reject', answer: 'reject' },
];

/**
 * How to answer a pending interaction without buttons: a code action, or the command as a command
 * line takes it (each argument a JSON value, so text in double quotes).
 */
function answerHint(kind: 'approve' | 'ask', choices: readonly Choice[], hunks: number): string {
  if (kind === 'ask') return 'answer from the code actions, or with santra.answer "your answer"';
  const [first = '"allow"', ...others] = choices.map((choice) => JSON.stringify(choice.answer));
  const where =
    hunks > 0 ? `the code actions (on a changed line: that hunk of the ${hunks} alone)` : 'the code actions';
  return `answer from ${where}, or with santra.answer ${first} (or ${[...others, '"your feedback"'].join(', ')})`;
}

export class Interactions {
  readonly #connection: Connection;
  #buttons: boolean;
  readonly #waiting = new Map<string, Waiting>();
  #next = 1;

  /** `buttons`: the editor declared `window.showMessage`, so showMessageRequest is worth trying. */
  constructor(connection: Connection, buttons: boolean) {
    this.#connection = connection;
    this.#buttons = buttons;
  }

  pending(): PendingInteraction[] {
    return [...this.#waiting.values()].map(({ id, kind, subject, choices, hunks }) => ({
      id,
      kind,
      subject,
      choices,
      hunks,
    }));
  }

  /**
   * Answers the interaction `id` (or the oldest one): false when there is none. Free text
   * answering an approval is feedback: rejected, with the text for the model. `hunks` (with
   * `allow`) names the hunks of the change to apply.
   */
  answer(id: string | undefined, answer: string, hunks?: string[]): boolean {
    const waiting = id === undefined ? this.#waiting.values().next().value : this.#waiting.get(id);
    if (waiting === undefined) return false;
    this.#waiting.delete(waiting.id);
    waiting.settle(hunks === undefined ? { answer } : { answer, hunks });
    return true;
  }

  /** `root`: the workspace of the session that asks, where the change's path is. */
  async approve(params: ApproveParams, token: CancellationToken, root?: string): Promise<ApproveResult> {
    const hunks = pendingHunks(params, root);
    // The ids, for a santra.answer typed by hand: {"answer": "allow", "hunks": [...]}.
    const ids = hunks.map((hunk) => `\nhunk ${hunk.label} (${linesLabel(hunk)}): ${hunk.id}`).join('');
    this.#connection.console.info(`santra: approval asked\n${approvalDetail(params)}${ids}`);
    const choices = params.protected === true ? PROTECTED_CHOICES : APPROVE_CHOICES;
    const summary = approvalSummary(params);
    const subject = (summary.split('\n')[0] ?? '').replace(/^Santra wants to /, '');
    const buttons = hunkButtons(hunks).map(({ title, hunks }) => ({ title, answer: 'allow', hunks }));
    const answer = await this.#put('approve', summary, subject, choices, token, hunks, buttons);
    return decisionOf(answer);
  }

  async ask(params: AskParams, token: CancellationToken): Promise<AskResult | Declined> {
    if (params.secret === true) {
      return declined(
        'santra lsp does not take secret answers: an editor keeps what its commands carry in its log. Answer it in the terminal (santra) instead.',
      );
    }
    const choices = (params.options ?? []).map((option) => ({ title: option.label, answer: option.value }));
    const question = params.header === undefined ? params.prompt : `${params.header}: ${params.prompt}`;
    const answer = await this.#put('ask', `Santra asks: ${question}`, question, choices, token);
    return answer === undefined
      ? declined('the question was dismissed in the editor')
      : { answer: answer.answer };
  }

  /**
   * Puts the question to the user; undefined when dismissed or withdrawn. `hunks`: the change's,
   * for code actions on their lines; `hunkChoices`: the buttons that apply some of them.
   */
  async #put(
    kind: 'approve' | 'ask',
    message: string,
    subject: string,
    choices: Choice[],
    token: CancellationToken,
    hunks: PendingHunk[] = [],
    hunkChoices: Choice[] = [],
  ): Promise<Answer | undefined> {
    if (this.#buttons && choices.length > 0) {
      const answer = await this.#buttonsAnswer(message, [...choices, ...hunkChoices], token);
      if (answer !== UNSUPPORTED) return answer;
    }
    return this.#pendingAnswer(kind, message, subject, choices, token, hunks);
  }

  async #buttonsAnswer(
    message: string,
    choices: Choice[],
    token: CancellationToken,
  ): Promise<Answer | undefined | typeof UNSUPPORTED> {
    try {
      const picked = await this.#connection.sendRequest(
        ShowMessageRequest.type,
        { type: MessageType.Warning, message, actions: choices.map(({ title }) => ({ title })) },
        token,
      );
      const choice = choices.find((choice) => choice.title === picked?.title);
      if (choice === undefined) return undefined;
      return choice.hunks === undefined
        ? { answer: choice.answer }
        : { answer: choice.answer, hunks: choice.hunks };
    } catch (error) {
      if (error instanceof ResponseError && error.code === ErrorCodes.MethodNotFound) {
        // The editor declared it but does not answer it: wait in the code actions from now on.
        this.#buttons = false;
        return UNSUPPORTED;
      }
      return undefined;
    }
  }

  #pendingAnswer(
    kind: 'approve' | 'ask',
    message: string,
    subject: string,
    choices: Choice[],
    token: CancellationToken,
    hunks: PendingHunk[],
  ): Promise<Answer | undefined> {
    const id = `${kind}-${this.#next++}`;
    // How to answer goes on the first line: a status line (Helix's) shows only that one.
    const [first, ...rest] = message.split('\n');
    showMessage(
      this.#connection,
      'warning',
      [`${first ?? ''} — ${answerHint(kind, choices, hunks.length)}`, ...rest].join('\n'),
    );
    return new Promise((resolve) => {
      this.#waiting.set(id, { id, kind, subject, choices, hunks, settle: resolve });
      token.onCancellationRequested(() => {
        if (this.#waiting.delete(id)) resolve(undefined);
      });
    });
  }
}

function decisionOf(given: Answer | undefined): ApproveResult {
  const answer = given?.answer;
  if (answer === 'allow' && given?.hunks !== undefined) return { decision: 'allow', hunks: given.hunks };
  switch (answer) {
    case 'allow':
    case 'allow_all':
    case 'reject':
      return { decision: answer };
    case undefined:
    case '':
      return { decision: 'reject' };
    default:
      return { decision: 'feedback', feedback: answer };
  }
}

/** The answer protocol §7.4 asks of a client that cannot put a question: RequestFailed, saying why. */
function declined(why: string): Declined {
  return new ResponseError(JsonRpcErrorCodes.RequestFailed, why, { retryable: false });
}
