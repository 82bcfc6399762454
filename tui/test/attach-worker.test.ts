/**
 * `approvalPolicy: "attach"` end to end: the built santra worker on a real redis-server runs a job
 * whose model asks to run a command (scripts/fleet-harness.ts); `santra attach <session>` in a
 * real terminal (tmux), with the sessions in that Redis, shows the run and asks; the key typed
 * there is the answer the job's run acts on. With nobody attached, the job refuses after its
 * `attachTimeoutSeconds`. Waits are on the queue's events and on what the pane prints.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Job } from 'bullmq';
import { type Fleet, SANTRA, startFleet } from '../../scripts/fleet-harness.ts';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import type { JobResult } from '../src/fleet/job.ts';
import { hasTmux, onPaneOutput, quote, tmuxServer } from './helpers/tmux-ui.ts';

const SERVER = SANTRA.replace(/santra\.js$/, 'santra-server.js');
const { tmux, kill } = tmuxServer('santra-attach-test');
const EXITED = '--- santra exited ---';
const dirs: string[] = [];

after(async () => {
  kill();
  await Promise.all(dirs.map((dir) => removeTempDir(dir)));
});

/** `santra attach` in a fresh tmux session, its sessions in `store`: read the pane, type keys. */
function attachInTerminal(store: string, cwd: string, args: string[]) {
  const dir = tempDir('santra-attach-');
  dirs.push(dir);
  const files = { stdout: join(dir, 'stdout'), code: join(dir, 'code'), pane: join(dir, 'pane') };
  const command = [
    'env',
    `HOME=${quote(dir)}`,
    `SANTRA_HOME=${quote(join(dir, 'santra'))}`,
    `SANTRA_SESSION_STORE=${quote(store)}`,
    `SANTRA_SERVER=${quote(SERVER)}`,
    'NO_COLOR=1',
    quote(process.execPath),
    quote(SANTRA),
    'attach',
    ...args.map(quote),
    '--cwd',
    quote(cwd),
  ].join(' ');
  const name = `a${dirs.length}`;
  if (dirs.length === 1) {
    // A server that keeps finished panes, so the test can still read what santra left on screen.
    tmux('new-session', '-d', '-s', 'keeper');
    tmux('set-option', '-g', 'remain-on-exit', 'on');
  }
  tmux(
    'new-session',
    '-d',
    '-s',
    name,
    '-x',
    '160',
    '-y',
    '50',
    `${command} > ${quote(files.stdout)}; echo $? > ${quote(files.code)}; echo ${quote(EXITED)}`,
  );
  writeFileSync(files.pane, '');
  tmux('pipe-pane', '-t', name, `cat >> ${quote(files.pane)}`);
  const pane = () => tmux('capture-pane', '-p', '-t', name, '-S', '-200');
  const waitForPane = (pattern: RegExp) =>
    onPaneOutput(
      files.pane,
      () => pattern.test(pane()),
      () => `waited for ${pattern}; pane:\n${pane()}`,
      30_000,
    );
  return {
    pane,
    type: (...keys: string[]) => tmux('send-keys', '-t', name, ...keys),
    waitForPane,
    finished: async () => {
      await waitForPane(new RegExp(EXITED));
      return {
        code: Number(readFileSync(files.code, 'utf8')),
        stdout: existsSync(files.stdout) ? readFileSync(files.stdout, 'utf8') : '',
      };
    },
  };
}

/** The session of `job`, from the progress the worker saves as soon as it exists. */
function sessionOf(fleet: Fleet, job: Job): Promise<string> {
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => {
      fleet.events.off('progress', onProgress);
      reject(new Error(`job ${job.id} saved no session id within 20 s`));
    }, 20_000);
    const onProgress = ({ jobId, data }: { jobId: string; data: unknown }) => {
      const sessionId = (data as { sessionId?: unknown } | undefined)?.sessionId;
      if (jobId !== String(job.id) || typeof sessionId !== 'string') return;
      clearTimeout(deadline);
      fleet.events.off('progress', onProgress);
      resolve(sessionId);
    };
    fleet.events.on('progress', onProgress);
    // Saved before this listener was there: it is in the job already.
    void fleet.queue.getJob(String(job.id)).then((saved) => {
      const sessionId = (saved?.progress as { sessionId?: unknown } | undefined)?.sessionId;
      if (typeof sessionId === 'string') onProgress({ jobId: String(job.id), data: { sessionId } });
    });
  });
}

describe('approvalPolicy "attach": santra worker and santra attach', () => {
  let fleet: Fleet;
  before(async () => {
    fleet = await startFleet();
  });
  after(async () => {
    await fleet?.close();
  });

  test('tmux is installed (.ci/run installs it)', () => {
    assert.ok(hasTmux, 'install tmux');
  });

  test('the job waits; santra attach shows the run and asks, and the key typed there is acted on', async () => {
    const worker = await fleet.startWorker();
    const job = await fleet.queue.add(
      'santra',
      fleet.job('w1', { approvalPolicy: 'attach', attachTimeoutSeconds: 120 }),
      { attempts: 1 },
    );
    const sessionId = await sessionOf(fleet, job);
    const term = attachInTerminal(fleet.redisUrl, fleet.workspace, [sessionId, '--until-done']);
    await term.waitForPane(/Allow\? \[y\] yes/);
    assert.match(term.pane(), new RegExp(`attached to ${sessionId}`));
    assert.match(term.pane(), /echo run >> exec\/w1\.log/);
    assert.equal(fleet.executions().get('w1'), undefined, 'nothing ran before the answer');
    term.type('y');
    const result = (await job.waitUntilFinished(fleet.events, 60_000)) as JobResult;
    assert.equal(result.status, 'completed', worker.log());
    assert.equal(result.output, 'done');
    assert.deepEqual(result.refused, []);
    assert.equal(fleet.executions().get('w1'), 1, 'the command ran once, as allowed');
    // The run's end ends `--until-done`; its answer was on stdout.
    await term.waitForPane(/ended: completed/);
    const { code, stdout } = await term.finished();
    assert.equal(code, 0, term.pane());
    assert.equal(stdout, 'done\n');
    assert.match(term.pane(), /detached at seq \d+ \(\d+ phases from the store, \d+ live, 1 answered here\)/);
    assert.match(
      worker.log(),
      new RegExp(`waiting up to 120 s for an attached client to answer: .*santra attach ${sessionId}`),
    );
    worker.child.kill('SIGTERM');
    await worker.exited;
  });

  test('nobody attaches: the job refuses after attachTimeoutSeconds, and says so in its result', async () => {
    const worker = await fleet.startWorker();
    const job = await fleet.queue.add(
      'santra',
      fleet.job('w2', { approvalPolicy: 'attach', attachTimeoutSeconds: 1 }),
      { attempts: 1 },
    );
    const result = (await job.waitUntilFinished(fleet.events, 60_000)) as JobResult;
    assert.equal(result.status, 'completed', worker.log());
    assert.equal(fleet.executions().get('w2'), undefined, 'the command did not run');
    assert.equal(result.refused.length, 1, JSON.stringify(result.refused));
    assert.match(
      result.refused[0] ?? '',
      /rejected .*echo run >> exec\/w2\.log.*no client attached and answered within 1 s/,
    );
    worker.child.kill('SIGTERM');
    await worker.exited;
  });
});
