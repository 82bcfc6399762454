/**
 * `:SantraMode` in the Neovim plugin end to end: headless Neovim runs editors/nvim/test/mode_flow.lua
 * against the built server and a fake provider whose model tries to write a file; in plan mode the
 * server refuses it, the file is never written, and the statusline and the result say `plan`.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { nvimFlowSuite, runNvimFlow, writeTesterAgent } from './helpers/editor-env.ts';

const { SERVER, PLUGIN, cleanups } = nvimFlowSuite();

interface Report {
  error?: string;
  statusline: string;
  result_mode: string;
  transcript: string[];
  notices: string[];
  approvals_after_switch: number;
  second_mode: string;
  server_exited: boolean;
}

test(':SantraMode plan: the next prompt runs in plan mode, the write is refused, the statusline says so; changed during a prompt, it applies at once', async () => {
  const { report, workspace } = await runNvimFlow<Report>({
    plugin: PLUGIN,
    server: SERVER,
    script: join(PLUGIN, 'test/mode_flow.lua'),
    turns: [
      { toolCalls: [{ id: 't1', name: 'write_file', args: { path: 'planned.txt', content: 'no\n' } }] },
      { text: 'I would write planned.txt.' },
      { toolCalls: [{ id: 't2', name: 'write_file', args: { path: 'first.txt', content: 'one\n' } }] },
      { toolCalls: [{ id: 't3', name: 'write_file', args: { path: 'second.txt', content: 'two\n' } }] },
      { text: 'Wrote both.' },
    ],
    prepare: (dir) => writeTesterAgent(dir, ['write_file', 'task_completed'], 'Neovim :SantraMode'),
    env: {},
    cleanups,
  });
  assert.equal(report.error, undefined, report.error ?? '');
  assert.match(report.statusline, /plan/);
  assert.equal(report.result_mode, 'plan');
  assert.equal(existsSync(join(workspace, 'planned.txt')), false);
  // :SantraMode during a prompt applies to it at once: the second write was not asked.
  assert.ok(report.notices.some((notice) => /acceptEdits \(now, for the running prompt too\)/.test(notice)));
  assert.equal(readFileSync(join(workspace, 'second.txt'), 'utf8'), 'two\n');
  assert.equal(report.approvals_after_switch, 0);
  assert.equal(report.second_mode, 'acceptEdits');
  assert.ok(report.server_exited);
});
