/**
 * A worker fleet on this machine, for tui/test/fleet-*.test.ts and scripts/bench-fleet.ts: a real
 * redis-server on a free port, the fake Anthropic provider on 127.0.0.1, a workspace, and
 * `santra worker` processes of the built dist/santra.js (each starting the built santra-server
 * per job). Jobs are put on the queue with BullMQ itself, as any producer would.
 *
 * The fake model is stateless, so any worker can serve any request: a conversation without a tool
 * result yet gets one run_command call that appends a line to `exec/<job>.log` (one line per
 * execution: two lines would be a tool call run twice); one with a tool result gets "done <job>".
 * The job's name is the first word after "job " in its prompt.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Job, Queue, QueueEvents } from 'bullmq';
import { startFakeProvider } from '../conformance-tests/src/fake-providers/index.ts';
import type { FakeProvider, RecordedRequest } from '../conformance-tests/src/fake-providers/types.ts';
import { startRedis, type RunningStore } from '../server/test/helpers/stores.ts';
import { CANARY_KEY, FAST_RESILIENCE, TESTER } from '../server/test/helpers/run.ts';
import { bullConnection } from '../tui/src/fleet/redis.ts';
import type { JobInput } from '../tui/src/fleet/job.ts';
import { removeTempDir, tempDir } from './temp-dirs.ts';

export const SANTRA = fileURLToPath(new URL('../dist/santra.js', import.meta.url));

/** The tester agent the fleet's jobs run (for tests in tui/, which may not import server/test). */
export { TESTER };
const SERVER = fileURLToPath(new URL('../dist/santra-server.js', import.meta.url));

export interface FleetWorker {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  /** What it wrote on stderr so far. */
  log(): string;
}

export interface Fleet {
  redisUrl: string;
  queue: Queue;
  events: QueueEvents;
  workspace: string;
  fake: FakeProvider;
  startWorker(args?: string[]): Promise<FleetWorker>;
  /** Executions of each job's tool call, by job name (lines of exec/<job>.log). */
  executions(): Map<string, number>;
  /** A job of the fake's script: `job <name>`, run by the tester agent, commands allowed. */
  job(name: string, more?: Partial<JobInput>): JobInput;
  close(): Promise<void>;
}

/** The job named in the conversation's first user message. */
function jobName(request: RecordedRequest): string {
  const body = request.body as { messages?: Array<{ role: string; content: unknown }> };
  const messages = body.messages ?? [];
  const text = JSON.stringify(messages.find((message) => message.role === 'user')?.content ?? '');
  return /job ([\w-]+)/.exec(text)?.[1] ?? 'unknown';
}

function hasToolResult(request: RecordedRequest): boolean {
  return JSON.stringify((request.body as { messages?: unknown }).messages ?? []).includes('"tool_result"');
}

export async function startFleet(options: { commandSeconds?: number } = {}): Promise<Fleet> {
  if (!existsSync(SANTRA) || !existsSync(SERVER))
    throw new Error(`${SANTRA} is missing: run npm run build first`);
  const redis: RunningStore = await startRedis();
  const redisUrl = await redis.newDatabase();
  const pause = options.commandSeconds ?? 0.3;
  const fake = await startFakeProvider('anthropic', []);
  // One turn for every job: match() names the job of the request, and the tool call is read right
  // after it (the fake plans a turn synchronously once it matched), so each job gets its own file.
  let current = 'unknown';
  fake.push({
    repeat: true,
    match: (request) => {
      if (hasToolResult(request)) return false;
      current = jobName(request);
      return true;
    },
    get toolCalls() {
      return [
        { name: 'run_command', args: { command: `echo run >> exec/${current}.log && sleep ${pause}` } },
      ];
    },
  });
  fake.push({ repeat: true, match: hasToolResult, text: 'done' });
  const home = tempDir('santra-fleet-home-');
  const workspace = tempDir('santra-fleet-ws-');
  mkdirSync(join(workspace, '.agents'), { recursive: true });
  mkdirSync(join(workspace, 'exec'));
  writeFileSync(join(workspace, '.agents/tester.json'), JSON.stringify(TESTER));
  const connection = bullConnection(redisUrl);
  const queue = new Queue('santra', { connection });
  const events = new QueueEvents('santra', { connection });
  await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
  const workers: FleetWorker[] = [];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    SANTRA_HOME: join(home, 'santra'),
    XDG_CONFIG_HOME: join(home, '.config'),
    ...FAST_RESILIENCE,
    ANTHROPIC_API_KEY: CANARY_KEY,
    ANTHROPIC_BASE_URL: fake.url,
    SANTRA_MODEL: 'anthropic/claude-sonnet-4-5',
    SANTRA_SERVER: SERVER,
    NO_COLOR: '1',
  };
  // Not set by the tests: the worker turns memory's extraction off for its jobs itself (worker.ts),
  // which every fleet test's scripted turns then depend on.
  delete env.SANTRA_MEMORY_AUTO_EXTRACT;
  return {
    redisUrl,
    queue,
    events,
    workspace,
    fake,
    async startWorker(args = []) {
      const child = spawn(process.execPath, [SANTRA, 'worker', '--redis', redisUrl, ...args], {
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = once(child, 'exit').then(() => {});
      // Ready once it says it takes jobs (or it died: its stderr says why).
      await new Promise<void>((resolve, reject) => {
        const check = () => {
          if (stderr.includes('taking jobs')) resolve();
          else if (child.exitCode !== null || child.signalCode !== null)
            reject(new Error(`santra worker exited:\n${stderr}`));
        };
        child.stderr?.on('data', check);
        child.on('exit', check);
      });
      const worker = { child, exited, log: () => stderr };
      workers.push(worker);
      return worker;
    },
    executions() {
      const counts = new Map<string, number>();
      for (const file of readdirSync(join(workspace, 'exec'))) {
        const lines = readFileSync(join(workspace, 'exec', file), 'utf8')
          .split('\n')
          .filter(Boolean);
        counts.set(file.replace(/\.log$/, ''), lines.length);
      }
      return counts;
    },
    job(name, more = {}) {
      return { prompt: `job ${name}`, cwd: workspace, agent: 'tester', approvalPolicy: 'allow', ...more };
    },
    async close() {
      for (const worker of workers) worker.child.kill('SIGKILL');
      await Promise.all(workers.map((worker) => worker.exited));
      await events.close();
      await queue.close();
      await fake.close();
      await redis.stop();
      await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
    },
  };
}

/**
 * Waits for every job to finish (completed or failed), looking again each time the queue says a
 * job ended; fails after `ms` with their states. Resolves with the jobs as they ended.
 */
export async function finishedJobs(fleet: Fleet, jobs: readonly Job[], ms: number): Promise<Job[]> {
  let ended = () => {};
  const onEnd = () => ended();
  fleet.events.on('completed', onEnd);
  fleet.events.on('failed', onEnd);
  let timer: NodeJS.Timeout | undefined;
  let states: string[] = [];
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`jobs not finished within ${ms} ms: ${states.join(', ')}`)),
      ms,
    );
  });
  try {
    for (;;) {
      // Listening before looking: a job that ends meanwhile wakes the next wait.
      const next = new Promise<void>((resolve) => (ended = resolve));
      states = await Promise.all(jobs.map((job) => fleet.queue.getJobState(String(job.id))));
      if (states.every((state) => state === 'completed' || state === 'failed'))
        return await Promise.all(jobs.map(async (job) => (await fleet.queue.getJob(String(job.id))) as Job));
      await Promise.race([next, timedOut]);
    }
  } finally {
    clearTimeout(timer);
    fleet.events.off('completed', onEnd);
    fleet.events.off('failed', onEnd);
  }
}
