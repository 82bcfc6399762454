/**
 * Background agents and interactive shells through `santra -p --approve-all`, the built binary:
 * the orchestrator starts an executor in the background, the executor drives a python3 REPL, the
 * orchestrator collects the answer — nothing asked (allow-all covers typed REPL input), the
 * answer on stdout, nothing left running.
 */
import assert from 'node:assert/strict';
import { readdirSync, readlinkSync } from 'node:fs';
import { after, test } from 'node:test';
import { startFakeProvider } from '../../conformance-tests/src/fake-providers/index.ts';
import type { FakeTurn, RecordedRequest } from '../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { CANARY_KEY, runSantra, santraEnv } from './helpers/run.ts';

const systemText = (request: RecordedRequest) =>
  (request.body.system as Array<{ text: string }>).map((block) => block.text).join('\n');
const turn = (role: string, id: string, name: string, args: unknown): FakeTurn => ({
  match: (request) => systemText(request).includes(`You are the ${role}`),
  toolCalls: [{ id, name, args }],
});

function processesIn(dir: string): number[] {
  return readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      return readlinkSync(`/proc/${entry}/cwd`).startsWith(dir) ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}

test('santra -p --approve-all: a background executor computes 6*7 in a python3 REPL; the orchestrator collects it', async () => {
  const fake = await startFakeProvider('anthropic', [
    turn('orchestrator', 'o1', 'spawn_agent', {
      agentId: 'executor',
      task: 'Compute 6*7 in a Python REPL',
      background: true,
    }),
    turn('executor', 'e1', 'shell_start', { command: 'python3 -q', waitFor: '>>> ', timeout: 30 }),
    turn('orchestrator', 'o2', 'agent_collect', { id: 'executor-1', wait: 120 }),
    turn('executor', 'e2', 'shell_send', {
      id: 'sh-1',
      text: '6*7',
      keys: ['Enter'],
      waitFor: '42',
      timeout: 30,
    }),
    turn('executor', 'e3', 'task_completed', { result: 'Python says 42' }),
    turn('orchestrator', 'o3', 'task_completed', { result: 'The answer is 42.' }),
  ]);
  const home = tempDir('santra-home-');
  const workspace = tempDir('santra-ws-');
  after(async () => {
    await fake.close();
    await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
  });
  const run = await runSantra(['-p', 'Compute 6*7 in a python REPL in the background', '--approve-all'], {
    cwd: workspace,
    env: santraEnv(home, fake.url),
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'The answer is 42.');
  assert.ok(!run.stdout.includes(CANARY_KEY) && !run.stderr.includes(CANARY_KEY));
  // The REPL's answer reached the executor's next turn: it read 42 from the screen.
  const afterSend = fake.requests.find((request) =>
    JSON.stringify(request.body.messages).includes('>>> 6*7\\n42'),
  );
  assert.ok(afterSend !== undefined, 'the executor read 42 from the REPL');
  assert.deepEqual(processesIn(workspace), []);
});
