/**
 * `:SantraMode` in the Neovim plugin end to end: headless Neovim runs editors/nvim/test/mode_flow.lua
 * against the built server and a fake provider whose model tries to write a file; in plan mode the
 * server refuses it, the file is never written, and the statusline and the result say `plan`.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runNvimFlow, writeTesterAgent } from './helpers/editor-env.ts';

const SERVER = fileURLToPath(new URL('../../dist/santra-server.js', import.meta.url));
const PLUGIN = fileURLToPath(new URL('../../editors/nvim', import.meta.url));
const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

interface Report {
  error?: string;
  statusline: string;
  result_mode: string;
  transcript: string[];
  server_exited: boolean;
}

test(':SantraMode plan: the next prompt runs in plan mode, the write is refused, the statusline says so', async () => {
  const { report, workspace } = await runNvimFlow<Report>({
    plugin: PLUGIN,
    server: SERVER,
    script: join(PLUGIN, 'test/mode_flow.lua'),
    turns: [
      { toolCalls: [{ id: 't1', name: 'write_file', args: { path: 'planned.txt', content: 'no\n' } }] },
      { text: 'I would write planned.txt.' },
    ],
    prepare: (dir) => writeTesterAgent(dir, ['write_file', 'task_completed'], 'Neovim :SantraMode'),
    env: {},
    cleanups,
  });
  assert.equal(report.error, undefined, report.error ?? '');
  assert.match(report.statusline, /plan/);
  assert.equal(report.result_mode, 'plan');
  assert.equal(existsSync(join(workspace, 'planned.txt')), false);
  assert.ok(report.server_exited);
});
