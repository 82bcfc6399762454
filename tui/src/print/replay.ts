/**
 * `santra -p --replay FILE`: a recording executed again, end to end. The server is started with
 * `--replay FILE` and answers every model call from the recording; this client plays the user's
 * part from the same file: it sends the recorded prompts in order (one session, as recorded),
 * answers each approval as it was answered, and each question whose answer was saved (a secret
 * one never was). What the recording cannot answer — and every protected approval, which only a
 * person may allow — goes to the usual policy: the terminal, or `--approve-all`, or a rejection.
 *
 * The session file is read here directly, as JSON: only the records a client needs (`session`,
 * `prompt`, `approval`, `ask`, `run_end`), and any other record or damaged line is passed over,
 * so this client does not depend on the server's code (nor on records it does not know).
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import type { ApproveParams, ApproveResult, AskParams, AskResult, ParamsOf, PromptResult } from '#protocol';
import { type Approvals, describeAction } from './approvals.ts';
import { oneLine } from './output.ts';
import { PrintError } from './session.ts';

interface RecordedApproval {
  request: ApproveParams;
  /** Absent when the request failed: the action was not allowed. */
  answer?: ApproveResult;
  used: boolean;
}

interface RecordedQuestion {
  agentId: string;
  prompt: string;
  answer?: string;
  used: boolean;
}

/** One recorded run: what the user sent, and how it was answered. */
export interface ReplayRun {
  text: string;
  model: string;
  agent?: string;
  mode?: string;
  cwd?: string;
  /** How it ended (`run_end`), when the recording says. */
  status?: string;
  approvals: RecordedApproval[];
  questions: RecordedQuestion[];
}

export interface ReplayScript {
  runs: ReplayRun[];
}

type Json = Record<string, unknown>;

/** The prompts and answers of a recording. Throws a PrintError when there is nothing to replay. */
export function readReplayScript(path: string): ReplayScript {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new PrintError(
      `santra: --replay ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : String(error)}`,
    );
  }
  const records = text.trimStart().startsWith('[') ? exported(text) : lines(text);
  let workspaceRoot: string | undefined;
  const runs: ReplayRun[] = [];
  const byId = new Map<string, ReplayRun>();
  for (const record of records) {
    const runId = typeof record.runId === 'string' ? record.runId : undefined;
    const run = runId === undefined ? undefined : byId.get(runId);
    switch (record.type) {
      case 'session':
        if (typeof record.workspaceRoot === 'string') workspaceRoot ??= record.workspaceRoot;
        break;
      case 'prompt': {
        if (runId === undefined || typeof record.text !== 'string' || typeof record.model !== 'string') break;
        const cwd = startDir(record.cwd, workspaceRoot);
        const next: ReplayRun = {
          text: record.text,
          model: record.model,
          ...(typeof record.agent === 'string' ? { agent: record.agent } : {}),
          ...(typeof record.mode === 'string' ? { mode: record.mode } : {}),
          ...(cwd === undefined ? {} : { cwd }),
          approvals: [],
          questions: [],
        };
        runs.push(next);
        byId.set(runId, next);
        break;
      }
      case 'approval':
        if (run !== undefined && typeof record.request === 'object' && record.request !== null) {
          run.approvals.push({
            request: record.request as ApproveParams,
            ...(typeof record.answer === 'object' && record.answer !== null
              ? { answer: record.answer as ApproveResult }
              : {}),
            used: false,
          });
        }
        break;
      case 'ask':
        if (run !== undefined && typeof record.prompt === 'string') {
          run.questions.push({
            agentId: typeof record.agentId === 'string' ? record.agentId : '',
            prompt: record.prompt,
            ...(typeof record.answer === 'string' && record.secret !== true ? { answer: record.answer } : {}),
            used: false,
          });
        }
        break;
      case 'run_end':
        if (run !== undefined && typeof record.status === 'string') run.status = record.status;
        break;
      default:
        break;
    }
  }
  if (runs.length === 0) {
    throw new PrintError(
      `santra: --replay ${path}: no prompts to replay; a recording is a session file (or session/export's JSON)`,
    );
  }
  return { runs };
}

/** The params of a run's prompt: the recorded text, agent, mode and model, in `sessionId`. */
export function replayPrompt(run: ReplayRun, sessionId: string | undefined): ParamsOf<'prompt'> {
  return {
    text: run.text,
    model: run.model,
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(run.agent === undefined ? {} : { agent: run.agent }),
    ...(run.mode === undefined ? {} : { mode: run.mode as NonNullable<ParamsOf<'prompt'>['mode']> }),
    ...(run.cwd === undefined ? {} : { cwd: run.cwd }),
  };
}

/**
 * Sends the recording's prompts in order, in one session, each answered from its run; stops at the
 * first run that does not end as recorded (a divergence ends it with status error). True when
 * every run ended as recorded. `send` reports the run (output, status line) and resolves with its
 * result, or undefined when the server would not stop.
 */
export async function replayRuns(
  script: ReplayScript,
  answers: RecordedAnswers,
  send: (params: ParamsOf<'prompt'>) => Promise<PromptResult | undefined>,
  say: (line: string) => void,
  interrupted: () => boolean,
): Promise<boolean> {
  let sessionId: string | undefined;
  const total = script.runs.length;
  for (const [index, run] of script.runs.entries()) {
    answers.startRun(run);
    const result = await send(replayPrompt(run, sessionId));
    if (result === undefined || interrupted()) return false;
    sessionId ??= result.sessionId;
    const recorded = run.status ?? 'completed';
    if (result.status !== recorded) {
      say(
        `santra: replay: run ${index + 1} of ${total} ended ${result.status}, the recorded one ${recorded}; stopped there`,
      );
      return false;
    }
  }
  return true;
}

/**
 * Answers approvals and questions as the recording did, run by run; what it has no answer for
 * goes to `fallback` (the terminal, --approve-all, or a rejection).
 */
export class RecordedAnswers {
  readonly #fallback: Approvals;
  readonly #say: (line: string) => void;
  #run: ReplayRun | undefined;

  constructor(fallback: Approvals, say: (line: string) => void) {
    this.#fallback = fallback;
    this.#say = say;
  }

  /** The run whose answers are used from now on. */
  startRun(run: ReplayRun): void {
    this.#run = run;
  }

  approve(params: ApproveParams, signal: AbortSignal): Promise<ApproveResult> {
    // Only a person may allow a protected change (protocol §7.3): never a file, whoever made it.
    if (params.protected === true) {
      this.#say(
        `santra: replay: ${describeAction(params)} touches a protected location; not answered from the recording`,
      );
      return this.#fallback.approve(params, signal);
    }
    const recorded = this.#findApproval(params);
    if (recorded === undefined) {
      this.#say(`santra: replay: the recording has no answer for ${describeAction(params)}`);
      return this.#fallback.approve(params, signal);
    }
    recorded.used = true;
    // An approval whose request failed was not allowed.
    const answer: ApproveResult = recorded.answer ?? { decision: 'reject' };
    this.#say(`santra: replay: ${answer.decision} ${describeAction(params)}, as recorded`);
    return Promise.resolve(answer);
  }

  ask(params: AskParams, signal: AbortSignal): Promise<AskResult> {
    const questions = this.#run?.questions.filter((q) => !q.used && q.prompt === params.prompt) ?? [];
    const recorded = questions.find((q) => q.agentId === params.agentId) ?? questions[0];
    if (recorded !== undefined) recorded.used = true;
    if (recorded?.answer === undefined) return this.#fallback.ask(params, signal);
    this.#say(`santra: replay: answered "${oneLine(params.prompt, 60)}" as recorded`);
    return Promise.resolve({ answer: recorded.answer });
  }

  /** Withdraws questions on the terminal (Ctrl-C). */
  withdrawAll(): void {
    this.#fallback.withdrawAll();
  }

  /** The same call's approval (tool call ids repeat in a replay), else the first like it. */
  #findApproval(params: ApproveParams): RecordedApproval | undefined {
    const open = this.#run?.approvals.filter((approval) => !approval.used) ?? [];
    const same = (approval: RecordedApproval) =>
      approval.request.kind === params.kind &&
      approval.request.toolName === params.toolName &&
      (params.kind === 'command'
        ? approval.request.kind === 'command' && approval.request.command === params.command
        : approval.request.kind === 'file_change' && approval.request.path === params.path);
    return (
      open.find((approval) => approval.request.toolCallId === params.toolCallId && same(approval)) ??
      open.find(same)
    );
  }
}

function lines(text: string): Json[] {
  const records: Json[] = [];
  for (const line of text.split('\n')) {
    // Damaged lines (a torn write, NUL bytes) are the server's to report; a client skips them.
    for (const piece of line.split(/\0+/)) {
      if (piece.trim() === '') continue;
      try {
        const value: unknown = JSON.parse(piece);
        if (typeof value === 'object' && value !== null && !Array.isArray(value)) records.push(value as Json);
      } catch {
        // skipped
      }
    }
  }
  return records;
}

function exported(text: string): Json[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value)
      ? value.filter((entry): entry is Json => typeof entry === 'object' && entry !== null)
      : [];
  } catch {
    return [];
  }
}

/** The prompt's start directory relative to the workspace (as recorded, or made relative to it). */
function startDir(cwd: unknown, workspaceRoot: string | undefined): string | undefined {
  if (typeof cwd !== 'string' || cwd === '') return undefined;
  if (!isAbsolute(cwd)) return cwd;
  if (workspaceRoot === undefined) return undefined;
  const rel = relative(workspaceRoot, cwd);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? undefined : rel;
}
