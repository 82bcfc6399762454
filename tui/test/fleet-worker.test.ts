/**
 * `santra worker` and `santra submit` end to end: the built santra on a real redis-server, the
 * real santra-server per job against the fake provider, real tool calls writing real files
 * (scripts/fleet-harness.ts). The fault test kills workers with SIGKILL while they run jobs and
 * counts, per job, how often its tool call ran: never more than once, and every job completes.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { watch } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { type Fleet, finishedJobs, SANTRA, startFleet } from '../../scripts/fleet-harness.ts';
import type { JobResult } from '../src/fleet/job.ts';

const run = promisify(execFile);

/** Resolves when a job's tool call next writes its line in exec/ (so it is running); fails after `ms`. */
async function nextExecution(fleet: Fleet, ms: number): Promise<void> {
  const watcher = watch(join(fleet.workspace, 'exec'));
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      once(watcher, 'change'),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no tool call started within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    watcher.close();
  }
}

/** A santra command that fails: its exit code and stderr. */
async function failing(args: string[]): Promise<{ code: number; stderr: string }> {
  return run(process.execPath, [SANTRA, ...args]).then(
    () => assert.fail(`santra ${args.join(' ')} succeeded`),
    (error: { code: number; stderr: string }) => error,
  );
}

describe('santra worker', () => {
  let fleet: Fleet;
  before(async () => {
    fleet = await startFleet();
  });
  after(async () => {
    await fleet?.close();
  });

  test('three jobs submitted at once all complete, each with its result, usage and session', async () => {
    const worker = await fleet.startWorker(['--concurrency', '3']);
    const jobs = await Promise.all(
      ['a1', 'a2', 'a3'].map((name) => fleet.queue.add('santra', fleet.job(name), { attempts: 2 })),
    );
    const done = await finishedJobs(fleet, jobs, 30_000);
    for (const job of done) {
      assert.equal(job.failedReason, undefined, `${job.id} failed: ${job.failedReason}\n${worker.log()}`);
      const result = job.returnvalue as JobResult;
      assert.equal(result.status, 'completed');
      assert.equal(result.output, 'done');
      assert.match(result.sessionId, /\S/);
      assert.ok(result.usage.outputTokens > 0, 'usage is reported');
      assert.equal(result.attempts, 1);
      assert.equal(result.diff, null, 'the workspace is not a git repository');
    }
    assert.deepEqual([...fleet.executions()].filter(([name]) => name.startsWith('a')).sort(), [
      ['a1', 1],
      ['a2', 1],
      ['a3', 1],
    ]);
    worker.child.kill('SIGTERM');
    await worker.exited;
    assert.match(worker.log(), /SIGTERM: finishing the running jobs/);
    assert.equal(worker.child.exitCode, 0);
  });

  test('a job that is not a santra job fails at once, naming the field and the fix', async () => {
    const worker = await fleet.startWorker();
    const job = await fleet.queue.add(
      'santra',
      { prompt: 'x', cwd: 'relative/dir', colour: 'red' },
      { attempts: 3 },
    );
    const [done] = await finishedJobs(fleet, [job], 15_000);
    assert.match(done?.failedReason ?? '', /"cwd": must be an absolute path/);
    assert.match(done?.failedReason ?? '', /unknown field "colour"/);
    assert.equal(done?.attemptsMade, 1, 'a bad job is not retried');
    worker.child.kill('SIGTERM');
    await worker.exited;
  });

  test('santra submit --wait prints the result like santra -p; jobs on one session run in order', async () => {
    const worker = await fleet.startWorker(['--concurrency', '2']);
    const common = ['submit', '--redis', fleet.redisUrl, '--cwd', fleet.workspace, '--approve-all'];
    const first = await run(process.execPath, [
      SANTRA,
      ...common,
      ...['--agent', 'tester', '--wait', '--output-format', 'json', '-p', 'job s1'],
    ]);
    const result = JSON.parse(first.stdout) as JobResult;
    assert.equal(result.status, 'completed');
    // Two jobs on that session at once, on a worker that could run both: the second starts only
    // after the first has ended, so its conversation holds the first one's run.
    const added = await Promise.all(
      ['s2', 's3'].map((name) =>
        fleet.queue.add('santra', fleet.job(name, { sessionId: result.sessionId }), { attempts: 2 }),
      ),
    );
    const done = await finishedJobs(fleet, added, 30_000);
    for (const job of done) assert.equal((job.returnvalue as JobResult).sessionId, result.sessionId);
    const [two, three] = done;
    assert.ok((two?.finishedOn ?? Infinity) <= (three?.finishedOn ?? 0), 's2 ended before s3');
    const requests = fleet.fake.requests.map((request) => JSON.stringify(request.body));
    const last = requests.findLast((text) => text.includes('job s3'));
    assert.ok(
      last !== undefined && last.includes('job s2'),
      'the third run saw the second in its conversation',
    );
    assert.ok(
      last.indexOf('job s1') < last.indexOf('job s2') && last.indexOf('job s2') < last.indexOf('job s3'),
    );
    const text = await run(process.execPath, [
      SANTRA,
      ...common,
      '--agent',
      'tester',
      '--wait',
      '-p',
      'job s4',
    ]);
    assert.equal(text.stdout, 'done\n');
    assert.match(text.stderr, /completed in session \S+ after 1 attempt/);
    worker.child.kill('SIGTERM');
    await worker.exited;
  });

  test('santra submit without a prompt, or with a bad option, is a usage error naming the fix', async () => {
    const missing = await failing(['submit', '--redis', fleet.redisUrl]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /needs the prompt: -p "what to do"/);
    const policy = await failing([
      'submit',
      '--redis',
      fleet.redisUrl,
      '--approval-policy',
      'sometimes',
      '-p',
      'x',
    ]);
    assert.equal(policy.code, 2);
    assert.match(policy.stderr, /"approvalPolicy": expected one of reject, allow, attach/);
    const worker = await failing(['worker', '--redis', 'http://127.0.0.1:1']);
    assert.equal(worker.code, 2);
    assert.match(worker.stderr, /--redis: "http:" is not Redis; give a URL like redis:\/\/127.0.0.1:6379/);
  });
});

describe('santra worker under kill -9', () => {
  let fleet: Fleet;
  before(async () => {
    fleet = await startFleet({ commandSeconds: 0.6 });
  });
  after(async () => {
    await fleet?.close();
  });

  test('dozens of jobs, workers killed mid-job: 0 lost jobs, 0 tool calls run twice', async () => {
    const lock = ['--lock-seconds', '2', '--concurrency', '3'];
    const workers = await Promise.all([1, 2, 3].map(() => fleet.startWorker(lock)));
    const names = Array.from({ length: 30 }, (_, index) => `k${index}`);
    const jobs = await fleet.queue.addBulk(
      names.map((name) => ({ name: 'santra', data: fleet.job(name), opts: { attempts: 10 } })),
    );
    // Kill a worker while jobs run, and start another, four times.
    let kills = 0;
    for (let round = 0; round < 4; round++) {
      // Into a job: a tool call (0.6 s) has just begun, on one of the three workers.
      await nextExecution(fleet, 20_000);
      const victim = workers.shift();
      if (victim === undefined) break;
      victim.child.kill('SIGKILL');
      await victim.exited;
      kills++;
      workers.push(await fleet.startWorker(lock));
    }
    const done = await finishedJobs(fleet, jobs, 45_000);
    const failed = done.filter((job) => job.failedReason !== undefined || job.returnvalue === null);
    assert.deepEqual(
      failed.map((job) => `${job.id}: ${job.failedReason}`),
      [],
      `lost jobs; worker logs:\n${workers.map((worker) => worker.log()).join('\n')}`,
    );
    const executions = fleet.executions();
    assert.deepEqual(
      names.filter((name) => (executions.get(name) ?? 0) > 1),
      [],
      'tool calls that ran more than once',
    );
    for (const job of done) assert.equal((job.returnvalue as JobResult).status, 'completed');
    // The kills hit running jobs, or this test proves nothing.
    assert.equal(kills, 4);
    const resumed = done.filter((job) => (job.returnvalue as JobResult).attempts > 1);
    assert.ok(resumed.length > 0, 'no job was taken over by another worker: the kills missed');
    // A taken-over job went on in its session; it did not start again: no conversation the model
    // was sent holds a job's prompt twice.
    for (const name of names) {
      const repeated = fleet.fake.requests.filter(
        (request) => JSON.stringify(request.body).split(`job ${name}"`).length > 2,
      );
      assert.equal(repeated.length, 0, `job ${name}'s prompt was sent twice in one conversation`);
    }
  });
});
