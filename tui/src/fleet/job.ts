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

/**
 * A repository and the ref to run on, instead of a `cwd`: the worker checks it out (repo-workspace.ts).
 * Only transports that move data are taken: https, http, ssh (also `user@host:path`) and file://.
 * `ext::` runs a command of the URL's choosing and others are not wanted from a queue anyone with
 * Redis access can write to; git is told the same (GIT_ALLOW_PROTOCOL), so nothing slips past here.
 */
export const RepoSpec = z.strictObject(
  {
    url: z
      .string({ error: 'expected "url": the repository, e.g. "https://github.com/acme/app.git"' })
      .trim()
      .refine((url) => repoUrlProblem(url) === undefined, {
        error: (issue) => repoUrlProblem(String(issue.input)) ?? 'is not a repository URL',
      }),
    ref: z
      .string({ error: 'expected "ref": the branch, tag or commit to run on, e.g. "main"' })
      .trim()
      .refine((ref) => refProblem(ref) === undefined, {
        error: (issue) => refProblem(String(issue.input)) ?? 'is not a ref',
      }),
  },
  { error: 'expected "repo": {"url": "…", "ref": "…"}' },
);
export type RepoSpec = z.infer<typeof RepoSpec>;

/** The transports a repo job may use, in GIT_ALLOW_PROTOCOL's words. */
export const REPO_PROTOCOLS = ['https', 'http', 'ssh', 'file'] as const;

/** Why `url` is not a repository a job may name, or undefined. */
export function repoUrlProblem(url: string): string | undefined {
  const allowed = 'give an https://, http://, ssh:// (or user@host:path) or file:// URL';
  if (url === '') return `is empty; ${allowed}`;
  if (url.startsWith('-')) return `must not begin with "-"; ${allowed}`;
  const transport = /^([a-z][\w+.-]*)::/i.exec(url)?.[1];
  if (transport !== undefined)
    return `the ${transport}:: transport is refused (it runs or reaches what a job must not); ${allowed}`;
  if (url.startsWith('/'))
    return `a repository on the worker's disk is a file:// URL: "file://${url}" (or use "cwd" to run in that directory itself)`;
  if (/[\s\0]/.test(url)) return `must not contain spaces or control characters; ${allowed}`;
  // scp-like ssh: user@host:path (git reads "::" as a transport, e.g. ext::, so it is not this).
  if (/^[\w.-]+@[\w.-]+:(?!:)[^]/.test(url) && !url.includes('::')) return undefined;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined || !url.slice(scheme.length).startsWith('://'))
    return `"${redactUrl(url)}" is not a URL git may fetch from here (transports like ext:: are refused); ${allowed}`;
  if (!(REPO_PROTOCOLS as readonly string[]).includes(scheme))
    return `the ${scheme}:// transport is refused; ${allowed}`;
  if (scheme === 'file') {
    if (!url.startsWith('file:///')) return 'a file:// URL names an absolute path: file:///srv/git/app.git';
    return undefined;
  }
  try {
    if (new URL(url).hostname === '') return `"${redactUrl(url)}" names no host; ${allowed}`;
  } catch {
    return `"${redactUrl(url)}" is not a valid URL; ${allowed}`;
  }
  return undefined;
}

/** Why `ref` is not a branch, tag or commit name git would take, or undefined. */
export function refProblem(ref: string): string | undefined {
  const example = 'e.g. "main", "v1.2.0", "refs/pull/7/head" or a commit id';
  if (ref === '') return `is empty; give the branch, tag or commit to run on, ${example}`;
  if (ref.startsWith('-')) return `must not begin with "-"; ${example}`;
  if (/[\s\0-\x1f\x7f~^:?*[\\]|\.\.|@\{|\/\/|\.lock$|\/$|\.$/.test(ref))
    return `"${ref}" is not a valid git ref name (no spaces, "..", "~", "^", ":", "?", "*", "[", "\\"); ${example}`;
  return undefined;
}

/**
 * `url` with what may be a secret taken out (`https://user:token@host` → `https://***@host`), to
 * show in logs, errors and results. git's own messages go through redactText.
 */
export function redactUrl(url: string): string {
  return redactText(url);
}

/** Text (git's stderr, an error) with any credentials in http(s) URLs in it replaced by `***`. */
export function redactText(text: string): string {
  return text.replace(/\b(https?:\/\/)[^/\s@]+@/gi, '$1***@');
}

export const JobData = z
  .strictObject({
    version: z
      .literal(JOB_VERSION, { error: `expected "version": ${JOB_VERSION} (or leave it out)` })
      .optional(),
    prompt: z
      .string({ error: 'expected "prompt": the text the agent is to do, as a string' })
      .trim()
      .min(1, { error: 'the prompt is empty' }),
    cwd: z
      .string({ error: 'expected "cwd": the absolute path of the workspace on the worker’s machine' })
      .refine(isAbsolute, {
        error: 'must be an absolute path on the worker’s machine, e.g. "/srv/repos/app"',
      })
      .optional(),
    repo: RepoSpec.optional(),
    keepWorkspace: z
      .boolean({ error: 'expected true (keep the checkout after the job, its path in the result) or false' })
      .optional(),
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
  })
  .superRefine((job, context) => {
    // The workspace is one of two things, never both and never neither.
    if ((job.cwd === undefined) === (job.repo === undefined))
      context.addIssue({
        code: 'custom',
        path: job.cwd === undefined ? ['cwd'] : ['repo'],
        message:
          job.cwd === undefined
            ? 'the job needs its workspace: "cwd" (a directory on the worker) or "repo": {"url", "ref"} (a git repository the worker checks out)'
            : 'give "cwd" or "repo", not both: "cwd" names a directory on the worker, "repo" a repository the worker checks out',
      });
    if (job.keepWorkspace === true && job.repo === undefined)
      context.addIssue({
        code: 'custom',
        path: ['keepWorkspace'],
        message: 'is for "repo" jobs (whose checkout the worker makes and removes); leave it out with "cwd"',
      });
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
  /** A `repo` job: the repository (credentials taken out of its URL) and the ref as given. */
  repo?: RepoSpec;
  /** A `repo` job: the commit the ref named when the job began, which the run was checked out at. */
  commit?: string;
  /** A `repo` job with `keepWorkspace`: the checkout on the worker, left in place. */
  workspace?: string;
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
  /** A `repo` job: the commit its checkout was made at (a later attempt reuses that checkout). */
  commit?: string;
}
