/**
 * The session commands of the interactive UI on a scripted Backend: /model through model/set (and
 * the ChromeBar), /compact and /undo (offered only when initialize lists their methods), /resume
 * replaying the session's earlier runs on screen, /export through session/export.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { cleanup } from 'ink-testing-library';
import { tempDir } from '../../scripts/temp-dirs.ts';
import { scripted, settle, start } from './helpers/ui-backend.ts';

afterEach(() => cleanup());

const USAGE = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 };
const ALL = ['model/set', 'session/compact', 'session/undo', 'session/export', 'session/resume'];

/** A UI whose first run has ended, so the session has an id. */
async function afterOneRun(server: ReturnType<typeof scripted>, startDir?: string) {
  const ui = await start(server, startDir === undefined ? {} : { startDir });
  await ui.type('hi');
  await ui.type('\r');
  server.end();
  await settle();
  return ui;
}

describe('session commands', () => {
  test('/model NAME calls model/set for this session; the ChromeBar shows the answer', async () => {
    const server = scripted({
      methods: ALL,
      answers: { 'model/set': (params) => ({ model: `openai/${(params as { model: string }).model}` }) },
    });
    const ui = await afterOneRun(server);
    await ui.type('/model gpt-5');
    await ui.type('\r');
    assert.deepEqual(server.requests, [
      { method: 'model/set', params: { model: 'gpt-5', sessionId: 'ses_12345678abc' } },
    ]);
    assert.match(ui.frame(), /Model: openai\/gpt-5/);
    assert.match(ui.frame(), /project · openai\/gpt-5 · session 12345678/);
    // The next prompt does not carry a model of its own: the session has it.
    await ui.type('next');
    await ui.type('\r');
    assert.equal(server.prompts[1]?.model, undefined);
  });

  test('/compact and /undo are not offered when the server does not list their methods', async () => {
    const ui = await afterOneRun(scripted({ methods: ['model/set'] }));
    await ui.type('/');
    assert.doesNotMatch(ui.frame(), /\/compact|\/undo/);
    await ui.type('undo');
    await ui.type('\r');
    assert.match(ui.frame(), /Unknown command \/undo/);
  });

  test('/compact shows the messages before and after and the cost of the summary', async () => {
    const server = scripted({
      methods: ALL,
      answers: {
        'session/compact': () => ({
          compacted: true,
          messagesBefore: 12,
          messagesAfter: 4,
          usage: USAGE,
          costUsd: 0.0123,
        }),
      },
    });
    const ui = await afterOneRun(server);
    await ui.type('/compact');
    await ui.type('\r');
    assert.deepEqual(server.requests, [
      { method: 'session/compact', params: { sessionId: 'ses_12345678abc' } },
    ]);
    assert.match(ui.frame(), /Compacted: 12 messages → 4 \(summary \$0\.0123\)\./);
  });

  test('/undo undoes the last change, /undo run the last run; restored and kept are told apart', async () => {
    const server = scripted({
      methods: ALL,
      answers: {
        'session/undo': (params) =>
          (params as { scope: string }).scope === 'run'
            ? {
                changes: [
                  { path: 'src/a.ts', operation: 'modify', outcome: 'restored' },
                  {
                    path: 'notes.md',
                    operation: 'create',
                    outcome: 'kept',
                    reason: 'changed since; left as is',
                  },
                ],
              }
            : { changes: [] },
      },
    });
    const ui = await afterOneRun(server);
    await ui.type('/undo');
    await ui.type('\r');
    assert.match(ui.frame(), /Nothing left to undo\./);
    await ui.type('/undo run');
    await ui.type('\r');
    assert.deepEqual(
      server.requests.map((request) => request.params),
      [
        { sessionId: 'ses_12345678abc', scope: 'change' },
        { sessionId: 'ses_12345678abc', scope: 'run' },
      ],
    );
    assert.match(
      ui.frame(),
      /Undone:\n +restored +modify src\/a\.ts\n +kept +create notes\.md: changed since; left as is/,
    );
  });

  test('/resume ID replays the earlier runs (afterSeq 0, user turns from the export) before the user goes on', async () => {
    const to: { phase?: (fields: Record<string, unknown>) => void } = {};
    const server = scripted({
      methods: ALL,
      onResume: (_id, afterSeq) => {
        assert.equal(afterSeq, 0);
        to.phase?.({ runId: 'run-a', type: 'text', text: 'First **answer**.' });
        to.phase?.({ runId: 'run-a', type: 'complete', status: 'completed', output: '' });
        to.phase?.({ runId: 'run-b', type: 'text', text: 'Second answer.' });
        to.phase?.({ runId: 'run-b', type: 'complete', status: 'completed', output: '' });
      },
      answers: {
        'session/export': () => ({
          format: 'json',
          content: JSON.stringify([
            { type: 'session', sessionId: 'ses_old' },
            { type: 'prompt', runId: 'run-a', text: 'first question', at: '2026-01-01T00:00:00Z' },
            { type: 'prompt', runId: 'run-b', text: 'second question', at: '2026-01-01T00:01:00Z' },
          ]),
        }),
        'session/resume': () => ({
          session: {
            sessionId: 'ses_old00000',
            title: 'first question',
            workspaceRoot: '/home/ada/project',
            createdAt: '2026-01-01T00:00:00.000Z',
            updatedAt: '2026-01-01T00:01:00.000Z',
            model: 'openai/gpt-5',
            messageCount: 4,
            usage: USAGE,
            costUsd: 0.5,
            lastSeq: 4,
          },
          replayedPhases: 4,
          warnings: [],
        }),
      },
    });
    to.phase = (fields) => server.phase(fields);
    const ui = await start(server);
    await ui.type('/resume ses_old00000');
    await ui.type('\r');
    await settle();
    const frame = ui.frame();
    assert.match(
      frame,
      /Earlier in this session:[\s\S]*› first question[\s\S]*First answer\.[\s\S]*› second question[\s\S]*Second answer\.[\s\S]*Resumed "first question" \(4 messages\)/,
    );
    assert.match(frame, /openai\/gpt-5 · session old00000 · 10 in \/ 5 out · \$0\.50/);
    await ui.type('go on');
    await ui.type('\r');
    assert.equal(server.prompts[0]?.sessionId, 'ses_old00000');
  });

  test('/export writes the markdown session/export returns', async () => {
    const dir = tempDir('santra-export-');
    const server = scripted({
      methods: ALL,
      answers: { 'session/export': () => ({ format: 'markdown', content: '# hi\n\nthe transcript\n' }) },
    });
    const ui = await afterOneRun(server, dir);
    await ui.type('/export out.md');
    await ui.type('\r');
    assert.deepEqual(server.requests, [
      { method: 'session/export', params: { sessionId: 'ses_12345678abc', format: 'markdown' } },
    ]);
    assert.equal(readFileSync(join(dir, 'out.md'), 'utf8'), '# hi\n\nthe transcript\n');
    assert.match(ui.frame(), /Transcript written to .*out\.md/);
  });
});
