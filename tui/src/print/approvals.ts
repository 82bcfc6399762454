/**
 * Answers the server's `approve` and `ask` requests for `santra -p`: on the terminal when there is
 * one, by policy when there is not. The terminal is reached through a UserInput, so the whole
 * conversation can be tested without one.
 */
import type { ApproveParams, ApproveResult, AskParams, AskResult } from '#protocol';
import { oneLine, visible } from './output.ts';

/** What the user types: a single key for a choice, a line for an answer. */
export interface UserInput {
  /**
   * Shows `prompt` and waits for one of `choices` (single lower-case characters; the user may type
   * either case; other keys are ignored). Resolves with the key, or undefined at end of input or
   * when `signal` aborts; never rejects.
   */
  key(
    prompt: string,
    choices: readonly string[],
    options: { signal: AbortSignal },
  ): Promise<string | undefined>;
  /**
   * Shows `prompt` and reads a line. Contract: resolves with the line (without its newline), or
   * undefined at end of input or when `signal` aborts; never rejects. With `secret` the typed
   * characters are not echoed.
   */
  question(prompt: string, options: { secret?: boolean; signal: AbortSignal }): Promise<string | undefined>;
}

/**
 * How approvals are answered: asked on the terminal, allowed by --approve-all, or rejected because
 * there is no terminal to ask on. Allow-all is the server's state, not the client's: after `a` the
 * server stops asking, so santra never answers for the user. A request marked `protected` is never
 * answered by policy (protocol §7.3): it is asked on the terminal, or rejected without one.
 */
export type ApprovalPolicy = 'ask' | 'allow' | 'reject';

export interface ApprovalOptions {
  policy: ApprovalPolicy;
  /** Required with policy `ask`; also answers `ask` requests. Absent: `ask` requests cannot be answered. */
  reader?: UserInput;
  /** Writes to stderr. */
  write: (text: string) => void;
  /** Whether to colour diffs (stderr is a terminal and NO_COLOR is unset). */
  color: boolean;
}

/**
 * A question withdrawn before the user answered (by the server's $/cancelRequest, or Ctrl-C), and
 * one that cannot be answered here (no terminal, end of input).
 */
export { QuestionUnanswerable, QuestionWithdrawn } from '../client/print-error.ts';
import { QuestionUnanswerable, QuestionWithdrawn } from '../client/print-error.ts';
import { otherApprovalLines, otherApprovalTitle } from '../client/other-approvals.ts';

const CHOICES = 'Allow? [y] yes  [a] allow all  [n] no  [f] no, with feedback ';
/** A protected location is asked each time: "allow all" cannot answer it, so it is not offered. */
const PROTECTED_CHOICES = 'Allow? [y] yes  [n] no  [f] no, with feedback ';
/** With a change of several hunks: choose them one by one (§7.3.2), as `git add -p` does. */
const HUNKS_CHOICE = '  [p] per hunk ';
/** With a command (not an escalation): type the version to run instead (§7.3.2). */
const EDIT_CHOICE = '  [e] edit ';
const HUNK_CHOICES = 'Apply this hunk? [y] yes  [n] no  [a] this and the rest  [d] none of the rest ';

export class Approvals {
  readonly #options: ApprovalOptions;
  /** Aborted when the user cancels the run: no question may be left waiting on the terminal. */
  readonly #withdrawAll = new AbortController();
  /** Questions run one at a time: two agents asking at once must not share one input line. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: ApprovalOptions) {
    if (options.policy === 'ask' && options.reader === undefined) {
      throw new Error('the ask approval policy needs a way to read the user’s input');
    }
    this.#options = options;
  }

  /** Answers an `approve` request. Rejects with QuestionWithdrawn when `signal` aborts first. */
  approve(params: ApproveParams, signal: AbortSignal): Promise<ApproveResult> {
    const { policy, write, reader } = this.#options;
    const mustAsk = params.protected === true;
    if (policy === 'allow' && !mustAsk) return Promise.resolve({ decision: 'allow' });
    if (policy === 'reject' || reader === undefined) {
      write(
        mustAsk
          ? `santra: rejected ${describeAction(params)}: it touches a protected location (${oneLine(params.protectedReason ?? 'protected')}), which only a person can allow, and stdin is not a terminal, so there is no one to ask\n`
          : `santra: rejected ${describeAction(params)}: stdin is not a terminal, so there is no one to ask; run with --approve-all to allow file changes and commands without asking\n`,
      );
      return Promise.resolve({ decision: 'reject' });
    }
    return this.#serialised(() => this.#askApproval(params, this.#withOwn(signal)));
  }

  /** Answers an `ask` request. Rejects with QuestionWithdrawn or QuestionUnanswerable. */
  ask(params: AskParams, signal: AbortSignal): Promise<AskResult> {
    if (this.#options.reader === undefined) {
      return Promise.reject(
        new QuestionUnanswerable(
          `santra -p has no terminal to ask on (stdin is not a TTY), so it cannot answer: ${oneLine(params.prompt)}`,
        ),
      );
    }
    return this.#serialised(() => this.#askQuestion(params, this.#withOwn(signal)));
  }

  /** Withdraws the question on screen and every later one (the user pressed Ctrl-C). */
  withdrawAll(): void {
    this.#withdrawAll.abort();
  }

  #withOwn(signal: AbortSignal): AbortSignal {
    return AbortSignal.any([signal, this.#withdrawAll.signal]);
  }

  #serialised<T>(task: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(task, task);
    this.#queue = next.catch(() => {});
    return next;
  }

  async #askApproval(params: ApproveParams, signal: AbortSignal): Promise<ApproveResult> {
    if (signal.aborted) throw new QuestionWithdrawn('the question was withdrawn before it was asked');
    const { write, color } = this.#options;
    const reader = this.#options.reader as UserInput;
    write(formatApproval(params, color));
    const guarded = params.protected === true;
    const extra = editChoices(params);
    const key = await reader.key(
      `${guarded ? PROTECTED_CHOICES.trimEnd() : CHOICES.trimEnd()}${extra
        .map((c) => (c === 'p' ? HUNKS_CHOICE : EDIT_CHOICE))
        .join('')
        .trimEnd()} `,
      [...(guarded ? ['y', 'n', 'f'] : ['y', 'a', 'n', 'f']), ...extra],
      {
        signal,
      },
    );
    if (signal.aborted) throw withdrawn(write);
    switch (key) {
      case 'p':
        return this.#perHunk(params, signal);
      case 'e': {
        const command = await reader.question('Command to run instead (empty: as shown): ', { signal });
        if (signal.aborted) throw withdrawn(write);
        if (command === undefined) {
          write('santra: no answer (end of input); rejected\n');
          return { decision: 'reject' };
        }
        const edited = command.trim();
        return edited === '' || params.kind !== 'command' || edited === params.command
          ? { decision: 'allow' }
          : { decision: 'allow', command: edited };
      }
      case 'y':
        return { decision: 'allow' };
      case 'a':
        return { decision: 'allow_all' };
      case 'n':
        return { decision: 'reject' };
      case 'f': {
        const feedback = await reader.question('Feedback for the agent: ', { signal });
        if (signal.aborted) throw withdrawn(write);
        if (feedback === undefined || feedback.trim() === '') return { decision: 'reject' };
        return { decision: 'feedback', feedback: feedback.trim() };
      }
      case undefined:
      default:
        write('santra: no answer (end of input); rejected\n');
        return { decision: 'reject' };
    }
  }

  /**
   * Asks hunk by hunk, as `git add -p`: y/n for this one, a for this and the rest, d for none of
   * the rest. Every hunk chosen is a plain allow, none a reject (SANTRA-APPROVE-027).
   */
  async #perHunk(params: ApproveParams, signal: AbortSignal): Promise<ApproveResult> {
    if (params.kind !== 'file_change') return { decision: 'reject' };
    const { write, color } = this.#options;
    const reader = this.#options.reader as UserInput;
    const hunks = params.diff.hunks;
    const chosen: string[] = [];
    let rest: 'all' | 'none' | undefined;
    for (const [index, hunk] of hunks.entries()) {
      if (rest === undefined) {
        write(formatHunk(hunk, `${index + 1}/${hunks.length}`, color));
        const key = await reader.key(HUNK_CHOICES, ['y', 'n', 'a', 'd'], { signal });
        if (signal.aborted) throw withdrawn(write);
        if (key === undefined) {
          write('santra: no answer (end of input); rejected\n');
          return { decision: 'reject' };
        }
        if (key === 'a') rest = 'all';
        if (key === 'd') rest = 'none';
        if (key === 'y' || key === 'a') chosen.push(String(hunk.id));
      } else if (rest === 'all') {
        chosen.push(String(hunk.id));
      }
    }
    write(`santra: ${chosen.length} of ${hunks.length} hunks allowed\n`);
    if (chosen.length === hunks.length) return { decision: 'allow' };
    if (chosen.length === 0) return { decision: 'reject' };
    return { decision: 'allow', hunks: chosen };
  }

  async #askQuestion(params: AskParams, signal: AbortSignal): Promise<AskResult> {
    if (signal.aborted) throw new QuestionWithdrawn('the question was withdrawn before it was asked');
    const { write } = this.#options;
    const reader = this.#options.reader as UserInput;
    const options = params.options ?? [];
    const lines = ['', ...(params.header === undefined ? [] : [`── ${oneLine(params.header)} ──`])];
    lines.push(visible(params.prompt));
    options.forEach((option, index) => lines.push(`  ${index + 1}) ${oneLine(option.label)}`));
    write(`${lines.join('\n')}\n`);
    if (params.secret === true) write('(the answer is not echoed)\n');
    const hint = options.length > 0 ? `Answer (1-${options.length}, or type an answer): ` : 'Answer: ';
    const line = await reader.question(hint, { signal, secret: params.secret === true });
    if (signal.aborted) throw withdrawn(write);
    if (line === undefined) throw new QuestionUnanswerable('the user gave no answer (end of input)');
    const picked = /^\s*\d+\s*$/.test(line) ? options[Number(line) - 1] : undefined;
    return { answer: picked === undefined ? line : picked.value };
  }
}

function withdrawn(write: (text: string) => void): QuestionWithdrawn {
  // Withdrawn by the server: the run was cancelled, or a client attached to the session
  // (santra attach, §10.11) answered first.
  write('\nsantra: the question was withdrawn (the run was cancelled, or it was answered elsewhere)\n');
  return new QuestionWithdrawn('the question was withdrawn before it was answered');
}

/**
 * The ways this request can be answered besides as shown: `p` for a created or modified file of
 * several hunks (each with an id), `e` for a command that is not an escalation.
 */
function editChoices(params: ApproveParams): Array<'p' | 'e'> {
  if (params.kind === 'file_change') {
    const { hunks } = params.diff;
    const choosable =
      (params.operation === 'modify' || params.operation === 'create') &&
      hunks.length > 1 &&
      hunks.every((hunk) => hunk.id !== undefined);
    return choosable ? ['p'] : [];
  }
  return params.kind === 'command' && params.escalation === undefined ? ['e'] : [];
}

type Hunk = Extract<ApproveParams, { kind: 'file_change' }>['diff']['hunks'][number];

/** One hunk, numbered, its lines coloured like the diff's. */
export function formatHunk(hunk: Hunk, label: string, color: boolean): string {
  const paint = (code: string, text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const range = (start: number, count: number) => (count === 1 ? `${start}` : `${start},${count}`);
  const lines = hunk.lines.map((line) => {
    const text = visible(line.text);
    if (line.type === 'added') return paint('32', `+${text}`);
    if (line.type === 'removed') return paint('31', `-${text}`);
    return ` ${text}`;
  });
  const head = paint(
    '36',
    `@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@`,
  );
  return `\n${paint('1', `hunk ${label}`)} ${head}\n${lines.join('\n')}\n`;
}

/** A short description of a gated action, e.g. `modify src/a.ts (+1 −1)` or `command: npm test`. */
export function describeAction(params: ApproveParams): string {
  switch (params.kind) {
    case 'file_change':
      return `${params.operation} ${oneLine(params.path)}${params.destination === undefined ? '' : ` → ${oneLine(params.destination)}`} (+${params.diff.added} −${params.diff.removed})`;
    case 'command':
      return `command \`${oneLine(params.command)}\` in ${oneLine(params.cwd)}`;
    case 'trust':
    case 'mcp_tool':
      return oneLine(otherApprovalTitle(params));
    default: {
      const exhaustive: never = params;
      throw new Error(`unknown approval kind ${JSON.stringify(exhaustive)}`);
    }
  }
}

/** The approval as shown before asking: what will change or run, with the diff for file changes. */
export function formatApproval(params: ApproveParams, color: boolean): string {
  const paint = (code: string, text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const who = `${params.agentId}, ${params.toolName}`;
  return `${protectedNote(params, paint)}${formatAction(params, paint, who)}`;
}

/** Why a protected request is asked even after "allow all" or under --approve-all. */
function protectedNote(params: ApproveParams, paint: (code: string, text: string) => string): string {
  if (params.protected !== true) return '';
  if (params.kind === 'command' && params.escalation !== undefined) {
    const blocked = oneLine(params.escalation.reason);
    return `\n${paint('1;33', `santra: run again outside the sandbox? ${blocked}`)}\n  allowing runs it with your full rights; asked every time, even under --approve-all\n`;
  }
  const reason = oneLine(params.protectedReason ?? 'a protected location');
  return `\n${paint('1;33', `santra: protected location — ${reason}`)}\n  asked every time, even after "allow all" and under --approve-all\n`;
}

function formatAction(
  params: ApproveParams,
  paint: (code: string, text: string) => string,
  who: string,
): string {
  switch (params.kind) {
    case 'file_change': {
      const { added, removed, replacement, unifiedDiff } = params.diff;
      const where =
        params.destination === undefined
          ? visible(params.path)
          : `${visible(params.path)} to ${visible(params.destination)}`;
      const head = `\n${paint('1', `santra: the agent wants to ${params.operation} ${where}`)} (+${added} −${removed}${replacement ? ', whole file' : ''}; ${who})\n`;
      const body = visible(unifiedDiff)
        .split('\n')
        .map((line) => {
          if (line.startsWith('+++') || line.startsWith('---')) return paint('1', line);
          if (line.startsWith('+')) return paint('32', line);
          if (line.startsWith('-')) return paint('31', line);
          if (line.startsWith('@@')) return paint('36', line);
          return line;
        })
        .join('\n');
      return `${head}${body}${body.endsWith('\n') ? '' : '\n'}`;
    }
    case 'command':
      return `\n${paint('1', 'santra: the agent wants to run a command')} (${who})\n  $ ${visible(params.command)}\n  in ${visible(params.cwd)}\n`;
    case 'trust':
    case 'mcp_tool': {
      const lines = otherApprovalLines(params).map((line) => `  ${visible(line)}`);
      const by = params.kind === 'trust' ? '' : ` (${who})`;
      return `\n${paint('1', `santra: ${visible(otherApprovalTitle(params))}?`)}${by}\n${lines.join('\n')}\n`;
    }
    default: {
      const exhaustive: never = params;
      throw new Error(`unknown approval kind ${JSON.stringify(exhaustive)}`);
    }
  }
}
