/**
 * `:SantraCancel` in the Neovim plugin on a run it did not start: headless Neovim runs
 * editors/nvim/test/cancel_other_flow.lua against the built server and a fake provider whose
 * second answer stalls; the plugin stops that run with session/cancel, and it ends cancelled.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { nvimFlowSuite, runNvimFlow, writeTesterAgent } from './helpers/editor-env.ts';

const { SERVER, PLUGIN, cleanups } = nvimFlowSuite();

interface Report {
  error?: string;
  notices: string[];
  running_before: boolean;
  answered: string;
  server_exited: boolean;
}

test(':SantraCancel stops a run the plugin did not start (session/cancel)', async () => {
  const { report } = await runNvimFlow<Report>({
    plugin: PLUGIN,
    server: SERVER,
    script: join(PLUGIN, 'test/cancel_other_flow.lua'),
    turns: [
      { text: 'Hello.' },
      { text: ['Thinking slowly ', 'about it '], fault: { kind: 'stall', afterEvents: 5 } },
    ],
    prepare: (dir) => writeTesterAgent(dir, ['task_completed'], 'Neovim :SantraCancel'),
    env: {},
    cleanups,
  });
  assert.equal(report.error, undefined, report.error ?? '');
  assert.equal(report.running_before, false, 'the plugin had no prompt of its own running');
  assert.equal(report.answered, 'cancelled');
  assert.ok(
    report.notices.some((notice) => /stopped the run run_/.test(notice)),
    report.notices.join(' | '),
  );
  assert.ok(report.server_exited);
});
