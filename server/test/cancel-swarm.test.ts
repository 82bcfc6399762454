/**
 * A cancel stops every agent of the run, against the built server: sub-agents the orchestrator
 * would spawn after the cancel (later in the same response) never start, nothing they would have
 * run runs or asks, and `shutdown` during running sub-agents leaves no command of theirs alive.
 * The server allows every command unasked (--auto-approve), as after an earlier allow-all.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, test } from 'node:test';
import type { FakeTurn } from '../../conformance-tests/src/fake-providers/index.ts';
import { suiteHarnesses } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();
const CLIENT = {
  capabilities: { approve: true, ask: true, diffs: true },
  args: ['--auto-approve'],
  generalist: false,
};
const isRequest = (method: string) => (m: Json) => m.method === method && m.id !== undefined;

const command = (line: string): FakeTurn => ({
  toolCalls: [{ name: 'run_command', args: { command: line } }],
});

/** True while a process with this pid exists (and is not a zombie). */
function alive(pid: number): boolean {
  // 0 or less would signal a process group, not a process.
  assert.ok(Number.isInteger(pid) && pid > 0, `${pid} is not a process id`);
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    // Gone, perhaps between the signal and the read.
    return false;
  }
}

/** The pids the commands wrote to `pid-*` files; a file the shell has opened but not yet written is not one yet. */
function writtenPids(workspace: string): number[] {
  return readdirSync(workspace)
    .filter((name) => name.startsWith('pid-'))
    .map((name) => Number(readFileSync(join(workspace, name), 'utf8').trim()))
    .filter((pid) => pid > 0);
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await delay(25);
  }
}

describe('a cancel stops every agent of the run (built server)', () => {
  const spawns = {
    spawn_agent: { agentId: 'executor', task: 'Create the marker file.' },
    spawn_agents: {
      agents: [
        { agentId: 'executor', task: 'Create the marker file.' },
        { agentId: 'executor', task: 'Again.' },
      ],
    },
  };
  for (const [tool, args] of Object.entries(spawns)) {
    test(`cancelled while ask_user waits: the ${tool} after it never starts, runs or asks anything`, async () => {
      const h = await start(
        'anthropic',
        [
          {
            toolCalls: [
              { name: 'ask_user', args: { prompt: 'Go ahead?' } },
              { name: tool, args },
            ],
          },
          command('touch marker-after-cancel'),
          command('touch marker-after-cancel'),
        ],
        {},
        undefined,
        CLIENT,
      );
      const id = h.nextId();
      h.client.request(id, 'prompt', { text: 'Create a marker file', mode: 'agent_task' });
      await h.client.next(isRequest('ask'));
      h.client.notify('$/cancelRequest', { id });
      const response = await h.client.response(id);
      assert.equal((response.result as Json).status, 'cancelled');
      // Time for anything that wrongly started to act.
      await delay(1500);
      assert.equal(
        existsSync(join(h.workspace, 'marker-after-cancel')),
        false,
        'nothing ran after the cancel',
      );
      assert.equal(h.fake.requests.length, 1, 'no sub-agent asked the model anything');
      assert.equal(h.client.messages.filter(isRequest('approve')).length, 0, 'nothing was put to the user');
      const phases = h.client.messages.filter((m) => m.method === 'phase').map((m) => m.params as Json);
      assert.equal(phases.filter((p) => p.type === 'section').length, 0, 'no sub-agent section was opened');
      const spawn = phases.find((p) => p.type === 'tool_result' && p.toolName === tool);
      assert.equal(spawn?.status, 'cancelled');
      assert.match(String(spawn?.output), /cancelled/);
    });
  }

  test('shutdown right after a cancel, with sub-agents spawned after it: no command starts, none outlives the server', async () => {
    const turns: FakeTurn[] = [
      {
        toolCalls: [
          { name: 'ask_user', args: { prompt: 'Go ahead?' } },
          {
            name: 'spawn_agents',
            args: { agents: [1, 2, 3].map((n) => ({ agentId: 'executor', task: `Write out-${n}.` })) },
          },
        ],
      },
      ...[1, 2, 3].map((n) => command(`echo $$ > pid-${n}; sleep 20; touch out-${n}`)),
    ];
    const h = await start('anthropic', turns, {}, { agent: { maxParallelAgents: 3 } }, CLIENT);
    const id = h.nextId();
    h.client.request(id, 'prompt', { text: 'Write three files', mode: 'agent_task' });
    await h.client.next(isRequest('ask'));
    h.client.notify('$/cancelRequest', { id });
    assert.equal(((await h.client.response(id)).result as Json).status, 'cancelled');
    // Time for sub-agents that wrongly started to reach their commands.
    await delay(1500);
    const shutdownId = h.nextId();
    h.client.request(shutdownId, 'shutdown');
    assert.equal((await h.client.response(shutdownId)).result, null);
    h.client.notify('exit');
    await h.client.exited;
    const started = readdirSync(h.workspace).filter((name) => name.startsWith('pid-'));
    const living = writtenPids(h.workspace).filter((pid) => alive(pid));
    for (const pid of living) process.kill(pid, 'SIGKILL');
    assert.deepEqual(living, [], 'no command outlived the server');
    assert.deepEqual(started, [], 'no command started after the cancel');
  });

  test('shutdown while three sub-agents run commands: it answers once they are stopped, and none outlives the server', async () => {
    const turns: FakeTurn[] = [
      {
        toolCalls: [
          {
            name: 'spawn_agents',
            args: {
              agents: [1, 2, 3].map((n) => ({ agentId: 'executor', task: `Write out-${n}.` })),
            },
          },
        ],
      },
      ...[1, 2, 3].map((n) => command(`echo $$ > pid-${n}; sleep 20; touch out-${n}`)),
    ];
    // Outside the OS sandbox: `$$` must be a pid of this machine's, not of a sandbox's PID namespace
    // (sandbox-linux.test.ts checks that a sandboxed command dies with its run).
    const config = { agent: { maxParallelAgents: 3 }, sandbox: { profile: 'danger-full-access' } };
    const h = await start('anthropic', turns, {}, config, CLIENT);
    const id = h.nextId();
    h.client.request(id, 'prompt', { text: 'Write three files', mode: 'agent_task' });
    await until(() => writtenPids(h.workspace).length === 3, 'the three commands run');
    const pids = writtenPids(h.workspace);
    assert.ok(
      pids.every((pid) => alive(pid)),
      'the commands are running',
    );

    const shutdownId = h.nextId();
    const asked = Date.now();
    h.client.request(shutdownId, 'shutdown');
    assert.equal((await h.client.response(shutdownId)).result, null);
    const took = Date.now() - asked;
    // The prompt was answered before shutdown was (every run ends first).
    assert.equal(((await h.client.response(id)).result as Json).status, 'cancelled');
    h.client.notify('exit');
    await h.client.exited;
    for (const pid of pids)
      assert.equal(alive(pid), false, `command ${pid} outlived the server (shutdown took ${took} ms)`);
    await delay(300);
    assert.deepEqual(
      readdirSync(h.workspace).filter((name) => name.startsWith('out-')),
      [],
      'no command wrote after the server was gone',
    );
  });
});
