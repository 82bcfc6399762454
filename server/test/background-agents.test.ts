/**
 * Background sub-agents end to end: the built server, the fake provider playing the orchestrator
 * and the executor (turns matched by system prompt and by what the request carries), and a
 * client whose approvals hold an agent at a known point, so each interleaving is forced, never
 * left to timing.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import type { FakeTurn, RecordedRequest } from '../../conformance-tests/src/fake-providers/index.ts';
import { suiteHarnesses } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();
const APPROVER = { capabilities: { approve: true, ask: true }, generalist: false };

const systemText = (request: RecordedRequest) =>
  (request.body.system as Array<{ text: string }>).map((block) => block.text).join('\n');
const carries = (request: RecordedRequest, text: string) =>
  JSON.stringify(request.body.messages).includes(text);
/** A turn of `role`, served only to a request whose conversation carries `text` (when given). */
const turn = (role: string, rest: Omit<FakeTurn, 'match'>, text?: string): FakeTurn => ({
  match: (request) =>
    systemText(request).includes(`You are the ${role}`) && (text === undefined || carries(request, text)),
  ...rest,
});
const call = (id: string, name: string, args: unknown) => ({ toolCalls: [{ id, name, args }] });
const phasesOf = (messages: Json[]) =>
  messages.filter((m) => m.method === 'phase').map((m) => m.params as Json);

/** Waits (consuming nothing) until `condition` holds. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`never saw ${what}`);
    await delay(20);
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/** Processes whose working directory is inside `dir` (what a run left running there). */
function processesIn(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`).startsWith(dir)) pids.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

describe('background agents', () => {
  test('started in the background, steered mid-run, collected, then resumed with new instructions', async () => {
    const h = await start(
      'anthropic',
      [
        turn(
          'orchestrator',
          call('o1', 'spawn_agent', { agentId: 'executor', task: 'Write notes.txt', background: true }),
        ),
        turn('executor', call('e1', 'run_command', { command: 'echo draft > notes.txt' })),
        turn(
          'orchestrator',
          call('o2', 'agent_steer', { id: 'executor-1', message: 'Write FINAL, not draft.' }),
        ),
        turn('orchestrator', call('o3', 'agent_collect', { id: 'executor-1', wait: 60 })),
        turn(
          'executor',
          call('e2', 'task_completed', { result: 'notes.txt says FINAL' }),
          'Write FINAL, not draft.',
        ),
        turn('orchestrator', call('o4', 'agent_resume', { id: 'executor-1', task: 'Now count its lines.' })),
        turn('orchestrator', call('o5', 'agent_collect', { id: 'executor-1', wait: 60 })),
        turn(
          'executor',
          call('e3', 'task_completed', { result: 'one line' }),
          'New instructions:\\nNow count its lines.',
        ),
        turn('orchestrator', call('o6', 'task_completed', { result: 'Wrote notes.txt (one line).' })),
      ],
      {},
      undefined,
      APPROVER,
    );
    // The executor's command waits for the user until the orchestrator's guidance is on its way.
    const approvers: unknown[] = [];
    h.client.handle('approve', async (params) => {
      approvers.push(params.agentId);
      await until(
        () =>
          phasesOf(h.client.messages).some((p) => p.type === 'tool_result' && p.toolName === 'agent_steer'),
        'the steer',
      );
      return { decision: 'allow' };
    });
    const { response, phases } = await h.prompt({
      text: 'Write the notes in the background',
      mode: 'agent_task',
    });
    assert.equal((response.result as Json).output, 'Wrote notes.txt (one line).');
    const sections = phases.filter((p) => p.type === 'section');
    assert.deepEqual(
      sections.map((p) => [p.agentId, p.parentAgentId, p.title]),
      [
        ['executor-1', 'orchestrator', 'Executor: Write notes.txt'],
        ['executor-1', 'orchestrator', 'Executor (resumed): Now count its lines.'],
      ],
    );
    const spawned = phases.find((p) => p.type === 'tool_result' && p.toolName === 'spawn_agent');
    assert.match(String(spawned?.output), /^Started executor-1 \(executor\) in the background/);
    const steered = phases.find((p) => p.type === 'status' && p.agentId === 'executor-1');
    assert.equal(steered?.text, 'Guidance from orchestrator: Write FINAL, not draft.');
    // The guidance reached the executor as a user message of its second turn.
    const executorTurns = h.fake.requests.filter((r) => systemText(r).includes('You are the executor'));
    assert.equal(carries(executorTurns[0] as RecordedRequest, 'Write FINAL'), false);
    assert.equal(
      carries(
        executorTurns[1] as RecordedRequest,
        'Guidance from orchestrator, sent while you work:\\nWrite FINAL, not draft.',
      ),
      true,
    );
    const collected = phases.filter((p) => p.type === 'tool_result' && p.toolName === 'agent_collect');
    assert.deepEqual(
      collected.map((p) => p.output),
      [
        '## executor-1 (executor): completed\nnotes.txt says FINAL',
        '## executor-1 (executor): completed\none line',
      ],
    );
    // Resumed, it kept its conversation: the first task and its answer come before the new instructions.
    const resumed = executorTurns[2] as RecordedRequest;
    assert.equal(carries(resumed, 'notes.txt says FINAL'), true);
    assert.deepEqual(approvers, ['executor-1'], "the background agent's command was approved as its own");
    const completes = phases.filter((p) => p.type === 'complete' && p.agentId === 'executor-1');
    assert.deepEqual(
      completes.map((p) => p.status),
      ['completed', 'completed'],
    );
  });

  test('the root may not finish while its agent runs: told once, it collects, and the run waits for it', async () => {
    const h = await start(
      'anthropic',
      [
        turn(
          'orchestrator',
          call('o1', 'spawn_agent', { agentId: 'executor', task: 'Touch a.txt', background: true }),
        ),
        turn('executor', call('e1', 'run_command', { command: 'touch a.txt' })),
        turn('orchestrator', call('o2', 'task_completed', { result: 'Done early.' })),
        turn(
          'orchestrator',
          call('o3', 'agent_collect', { id: 'executor-1', wait: 60 }),
          'Not finished: background agents',
        ),
        turn('executor', call('e2', 'task_completed', { result: 'a.txt exists' })),
        turn('orchestrator', call('o4', 'task_completed', { result: 'a.txt is there.' })),
      ],
      {},
      undefined,
      APPROVER,
    );
    h.client.handle('approve', async () => {
      await until(
        () => h.fake.requests.some((request) => carries(request, 'Not finished: background agents')),
        'the reminder',
      );
      return { decision: 'allow' };
    });
    const { response, phases } = await h.prompt({ text: 'Touch a.txt', mode: 'agent_task' });
    assert.equal((response.result as Json).output, 'a.txt is there.');
    assert.equal(existsSync(join(h.workspace, 'a.txt')), true);
    // The model read why it could not finish; the user saw a line saying so.
    const told = h.fake.requests.find((request) => carries(request, 'Not finished: background agents'));
    assert.match(
      JSON.stringify(told?.body.messages),
      /Not finished: background agents you started are still running: executor-1 \(executor\): running for \d+ s.* Collect their results \(agent_collect with wait\) or cancel them \(agent_cancel\), then finish\./,
    );
    const status = phases.find(
      (p) => p.type === 'status' && p.agentId === 'orchestrator' && /wanted to finish/.test(String(p.text)),
    );
    assert.equal(
      status?.text,
      'orchestrator wanted to finish while executor-1 still ran: told to collect or cancel them.',
    );
  });

  test('finishing again while it still runs cancels it, and the user sees that', async () => {
    const h = await start(
      'anthropic',
      [
        turn(
          'orchestrator',
          call('o1', 'spawn_agent', { agentId: 'executor', task: 'Run the long job', background: true }),
        ),
        turn('executor', call('e1', 'run_command', { command: 'sleep 60; touch late-marker' })),
        turn('orchestrator', call('o2', 'task_completed', { result: 'Done early.' })),
        turn(
          'orchestrator',
          call('o3', 'task_completed', { result: 'Done; the long job is not needed.' }),
          'Not finished',
        ),
      ],
      {},
      undefined,
      APPROVER,
    );
    h.client.handle('approve', () => ({ decision: 'allow' }));
    const { response, phases } = await h.prompt({ text: 'Start the long job', mode: 'agent_task' });
    assert.equal((response.result as Json).output, 'Done; the long job is not needed.');
    const warning = phases.find(
      (p) => p.type === 'status' && p.level === 'warning' && p.agentId === 'orchestrator',
    );
    assert.equal(
      warning?.text,
      'Background agent executor-1 cancelled: orchestrator finished without collecting it.',
    );
    // The run answered only once its agent had ended (its `complete` came before the response),
    // with nothing of it left running.
    const complete = phases.find((p) => p.type === 'complete' && p.agentId === 'executor-1');
    assert.equal(complete?.status, 'cancelled');
    assert.deepEqual(processesIn(h.workspace), []);
    assert.equal(existsSync(join(h.workspace, 'late-marker')), false);
  });

  test('a cancel of the run stops its background agents and what they run', async () => {
    const h = await start(
      'anthropic',
      [
        turn(
          'orchestrator',
          call('o1', 'spawn_agent', { agentId: 'executor', task: 'Run the long job', background: true }),
        ),
        turn('executor', call('e1', 'run_command', { command: 'sleep 60; touch late-marker' })),
        turn('orchestrator', call('o2', 'agent_collect', { id: 'executor-1', wait: 600 })),
      ],
      {},
      undefined,
      APPROVER,
    );
    let approved = false;
    h.client.handle('approve', () => {
      approved = true;
      return { decision: 'allow' };
    });
    const id = h.nextId();
    h.client.request(id, 'prompt', { text: 'Start the long job', mode: 'agent_task' });
    await until(() => approved, 'the approval');
    // The command itself, not only the sandbox starting up around it.
    await until(
      () => processesIn(h.workspace).some((pid) => commandLine(pid) === 'sleep 60'),
      'the command running',
    );
    h.client.notify('$/cancelRequest', { id });
    const response = await h.client.response(id);
    assert.equal((response.result as Json).status, 'cancelled');
    const phases = phasesOf(h.client.messages);
    const complete = phases.find((p) => p.type === 'complete' && p.agentId === 'executor-1');
    assert.equal(complete?.status, 'cancelled');
    // The command is stopped as any cancelled command is (SIGTERM to its group, then SIGKILL).
    await until(() => processesIn(h.workspace).length === 0, 'nothing the agent ran left running');
    assert.equal(existsSync(join(h.workspace, 'late-marker')), false);
  });

  test('agent_status shows it running; agent_cancel stops it and the parent finishes', async () => {
    const h = await start(
      'anthropic',
      [
        turn(
          'orchestrator',
          call('o1', 'spawn_agent', { agentId: 'executor', task: 'Run the long job', background: true }),
        ),
        turn('executor', call('e1', 'run_command', { command: 'sleep 60; touch late-marker' })),
        turn('orchestrator', call('o2', 'agent_status', {})),
        turn('orchestrator', call('o3', 'agent_cancel', { id: 'executor-1' })),
        turn('orchestrator', call('o4', 'agent_collect', { id: 'reader-9' })),
        turn('orchestrator', call('o5', 'task_completed', { result: 'Cancelled the long job.' })),
      ],
      {},
      undefined,
      APPROVER,
    );
    h.client.handle('approve', () => ({ decision: 'allow' }));
    const { response, phases } = await h.prompt({ text: 'Start and stop the long job', mode: 'agent_task' });
    assert.equal((response.result as Json).output, 'Cancelled the long job.');
    const result = (tool: string) =>
      phases.find((p) => p.type === 'tool_result' && p.toolName === tool && p.agentId === 'orchestrator');
    assert.match(
      String(result('agent_status')?.output),
      /^executor-1 \(executor\): running for \d+ s.* — task: Run the long job$/,
    );
    assert.match(String(result('agent_cancel')?.output), /^executor-1 was cancelled\./);
    assert.equal(result('agent_collect')?.status, 'error');
    assert.equal(
      result('agent_collect')?.output,
      'There is no background agent "reader-9" of yours. Yours: executor-1.',
    );
    const warning = phases.find((p) => p.type === 'status' && p.level === 'warning');
    assert.equal(warning?.text, 'Background agent executor-1 cancelled: orchestrator cancelled it.');
    const complete = phases.find((p) => p.type === 'complete' && p.agentId === 'executor-1');
    assert.equal(complete?.status, 'cancelled');
    await until(() => processesIn(h.workspace).length === 0, 'nothing the agent ran left running');
    assert.equal(existsSync(join(h.workspace, 'late-marker')), false);
  });
});
