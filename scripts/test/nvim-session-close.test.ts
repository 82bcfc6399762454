/**
 * The Neovim plugin ends a session on the server when the person wipes its transcript: headless
 * Neovim runs editors/nvim/test/session_close_flow.lua against the built server and a fake
 * provider; the wiped session is closed (session/close, so its SessionEnd hooks run then), the
 * other stays open.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { nvimFlowSuite, runNvimFlow, writeTesterAgent } from './helpers/editor-env.ts';

const { SERVER, PLUGIN, cleanups } = nvimFlowSuite();

interface Report {
  error?: string;
  notices: string[];
  two_sessions: boolean;
  closed_by_plugin: boolean;
  first_again: boolean | string;
  second: boolean | string;
  server_exited: boolean;
}

test('a wiped transcript ends its session on the server (session/close); the other session stays open', async () => {
  const { report } = await runNvimFlow<Report>({
    plugin: PLUGIN,
    server: SERVER,
    script: join(PLUGIN, 'test/session_close_flow.lua'),
    turns: [{ text: 'Hello.' }, { text: 'Hello again.' }],
    prepare: (dir) => writeTesterAgent(dir, ['task_completed'], 'Neovim session/close'),
    env: {},
    cleanups,
  });
  assert.equal(report.error, undefined, report.error ?? '');
  assert.equal(report.two_sessions, true);
  assert.equal(report.closed_by_plugin, true, 'the server ended the wiped session');
  assert.equal(report.first_again, false, 'it was closed already');
  assert.equal(report.second, true, 'the other session was still open');
  assert.deepEqual(
    report.notices.filter((notice) => /session\/close/.test(notice)),
    [],
  );
  assert.ok(report.server_exited);
});
