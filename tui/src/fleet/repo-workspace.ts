/**
 * The workspace of a `repo` job: a checkout of the job's repository at its ref, made by the worker.
 *
 * The worker keeps one bare mirror per repository in its work directory (`--workdir`), fetches the
 * job's ref into it, and adds a detached `git worktree` for the job, so jobs on one repository share
 * the objects (one fetch brings what the next job needs) but never a checkout. The checkout is named
 * by the job (queue and job id): a second attempt at the job — after a worker was killed, or a
 * failure — finds the same checkout with what the first attempt changed, as its saved session does.
 *
 * ```
 * <workdir>/mirrors/<name>-<hash>.git    bare; refs/santra/jobs/<job> keeps each job's commit
 * <workdir>/checkouts/<job>              the worktree the job's server runs in
 * <workdir>/locks/<name>-<hash>.lock     held while git changes a mirror (fetch, worktree add/remove)
 * ```
 *
 * git runs with the worker's own configuration (credential helpers, SSH keys and known hosts), never
 * prompting (GIT_TERMINAL_PROMPT=0: nobody is there), and with GIT_ALLOW_PROTOCOL naming the
 * transports job.ts allows, so `ext::` and the like are refused by git too. Credentials in a URL
 * are never written to the mirror's config (the URL is given to each fetch) nor shown: every
 * message goes through redactText.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { redactText, REPO_PROTOCOLS, type RepoSpec } from './job.ts';

const run = promisify(execFile);

/** A fetch of a large repository over a slow link takes a while; one that hangs is stopped. */
const FETCH_TIMEOUT_MS = 15 * 60_000;
/** How long to wait for another worker's hold on a mirror before giving up (a fetch may be long). */
const LOCK_WAIT_MS = FETCH_TIMEOUT_MS + 60_000;

/** A repository problem a retry cannot fix (no such repository or ref, refused credentials). */
export class RepoProblem extends Error {
  readonly permanent: boolean;
  constructor(message: string, permanent: boolean) {
    super(message);
    this.permanent = permanent;
  }
}

export interface RepoCheckout {
  /** The worktree: the job's workspace root. */
  path: string;
  /** The commit it was checked out at. */
  commit: string;
  /** True when an earlier attempt's checkout was found and is used again, with its changes. */
  reused: boolean;
}

/**
 * The worker's work directory unless --workdir names one: `$SANTRA_HOME/worker` when SANTRA_HOME
 * is set, else `$XDG_CACHE_HOME/santra/worker` (absolute only, as XDG says), else
 * `~/.cache/santra/worker`. It is a cache: deleting it (with no worker running) loses nothing.
 */
export function defaultWorkdir(env: NodeJS.ProcessEnv): string {
  const value = (name: string) => {
    const text = env[name]?.trim();
    return text === undefined || text === '' ? undefined : text;
  };
  const santraHome = value('SANTRA_HOME');
  if (santraHome !== undefined) return join(resolve(santraHome), 'worker');
  const cache = value('XDG_CACHE_HOME');
  if (cache !== undefined && isAbsolute(cache)) return join(cache, 'santra', 'worker');
  return join(value('HOME') ?? homedir(), '.cache', 'santra', 'worker');
}

/** The name of a job's checkout: its queue and id, as a file name (hashed when they are not one). */
export function checkoutKey(queue: string, jobId: string): string {
  const name = `${queue}-${jobId}`;
  return /^[\w.-]{1,100}$/.test(name) && !name.startsWith('.')
    ? name
    : `job-${createHash('sha256').update(name).digest('hex').slice(0, 24)}`;
}

/** The repository's URL without credentials: what names its mirror, so a rotated token shares it. */
function mirrorName(url: string): string {
  const bare = redactText(url).replace('***@', '');
  const hash = createHash('sha256').update(bare).digest('hex').slice(0, 16);
  const last = /([\w.-]+?)(?:\.git)?\/*$/.exec(bare)?.[1] ?? 'repo';
  return `${last.replace(/^\.+/, '').slice(0, 40) || 'repo'}-${hash}`;
}

interface Layout {
  mirror: string;
  lock: string;
  checkout: string;
  /** The ref in the mirror that keeps the job's commit while its checkout exists. */
  jobRef: string;
}

function layout(workdir: string, url: string, key: string): Layout {
  const name = mirrorName(url);
  return {
    mirror: join(workdir, 'mirrors', `${name}.git`),
    lock: join(workdir, 'locks', `${name}.lock`),
    checkout: join(workdir, 'checkouts', key),
    jobRef: `refs/santra/jobs/${key}`,
  };
}

/** The environment git runs in: the worker's, never prompting, and only the allowed transports. */
function gitEnv(more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GIT_ALLOW_PROTOCOL: REPO_PROTOCOLS.join(':'),
    GIT_TERMINAL_PROMPT: '0',
    GCM_INTERACTIVE: 'never',
    ...more,
  };
}

/**
 * The URL git is given, and how credentials written in it reach the server instead: an http(s)
 * URL's `user:token@` goes as an Authorization header set through git's environment
 * (GIT_CONFIG_COUNT), not on git's command line, where any user of the machine could read it.
 */
export function fetchTarget(
  url: string,
  env: NodeJS.ProcessEnv = process.env,
): { url: string; env: NodeJS.ProcessEnv } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url, env: {} };
  }
  if (
    (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') ||
    (parsed.username === '' && parsed.password === '')
  )
    return { url, env: {} };
  const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
  parsed.username = '';
  parsed.password = '';
  // Entries the worker's environment already sets come first; this one is added after them.
  const count = Number(env.GIT_CONFIG_COUNT ?? 0) || 0;
  return {
    url: parsed.toString(),
    env: {
      GIT_CONFIG_COUNT: String(count + 1),
      // For this URL only (git matches http.<url>.* by prefix), not any host a redirect leads to.
      [`GIT_CONFIG_KEY_${count}`]: `http.${parsed.toString()}.extraHeader`,
      [`GIT_CONFIG_VALUE_${count}`]: `Authorization: Basic ${Buffer.from(credentials).toString('base64')}`,
    },
  };
}

/** Runs git; a failure rejects with git's own words (credentials taken out) as the message. */
async function git(
  cwd: string,
  args: string[],
  timeout = 120_000,
  env: NodeJS.ProcessEnv = {},
): Promise<string> {
  try {
    const { stdout } = await run('git', args, {
      cwd,
      env: gitEnv(env),
      encoding: 'utf8',
      timeout,
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const { stderr, killed } = error as { stderr?: string; killed?: boolean };
    const said =
      (stderr ?? '')
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '')
        .join(' ') || (error instanceof Error ? error.message : String(error));
    // No `cause`: execFile's error quotes the command line, whose URL may carry credentials.
    // eslint-disable-next-line preserve-caught-error
    throw new Error(redactText(killed === true ? `git ${args[0]} took too long and was stopped` : said));
  }
}

/**
 * The job's checkout: the one an earlier attempt made (when `commit` says there was one and it is
 * still on this worker), else a new one at `commit` (another attempt's) or at what `repo.ref` names
 * now. Rejects with a RepoProblem.
 */
export async function prepareCheckout(options: {
  workdir: string;
  repo: RepoSpec;
  key: string;
  commit?: string;
}): Promise<RepoCheckout> {
  const { workdir, repo, key } = options;
  const where = layout(workdir, repo.url, key);
  if (options.commit !== undefined && existsSync(join(where.checkout, '.git'))) {
    const inside = await git(where.checkout, ['rev-parse', '--is-inside-work-tree']).catch(() => '');
    if (inside.trim() === 'true') return { path: where.checkout, commit: options.commit, reused: true };
  }
  return withMirrorLock(where.lock, async () => {
    const created = await ensureMirror(where.mirror);
    // A checkout left by an attempt that died before it said so is not trusted: it is made again.
    await dropCheckout(where);
    const commit = await fetchCommit(where, repo, options.commit).catch((error: unknown) => {
      // No empty mirror is kept for a repository that does not exist.
      if (created && error instanceof RepoProblem && error.permanent)
        rmSync(where.mirror, { recursive: true, force: true });
      throw error;
    });
    mkdirSync(join(workdir, 'checkouts'), { recursive: true });
    try {
      await git(where.mirror, ['worktree', 'add', '--detach', '--quiet', where.checkout, commit]);
    } catch (error) {
      throw new RepoProblem(
        `the checkout of ${redactText(repo.url)} at ${commit} could not be made in ${where.checkout}: ${(error as Error).message}`,
        false,
      );
    }
    return { path: where.checkout, commit, reused: false };
  });
}

/** Removes the job's checkout (and the ref keeping its commit); nothing when there is none. */
export async function removeCheckout(options: {
  workdir: string;
  repo: RepoSpec;
  key: string;
}): Promise<void> {
  const where = layout(options.workdir, options.repo.url, options.key);
  if (!existsSync(where.mirror)) return;
  await withMirrorLock(where.lock, () => dropCheckout(where));
}

async function dropCheckout(where: Layout): Promise<void> {
  if (existsSync(where.checkout))
    await git(where.mirror, ['worktree', 'remove', '--force', '--force', where.checkout]).catch(() => {
      // Not a worktree git knows (a half-made one): the directory goes, and git forgets it below.
      rmSync(where.checkout, { recursive: true, force: true });
    });
  await git(where.mirror, ['worktree', 'prune']).catch(() => {});
  await git(where.mirror, ['update-ref', '-d', where.jobRef]).catch(() => {});
}

/** Makes the bare mirror unless it is there; true when it was made now. */
async function ensureMirror(mirror: string): Promise<boolean> {
  if (existsSync(join(mirror, 'HEAD'))) return false;
  rmSync(mirror, { recursive: true, force: true });
  mkdirSync(mirror, { recursive: true });
  await git(mirror, ['init', '--bare', '--quiet']);
  // Jobs' commits are kept by their refs; objects no job needs any more may be collected.
  await git(mirror, ['config', 'gc.auto', '256']);
  return true;
}

/**
 * Fetches `repo.ref` into the job's ref and returns its commit. With `known` (another attempt's
 * commit), that commit is used when the mirror has it, and fetched with the ref when it does not.
 */
async function fetchCommit(where: Layout, repo: RepoSpec, known: string | undefined): Promise<string> {
  const shown = redactText(repo.url);
  const has = (commit: string) =>
    git(where.mirror, ['cat-file', '-e', `${commit}^{commit}`]).then(
      () => true,
      () => false,
    );
  // A commit the mirror has already (another attempt's, or a full commit id as the ref) is not fetched.
  const wanted = known ?? (/^[0-9a-f]{40}$/i.test(repo.ref) ? repo.ref.toLowerCase() : undefined);
  if (wanted !== undefined && (await has(wanted))) {
    await git(where.mirror, ['update-ref', where.jobRef, wanted]);
    return wanted;
  }
  const target = fetchTarget(repo.url);
  try {
    await git(
      where.mirror,
      [
        'fetch',
        '--quiet',
        '--no-tags',
        '--no-write-fetch-head',
        '--',
        target.url,
        `+${repo.ref}:${where.jobRef}`,
      ],
      FETCH_TIMEOUT_MS,
      target.env,
    );
  } catch (error) {
    const said = (error as Error).message;
    throw new RepoProblem(`${fetchProblem(said, shown, repo.ref)}\ngit said: ${said}`, isPermanent(said));
  }
  const fetched = (
    await git(where.mirror, ['rev-parse', '--verify', '--quiet', `${where.jobRef}^{commit}`]).catch(() => '')
  ).trim();
  if (fetched === '')
    throw new RepoProblem(
      `"${repo.ref}" in ${shown} is not a commit (a tag of a tree or blob?); give a branch, tag or commit`,
      true,
    );
  if (known === undefined) return fetched;
  // Another attempt's commit: the ref may have moved on since, but the job goes on where it was.
  if (!(await has(known)))
    throw new RepoProblem(
      `commit ${known}, which an earlier attempt at this job ran on, is not in ${shown} at "${repo.ref}" any more`,
      true,
    );
  await git(where.mirror, ['update-ref', where.jobRef, known]);
  return known;
}

/** What went wrong, in words that say what to fix. */
function fetchProblem(said: string, url: string, ref: string): string {
  if (
    /couldn't find remote ref|not our ref|unadvertised object|no such ref|invalid refspec|bad object/i.test(
      said,
    )
  )
    return `the ref "${ref}" is not in ${url}: give a branch, tag or full commit id that the repository has`;
  if (/does not appear to be a git repository|repository .*not found|not found|no such file/i.test(said))
    return `there is no git repository at ${url}: check the URL (and that this worker may read it)`;
  if (
    /authentication failed|could not read username|permission denied|terminal prompts disabled|403/i.test(
      said,
    )
  )
    return `${url} refused this worker's credentials: set up a git credential helper or an SSH key for the worker's user (docs/fleet.md, "Jobs on a git repository")`;
  if (/transport .* not allowed/i.test(said)) return `git refused the transport of ${url}`;
  return `fetching "${ref}" from ${url} failed`;
}

/** No retry fixes a missing repository or ref, or refused credentials; a network failure may pass. */
function isPermanent(said: string): boolean {
  return /couldn't find remote ref|not our ref|unadvertised object|invalid refspec|does not appear to be a git repository|repository .*not found|authentication failed|could not read username|terminal prompts disabled|not allowed/i.test(
    said,
  );
}

/** One change to a mirror at a time, across the jobs of this worker and other workers on the machine. */
const heldHere = new Map<string, Promise<unknown>>();

async function withMirrorLock<T>(lock: string, work: () => Promise<T>): Promise<T> {
  const before = heldHere.get(lock) ?? Promise.resolve();
  const mine = before
    .catch(() => {})
    .then(async () => {
      await takeLock(lock);
      try {
        return await work();
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
    });
  heldHere.set(lock, mine);
  try {
    return await mine;
  } finally {
    if (heldHere.get(lock) === mine) heldHere.delete(lock);
  }
}

/**
 * A directory made with mkdir (atomic) is the lock; its `owner` file names the process. A lock
 * whose process is gone (a worker killed with kill -9) is taken over.
 */
async function takeLock(lock: string): Promise<void> {
  mkdirSync(join(lock, '..'), { recursive: true });
  const until = Date.now() + LOCK_WAIT_MS;
  for (let wait = 20; ; wait = Math.min(wait * 2, 500)) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'owner'), `${hostname()} ${process.pid}\n`);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (ownerGone(lock)) {
      rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > until)
      throw new RepoProblem(
        `${lock} has been held for over ${Math.round(LOCK_WAIT_MS / 60_000)} minutes; if no worker is fetching, remove it`,
        false,
      );
    await delay(wait);
  }
}

function ownerGone(lock: string): boolean {
  let owner: string;
  try {
    owner = readFileSync(join(lock, 'owner'), 'utf8').trim();
  } catch {
    // Just made, its owner writing the file; or its owner died right then.
    try {
      return Date.now() - statSync(lock).mtimeMs > 10_000;
    } catch {
      return false;
    }
  }
  const [host, pid] = owner.split(' ');
  if (host !== hostname() || pid === undefined) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
