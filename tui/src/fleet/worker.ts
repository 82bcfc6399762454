/**
 * `santra worker --redis URL [--concurrency N] [--queue NAME] [--lock-seconds N]
 * [--session-store URL] [--workdir DIR] [--verbose]`: takes santra jobs from a BullMQ queue and runs each as a
 * headless run in a santra-server of its own (run-job.ts), one job per session at a time
 * (session-lock.ts). The scheduling — waiting, retries, stalled jobs, locks renewed while a job
 * runs — is BullMQ's; docs/fleet.md says how a team sets it up.
 *
 * SIGTERM or SIGINT drains: no new job is taken, the running ones finish, then the worker exits 0.
 * A second signal stops at once (the jobs go back to the queue when their locks expire, and another
 * worker goes on with them from their saved sessions).
 */
import { parseArgs } from 'node:util';
import { DelayedError, type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import { PrintError } from '../client/session.ts';
import { EXIT } from '../print/args.ts';
import { resolve } from 'node:path';
import { DEFAULT_QUEUE, type JobResult, parseJob } from './job.ts';
import { bullConnection, connectRedis, redisUrlProblem, shownUrl } from './redis.ts';
import { checkoutKey, defaultWorkdir, removeCheckout } from './repo-workspace.ts';
import { runJob, UnrunnableJob } from './run-job.ts';
import { SessionLocks } from './session-lock.ts';

export interface WorkerOptions {
  redis: string;
  queue: string;
  concurrency: number;
  lockMs: number;
  /** Where the jobs' sessions are saved: the queue's Redis unless --session-store says otherwise. */
  sessionStore: string;
  /** Where `repo` jobs' mirrors and checkouts are kept (repo-workspace.ts). */
  workdir: string;
  verbose: boolean;
}

export const WORKER_USAGE =
  'santra worker --redis URL [--concurrency N] [--queue NAME] [--lock-seconds N] [--session-store URL] [--workdir DIR] [--verbose]';

/** How long a job waits before it looks again whether its session is free. */
const SESSION_BUSY_DELAY_MS = 250;

/** The arguments after `santra worker`, or why they are unusable. */
export function parseWorkerArgs(argv: readonly string[]): WorkerOptions | { error: string } {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        redis: { type: 'string' },
        queue: { type: 'string' },
        concurrency: { type: 'string' },
        'lock-seconds': { type: 'string' },
        'session-store': { type: 'string' },
        workdir: { type: 'string' },
        verbose: { type: 'boolean' },
      },
    }));
  } catch (error) {
    return { error: `${error instanceof Error ? error.message : String(error)}; usage: ${WORKER_USAGE}` };
  }
  const redis = values.redis ?? process.env.SANTRA_REDIS_URL;
  if (redis === undefined || redis === '')
    return {
      error: `santra worker needs the queue's Redis: --redis redis://HOST:6379 (or SANTRA_REDIS_URL)`,
    };
  const problem = redisUrlProblem(redis);
  if (problem !== undefined) return { error: `--redis: ${problem}` };
  const concurrency = positive('--concurrency', values.concurrency, 1, 256);
  if (typeof concurrency === 'string') return { error: concurrency };
  const lockSeconds = positive('--lock-seconds', values['lock-seconds'], 30, 3600);
  if (typeof lockSeconds === 'string') return { error: lockSeconds };
  const queue = values.queue ?? DEFAULT_QUEUE;
  if (!/^[\w.-]{1,100}$/.test(queue))
    return { error: `--queue takes letters, digits, "_", "." and "-", got "${queue}"` };
  const sessionStore = values['session-store'] ?? redis;
  if (!/^(rediss?|postgres(ql)?):\/\//.test(sessionStore))
    return {
      error: `--session-store must be a redis://, rediss://, postgres:// or postgresql:// URL, got "${shownUrl(sessionStore)}"`,
    };
  return {
    redis,
    queue,
    concurrency,
    lockMs: lockSeconds * 1000,
    sessionStore,
    workdir:
      values.workdir === undefined || values.workdir === ''
        ? defaultWorkdir(process.env)
        : resolve(values.workdir),
    verbose: values.verbose === true,
  };
}

function positive(flag: string, value: string | undefined, fallback: number, max: number): number | string {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1 || number > max)
    return `${flag} must be a whole number from 1 to ${max}, got "${value}"`;
  return number;
}

/** The session is another job's now: this one waits in the queue, not in a worker's slot. */
class SessionBusy extends Error {}

export interface WorkerEnvironment {
  serverPath: string;
  clientVersion: string;
}

/** Runs the worker until it is told to stop; resolves with the exit code. */
export async function runWorker(options: WorkerOptions, environment: WorkerEnvironment): Promise<number> {
  const say = (line: string) => void process.stderr.write(`santra worker: ${line}\n`);
  // Every server this worker starts saves its sessions in the shared store.
  process.env.SANTRA_SESSION_STORE = options.sessionStore;
  // Jobs run unattended, often in checkouts thrown away after: memory's extraction would only add
  // .santra/memory.md to the job's diff. Off unless the worker's own environment turns it on.
  process.env.SANTRA_MEMORY_AUTO_EXTRACT ??= '0';
  const connection = bullConnection(options.redis);
  let redis;
  try {
    redis = await connectRedis(options.redis);
  } catch (error) {
    say(
      `cannot reach Redis at ${shownUrl(options.redis)}: ${error instanceof Error ? error.message : String(error)}`,
    );
    return EXIT.failure;
  }
  const queue = new Queue(options.queue, { connection });
  const locks = new SessionLocks(redis, `santra:fleet:${options.queue}`, options.lockMs);
  const stillQueued = async (jobId: string) => {
    const state = await queue.getJobState(jobId);
    return state !== 'completed' && state !== 'failed' && state !== 'unknown';
  };

  const process_ = async (job: Job, token?: string): Promise<JobResult> => {
    const data = parseJob(job.data);
    if ('error' in data) throw new UnrecoverableError(data.error);
    const submittedAt = job.timestamp;
    const leases: Array<Awaited<ReturnType<SessionLocks['acquire']>>> = [];
    let finished = false;
    let keepCheckout = false;
    const key = checkoutKey(options.queue, String(job.id));
    try {
      const result = await runJob({
        data,
        progress: typeof job.progress === 'object' ? job.progress : {},
        saveProgress: (progress) => job.updateProgress(progress),
        attemptsBefore: job.attemptsMade,
        lockSession: async (sessionId) => {
          const lease = await locks.acquire(sessionId, String(job.id), submittedAt, stillQueued);
          if (lease === undefined) throw new SessionBusy(sessionId);
          leases.push(lease);
        },
        serverPath: environment.serverPath,
        clientVersion: environment.clientVersion,
        repoWorkdir: options.workdir,
        checkoutKey: key,
        stderr: process.stderr,
        verbose: options.verbose,
      });
      finished = true;
      keepCheckout = data.keepWorkspace === true;
      say(`job ${job.id}: ${result.status} (session ${result.sessionId}, attempt ${result.attempts})`);
      return result;
    } catch (error) {
      if (error instanceof SessionBusy) {
        if (token === undefined) throw new Error('BullMQ gave the job no lock token', { cause: error });
        await job.moveToDelayed(Date.now() + SESSION_BUSY_DELAY_MS, token);
        throw new DelayedError();
      }
      if (error instanceof UnrunnableJob) {
        finished = true;
        throw new UnrecoverableError(error.message);
      }
      // The last attempt failing leaves the session's line too.
      finished = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      const message =
        error instanceof PrintError
          ? error.message.replace(/^santra: /, '')
          : error instanceof Error
            ? error.message
            : String(error);
      say(`job ${job.id}: attempt ${job.attemptsMade + 1} failed: ${message}`);
      throw new Error(message, { cause: error });
    } finally {
      for (const lease of leases) await lease?.release(finished);
      // A repo job's checkout stays for its next attempt, and after it when the job asks.
      if (finished && !keepCheckout && data.repo !== undefined)
        await removeCheckout({ workdir: options.workdir, repo: data.repo, key }).catch((error: unknown) =>
          say(
            `job ${job.id}: its checkout could not be removed: ${error instanceof Error ? error.message : String(error)}`,
          ),
        );
    }
  };

  const worker = new Worker(options.queue, process_, {
    connection,
    concurrency: options.concurrency,
    lockDuration: options.lockMs,
    // A worker that died holds its jobs until its locks expire; they are then taken again, and
    // each attempt goes on from the saved session, so a job survives several such deaths.
    stalledInterval: Math.max(1000, Math.floor(options.lockMs / 2)),
    maxStalledCount: 10,
  });
  worker.on('error', (error) => say(`Redis: ${error.message}`));
  await worker.waitUntilReady();
  say(
    `taking jobs from queue "${options.queue}" at ${shownUrl(options.redis)}, ${options.concurrency} at a time; sessions in ${shownUrl(options.sessionStore)}; repositories in ${options.workdir}`,
  );

  const stopped = new Promise<number>((resolve) => {
    let draining = false;
    const stop = (signal: NodeJS.Signals) => {
      if (draining) {
        say(`${signal} again: stopping now; the running jobs go back to the queue`);
        process.exit(EXIT.failure);
      }
      draining = true;
      say(`${signal}: finishing the running jobs, taking no new ones (${signal} again stops at once)`);
      void worker.close().then(() => resolve(EXIT.ok));
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
  });
  const code = await stopped;
  await queue.close();
  await redis.close();
  say('stopped');
  return code;
}
