/**
 * The interactive shells through the protocol, against the built server: the executor drives a
 * python3 REPL in a PTY (inside the OS sandbox where this machine has one), each start and input
 * approved by the client exactly as typed, and the REPL gone when the run ends.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { FakeTurn, RecordedRequest } from '../../conformance-tests/src/fake-providers/index.ts';
import { suiteHarnesses } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();
/** Outside the workspace, on the read-only root the sandbox mounts. */
const ESCAPE = `/usr/santra-shell-escape-${process.pid}`;
const APPROVER = { capabilities: { approve: true, ask: true }, generalist: false };

const systemText = (request: RecordedRequest) =>
  (request.body.system as Array<{ text: string }>).map((block) => block.text).join('\n');
const turn = (role: string, rest: Omit<FakeTurn, 'match'>): FakeTurn => ({
  match: (request) => systemText(request).includes(`You are the ${role}`),
  ...rest,
});
const call = (id: string, name: string, args: unknown) => ({ toolCalls: [{ id, name, args }] });

/** Processes whose working directory is inside `dir`, with their command lines. */
function processesIn(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`).startsWith(dir))
        found.push(`${entry} ${readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ')}`);
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

describe('interactive shells through the protocol', () => {
  test('the executor starts python3 -q, types 1+1 and reads 2; approvals show exactly what is typed; the run ends the REPL', async () => {
    const h = await start(
      'anthropic',
      [
        turn(
          'orchestrator',
          call('o1', 'spawn_agent', { agentId: 'executor', task: 'Compute 1+1 in Python' }),
        ),
        turn('executor', call('e1', 'shell_start', { command: 'python3 -q', waitFor: '>>> ', timeout: 30 })),
        turn(
          'executor',
          call('e2', 'shell_send', {
            id: 'sh-1',
            text: '1+1',
            keys: ['Enter'],
            waitFor: '\n>>> ',
            timeout: 30,
          }),
        ),
        // Typed into the sandboxed session: a write outside the workspace fails (as root, outside
        // the sandbox, it would succeed).
        turn(
          'executor',
          call('e2b', 'shell_send', {
            id: 'sh-1',
            text: `open(${JSON.stringify(ESCAPE)}, 'w')`,
            keys: ['Enter'],
            waitFor: 'Error',
            timeout: 30,
          }),
        ),
        turn('executor', call('e3', 'task_completed', { result: 'Python says 2.' })),
        turn('orchestrator', call('o2', 'task_completed', { result: '1+1 is 2.' })),
      ],
      {},
      undefined,
      APPROVER,
    );
    const approvals: Json[] = [];
    h.client.handle('approve', (params) => {
      approvals.push(params);
      return { decision: 'allow' };
    });
    const { response, phases } = await h.prompt({ text: 'What is 1+1 in Python?', mode: 'agent_task' });
    assert.equal((response.result as Json).output, '1+1 is 2.');
    assert.deepEqual(
      approvals.map((a) => [a.kind, a.command, a.agentId, a.toolName, a.sandbox]),
      [
        ['command', 'python3 -q', 'executor-1', 'shell_start', 'workspace-write'],
        ['command', '1+1␍', 'executor-1', 'shell_send', undefined],
        ['command', `open(${JSON.stringify(ESCAPE)}, 'w')␍`, 'executor-1', 'shell_send', undefined],
      ],
    );
    const started = phases.find((p) => p.type === 'tool_result' && p.toolName === 'shell_start');
    assert.match(String(started?.output), /It runs in the OS sandbox \(workspace-write\)/);
    const escaped = phases.filter((p) => p.type === 'tool_result' && p.toolName === 'shell_send')[1];
    assert.match(String(escaped?.output), /OSError: \[Errno 30\] Read-only file system/);
    assert.equal(existsSync(ESCAPE), false, 'nothing was written outside the workspace');
    const sent = phases.find((p) => p.type === 'tool_result' && p.toolName === 'shell_send');
    assert.equal(sent?.status, 'ok');
    assert.match(String(sent?.output), /^>>> 1\+1\n2\n>>>$/m);
    // The REPL was still open when the executor finished: the run ended it.
    assert.deepEqual(processesIn(h.workspace), []);
  });

  test('allow-all covers what is typed into a session, but a line that writes a protected location is still put to the user', async () => {
    const h = await start(
      'anthropic',
      [
        turn('orchestrator', call('o1', 'spawn_agent', { agentId: 'executor', task: 'Use a shell' })),
        turn('executor', call('e1', 'shell_start', { command: 'sh', timeout: 5 })),
        turn(
          'executor',
          call('e2', 'shell_send', {
            id: 'sh-1',
            text: 'echo typed-$((40+2))',
            keys: ['Enter'],
            waitFor: 'typed-42',
            timeout: 30,
          }),
        ),
        turn(
          'executor',
          call('e3', 'shell_send', { id: 'sh-1', text: 'echo evil >> ~/.bashrc', keys: ['Enter'] }),
        ),
        turn('executor', call('e4', 'task_completed', { result: 'done' })),
        turn('orchestrator', call('o2', 'task_completed', { result: 'Used a shell.' })),
      ],
      {},
      undefined,
      APPROVER,
    );
    const approvals: Json[] = [];
    h.client.handle('approve', (params) => {
      approvals.push(params);
      return { decision: approvals.length === 1 ? 'allow_all' : 'reject' };
    });
    const { response, phases } = await h.prompt({ text: 'Use a shell', mode: 'agent_task' });
    assert.equal((response.result as Json).output, 'Used a shell.');
    assert.deepEqual(
      approvals.map((a) => [a.command, a.protected === true]),
      [
        ['sh', false],
        ['echo evil >> ~/.bashrc␍', true],
      ],
    );
    const sends = phases.filter((p) => p.type === 'tool_result' && p.toolName === 'shell_send');
    assert.deepEqual(
      sends.map((p) => p.status),
      ['ok', 'rejected'],
    );
    assert.match(String(sends[0]?.output), /^typed-42$/m);
  });
});
