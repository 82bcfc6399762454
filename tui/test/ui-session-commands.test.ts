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
import { PrintError } from '../src/client/print-error.ts';
import { undoText } from '../src/ui/command-text.ts';
import { scripted, start } from './helpers/ui-backend.ts';

afterEach(() => cleanup());

const USAGE = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 };
const ALL = ['model/set', 'session/compact', 'session/undo', 'session/export', 'session/resume'];

/** A UI whose first run has ended, so the session has an id. */
async function afterOneRun(server: ReturnType<typeof scripted>, startDir?: string) {
  const ui = await start(server, startDir === undefined ? {} : { startDir });
  await ui.type('hi');
  await ui.type('\r');
  server.end();
  await ui.settled();
  return ui;
}

/** A server with one saved session, ses_old00000, of two runs: /resume replays them. */
function withSavedSession(methods = ALL, more: Record<string, (params: unknown) => unknown> = {}) {
  const to: { phase?: (fields: Record<string, unknown>) => void } = {};
  const server = scripted({
    methods,
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
      ...more,
    },
  });
  to.phase = (fields) => server.phase(fields);
  return server;
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

  test('/model with a model Santra does not list: said at once, and its warning shown once, not every run', async () => {
    const server = scripted({
      methods: ALL,
      answers: { 'model/set': (params) => ({ model: (params as { model: string }).model }) },
    });
    const ui = await afterOneRun(server);
    await ui.type('/model anthropic/claude-nosuch');
    await ui.type('\r');
    await ui.settled();
    assert.match(ui.frame(), /Model: anthropic\/claude-nosuch \(not in Santra's model list\)/);
    const warning =
      "anthropic/claude-nosuch is not in Santra's model list: it is sent to Anthropic as is, with a guessed context window (128,000 tokens) and no prices, so costs show as $0.";
    for (const text of ['one', 'two']) {
      await ui.type(text);
      await ui.type('\r');
      server.phase({ type: 'status', level: 'warning', text: warning });
      server.end();
      await ui.settled();
    }
    assert.equal(ui.frame().match(/is not in Santra's model list: it is sent/g)?.length, 1);
    // A new session: its first run says it again.
    await ui.type('/clear');
    await ui.type('\r');
    await ui.type('three');
    await ui.type('\r');
    server.phase({ type: 'status', level: 'warning', text: warning });
    server.end();
    await ui.settled();
    // (The test's terminal keeps what /clear would clear: the first session's warning, and this one.)
    assert.equal(ui.frame().match(/is not in Santra's model list: it is sent/g)?.length, 2);
  });

  test('a model the server refuses: its reason, once, without the protocol method', async () => {
    const server = scripted({
      methods: ALL,
      answers: {
        'model/set': () => {
          throw new PrintError(
            'santra: santra-server refused model/set: Unknown provider "nosuch" in "nosuch/foo". Known providers: anthropic, openai.',
          );
        },
      },
    });
    const ui = await afterOneRun(server);
    await ui.type('/model nosuch/foo');
    await ui.type('\r');
    await ui.settled();
    const frame = ui.frame();
    assert.equal(frame.match(/Unknown provider "nosuch"/g)?.length, 1);
    assert.match(
      frame,
      /^Unknown provider "nosuch" in "nosuch\/foo"\. Known providers: anthropic, openai\.$/m,
    );
    assert.doesNotMatch(frame, /refused|model\/set/);
    assert.match(frame, /project · anthropic\/claude-sonnet-4-5 ·/);
  });

  test('/status says whether the server runs, in words, not how many methods it lists', async () => {
    const ui = await start(scripted({ methods: ALL }));
    await ui.type('/status');
    await ui.type('\r');
    assert.match(ui.frame(), /^Server: {2}running$/m);
    assert.doesNotMatch(ui.frame(), /methods/);
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
    // The summary is paid for now: /cost and the ChromeBar count it at once, not after the next run.
    await ui.type('/cost');
    await ui.type('\r');
    assert.match(ui.frame(), /Tokens: {2}1210 in, 39 out, 0 cache read, 0 cache write; cost \$0\.0165/);
    assert.match(ui.frame(), /1\.2k in \/ 39 out · \$0\.0165/);
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
      /Undone:\n {2}restored {4}src\/a\.ts\n {2}left as is {2}notes\.md \(the change had created it\): changed since; left as is/,
    );
  });

  test('/undo says what happened to each file: a created one deleted, a moved one moved back', () => {
    assert.equal(
      undoText([
        { path: 'new.ts', operation: 'create', outcome: 'restored' },
        { path: 'old.ts', operation: 'move', destination: 'lib/old.ts', outcome: 'restored' },
        { path: 'gone.ts', operation: 'delete', outcome: 'restored' },
        { path: 'a.ts', operation: 'modify', outcome: 'restored' },
        {
          path: 'b.ts',
          operation: 'move',
          destination: 'c.ts',
          outcome: 'kept',
          reason: 'c.ts changed since',
        },
      ]),
      [
        'Undone:',
        '  deleted     new.ts',
        '  moved back  lib/old.ts → old.ts',
        '  restored    gone.ts (it had been deleted)',
        '  restored    a.ts',
        '  left as is  b.ts → c.ts (the change had moved it): c.ts changed since',
      ].join('\n'),
    );
  });

  test('/resume ID replays the earlier runs (afterSeq 0, user turns from the export) before the user goes on', async () => {
    const server = withSavedSession();
    const ui = await start(server);
    await ui.type('/resume ses_old00000');
    await ui.type('\r');
    await ui.shows(/Resumed "first question"/);
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

  test('typed while the server starts: /resume and a message wait for it and go in order; /help is answered at once', async () => {
    const server = withSavedSession(ALL.filter((method) => method !== 'session/compact'));
    let ready = () => {};
    const ui = await start(server, { starting: new Promise<void>((resolve) => (ready = resolve)) });
    await ui.type('/resume ses_old00000');
    await ui.type('\r');
    await ui.type('go on');
    await ui.type('\r');
    await ui.type('/compact');
    await ui.type('\r');
    await ui.type('/help');
    await ui.type('\r');
    let frame = ui.frame();
    assert.match(frame, /⏳ queued: \/resume ses_old00000\n⏳ queued: go on\n⏳ queued: \/compact/);
    assert.match(frame, /Commands:/, '/help needs no server');
    assert.doesNotMatch(frame, /Unknown command|not running/);
    assert.deepEqual(server.requests, []);
    ready();
    await ui.settled();
    frame = ui.frame();
    assert.doesNotMatch(frame, /⏳ queued: (\/resume|go on)/);
    assert.match(frame, /⏳ queued: \/compact/);
    assert.match(frame, /Resumed "first question"[\s\S]*› go on/);
    assert.equal(server.prompts.length, 1);
    assert.equal(server.prompts[0]?.sessionId, 'ses_old00000', 'the message went on the resumed session');
    // Queued behind the run: carried out once it ends, against the methods the server listed.
    server.end();
    await ui.settled();
    assert.match(ui.frame(), /Unknown command \/compact/);
    assert.doesNotMatch(ui.frame(), /⏳ queued/);
  });

  test('a message typed while a queued /resume still loads its session goes on that session', async () => {
    const server = withSavedSession();
    const exported = server.backend.request.bind(server.backend);
    let loaded = () => {};
    const loading = new Promise<void>((resolve) => (loaded = resolve));
    server.backend.request = (async (method: string, params: unknown) => {
      if (method === 'session/export') await loading;
      return exported(method as 'session/export', params as never);
    }) as typeof server.backend.request;
    let ready = () => {};
    const ui = await start(server, { starting: new Promise<void>((resolve) => (ready = resolve)) });
    await ui.type('/resume ses_old00000');
    await ui.type('\r');
    ready();
    await ui.settled();
    await ui.type('go on');
    await ui.type('\r');
    assert.match(ui.frame(), /⏳ queued: go on/);
    assert.equal(server.prompts.length, 0);
    loaded();
    await ui.settled();
    assert.equal(server.prompts[0]?.sessionId, 'ses_old00000');
  });

  test('the server fails to start: what was typed waits, then is told as not sent; later input too', async () => {
    let fail = (_error: Error) => {};
    const ui = await start(scripted(), {
      starting: new Promise<void>((_resolve, reject) => (fail = reject)),
    });
    await ui.type('hello');
    await ui.type('\r');
    await ui.type('/sessions');
    await ui.type('\r');
    assert.match(ui.frame(), /⏳ queued: hello\n⏳ queued: \/sessions/);
    fail(new Error('santra-server exited with code 1'));
    await ui.settled();
    let frame = ui.frame();
    assert.match(frame, /santra-server exited with code 1/);
    assert.match(frame, /The 2 inputs you typed were not sent; ↑ brings them back\./);
    assert.doesNotMatch(frame, /⏳ queued/);
    await ui.type('again');
    await ui.type('\r');
    frame = ui.frame();
    assert.match(frame, /santra-server is not running, so this was not sent/);
    await ui.type('\u001b[A');
    assert.match(ui.frame(), /› again/);
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
    await ui.shows(/Transcript written to .*out\.md/); // after the file is written (I/O, not a promise already due)
    assert.deepEqual(server.requests, [
      { method: 'session/export', params: { sessionId: 'ses_12345678abc', format: 'markdown' } },
    ]);
    assert.equal(readFileSync(join(dir, 'out.md'), 'utf8'), '# hi\n\nthe transcript\n');
    assert.match(ui.frame(), /Transcript written to .*out\.md/);
  });

  test('the session left ends on the server: /clear (clear), /resume of another (other), leaving (exit)', async () => {
    const server = withSavedSession([...ALL, 'session/close'], { 'session/close': () => ({ closed: true }) });
    const closes = () => server.requests.filter((request) => request.method === 'session/close');
    const ui = await afterOneRun(server);
    await ui.type('/clear');
    await ui.type('\r');
    await ui.until(() => closes().length === 1, 'the close of the cleared session');
    assert.deepEqual(closes()[0]?.params, { sessionId: 'ses_12345678abc', reason: 'clear' });
    // A new session's run, then /resume of a saved one: the session left ends.
    await ui.type('again');
    await ui.type('\r');
    server.end();
    await ui.settled();
    await ui.type('/resume ses_old00000');
    await ui.type('\r');
    await ui.shows(/Resumed "first question"/);
    await ui.until(() => closes().length === 2, 'the close of the session left for another');
    assert.deepEqual(closes()[1]?.params, { sessionId: 'ses_12345678abc', reason: 'other' });
    // Leaving: the resumed session ends as an exit, before the server is shut down.
    await ui.controller.exit();
    assert.deepEqual(closes()[2]?.params, { sessionId: 'ses_old00000', reason: 'exit' });
    assert.equal(server.closed(), 1);
    assert.equal(closes().length, 3);
  });

  test('a server that does not offer session/close is not sent it', async () => {
    const server = withSavedSession();
    const ui = await afterOneRun(server);
    await ui.type('/clear');
    await ui.type('\r');
    await ui.controller.exit();
    assert.deepEqual(
      server.requests.filter((request) => request.method === 'session/close'),
      [],
    );
    assert.equal(server.closed(), 1);
  });

  test('leaving during a run stops it and sends no session/close: the server ends the session as it shuts down', async () => {
    const server = withSavedSession([...ALL, 'session/close'], { 'session/close': () => ({ closed: true }) });
    const ui = await afterOneRun(server);
    await ui.type('more');
    await ui.type('\r');
    server.phase({ type: 'text', text: 'Working…' });
    await ui.settled();
    await ui.controller.exit();
    assert.equal(server.cancelled(), 1);
    assert.deepEqual(
      server.requests.filter((request) => request.method === 'session/close'),
      [],
    );
    assert.equal(server.closed(), 1);
  });
});
