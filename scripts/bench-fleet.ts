/**
 * Worker fleet benchmark (issue 29): jobs per minute with 1, 2 and 4 `santra worker` processes
 * (concurrency 1 each) on a real redis-server, each job a real santra-server run against the fake
 * provider (one run_command call, then the answer: scripts/fleet-harness.ts), and the queue's
 * overhead per job: the time from enqueueing to a worker starting it plus from its end to the
 * producer seeing it, next to the run itself (the job's processedOn..finishedOn).
 *   npm run build && node scripts/bench-fleet.ts [--jobs 24]
 * A benchmark, not a test: results go to docs/performance.md.
 */
import { parseArgs } from 'node:util';
import type { Job } from 'bullmq';
import { startFleet } from './fleet-harness.ts';

const { values } = parseArgs({ options: { jobs: { type: 'string', default: '24' } } });
const count = Number(values.jobs);
const median = (numbers: number[]) => {
  const sorted = [...numbers].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

for (const workers of [1, 2, 4]) {
  const fleet = await startFleet({ commandSeconds: 0 });
  try {
    await Promise.all(Array.from({ length: workers }, () => fleet.startWorker(['--concurrency', '1'])));
    const started = Date.now();
    const jobs = await fleet.queue.addBulk(
      Array.from({ length: count }, (_, index) => ({
        name: 'santra',
        data: fleet.job(`b${workers}-${index}`),
      })),
    );
    const seen = new Map<string, number>();
    await Promise.all(
      jobs.map(async (job) => {
        await job.waitUntilFinished(fleet.events, 120_000);
        seen.set(String(job.id), Date.now());
      }),
    );
    const elapsed = Date.now() - started;
    const done = (await Promise.all(jobs.map((job) => fleet.queue.getJob(String(job.id))))) as Job[];
    const runMs = done.map((job) => (job.finishedOn ?? 0) - (job.processedOn ?? 0));
    // With as many jobs as workers' slots or fewer waiting, enqueue→start is queue overhead only;
    // past that it is waiting for a free worker, so only the first `workers` jobs count for it.
    const pickup = done.slice(0, workers).map((job) => (job.processedOn ?? 0) - job.timestamp);
    const report = done.map((job) => (seen.get(String(job.id)) ?? 0) - (job.finishedOn ?? 0));
    console.log(
      `${workers} worker${workers === 1 ? ' ' : 's'}: ${count} jobs in ${(elapsed / 1000).toFixed(1)} s = ${((count / elapsed) * 60_000).toFixed(0)} jobs/min; run median ${median(runMs)} ms; queue overhead median ${median(pickup)} ms to start + ${median(report)} ms to report`,
    );
  } finally {
    await fleet.close();
  }
}
