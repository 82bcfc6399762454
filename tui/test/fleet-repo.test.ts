/**
 * Jobs on a git URL and ref, end to end: the built santra worker on a real redis-server
 * (scripts/fleet-harness.ts), a real repository in a temp dir fetched over file://, the job's
 * santra-server running the fake model's tool call (`echo run >> exec/<job>.log`) in the checkout
 * the worker made. Each result carries the diff and the commit; checkouts are the job's own, gone
 * after it, and the same one again for a second attempt after a kill -9.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { type Fleet, finishedJobs, SANTRA, startFleet, TESTER } from '../../scripts/fleet-harness.ts';
import { tempDir } from '../../scripts/temp-dirs.ts';
import type { JobInput, JobResult } from '../src/fleet/job.ts';
import { until } from './helpers/until.ts';

const run = promisify(execFile);

interface Source {
  url: string;
  main: string;
  feature: string;
  home: string;
}

function git(cwd: string, home: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1', XDG_CONFIG_HOME: join(home, '.config') },
  }).trim();
}

/** The project the jobs run on: the tester agent and exec/ on main; feature.txt on "feature". */
function sourceRepository(): Source {
  const home = tempDir('santra-fleet-repo-home-');
  const dir = tempDir('santra-fleet-repo-src-');
  git(dir, home, 'init', '-q', '-b', 'main');
  mkdirSync(join(dir, '.agents'));
  mkdirSync(join(dir, 'exec'));
  writeFileSync(join(dir, '.agents/tester.json'), JSON.stringify(TESTER));
  writeFileSync(join(dir, 'exec/.keep'), '');
  git(dir, home, 'add', '.');
  git(dir, home, 'commit', '-q', '-m', 'main');
  const main = git(dir, home, 'rev-parse', 'HEAD');
  git(dir, home, 'switch', '-q', '-c', 'feature');
  writeFileSync(join(dir, 'feature.txt'), 'feature\n');
  git(dir, home, 'add', '.');
  git(dir, home, 'commit', '-q', '-m', 'feature');
  const feature = git(dir, home, 'rev-parse', 'HEAD');
  git(dir, home, 'switch', '-q', 'main');
  return { url: `file://${dir}`, main, feature, home };
}

describe('santra worker: jobs on a git repository', () => {
  let fleet: Fleet;
  let source: Source;
  let workdir: string;
  const job = (name: string, ref: string, more: Partial<JobInput> = {}): JobInput => ({
    prompt: `job ${name}`,
    repo: { url: source.url, ref },
    agent: 'tester',
    approvalPolicy: 'allow',
    ...more,
  });
  const checkouts = () => readdirSync(join(workdir, 'checkouts'));

  before(async () => {
    fleet = await startFleet({ commandSeconds: 0.6 });
    source = sourceRepository();
    workdir = tempDir('santra-fleet-repo-work-');
  });
  after(async () => {
    await fleet?.close();
  });

  test('jobs on a ref run in checkouts of their own at it, and return the diff and the commit', async () => {
    const worker = await fleet.startWorker(['--workdir', workdir, '--concurrency', '3']);
    const jobs = await Promise.all([
      fleet.queue.add('santra', job('r1', 'feature'), { attempts: 2 }),
      fleet.queue.add('santra', job('r2', 'feature'), { attempts: 2 }),
      fleet.queue.add('santra', job('r3', 'main', { keepWorkspace: true }), { attempts: 2 }),
    ]);
    const done = await finishedJobs(fleet, jobs, 60_000);
    const [one, two, three] = done.map((ended) => {
      assert.equal(
        ended.failedReason,
        undefined,
        `${ended.id} failed: ${ended.failedReason}\n${worker.log()}`,
      );
      return ended.returnvalue as JobResult;
    });
    assert.ok(one !== undefined && two !== undefined && three !== undefined);
    for (const [result, name] of [
      [one, 'r1'],
      [two, 'r2'],
    ] as const) {
      assert.equal(result.status, 'completed');
      assert.equal(result.commit, source.feature);
      assert.deepEqual(result.repo, { url: source.url, ref: 'feature' });
      // The diff is what this job did, in its own checkout: its log, no other job's.
      assert.match(
        result.diff ?? '',
        new RegExp(`^\\+\\+\\+ b/exec/${name}\\.log\\n@@ .* @@\\n\\+run$`, 'm'),
      );
      assert.equal((result.diff ?? '').match(/^diff --git/gm)?.length, 1, result.diff ?? '');
      assert.equal(result.workspace, undefined);
    }
    assert.equal(three.commit, source.main);
    assert.equal(three.workspace, join(workdir, 'checkouts', `santra-${jobs[2]?.id}`));
    assert.equal(readFileSync(join(three.workspace, 'exec/r3.log'), 'utf8'), 'run\n');
    assert.ok(!existsSync(join(three.workspace, 'feature.txt')), 'the main branch was checked out');
    // The others' checkouts are gone; the kept one stays.
    assert.deepEqual(checkouts(), [`santra-${jobs[2]?.id}`]);
    worker.child.kill('SIGTERM');
    await worker.exited;
  });

  test('santra submit --repo URL --ref REF --wait', async () => {
    const worker = await fleet.startWorker(['--workdir', workdir]);
    const before = checkouts();
    const submitted = await run(process.execPath, [
      SANTRA,
      ...['submit', '--redis', fleet.redisUrl, '--repo', source.url, '--ref', source.feature],
      ...['--agent', 'tester', '--approve-all', '--wait', '-p', 'job c1'],
    ]);
    assert.equal(submitted.stdout, 'done\n');
    assert.match(
      submitted.stderr,
      new RegExp(
        `completed on ${source.feature.slice(0, 12)} in session \\S+ after 1 attempt.*files changed`,
      ),
    );
    assert.deepEqual(checkouts(), before, 'its checkout was removed');
    const usage = await run(process.execPath, [
      SANTRA,
      ...['submit', '--redis', fleet.redisUrl, '--repo', source.url, '-p', 'x'],
    ]).then(
      () => assert.fail('--repo without --ref was taken'),
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--repo needs the branch, tag or commit to run on: add --ref REF/);
    worker.child.kill('SIGTERM');
    await worker.exited;
  });

  test('an unknown ref, a missing repository or a refused transport fails the job once, saying why', async () => {
    const worker = await fleet.startWorker(['--workdir', workdir, '--concurrency', '3']);
    const jobs = await Promise.all([
      fleet.queue.add('santra', job('b1', 'no-such-branch'), { attempts: 3 }),
      fleet.queue.add(
        'santra',
        { ...job('b2', 'main'), repo: { url: `${source.url}-gone`, ref: 'main' } },
        { attempts: 3 },
      ),
      fleet.queue.add(
        'santra',
        { ...job('b3', 'main'), repo: { url: 'ext::sh -c touch% /tmp/x', ref: 'main' } },
        { attempts: 3 },
      ),
      // A host that does not answer may answer later: a retry is allowed, here none.
      fleet.queue.add(
        'santra',
        { ...job('b4', 'main'), repo: { url: 'https://bot:s3cret@127.0.0.1:1/x.git', ref: 'main' } },
        { attempts: 1 },
      ),
    ]);
    const [ref, repo, transport, token] = await finishedJobs(fleet, jobs, 60_000);
    assert.match(
      ref?.failedReason ?? '',
      /the ref "no-such-branch" is not in file:\/\/\S+: give a branch, tag or full commit id/,
    );
    assert.match(repo?.failedReason ?? '', /there is no git repository at file:\/\/\S+-gone: check the URL/);
    assert.match(transport?.failedReason ?? '', /"repo.url": the ext:: transport is refused/);
    for (const failed of [ref, repo, transport])
      assert.equal(failed?.attemptsMade, 1, `${failed?.id} was retried`);
    assert.match(
      token?.failedReason ?? '',
      /fetching "main" from https:\/\/\*\*\*@127\.0\.0\.1:1\/x\.git failed/,
    );
    assert.doesNotMatch(JSON.stringify([token?.failedReason, token?.stacktrace]), /s3cret/);
    assert.doesNotMatch(worker.log(), /s3cret/);
    worker.child.kill('SIGTERM');
    await worker.exited;
    assert.doesNotMatch(worker.log(), /s3cret/);
  });

  test('a worker killed with kill -9 mid-job: the next attempt goes on in the same checkout', async () => {
    const args = ['--workdir', workdir, '--lock-seconds', '2'];
    const first = await fleet.startWorker(args);
    const added = await fleet.queue.add('santra', job('k1', 'main', { keepWorkspace: true }), {
      attempts: 5,
    });
    const checkout = join(workdir, 'checkouts', `santra-${added.id}`);
    const log = join(checkout, 'exec/k1.log');
    // Into the job: its tool call has begun (the command sleeps 0.6 s after writing its line).
    await until(() => existsSync(log), 'the job’s tool call to start in its checkout', { ms: 30_000 });
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await fleet.startWorker(args);
    const [done] = await finishedJobs(fleet, [added], 60_000);
    assert.equal(done?.failedReason, undefined, `${done?.failedReason}\n${second.log()}`);
    const result = done?.returnvalue as JobResult;
    assert.equal(result.status, 'completed');
    assert.equal(result.attempts, 2, 'the second worker went on with it');
    assert.equal(result.workspace, checkout, 'in the same checkout');
    assert.equal(result.commit, source.main);
    // The first attempt's change is there and in the diff, and the command did not run again.
    assert.equal(readFileSync(log, 'utf8'), 'run\n');
    assert.match(result.diff ?? '', /^\+\+\+ b\/exec\/k1\.log$/m);
    assert.doesNotMatch(second.log(), /not on this worker/);
    second.child.kill('SIGTERM');
    await second.exited;
  });
});
