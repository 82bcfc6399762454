/**
 * One attempt at one job: the same client `santra -p` is (client/session.ts, print/approvals.ts)
 * driving a santra-server of the job's own, with the unattended rules of the job.
 *
 * An attempt may be the second: BullMQ gives a job to another worker when the one running it died
 * (kill -9) or stopped renewing its lock. The saved session says how far the first got, so this
 * attempt never sends the prompt twice and never runs a tool call again:
 * - the session has no run of this job yet: the prompt is sent;
 * - the job's run ended (completed, or failed on its own): its result is read from the session;
 * - the run was cut off (cancelled by the dying server, or no end saved at all): a prompt asks the
 *   model to go on. A call whose end was not saved is shown to it as interrupted, never re-run
 *   (server: sessions/interrupted-calls.ts), and a call cancelled mid-way is shown as cancelled.
 * The job's progress (in BullMQ) keeps the session id from the moment it exists, and how many runs
 * the session had before the job, which is how the job's runs are told from earlier ones.
 *
 * A `repo` job runs in a checkout the worker makes for it (repo-workspace.ts), named by the job, so
 * a later attempt on this worker finds the files the earlier one changed; the commit it was made at
 * is kept in the progress too, so an attempt elsewhere checks out that commit, not a moved branch.
 */
import type { Phase, PromptResult, SessionRecord } from '#protocol';
import { findWorkplace } from '../client/project-root.ts';
import { isDirectory, serverArgs, serverPathFor, startServer } from '../client/server-process.ts';
import { PrintError, ServerSession } from '../client/session.ts';
import { Approvals, describeAction } from '../print/approvals.ts';
import { WaitForAttach } from '../attach/wait-for-attach.ts';
import { type JobData, type JobProgress, type JobResult, redactUrl } from './job.ts';
import { addUsage, ZERO_USAGE } from '../client/usage.ts';
import { prepareCheckout, RepoProblem } from './repo-workspace.ts';
import { diffSince, snapshotTree } from './workspace-diff.ts';

/** What the model is told when an attempt goes on with a run another attempt began. */
export const CONTINUE_PROMPT =
  '[The worker running this task stopped before it finished, and another worker goes on with it now. Continue the task above from where it stopped. Tool calls marked interrupted or cancelled were not run again: check their effect before repeating any of them.]';

/** A job that can never succeed (no workspace, an unknown session): it fails without more attempts. */
export class UnrunnableJob extends Error {}

export interface Attempt {
  data: JobData;
  /** What an earlier attempt saved; updated through `saveProgress` as this one goes. */
  progress: JobProgress;
  saveProgress(progress: JobProgress): Promise<void>;
  /** How many attempts failed before this one (BullMQ's attemptsMade). */
  attemptsBefore: number;
  /** Takes the session's lease once its id is known (run-job waits for it or gives up). */
  lockSession(sessionId: string): Promise<void>;
  serverPath: string;
  clientVersion: string;
  /** Where a `repo` job's mirror and checkout are (repo-workspace.ts), and the checkout's name. */
  repoWorkdir: string;
  checkoutKey: string;
  /** Each phase of the run, as the server sent it (for attached clients). */
  onPhase?: (phase: Phase) => void;
  /** The server's stderr and the worker's notes about the job. */
  stderr: NodeJS.WritableStream;
  verbose: boolean;
}

/** Runs (or goes on with) the job and returns its result. Throws UnrunnableJob or PrintError. */
export async function runJob(attempt: Attempt): Promise<JobResult> {
  const { data } = attempt;
  if (data.cwd !== undefined && !isDirectory(data.cwd))
    throw new UnrunnableJob(
      `the job's cwd ${data.cwd} is not a directory on this worker; give the path of the workspace as the worker sees it`,
    );
  let progress: JobProgress = { ...attempt.progress };
  const save = async (more: JobProgress) => {
    progress = { ...progress, ...more };
    await attempt.saveProgress(progress);
  };
  // A job continuing a session waits for it first: its attempt, its checkout and its diff begin after that.
  const knownSession = progress.sessionId ?? data.sessionId;
  if (knownSession !== undefined) await attempt.lockSession(knownSession);
  const attempts = (progress.attempts ?? attempt.attemptsBefore) + 1;
  await save({ attempts });
  const root = await workspaceOf(attempt, progress);
  if (data.repo !== undefined && progress.commit === undefined) await save({ commit: root.commit });
  const place = findWorkplace(root.path, true);
  if (progress.baseTree === undefined) {
    const baseTree = await snapshotTree(place.root);
    if (baseTree !== undefined) await save({ baseTree });
  }

  const refused: string[] = [];
  let sessionId = knownSession;
  const approvals =
    data.approvalPolicy === 'attach'
      ? new WaitForAttach({
          timeoutSeconds: data.attachTimeoutSeconds,
          sessionId: () => sessionId,
          note: (line) => void attempt.stderr.write(`${line}\n`),
          refused: (line) => refused.push(line),
        })
      : new Approvals({
          // Nobody to ask: `allow` lets the server allow all (protected locations are still put to us,
          // and refused here); anything else refuses.
          policy: data.approvalPolicy === 'allow' ? 'allow' : 'reject',
          write: (text) => {
            const line = text.trim();
            if (line !== '') refused.push(line.replace(/^santra: /, ''));
          },
          color: false,
        });
  const { path: serverPath } = serverPathFor(attempt.serverPath, process.env);
  const server = startServer(
    serverPath,
    place.root,
    serverArgs({ approveAll: data.approvalPolicy === 'allow' }),
  );
  if (server === undefined)
    throw new PrintError(`santra-server was not found at ${serverPath}; run npm run build on the worker`);
  const session = new ServerSession({
    server,
    workspaceRoot: place.root,
    clientName: 'santra-worker',
    clientVersion: attempt.clientVersion,
    // With `attach`, questions too wait for an attached client (santra attach).
    capabilities: { approve: true, ask: data.approvalPolicy === 'attach', diffs: false },
    approvals,
    verbose: attempt.verbose,
    stderr: attempt.stderr,
    onPhase: (_raw, phase) => {
      if (phase !== undefined) attempt.onPhase?.(phase);
    },
  });
  try {
    await session.initialize();
    if (sessionId === undefined) {
      sessionId = (await session.request('session/new', {})).session.sessionId;
      await save({ sessionId, runsBefore: 0 });
      await attempt.lockSession(sessionId);
    }
    // A repo job's checkout is new for each job: a session an earlier job began was in another one.
    const resumed =
      data.repo === undefined
        ? session.resume(sessionId)
        : session.request('session/resume', { sessionId, otherWorkspace: true });
    await resumed.catch((error: unknown) => {
      throw new UnrunnableJob(
        `session ${sessionId} could not be loaded: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
    let records = await sessionRecords(session, sessionId);
    const runsBefore = progress.runsBefore ?? ownRuns(records).length;
    if (progress.runsBefore === undefined) await save({ runsBefore });
    let jobRuns = ownRuns(records).slice(runsBefore);
    const last = jobRuns.at(-1);
    let result: PromptResult | undefined;
    if (last === undefined || last.end === undefined || last.end.status === 'cancelled') {
      result = await session.prompt({
        text: last === undefined ? data.prompt : CONTINUE_PROMPT,
        sessionId,
        ...(data.model === undefined ? {} : { model: data.model }),
        ...(data.agent === undefined ? {} : { agent: data.agent }),
        ...(data.permissionMode === undefined ? {} : { permissionMode: data.permissionMode }),
        ...(data.maxBudgetUsd === undefined ? {} : { maxBudgetUsd: data.maxBudgetUsd }),
      });
      records = await sessionRecords(session, sessionId);
      jobRuns = ownRuns(records).slice(runsBefore);
    }
    const final = jobRuns.at(-1);
    if (final === undefined) throw new PrintError(`session ${sessionId} holds no run of this job`);
    for (const request of refusedRequests(records, jobRuns))
      if (!refused.some((line) => line.includes(request))) refused.push(`rejected ${request}`);
    return {
      status: result?.status ?? final.end?.status ?? 'interrupted',
      sessionId,
      runId: final.runId,
      output: result?.output ?? answerOf(records, final.runId),
      ...(final.end?.stopReason === undefined ? {} : { stopReason: final.end.stopReason }),
      usage: jobRuns.reduce((sum, run) => addUsage(sum, run.end?.usage), ZERO_USAGE),
      costUsd: jobRuns.reduce((sum, run) => sum + (run.end?.costUsd ?? 0), 0),
      diff: await diffSince(place.root, progress.baseTree),
      attempts,
      refused,
      ...(data.repo === undefined
        ? {}
        : {
            repo: { url: redactUrl(data.repo.url), ref: data.repo.ref },
            ...(root.commit === undefined ? {} : { commit: root.commit }),
            ...(data.keepWorkspace === true ? { workspace: place.root } : {}),
          }),
    };
  } finally {
    await session.close();
  }
}

/**
 * The directory the job runs in: its `cwd`, or its checkout of `repo` (the one an earlier attempt
 * made, when this worker still has it). A repository or ref that does not exist fails the job.
 */
async function workspaceOf(
  attempt: Attempt,
  progress: JobProgress,
): Promise<{ path: string; commit?: string }> {
  const { data } = attempt;
  if (data.repo === undefined) return { path: data.cwd ?? '' };
  try {
    const checkout = await prepareCheckout({
      workdir: attempt.repoWorkdir,
      repo: data.repo,
      key: attempt.checkoutKey,
      ...(progress.commit === undefined ? {} : { commit: progress.commit }),
    });
    if (progress.commit !== undefined && !checkout.reused)
      attempt.stderr.write(
        `santra worker: the checkout an earlier attempt made is not on this worker; a new one at ${checkout.commit} is used, without that attempt's file changes\n`,
      );
    return checkout;
  } catch (error) {
    if (error instanceof RepoProblem && error.permanent) throw new UnrunnableJob(error.message);
    throw error;
  }
}

type RunEnd = Extract<SessionRecord, { type: 'run_end' }>;

interface SessionRun {
  runId: string;
  end?: RunEnd;
}

async function sessionRecords(session: ServerSession, sessionId: string): Promise<SessionRecord[]> {
  const exported = await session.request('session/export', { sessionId, format: 'json' });
  return exported.records ?? (JSON.parse(exported.content) as SessionRecord[]);
}

/** The session's own runs (imported ones are another agent's), in order, with how each ended. */
function ownRuns(records: readonly SessionRecord[]): SessionRun[] {
  const runs: SessionRun[] = [];
  const byId = new Map<string, SessionRun>();
  for (const record of records) {
    if (record.type === 'prompt' && record.imported === undefined) {
      const run: SessionRun = { runId: record.runId };
      runs.push(run);
      byId.set(record.runId, run);
    } else if (record.type === 'run_end') {
      const run = byId.get(record.runId);
      if (run !== undefined) run.end = record;
    }
  }
  return runs;
}

/** The answer of a run that ended in an earlier attempt: the text of its last answer. */
function answerOf(records: readonly SessionRecord[], runId: string): string {
  for (let index = records.length - 1; index >= 0; index--) {
    const record = records[index];
    if (record?.type !== 'message' || record.runId !== runId) continue;
    const message = record.message as { role?: string; content?: Array<{ type?: string; text?: string }> };
    if (message.role !== 'assistant') continue;
    return (message.content ?? [])
      .flatMap((block) => (block.type === 'text' ? [block.text ?? ''] : []))
      .join('');
  }
  return '';
}

/** What the job's runs asked and were refused, as describeAction words it. */
function refusedRequests(records: readonly SessionRecord[], runs: readonly SessionRun[]): string[] {
  const ids = new Set(runs.map((run) => run.runId));
  return records.flatMap((record) =>
    record.type === 'approval' &&
    ids.has(record.runId) &&
    (record.answer === undefined || record.answer.decision === 'reject')
      ? [describeAction(record.request)]
      : [],
  );
}
