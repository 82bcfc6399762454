/**
 * The job of `santra worker`: what any BullMQ producer (santra submit, a Node or Python script, a
 * bot) puts in a job's data, and what the worker returns as its result. docs/fleet.md documents
 * both; this schema is what the worker checks, so a bad job fails at once with the field named.
 */
import { isAbsolute } from 'node:path';
import * as z from 'zod';
import type { Usage } from '#protocol';

/** The queue santra worker and santra submit use unless --queue names another. */
export const DEFAULT_QUEUE = 'santra';

/** The version of the job schema; a job of a later version is refused with that said. */
export const JOB_VERSION = 1;

/**
 * Unattended runs have no one to ask, so what happens to a file change or a command is said by the
 * job: `reject` (the default: the agent can read and answer, not change anything) or `allow`
 * (everything is allowed except protected locations, which are always refused). `attach`: asked of
 * a client attached with santra attach, waiting for one up to `attachTimeoutSeconds`.
 */
export const APPROVAL_POLICIES = ['reject', 'allow', 'attach'] as const;
export type JobApprovalPolicy = (typeof APPROVAL_POLICIES)[number];

export const PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'bypassPermissions'] as const;

export const JobData = z.strictObject({
  version: z
    .literal(JOB_VERSION, { error: `expected "version": ${JOB_VERSION} (or leave it out)` })
    .optional(),
  prompt: z
    .string({ error: 'expected "prompt": the text the agent is to do, as a string' })
    .trim()
    .min(1, { error: 'the prompt is empty' }),
  cwd: z
    .string({ error: 'expected "cwd": the absolute path of the workspace on the worker’s machine' })
    .refine(isAbsolute, { error: 'must be an absolute path on the worker’s machine, e.g. "/srv/repos/app"' }),
  sessionId: z
    .string()
    .trim()
    .min(1, { error: 'give a session id (santra sessions lists them) or leave "sessionId" out' })
    .optional(),
  model: z.string().trim().min(1).optional(),
  agent: z.string().trim().min(1).optional(),
  approvalPolicy: z
    .enum(APPROVAL_POLICIES, { error: `expected one of ${APPROVAL_POLICIES.join(', ')}` })
    .default('reject'),
  permissionMode: z
    .enum(PERMISSION_MODES, { error: `expected one of ${PERMISSION_MODES.join(', ')}` })
    .optional(),
  maxBudgetUsd: z.number().positive({ error: 'must be an amount of US dollars greater than 0' }).optional(),
  attachTimeoutSeconds: z
    .number()
    .int()
    .positive({ error: 'must be a whole number of seconds greater than 0' })
    .max(86_400)
    .default(600),
});
export type JobData = z.infer<typeof JobData>;
/** A job's data as a producer writes it: defaults may be left out. */
export type JobInput = z.input<typeof JobData>;

/** The job's data, or a message naming each field that is wrong and how to fix it. */
export function parseJob(data: unknown): JobData | { error: string } {
  const parsed = JobData.safeParse(data);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const field = issue.path.length === 0 ? '(the job data)' : `"${issue.path.join('.')}"`;
    return issue.code === 'unrecognized_keys'
      ? `unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((key) => `"${key}"`).join(', ')} (docs/fleet.md lists the job's fields)`
      : `${field}: ${issue.message}`;
  });
  return { error: `invalid santra job: ${problems.join('; ')}` };
}

/** The job's result (BullMQ's return value). */
export interface JobResult {
  /** How the run ended: completed, error, cancelled, interrupted (as `prompt`'s status). */
  status: string;
  sessionId: string;
  runId: string;
  /** The answer. */
  output: string;
  stopReason?: string;
  usage: Usage;
  costUsd: number;
  /** The changes to the workspace as a unified git diff (empty: none); null outside a git repository. */
  diff: string | null;
  /** Attempts it took: more than 1 when a worker died or stalled and another went on. */
  attempts: number;
  /** What the unattended rules refused (file changes, commands), one line each. */
  refused: string[];
}

/** What the worker keeps in the job's progress, so that another attempt goes on where one stopped. */
export interface JobProgress {
  /**
   * Attempts begun, this one included. BullMQ's attemptsMade counts failures only: a job taken
   * over from a worker that died (stalled) is not a failure to it.
   */
  attempts?: number;
  sessionId?: string;
  /** How many runs the session had before this job's prompt: the job's run is the next one. */
  runsBefore?: number;
  /** The workspace as a git tree before the job: the diff is taken against it. */
  baseTree?: string;
}
