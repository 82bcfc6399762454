/**
 * `santra lsp` end to end with a real LSP client: Neovim's built-in one (`nvim --headless -u
 * NONE`, 0.7 as Debian packages it) runs editors/lsp-test/fix_flow.lua against the built
 * santra-server. It is the exchange Helix makes too (Debian packages no Helix): code actions on a
 * range, "Santra: fix" through workspace/executeCommand, the approval as
 * window/showMessageRequest answered "allow", and the change arriving in the buffer through
 * workspace/applyEdit. A fake Anthropic provider on 127.0.0.1 scripts a write_file call.
 *
 * It lives in scripts/test: it runs the built server with the conformance suite's fake providers.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startFakeProvider } from '../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../temp-dirs.ts';
import { nvimTestEnv, runHeadlessNvim, writeTesterAgent } from './helpers/editor-env.ts';

const SERVER = fileURLToPath(new URL('../../dist/santra-server.js', import.meta.url));
const SCRIPT = fileURLToPath(new URL('../../editors/lsp-test/fix_flow.lua', import.meta.url));
const ORIGINAL = 'export function greet(name) {\n  return "Hello " + name;\n}\n';
const FIXED = 'export function greet(name) {\n  return `Hello, ${name}!`;\n}\n';

interface Report {
  error?: string;
  actions: string[];
  requests: Array<{ message: string; actions: Array<{ title: string }> }>;
  messages: string[];
  lines: string[];
  modified: boolean;
  exit_code?: number;
}

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

test('Neovim LSP client: "Santra: fix" from the code actions, approval allowed, the buffer gets the change', async () => {
  const fake = await startFakeProvider('anthropic', [
    { toolCalls: [{ id: 't1', name: 'write_file', args: { path: 'greet.js', content: FIXED } }] },
    { text: 'Fixed greet().' },
  ]);
  const home = tempDir('santra-lsp-nvim-home-');
  const workspace = tempDir('santra-lsp-nvim-ws-');
  cleanups.push(async () => {
    await fake.close();
    await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
  });
  writeTesterAgent(workspace, ['write_file', 'task_completed'], 'LSP');
  writeFileSync(join(workspace, 'greet.js'), ORIGINAL);
  const out = join(home, 'report.json');
  const report = await runHeadlessNvim<Report>({
    args: ['-c', `luafile ${SCRIPT}`],
    cwd: workspace,
    env: {
      ...nvimTestEnv(home, fake.url),
      SANTRA_LSP_NODE: process.execPath,
      SANTRA_LSP_SERVER: SERVER,
      SANTRA_LSP_OUT: out,
    },
    out,
  });
  assert.deepEqual(report.actions, ['Santra: fix', 'Santra: explain', 'Santra: ask…']);
  assert.equal(report.requests.length, 1);
  assert.match(report.requests[0]?.message ?? '', /^Santra wants to modify greet\.js \(\+1 -1\)/);
  assert.deepEqual(
    report.requests[0]?.actions.map((a) => a.title),
    ['allow', 'allow all', 'reject'],
  );
  // The buffer holds the change (applyEdit), and so does the file on disk (Santra wrote it).
  assert.deepEqual(report.lines, ['export function greet(name) {', '  return `Hello, ${name}!`;', '}']);
  // Modified, not reloaded: the change came as an edit, which the buffer's undo can take back.
  assert.equal(report.modified, true);
  assert.equal(readFileSync(join(workspace, 'greet.js'), 'utf8'), FIXED);
  assert.ok(report.messages.includes('Fixed greet().'), report.messages.join(' | '));
  assert.equal(report.exit_code, 0, 'santra-server lsp ends with 0 after shutdown and exit');
});
