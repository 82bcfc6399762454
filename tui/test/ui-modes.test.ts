/**
 * Permission modes in the interactive UI (App and its Controller, on a scripted Backend): Shift+Tab
 * cycles the modes as Claude Code does, the bar shows the mode, every message carries it, Tab
 * still completes slash commands, and `--permission-mode` is where the UI starts.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { cleanup } from 'ink-testing-library';
import { parseCommandLine } from '../src/print/args.ts';
import { scripted, start } from './helpers/ui-backend.ts';

afterEach(() => cleanup());

/** What a terminal sends for Shift+Tab (back-tab, CSI Z). */
const SHIFT_TAB = '\u001b[Z';

describe('permission modes in the UI', () => {
  test('Shift+Tab cycles default → acceptEdits → plan → bypassPermissions → default, shown on the bar', async () => {
    const ui = await start();
    assert.doesNotMatch(ui.frame(), /accept edits|plan mode|bypass/, 'default shows nothing');
    await ui.type(SHIFT_TAB);
    await ui.shows(/⏵⏵ accept edits on \(Shift\+Tab to cycle\) · project/);
    await ui.type(SHIFT_TAB);
    await ui.shows(/⏸ plan mode on \(Shift\+Tab to cycle\)/);
    await ui.type(SHIFT_TAB);
    await ui.shows(/⏵⏵ bypass permissions on/);
    await ui.type(SHIFT_TAB);
    await ui.settled();
    assert.doesNotMatch(ui.frame(), /accept edits|plan mode|bypass/);
  });

  test('each message carries the mode shown when it was sent', async () => {
    const server = scripted();
    const ui = await start(server);
    await ui.type('first');
    await ui.type('\r');
    await ui.settled();
    server.end();
    await ui.settled();
    await ui.type(SHIFT_TAB);
    await ui.type(SHIFT_TAB);
    await ui.shows(/plan mode on/);
    await ui.type('second');
    await ui.type('\r');
    await ui.settled();
    server.end();
    await ui.settled();
    assert.deepEqual(
      server.prompts.map((params) => [params.text, params.permissionMode]),
      [
        ['first', 'default'],
        ['second', 'plan'],
      ],
    );
    // The run's result said nothing of the mode: the UI keeps the one it sent.
    assert.match(ui.frame(), /plan mode on/);
  });

  test('Shift+Tab while a run goes on changes its mode at once (session/setMode); between runs it waits for the message', async () => {
    const server = scripted({
      methods: ['prompt', 'session/setMode'],
      answers: { 'session/setMode': (params) => ({ ...(params as object), running: true }) },
    });
    const ui = await start(server);
    await ui.type(SHIFT_TAB);
    await ui.shows(/accept edits on/);
    assert.deepEqual(server.requests, [], 'idle: nothing is sent until the message');
    await ui.type('go\r');
    await ui.settled();
    ui.server.phase({ type: 'text', text: 'Working.' });
    await ui.type(SHIFT_TAB);
    await ui.shows(/plan mode on/);
    await ui.until(() => server.requests.length === 1, 'session/setMode');
    assert.deepEqual(server.requests[0], {
      method: 'session/setMode',
      params: { sessionId: 'ses_12345678abc', permissionMode: 'plan' },
    });
    server.end();
    await ui.settled();
    assert.equal(server.prompts[0]?.permissionMode, 'acceptEdits');
  });

  test('Tab still completes a slash command; Shift+Tab does not', async () => {
    const ui = await start();
    await ui.type('/mo');
    await ui.type(SHIFT_TAB);
    await ui.settled();
    assert.match(ui.frame(), /› \/mo/, 'Shift+Tab did not complete');
    await ui.type('\t');
    await ui.shows(/› \/model /);
  });

  test('--permission-mode starts the UI (and santra -p) in a mode; a bad one is a usage error', () => {
    const context = { stdinIsTTY: true, cwd: '/w', terminal: true };
    assert.deepEqual(parseCommandLine(['--permission-mode', 'plan'], context), {
      action: 'interactive',
      permissionMode: 'plan',
    });
    const print = parseCommandLine(['-p', '--permission-mode', 'acceptEdits', 'go'], context);
    assert.equal(print.action === 'print' ? print.options.permissionMode : undefined, 'acceptEdits');
    const bad = parseCommandLine(['-p', '--permission-mode', 'yolo', 'go'], context);
    assert.equal(bad.action, 'usage_error');
    assert.match(
      bad.action === 'usage_error' ? bad.message : '',
      /--permission-mode must be default, acceptEdits, plan, bypassPermissions, got "yolo"/,
    );
  });

  test('the UI started in a mode shows it before the first message', async () => {
    const ui = await start(scripted(), { permissionMode: 'acceptEdits' });
    assert.match(ui.frame(), /accept edits on/);
  });
});
