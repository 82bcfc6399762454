/**
 * `santra -p --replay FILE`: a recording executed again, end to end — a re-run (the TUI's player,
 * `santra replay`, only shows a recording: ui/replay-*). The server is started with
 * `--replay FILE` and answers every model call from the recording; this client plays the user's
 * part from the same file: it sends the recorded prompts in order (one session, as recorded),
 * answers each approval as it was answered, and each question whose answer was saved (a secret
 * one never was). What the recording cannot answer — and every protected approval, which only a
 * person may allow — goes to the usual policy: the terminal, or `--approve-all`, or a rejection.
 *
 * What the person did between runs is done again in its place: a `session/compact` (a compaction
 * the server did not start itself before a prompt), a `session/undo`; and a run they stopped at
 * an approval is stopped there again. A run stopped while the model answered needs nothing: the
 * recorded answer ends as cancelled, and the server adds the same note to the conversation.
 *
 * The recording is read as the published record format (session-records.ts, protocol §10.9), so
 * this client does not depend on the server's code: only the records a client needs (`session`,
 * `prompt`, `phase`, `approval`, `ask`, `run_end`, `compaction`, `file_change`, `undo`) matter;
 * any other record, a damaged line and a record of a type it does not know are passed over.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import type {
  ApproveParams,
  ApproveResult,
  AskParams,
  AskResult,
  ImportFormat,
  ParamsOf,
  PromptContext,
  PromptResult,
  RecordedMessage,
  ResultOf,
  SessionRecord,
} from '#protocol';
import { type Approvals, describeAction, QuestionWithdrawn } from './approvals.ts';
import { oneLine } from './output.ts';
import { PrintError, type ServerSession } from '../client/session.ts';
import { NewerRecordFormat, readSessionRecords } from '../client/session-records.ts';

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
  /** The editor's context sent with it, its paths made relative to the workspace. */
  context?: PromptContext;
  /** How it ended (`run_end`), when the recording says. */
  status?: string;
  approvals: RecordedApproval[];
  questions: RecordedQuestion[];
}

/** Something the person did outside a run, done again by the replay at the same point. */
export type UserAction =
  /** `session/compact`, keeping as many turns as the recorded compaction kept. */
  | { action: 'compact'; keepTurns: number }
  /** `session/undo` of the last change, or of every change of the last run that made one. */
  | { action: 'undo'; scope: 'change' | 'run' }
  /** `session/rewind` to just before the `run`-th prompt replayed (from 0), with the files or not. */
  | { action: 'rewind'; run: number; restoreFiles: boolean };

export type ReplayStep = { action: 'prompt'; run: ReplayRun } | UserAction;

export interface RerunScript {
  runs: ReplayRun[];
  /** The runs and what the person did between them, in the recorded order. */
  steps: ReplayStep[];
}

/** Why a session with imported runs cannot be executed again, and what can be done with it instead. */
function importedRun(path: string, from: ImportFormat): PrintError {
  const agent = { claude: 'Claude Code', codex: 'Codex', pi: 'pi' }[from];
  return new PrintError(
    `santra: --replay ${path}: its runs were imported from ${agent} (santra import), not run by Santra, so there are no model answers to execute them again with. Play it back with santra replay ${path}, or go on with it with santra -p --resume <its session id> "…"`,
  );
}

/** The prompts and answers of a recording. Throws a PrintError when there is nothing to replay. */
export function readRerunScript(path: string): RerunScript {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new PrintError(
      `santra: --replay ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : String(error)}`,
    );
  }
  let records: SessionRecord[];
  try {
    ({ records } = readSessionRecords(text));
  } catch (error) {
    if (!(error instanceof NewerRecordFormat)) throw error;
    throw new PrintError(`santra: --replay ${path}: ${error.message}`);
  }
  let workspaceRoot: string | undefined;
  const runs: ReplayRun[] = [];
  const steps: ReplayStep[] = [];
  const byId = new Map<string, ReplayRun>();
  /**
   * A run whose phases have begun but whose prompt is not recorded yet: a compaction then is the
   * one the server does before a prompt near the context window, which the replay does by itself.
   */
  let starting: string | undefined;
  /** File changes not undone, in order: what an undo picks from. */
  let changes: Array<{ changeId: string; runId: string }> = [];
  /** Where each prompt is among the replayed ones, for a rewind to name it. */
  const promptIndex = new Map<string, number>();
  /** The record before this one was an undo made a step of (a rewind's restored files write one). */
  let undoStepBefore = false;
  for (const record of records) {
    const afterUndo = undoStepBefore;
    undoStepBefore = false;
    switch (record.type) {
      case 'session':
        workspaceRoot ??= record.workspaceRoot;
        break;
      case 'phase': {
        const { phase } = record;
        if (!('runId' in phase) || byId.has(phase.runId)) break;
        // A prompt refused before it ran (an unusable model) ends without a prompt record.
        starting = phase.type === 'complete' ? undefined : phase.runId;
        break;
      }
      case 'compaction':
        if (starting === undefined && runs.length > 0)
          steps.push({ action: 'compact', keepTurns: Math.min(50, Math.max(1, userTurns(record.kept))) });
        break;
      case 'file_change':
        changes.push({ changeId: record.changeId, runId: record.runId });
        break;
      case 'undo': {
        const ids = record.changeIds;
        if (ids.length === 0 || runs.length === 0) break;
        // One change undone that was the last one: the default scope; otherwise the whole last run.
        const scope = ids.length === 1 && ids[0] === changes.at(-1)?.changeId ? 'change' : 'run';
        steps.push({ action: 'undo', scope });
        undoStepBefore = true;
        changes = changes.filter((change) => !ids.includes(change.changeId));
        break;
      }
      case 'prompt': {
        // Another agent's run, imported (session/import): no model call of it was made here.
        if (record.imported !== undefined) throw importedRun(path, record.imported.from);
        // A prompt recorded without its model cannot be sent again as it was.
        if (record.model === undefined) break;
        const cwd = startDir(record.cwd, workspaceRoot);
        const next: ReplayRun = {
          text: record.text,
          model: record.model,
          ...(record.agent === undefined ? {} : { agent: record.agent }),
          ...(record.mode === undefined ? {} : { mode: record.mode }),
          ...(cwd === undefined ? {} : { cwd }),
          ...(record.context === undefined ? {} : { context: rebased(record.context, workspaceRoot) }),
          approvals: [],
          questions: [],
        };
        runs.push(next);
        steps.push({ action: 'prompt', run: next });
        byId.set(record.runId, next);
        promptIndex.set(record.runId, runs.length - 1);
        if (starting === record.runId) starting = undefined;
        break;
      }
      case 'approval':
        byId.get(record.runId)?.approvals.push({
          request: record.request,
          ...(record.answer === undefined ? {} : { answer: record.answer }),
          used: false,
        });
        break;
      case 'ask':
        byId.get(record.runId)?.questions.push({
          agentId: record.agentId,
          prompt: record.prompt,
          ...(record.answer !== undefined && !record.secret ? { answer: record.answer } : {}),
          used: false,
        });
        break;
      case 'run_end': {
        const run = byId.get(record.runId);
        if (run !== undefined) run.status = record.status;
        break;
      }
      case 'rewind': {
        // A fork's record says where its copied history came from: nothing to do again.
        const target = promptIndex.get(record.runId);
        if (record.forkedFrom !== undefined || target === undefined) break;
        // The files put back were its `undo` record, just before: the rewind does that again.
        if (record.restoreFiles === true && afterUndo) steps.pop();
        steps.push({ action: 'rewind', run: target, restoreFiles: record.restoreFiles === true });
        break;
      }
      case 'message':
      case 'messages_replaced':
      case 'model_output':
      case 'model':
      case 'name':
      case 'spend':
        // The model's side: the server's --replay answers from these (a rerun's own run extracts anew).
        break;
      default: {
        const exhaustive: never = record;
        throw new Error(`unknown record ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  if (runs.length === 0) {
    throw new PrintError(
      `santra: --replay ${path}: no prompts to replay; a recording is a session file (or session/export's JSON)`,
    );
  }
  return { runs, steps };
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
    ...(run.context === undefined ? {} : { context: run.context }),
  };
}

/** What a replay needs of the server: its prompts run and reported, and the person's actions. */
export interface RerunClient {
  /** Runs a prompt and reports it (output, status line); undefined when the server would not stop. */
  prompt(params: ParamsOf<'prompt'>): Promise<PromptResult | undefined>;
  /** Asks the server to stop the running prompt, as the person did. */
  cancel(): void;
  /** `session/compact` and `session/undo`; they reject with a PrintError. */
  compact(params: ParamsOf<'session/compact'>): Promise<ResultOf<'session/compact'>>;
  undo(params: ParamsOf<'session/undo'>): Promise<ResultOf<'session/undo'>>;
  /** `session/rewind`; absent: a recording that rewinds cannot be replayed past its rewind. */
  rewind?(params: ParamsOf<'session/rewind'>): Promise<ResultOf<'session/rewind'>>;
}

/** The replay's client on a server session; `prompt` is the caller's (it reports the run). */
export function rerunClient(
  session: Pick<ServerSession, 'request' | 'cancelPrompt'>,
  prompt: RerunClient['prompt'],
): RerunClient {
  return {
    prompt,
    cancel: () => session.cancelPrompt(),
    compact: (params) => session.request('session/compact', params),
    undo: (params) => session.request('session/undo', params),
    rewind: (params) => session.request('session/rewind', params),
  };
}

/**
 * Sends the recording's prompts in order, in one session, each answered from its run, with what
 * the person did between them; stops at the first run that does not end as recorded (a divergence
 * ends it with status error), or a compaction or undo the server refuses. True when every run
 * ended as recorded.
 */
export async function runsToRerun(
  script: RerunScript,
  answers: RecordedAnswers,
  client: RerunClient,
  say: (line: string) => void,
  interrupted: () => boolean,
): Promise<boolean> {
  let sessionId: string | undefined;
  const total = script.runs.length;
  let index = 0;
  /** The runs of this replay's prompts, in order: what a rewind names. */
  const runIds: string[] = [];
  for (const step of script.steps) {
    if (step.action !== 'prompt') {
      // Nothing to act on before the first prompt has made the session.
      if (sessionId === undefined) continue;
      if (!(await userAction(step, sessionId, client, say, runIds))) return false;
      if (interrupted()) return false;
      continue;
    }
    const { run } = step;
    index++;
    answers.startRun(run, () => client.cancel());
    const result = await client.prompt(replayPrompt(run, sessionId));
    if (result === undefined || interrupted()) return false;
    sessionId ??= result.sessionId;
    runIds.push(result.runId);
    const recorded = run.status ?? 'completed';
    if (result.status !== recorded) {
      say(
        `santra: replay: run ${index} of ${total} ended ${result.status}, the recorded one ${recorded}; stopped there`,
      );
      return false;
    }
  }
  return true;
}

/** Does what the person did between runs again; false (said why) when the server would not. */
async function userAction(
  step: UserAction,
  sessionId: string,
  client: RerunClient,
  say: (line: string) => void,
  runIds: readonly string[],
): Promise<boolean> {
  try {
    switch (step.action) {
      case 'compact': {
        const result = await client.compact({ sessionId, keepTurns: step.keepTurns });
        if (!result.compacted) {
          say(
            `santra: replay: the recording compacted the conversation here, this session/compact did not (nothing before the last ${step.keepTurns} turns to summarise); stopped there`,
          );
          return false;
        }
        say(
          `santra: replay: compacted the conversation, as recorded: ${result.messagesBefore} messages became ${result.messagesAfter}`,
        );
        return true;
      }
      case 'undo': {
        const { changes } = await client.undo({ sessionId, scope: step.scope });
        const restored = changes
          .filter((change) => change.outcome === 'restored')
          .map((change) => change.path);
        say(
          `santra: replay: undid ${step.scope === 'run' ? "the last run's changes" : 'the last change'}, as recorded: ${restored.length === 0 ? 'nothing restored' : `restored ${restored.join(', ')}`}`,
        );
        return true;
      }
      case 'rewind': {
        const runId = runIds[step.run];
        if (client.rewind === undefined || runId === undefined) {
          say('santra: replay: the recording rewinds here, which this replay cannot do; stopped there');
          return false;
        }
        const { changes } = await client.rewind({
          sessionId,
          runId,
          ...(step.restoreFiles ? { restoreFiles: true } : {}),
        });
        say(
          `santra: replay: rewound to just before prompt ${step.run + 1}, as recorded${step.restoreFiles ? `: ${changes.filter((c) => c.outcome === 'restored').length} file change(s) put back` : ''}`,
        );
        return true;
      }
      default: {
        const exhaustive: never = step;
        throw new Error(`unknown step ${JSON.stringify(exhaustive)}`);
      }
    }
  } catch (error) {
    say(
      `${error instanceof Error ? error.message : String(error)}\nsantra: replay: the recording's session/${step.action} could not be done again; stopped there`,
    );
    return false;
  }
}

/**
 * Answers approvals and questions as the recording did, run by run; what it has no answer for
 * goes to `fallback` (the terminal, --approve-all, or a rejection).
 */
export class RecordedAnswers {
  readonly #fallback: Approvals;
  readonly #say: (line: string) => void;
  #run: ReplayRun | undefined;
  #stop: (() => void) | undefined;

  constructor(fallback: Approvals, say: (line: string) => void) {
    this.#fallback = fallback;
    this.#say = say;
  }

  /** The run whose answers are used from now on; `stop` cancels it, as the person did. */
  startRun(run: ReplayRun, stop?: () => void): void {
    this.#run = run;
    this.#stop = stop;
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
    if (recorded.answer === undefined && this.#run?.status === 'cancelled' && this.#stop !== undefined) {
      // The person stopped the run while this was asked: stop it here too; the server withdraws it.
      this.#say(
        `santra: replay: the recorded run was stopped at ${describeAction(params)}; stopping it there`,
      );
      this.#stop();
      return withdrawal(signal);
    }
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
        : params.kind === 'file_change'
          ? approval.request.kind === 'file_change' && approval.request.path === params.path
          : JSON.stringify(approval.request) === JSON.stringify(params));
    return (
      open.find((approval) => approval.request.toolCallId === params.toolCallId && same(approval)) ??
      open.find(same)
    );
  }
}

/** Rejects once the server withdraws the request (it cancels it with the run). */
function withdrawal(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    const withdrawn = () => reject(new QuestionWithdrawn('the run was stopped, as recorded'));
    if (signal.aborted) withdrawn();
    else signal.addEventListener('abort', withdrawn, { once: true });
  });
}

/**
 * The user turns among a compaction's kept messages, as the server counts them: user messages of
 * text only (tool results are not turns; a note the server added is one).
 */
function userTurns(messages: RecordedMessage[]): number {
  return messages.filter(
    (message) =>
      message.role === 'user' &&
      message.content.length > 0 &&
      message.content.every((block) => block.type === 'text'),
  ).length;
}

/**
 * The context with each path inside the recorded workspace made relative to it, so that it names
 * the same file in the workspace the recording runs again in.
 */
function rebased(context: PromptContext, workspaceRoot: string | undefined): PromptContext {
  const inside = (path: string) => {
    if (!isAbsolute(path) || workspaceRoot === undefined) return path;
    const rel = relative(workspaceRoot, path);
    return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? path : rel;
  };
  return {
    ...(context.files === undefined
      ? {}
      : { files: context.files.map((file) => ({ ...file, path: inside(file.path) })) }),
    ...(context.diagnostics === undefined
      ? {}
      : { diagnostics: context.diagnostics.map((d) => ({ ...d, path: inside(d.path) })) }),
  };
}

/** The prompt's start directory relative to the workspace (as recorded, or made relative to it). */
function startDir(cwd: string | undefined, workspaceRoot: string | undefined): string | undefined {
  if (cwd === undefined || cwd === '') return undefined;
  if (!isAbsolute(cwd)) return cwd;
  if (workspaceRoot === undefined) return undefined;
  const rel = relative(workspaceRoot, cwd);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? undefined : rel;
}
