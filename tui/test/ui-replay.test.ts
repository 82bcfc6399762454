/**
 * The replay viewer (`santra replay FILE`): a recording read into a timeline, played through the
 * same reducer as a live session (to the same transcript), its clock (pace, speed, pause, End) on a
 * manual timer, and its keys in the rendered ReplayApp.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import type { Phase } from '#protocol';
import { cleanup, render } from 'ink-testing-library';
import { createElement as h } from 'react';
import { loadMarkdown } from '../src/ui/components/entry-view.ts';
import { ReplayApp } from '../src/ui/components/replay-app.ts';
import { type PlayerClock, REPLAY_FRAME_MS, ReplayPlayer } from '../src/ui/replay-player.ts';
import { MAX_GAP_MS, PHASE_MS, readRecording } from '../src/ui/replay-recording.ts';
import { EMPTY_TRANSCRIPT, stepAll, type TranscriptEvent } from '../src/ui/transcript.ts';
import { frameWaits } from './helpers/until.ts';

afterEach(() => cleanup());

const USAGE = { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 };
let seq = 0;
const phase = (runId: string, fields: Record<string, unknown>, agentId = 'orchestrator', parent?: string) =>
  ({
    runId,
    sessionId: 'ses_rec00001',
    agentId,
    seq: ++seq,
    ...(parent === undefined ? {} : { parentAgentId: parent, agentRole: 'reader' }),
    ...fields,
  }) as Phase;

/** Two runs as the live UI saw them, and the same as session records. */
function twoRuns() {
  const run1: Phase[] = [
    phase('run-1', { type: 'status', text: 'Reading' }),
    phase('run-1', { type: 'text', text: 'Let me look.\n\n' }),
    phase('run-1', {
      type: 'tool_call',
      toolCallId: 't1',
      toolName: 'read_file',
      args: {},
      summary: 'read_file a.ts',
    }),
    phase('run-1', {
      type: 'tool_result',
      toolCallId: 't1',
      toolName: 'read_file',
      status: 'ok',
      summary: '3 lines',
      output: 'x',
    }),
    phase('run-1', { type: 'section', title: 'Reader: the tests' }, 'reader-1', 'orchestrator'),
    phase('run-1', { type: 'text', text: 'All **green**.' }, 'reader-1', 'orchestrator'),
    phase('run-1', { type: 'complete', status: 'completed', output: '' }, 'reader-1', 'orchestrator'),
    phase('run-1', { type: 'text', text: 'Done: `a.ts` is fine.' }),
    phase('run-1', { type: 'complete', status: 'completed', output: '' }),
  ];
  const run2: Phase[] = [
    phase('run-2', { type: 'text', text: 'Second answer.' }),
    phase('run-2', { type: 'complete', status: 'completed', output: '' }),
  ];
  const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
  const records = [
    {
      type: 'session',
      format: 1,
      sessionId: 'ses_rec00001',
      workspaceRoot: '/home/ada/shop',
      createdAt: t(0),
    },
    { type: 'prompt', runId: 'run-1', at: t(0), text: 'check a.ts', model: 'anthropic/claude-sonnet-4-5' },
    {
      type: 'message',
      runId: 'run-1',
      message: { role: 'user', content: [{ type: 'text', text: 'check a.ts' }] },
    },
    ...run1.map((p) => ({ type: 'phase', phase: p })),
    {
      type: 'run_end',
      runId: 'run-1',
      status: 'completed',
      model: 'm',
      usage: USAGE,
      costUsd: 0.01,
      at: t(4),
    },
    { type: 'prompt', runId: 'run-2', at: t(30), text: 'and now?', model: 'openai/gpt-5' },
    ...run2.map((p) => ({ type: 'phase', phase: p })),
    {
      type: 'run_end',
      runId: 'run-2',
      status: 'completed',
      model: 'm',
      usage: USAGE,
      costUsd: 0.02,
      at: t(31),
    },
  ];
  const live: TranscriptEvent[] = [
    { type: 'user', text: 'check a.ts' },
    { type: 'run_start', at: Date.parse(t(0)) },
    ...run1.map((p) => ({ type: 'phase' as const, phase: p })),
    { type: 'run_end', at: Date.parse(t(4)), status: 'completed', usage: USAGE, costUsd: 0.01 },
    { type: 'user', text: 'and now?' },
    { type: 'run_start', at: Date.parse(t(30)) },
    ...run2.map((p) => ({ type: 'phase' as const, phase: p })),
    { type: 'run_end', at: Date.parse(t(31)), status: 'completed', usage: USAGE, costUsd: 0.02 },
  ];
  return { records, live, run1, run2 };
}

/** A clock the test moves by hand; timers fire when it passes them. */
function manualClock() {
  let now = 0;
  let timers: { at: number; run: () => void; id: number }[] = [];
  let ids = 0;
  const clock: PlayerClock = {
    now: () => now,
    setTimer: (run, ms) => {
      const id = ++ids;
      timers.push({ at: now + ms, run, id });
      return id;
    },
    clearTimer: (id) => {
      timers = timers.filter((timer) => timer.id !== id);
    },
  };
  const advance = (ms: number) => {
    const until = now + ms;
    for (;;) {
      const next = timers.sort((a, b) => a.at - b.at)[0];
      if (next === undefined || next.at > until) break;
      timers = timers.filter((timer) => timer !== next);
      now = next.at;
      next.run();
    }
    now = until;
  };
  return { clock, advance, pending: () => timers.length };
}

describe('reading a recording', () => {
  test('a session file: prompts, phases and run ends in order; other records and damaged lines passed over', () => {
    const { records } = twoRuns();
    const jsonl = `${records.map((r) => JSON.stringify(r)).join('\n')}\n{"type":"phase","pha\n`;
    const recording = readRecording(jsonl);
    assert.equal(recording.sessionId, 'ses_rec00001');
    assert.equal(recording.workspaceRoot, '/home/ada/shop');
    assert.equal(recording.runs, 2);
    assert.equal(recording.skipped, 1);
    assert.deepEqual(recording.models, ['anthropic/claude-sonnet-4-5', 'openai/gpt-5']);
    const types = recording.steps.map((step) => step.event.type);
    assert.deepEqual(types.slice(0, 3), ['user', 'run_start', 'phase']);
    assert.equal(types.length, 2 + 9 + 1 + 2 + 2 + 1);
    // Phases at the fixed pace; the 26 s between the runs cut to MAX_GAP_MS.
    assert.equal(recording.steps[2]?.waitMs, PHASE_MS);
    const second = recording.steps.findIndex((s) => s.event.type === 'user' && s.event.text === 'and now?');
    assert.equal(recording.steps[second]?.waitMs, MAX_GAP_MS);
  });

  test('a session/export json, as the array or as the whole result, reads the same', () => {
    const { records } = twoRuns();
    const array = JSON.stringify(records);
    const result = JSON.stringify({ format: 'json', content: array });
    const fromFile = readRecording(records.map((r) => JSON.stringify(r)).join('\n'));
    assert.deepEqual(readRecording(array), fromFile);
    assert.deepEqual(readRecording(result), fromFile);
  });

  test('played to the end, a recording gives the same transcript as the live session did', () => {
    const { records, live } = twoRuns();
    const expected = stepAll(EMPTY_TRANSCRIPT, live).entries;
    const player = new ReplayPlayer(readRecording(JSON.stringify(records)), manualClock().clock);
    player.toEnd();
    const state = player.getState();
    assert.deepEqual(state.printed.items, expected);
    assert.ok(expected.some((e) => e.kind === 'run_end' && e.seconds === 4));
    assert.equal(state.done, true);
    assert.equal(state.run, 2);
    assert.equal(state.costUsd, 0.03);
    assert.equal(state.usage?.inputTokens, 200);
    assert.equal(state.model, 'openai/gpt-5');
  });
});

describe('the replay clock', () => {
  test('plays at the pace, faster and slower, pauses, and End shows the rest at once', () => {
    const { records } = twoRuns();
    const { clock, advance, pending } = manualClock();
    const player = new ReplayPlayer(readRecording(JSON.stringify(records)), clock);
    player.start();
    // user and run_start are due at once.
    assert.equal(player.getState().position, 2);
    // Steps are applied a frame at a time: at 66 ms, the four phases due by then.
    advance(REPLAY_FRAME_MS * 2);
    assert.equal(player.getState().position, 6);
    player.faster(); // 2x: another 66 ms are 132 ms of the recording, the rest of run 1 and its end
    assert.equal(player.getState().speed, 2);
    advance(REPLAY_FRAME_MS * 2);
    assert.equal(player.getState().position, 12);
    player.togglePause();
    assert.equal(pending(), 0, 'nothing is scheduled while paused');
    advance(10_000);
    assert.equal(player.getState().position, 12);
    player.togglePause();
    // The pause before run 2 (2 s, as recorded up to MAX_GAP_MS) takes 1 s at 2x.
    advance(900);
    assert.equal(player.getState().position, 12);
    advance(200);
    assert.equal(player.getState().position, 17);
    assert.equal(player.getState().done, true);
    assert.equal(pending(), 0, 'nothing is scheduled at the end');
    player.togglePause(); // no effect at the end
    assert.equal(player.getState().paused, false);
    player.slower();
    player.slower();
    assert.equal(player.getState().speed, 0.5);
    for (let i = 0; i < 5; i++) player.slower();
    assert.equal(player.getState().speed, 0.5);
    for (let i = 0; i < 9; i++) player.faster();
    assert.equal(player.getState().speed, 16);
    player.toEnd();
    assert.equal(player.getState().done, true);
    assert.equal(player.getState().position, player.getState().total);
    assert.equal(pending(), 0, 'nothing is scheduled at the end');
  });
});

describe('ReplayApp', () => {
  test('keys: Space pauses and plays on, + and - change the speed, End jumps, q quits', async () => {
    await loadMarkdown();
    const { records } = twoRuns();
    const { clock, advance } = manualClock();
    const player = new ReplayPlayer(readRecording(JSON.stringify(records)), clock);
    let quit = 0;
    const view = render(
      h(ReplayApp, {
        player,
        project: 'shop',
        sessionId: 'ses_rec00001',
        interactive: true,
        onQuit: () => void quit++,
        size: { columns: 200, rows: 30 },
      }),
    );
    const { frame, shows, until } = frameWaits(view);
    const press = (keys: string) => void view.stdin.write(keys);
    player.start();
    advance(REPLAY_FRAME_MS);
    await shows(/▶ replay 1x · 4\/17 · run 1 of 2 · Space pause/);
    assert.match(frame(), /› check a\.ts/);
    assert.match(frame(), /Reading \(0s\)/);
    assert.match(frame(), /shop · anthropic\/claude-sonnet-4-5 · session rec00001/);
    press(' ');
    await shows(/⏸ paused 1x · 4\/17/);
    press(' ');
    await shows(/▶ replay 1x/);
    press('+');
    await shows(/▶ replay 2x/);
    press('+');
    await shows(/▶ replay 4x/);
    press('-');
    await shows(/▶ replay 2x/);
    press('\u001b[F'); // End
    await shows(/■ end of the recording · 17\/17 · run 2 of 2/);
    assert.match(frame(), /Second answer\./);
    assert.match(frame(), /shop · openai\/gpt-5 · session rec00001 · 200 in \/ 40 out · \$0\.0300/);
    assert.equal(quit, 0);
    press('q');
    await until(() => quit > 0, 'q to quit');
    assert.equal(quit, 1);
  });
});
