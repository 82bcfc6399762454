/**
 * Permission modes through the protocol (§7.8): a fake model asks for file changes and commands
 * in each mode, the client answers what it is asked, and the disk shows what happened. Each case
 * also checks what was not asked, so a mode that silently asks (or silently allows) fails.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { suiteHarnesses, TESTER } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();
const APPROVER = { capabilities: { approve: true, ask: true, diffs: true } };
/** The test agent with exit_plan_mode too: the orchestrator's way of ending a plan. */
const PLANNER = {
  ...TESTER,
  id: 'planner',
  name: 'Planner',
  toolNames: [...TESTER.toolNames, 'exit_plan_mode'],
};

const call = (id: string, name: string, args: Json) => ({ toolCalls: [{ id, name, args }] });
const write = (id: string, path: string, content: string) => call(id, 'write_file', { path, content });
const run = (id: string, command: string) => call(id, 'run_command', { command });
const resultOf = (phases: Json[], id: string) =>
  phases.find((p) => p.type === 'tool_result' && p.toolCallId === id);

/** Starts a server whose client records every `approve` and `ask` and answers them as told. */
async function withClient(
  turns: Parameters<typeof start>[1],
  answers: { approve?: Json; ask?: string } = {},
  init: { capabilities?: Json; config?: unknown } = {},
) {
  const h = await start('anthropic', turns, {}, init.config, init.capabilities ?? APPROVER);
  mkdirSync(join(h.workspace, '.agents'), { recursive: true });
  writeFileSync(join(h.workspace, '.agents/planner.json'), JSON.stringify(PLANNER));
  const approvals: Json[] = [];
  const questions: Json[] = [];
  h.client.handle('approve', (params) => {
    approvals.push(params);
    return answers.approve ?? { decision: 'allow' };
  });
  h.client.handle('ask', (params) => {
    questions.push(params);
    return { answer: answers.ask ?? '' };
  });
  return { h, approvals, questions };
}

describe('permission modes through the protocol', () => {
  test('acceptEdits: a file change in the workspace is applied unasked, a command is still asked', async () => {
    const { h, approvals } = await withClient([
      write('w1', 'src/a.txt', 'one\n'),
      // Not one that only makes, copies or moves files (those acceptEdits runs too).
      run('c1', 'git init -q made-by-command'),
      { text: 'done' },
    ]);
    const { response, phases } = await h.prompt({ text: 'go', permissionMode: 'acceptEdits' });
    assert.equal((response.result as Json).status, 'completed');
    assert.equal(readFileSync(join(h.workspace, 'src/a.txt'), 'utf8'), 'one\n');
    assert.equal(resultOf(phases, 'w1')?.status, 'ok');
    assert.deepEqual(
      approvals.map((a) => a.kind),
      ['command'],
      'only the command was put to the user',
    );
    assert.equal((response.result as Json).permissionMode, 'acceptEdits');
  });

  for (const { mode, second } of [
    { mode: 'acceptEdits', second: 'ok' },
    { mode: 'plan', second: 'error' },
  ] as const) {
    test(`session/setMode to ${mode} mid-run: the run's later calls are gated in it at once`, async () => {
      const { h } = await withClient([
        write('w1', 'a.txt', 'one\n'),
        write('w2', 'b.txt', 'two\n'),
        { text: 'done' },
      ]);
      const asked: Json[] = [];
      const switched: Json[] = [];
      // At the first approval, the user switches the mode (Shift+Tab), then allows it.
      h.client.handle('approve', async (params) => {
        asked.push(params);
        if (asked.length === 1) {
          const id = h.nextId();
          h.client.request(id, 'session/setMode', { sessionId: params.sessionId, permissionMode: mode });
          switched.push((await h.client.response(id)).result as Json);
        }
        return { decision: 'allow' };
      });
      const { response, phases } = await h.prompt({ text: 'go', permissionMode: 'default' });
      assert.deepEqual(switched, [{ permissionMode: mode, running: true }]);
      assert.deepEqual(
        asked.map((a) => a.path),
        ['a.txt'],
        'the second change was not put to the user',
      );
      assert.equal(resultOf(phases, 'w2')?.status, second);
      assert.equal(existsSync(join(h.workspace, 'b.txt')), mode === 'acceptEdits');
      if (mode === 'plan') assert.match(String(resultOf(phases, 'w2')?.output), /plan mode/);
      assert.equal((response.result as Json).permissionMode, mode);
    });
  }

  test('session/setMode on an idle session: its next prompt runs in it; a bad mode or session is refused', async () => {
    const { h, approvals } = await withClient([
      { text: 'hi' },
      write('w1', 'c.txt', 'x\n'),
      { text: 'done' },
    ]);
    const first = await h.prompt({ text: 'hello' });
    const sessionId = (first.response.result as Json).sessionId;
    const set = async (params: Json) => {
      const id = h.nextId();
      h.client.request(id, 'session/setMode', params);
      return h.client.response(id);
    };
    assert.deepEqual((await set({ sessionId, permissionMode: 'acceptEdits' })).result, {
      permissionMode: 'acceptEdits',
      running: false,
    });
    const next = await h.prompt({ text: 'write c', sessionId });
    assert.equal((next.response.result as Json).permissionMode, 'acceptEdits');
    assert.equal(approvals.length, 0);
    assert.equal(readFileSync(join(h.workspace, 'c.txt'), 'utf8'), 'x\n');
    assert.match(JSON.stringify((await set({ sessionId, permissionMode: 'yolo' })).error), /permissionMode/);
    assert.match(
      JSON.stringify(
        (await set({ sessionId: 'ses_00000000-0000-4000-8000-000000000000', permissionMode: 'plan' })).error,
      ),
      /Unknown session/,
    );
  });

  test('acceptEdits: making, copying and moving files in the workspace run unasked; anything that leaves it is asked', async () => {
    const unasked = [
      'mkdir -p src/util && touch src/util/a.ts',
      'cp src/util/a.ts src/util/b.ts',
      'mv src/util/b.ts src/c.ts',
    ];
    const asked = [
      'touch ../escaped.txt',
      'cp /etc/hostname copied.txt',
      'touch out/through-link.txt',
      'rm src/c.ts',
      'mkdir .git/hooks/x',
      'mv src/c.ts moved-by-rule.ts',
    ];
    const { h, approvals } = await withClient(
      [...[...unasked, ...asked].map((command, index) => run(`c${index}`, command)), { text: 'done' }],
      { approve: { decision: 'reject' } },
      // The user's own rule still asks.
      { config: { tools: { askCommands: ['mv * moved-by-rule.ts'] } } },
    );
    mkdirSync(join(h.workspace, '.git/hooks'), { recursive: true });
    const outside = join(h.workspace, '..', `outside-${process.pid}`);
    mkdirSync(outside, { recursive: true });
    symlinkSync(outside, join(h.workspace, 'out'));
    try {
      const { phases } = await h.prompt({ text: 'go', permissionMode: 'acceptEdits' });
      assert.deepEqual(
        approvals.map((a) => a.command),
        asked,
        'exactly the commands that leave the workspace, are not file commands, are protected or a rule asks about',
      );
      for (const index of unasked.keys()) assert.equal(resultOf(phases, `c${index}`)?.status, 'ok');
      assert.ok(existsSync(join(h.workspace, 'src/util/a.ts')));
      assert.ok(existsSync(join(h.workspace, 'src/c.ts')) && !existsSync(join(h.workspace, 'src/util/b.ts')));
      assert.equal(existsSync(join(outside, 'through-link.txt')), false);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  test('acceptEdits and bypassPermissions: a protected location is still asked', async () => {
    for (const mode of ['acceptEdits', 'bypassPermissions']) {
      const { h, approvals } = await withClient([write('p1', '.santra/notes.md', 'x\n'), { text: 'done' }], {
        approve: { decision: 'reject' },
      });
      const { phases } = await h.prompt({ text: 'go', permissionMode: mode });
      assert.equal(approvals.length, 1, `${mode}: the protected change was asked`);
      assert.equal(approvals[0]?.protected, true);
      assert.equal(resultOf(phases, 'p1')?.status, 'rejected');
      assert.equal(existsSync(join(h.workspace, '.santra/notes.md')), false);
    }
  });

  test('bypassPermissions: file changes and commands run unasked; a deny rule still holds', async () => {
    const { h, approvals } = await withClient(
      [
        write('w1', 'b.txt', 'two\n'),
        run('c1', 'touch ran'),
        run('c2', 'git push origin main'),
        { text: 'done' },
      ],
      {},
      { config: { tools: { denyCommands: ['git push*'] } } },
    );
    const { phases } = await h.prompt({ text: 'go', permissionMode: 'bypassPermissions' });
    assert.equal(approvals.length, 0);
    assert.equal(readFileSync(join(h.workspace, 'b.txt'), 'utf8'), 'two\n');
    assert.ok(existsSync(join(h.workspace, 'ran')));
    assert.equal(resultOf(phases, 'c2')?.status, 'error');
    assert.match(String(resultOf(phases, 'c2')?.output), /denies this command/);
  });

  test('plan: no file change, no command beyond the read-only allowlist, and the model is told why', async () => {
    const { h, approvals } = await withClient([
      {
        toolCalls: [
          { id: 'w1', name: 'write_file', args: { path: 'x.txt', content: 'no' } },
          { id: 'd1', name: 'delete_file', args: { path: 'keep.txt' } },
        ],
      },
      run('c1', 'touch not-made'),
      run('c2', 'ls'),
      { text: 'the plan is …' },
    ]);
    writeFileSync(join(h.workspace, 'keep.txt'), 'keep\n');
    const { response, phases } = await h.prompt({ text: 'plan it', permissionMode: 'plan' });
    assert.equal((response.result as Json).status, 'completed');
    assert.equal(approvals.length, 0, 'plan mode refuses; it does not ask');
    for (const id of ['w1', 'd1', 'c1']) {
      assert.equal(resultOf(phases, id)?.status, 'error', id);
      assert.match(String(resultOf(phases, id)?.output), /plan mode/, id);
    }
    assert.equal(existsSync(join(h.workspace, 'x.txt')), false);
    assert.equal(existsSync(join(h.workspace, 'not-made')), false);
    assert.equal(readFileSync(join(h.workspace, 'keep.txt'), 'utf8'), 'keep\n');
    assert.equal(resultOf(phases, 'c2')?.status, 'ok', 'a read-only command runs');
    assert.match(String(resultOf(phases, 'c2')?.output), /keep\.txt/);
    // The model read that it is in plan mode with the task.
    const first = h.fake.requests[0]?.body as Json;
    assert.match(JSON.stringify(first.messages), /Plan mode is active/);
  });

  test('plan: an approved plan continues in the chosen mode in the same run', async () => {
    const { h, questions, approvals } = await withClient(
      [
        call('e1', 'exit_plan_mode', { plan: '1. Create a.txt with one line.' }),
        write('w1', 'a.txt', 'planned\n'),
        { text: 'implemented' },
      ],
      { ask: 'acceptEdits' },
    );
    const { response, phases } = await h.prompt({
      text: 'plan it',
      agent: 'planner',
      permissionMode: 'plan',
    });
    assert.equal(questions.length, 1);
    assert.equal(questions[0]?.plan, '1. Create a.txt with one line.');
    assert.deepEqual(
      (questions[0]?.options as Json[]).map((o) => o.value),
      ['acceptEdits', 'default', 'acceptEdits_fresh', 'default_fresh'],
    );
    assert.equal(resultOf(phases, 'e1')?.status, 'ok');
    assert.equal(resultOf(phases, 'w1')?.status, 'ok');
    assert.equal(approvals.length, 0, 'acceptEdits: the edit was not asked');
    assert.equal(readFileSync(join(h.workspace, 'a.txt'), 'utf8'), 'planned\n');
    assert.equal((response.result as Json).permissionMode, 'acceptEdits');
    // The mode is the session's: the next prompt without one keeps it.
    const next = await h.prompt({
      text: 'again',
      agent: 'planner',
      sessionId: (response.result as Json).sessionId,
    });
    assert.equal((next.response.result as Json).permissionMode, 'acceptEdits');
  });

  test('plan: a fresh context holds only the approved plan', async () => {
    const { h } = await withClient(
      [call('e1', 'exit_plan_mode', { plan: 'PLAN-TEXT' }), { text: 'implemented' }],
      { ask: 'default_fresh' },
    );
    const { response } = await h.prompt({
      text: 'the original task',
      agent: 'planner',
      permissionMode: 'plan',
    });
    assert.equal((response.result as Json).permissionMode, 'default');
    const last = h.fake.requests.at(-1)?.body as Json;
    const sent = JSON.stringify(last.messages);
    assert.match(sent, /PLAN-TEXT/);
    assert.doesNotMatch(sent, /the original task/, 'the planning conversation was left behind');
  });

  test('plan: feedback sends the plan back and the session stays in plan mode', async () => {
    const { h } = await withClient(
      [call('e1', 'exit_plan_mode', { plan: 'v1' }), write('w1', 'x.txt', 'no'), { text: 'revising' }],
      { ask: 'Also update the README.' },
    );
    const { response, phases } = await h.prompt({
      text: 'plan it',
      agent: 'planner',
      permissionMode: 'plan',
    });
    assert.equal(resultOf(phases, 'e1')?.status, 'rejected');
    assert.match(String(resultOf(phases, 'e1')?.output), /Also update the README\./);
    assert.equal(resultOf(phases, 'w1')?.status, 'error');
    assert.equal(existsSync(join(h.workspace, 'x.txt')), false);
    assert.equal((response.result as Json).permissionMode, 'plan');
  });

  test('plan without a client that answers: the plan is the run’s answer', async () => {
    const { h } = await withClient(
      [call('e1', 'exit_plan_mode', { plan: '## The plan\n1. Do it.' })],
      {},
      { capabilities: {} },
    );
    const { response } = await h.prompt({ text: 'plan it', agent: 'planner', permissionMode: 'plan' });
    assert.equal((response.result as Json).status, 'completed');
    assert.equal((response.result as Json).output, '## The plan\n1. Do it.');
    assert.equal((response.result as Json).permissionMode, 'plan');
  });

  test('the configured permissionMode is where a new session starts; a bad one is refused', async () => {
    const { h, approvals } = await withClient(
      [write('w1', 'c.txt', 'x'), { text: 'done' }],
      {},
      {
        config: { permissionMode: 'plan' },
      },
    );
    const { response, phases } = await h.prompt({ text: 'go' });
    assert.equal((response.result as Json).permissionMode, 'plan');
    assert.equal(resultOf(phases, 'w1')?.status, 'error');
    assert.equal(approvals.length, 0);
    const bad = h.nextId();
    h.client.request(bad, 'prompt', { text: 'go', agent: 'tester', permissionMode: 'yolo' });
    const answer = await h.client.response(bad);
    assert.equal((answer.error as Json).code, -32602);
    assert.match(String((answer.error as Json).message), /permissionMode/);
  });
});
