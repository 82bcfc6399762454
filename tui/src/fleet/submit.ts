/**
 * `santra submit --redis URL [--cwd DIR | --repo URL --ref REF] [--session ID] [--wait] -p "…"`: puts a santra job on the
 * queue (job.ts is its schema, docs/fleet.md its documentation) and prints its id; with --wait,
 * waits for it and prints the result as `santra -p` would (text: the answer on stdout; json: the
 * job's result), with the same exit codes.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Queue, QueueEvents } from 'bullmq';
import { EXIT } from '../print/args.ts';
import {
  APPROVAL_POLICIES,
  DEFAULT_QUEUE,
  type JobInput,
  type JobResult,
  parseJob,
  PERMISSION_MODES,
} from './job.ts';
import { bullConnection, redisUrlProblem, shownUrl } from './redis.ts';

export interface SubmitOptions {
  redis: string;
  queue: string;
  job: JobInput;
  wait: boolean;
  json: boolean;
  /** BullMQ attempts: how many times the job is tried when a worker fails it. */
  attempts: number;
}

export const SUBMIT_USAGE =
  'santra submit --redis URL [--queue NAME] [--cwd DIR | --repo URL --ref REF [--keep-workspace]] [--session ID] [--model M] [--agent A] [--approve-all | --approval-policy reject|allow|attach] [--permission-mode MODE] [--max-budget-usd N] [--attach-timeout SECONDS] [--attempts N] [--wait] [--output-format text|json] -p "prompt"';

/** The arguments after `santra submit`, or why they are unusable. */
export function parseSubmitArgs(argv: readonly string[], cwd: string): SubmitOptions | { error: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: true,
      options: {
        redis: { type: 'string' },
        queue: { type: 'string' },
        cwd: { type: 'string' },
        repo: { type: 'string' },
        ref: { type: 'string' },
        'keep-workspace': { type: 'boolean' },
        session: { type: 'string' },
        model: { type: 'string' },
        agent: { type: 'string' },
        'approve-all': { type: 'boolean' },
        'approval-policy': { type: 'string' },
        'permission-mode': { type: 'string' },
        'max-budget-usd': { type: 'string' },
        'attach-timeout': { type: 'string' },
        attempts: { type: 'string' },
        wait: { type: 'boolean' },
        'output-format': { type: 'string' },
        print: { type: 'string', short: 'p' },
      },
    });
  } catch (error) {
    return { error: `${error instanceof Error ? error.message : String(error)}; usage: ${SUBMIT_USAGE}` };
  }
  const { values, positionals } = parsed;
  const prompt = values.print ?? positionals[0];
  if (prompt === undefined) return { error: `santra submit needs the prompt: -p "what to do"` };
  if (positionals.length > (values.print === undefined ? 1 : 0))
    return {
      error: `santra submit takes one prompt; put it in quotes: -p "${[prompt, ...positionals].join(' ')}"`,
    };
  const redis = values.redis ?? process.env.SANTRA_REDIS_URL;
  if (redis === undefined || redis === '')
    return {
      error: `santra submit needs the queue's Redis: --redis redis://HOST:6379 (or SANTRA_REDIS_URL)`,
    };
  const problem = redisUrlProblem(redis);
  if (problem !== undefined) return { error: `--redis: ${problem}` };
  if (values['approve-all'] === true && values['approval-policy'] !== undefined)
    return { error: '--approve-all is --approval-policy allow: give one of them' };
  const format = values['output-format'] ?? 'text';
  if (format !== 'text' && format !== 'json')
    return { error: `--output-format must be text or json, got "${format}"` };
  if (values['output-format'] !== undefined && values.wait !== true)
    return { error: '--output-format says how --wait prints the result; add --wait' };
  const attempts = values.attempts === undefined ? 3 : Number(values.attempts);
  if (!Number.isInteger(attempts) || attempts < 1 || attempts > 100)
    return { error: `--attempts must be a whole number from 1 to 100, got "${values.attempts}"` };
  const number = (flag: string, text: string | undefined) =>
    text === undefined
      ? undefined
      : /^\s*\$?\d+(\.\d*)?\s*$/.test(text)
        ? Number(text.replace('$', ''))
        : Number.NaN;
  const budget = number('--max-budget-usd', values['max-budget-usd']);
  const timeout = number('--attach-timeout', values['attach-timeout']);
  const policy = values['approve-all'] === true ? 'allow' : values['approval-policy'];
  if (values.repo !== undefined && values.cwd !== undefined)
    return {
      error: '--cwd names a directory on the worker, --repo a repository it checks out: give one of them',
    };
  if ((values.repo === undefined) !== (values.ref === undefined))
    return {
      error:
        values.repo === undefined
          ? '--ref is the ref of --repo: add --repo URL'
          : '--repo needs the branch, tag or commit to run on: add --ref REF (e.g. --ref main)',
    };
  if (values['keep-workspace'] === true && values.repo === undefined)
    return { error: '--keep-workspace keeps the checkout of a --repo job; add --repo URL --ref REF' };
  const job = {
    prompt,
    ...(values.repo === undefined || values.ref === undefined
      ? { cwd: resolve(cwd, values.cwd ?? '.') }
      : { repo: { url: values.repo, ref: values.ref } }),
    ...(values['keep-workspace'] === true ? { keepWorkspace: true } : {}),
    ...(values.session === undefined ? {} : { sessionId: values.session }),
    ...(values.model === undefined ? {} : { model: values.model }),
    ...(values.agent === undefined ? {} : { agent: values.agent }),
    ...(policy === undefined ? {} : { approvalPolicy: policy }),
    ...(values['permission-mode'] === undefined ? {} : { permissionMode: values['permission-mode'] }),
    ...(budget === undefined ? {} : { maxBudgetUsd: budget }),
    ...(timeout === undefined ? {} : { attachTimeoutSeconds: timeout }),
  };
  // The worker checks the job again; checking here names the option instead of the field.
  const checked = parseJob(job);
  if ('error' in checked) {
    const hints = [
      ...(checked.error.includes('"approvalPolicy"')
        ? [`--approval-policy: ${APPROVAL_POLICIES.join(', ')}`]
        : []),
      ...(checked.error.includes('"permissionMode"')
        ? [`--permission-mode: ${PERMISSION_MODES.join(', ')}`]
        : []),
    ];
    return { error: hints.length === 0 ? checked.error : `${checked.error} (${hints.join('; ')})` };
  }
  return {
    redis,
    queue: values.queue ?? DEFAULT_QUEUE,
    job: job as JobInput,
    wait: values.wait === true,
    json: format === 'json',
    attempts,
  };
}

/** Enqueues the job; with --wait, prints its result. Resolves with the exit code. */
export async function runSubmit(options: SubmitOptions): Promise<number> {
  const connection = bullConnection(options.redis);
  const queue = new Queue(options.queue, { connection });
  const events = options.wait ? new QueueEvents(options.queue, { connection }) : undefined;
  try {
    await Promise.all([queue.waitUntilReady(), events?.waitUntilReady()]);
    const job = await queue.add('santra', options.job, {
      attempts: options.attempts,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: { age: 7 * 86_400 },
      removeOnFail: { age: 30 * 86_400 },
    });
    if (events === undefined) {
      process.stdout.write(`${job.id}\n`);
      return EXIT.ok;
    }
    process.stderr.write(`santra: job ${job.id} queued on "${options.queue}"; waiting for a worker\n`);
    let result: JobResult;
    try {
      result = (await job.waitUntilFinished(events)) as JobResult;
    } catch (error) {
      process.stderr.write(
        `santra: job ${job.id} failed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      return EXIT.failure;
    }
    printResult(result, options.json);
    return exitCodeOf(result);
  } catch (error) {
    process.stderr.write(
      `santra: the queue at ${shownUrl(options.redis)} could not be used: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return EXIT.failure;
  } finally {
    await events?.close();
    await queue.close();
  }
}

function printResult(result: JobResult, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  process.stdout.write(
    result.output.endsWith('\n') || result.output === '' ? result.output : `${result.output}\n`,
  );
  for (const line of result.refused) process.stderr.write(`santra: ${line}\n`);
  const changed =
    result.diff === null
      ? ''
      : result.diff === ''
        ? ', no file changed'
        : ', files changed (the diff is in --output-format json)';
  const ranOn = result.commit === undefined ? '' : ` on ${result.commit.slice(0, 12)}`;
  process.stderr.write(
    `santra: ${result.status}${ranOn} in session ${result.sessionId} after ${result.attempts} attempt${result.attempts === 1 ? '' : 's'}, $${result.costUsd.toFixed(4)}${changed}\n`,
  );
  if (result.workspace !== undefined)
    process.stderr.write(`santra: the checkout is kept at ${result.workspace}\n`);
}

function exitCodeOf(result: JobResult): number {
  if (result.status !== 'completed') return EXIT.failure;
  return result.stopReason === 'max_tokens' || result.stopReason === 'refusal' ? EXIT.incomplete : EXIT.ok;
}
