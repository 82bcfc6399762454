/**
 * `santra lsp` end to end with a real LSP client: Neovim's built-in one (`nvim --headless -u
 * NONE`, 0.7 as Debian packages it) runs editors/lsp-test/fix_flow.lua against the built
 * santra-server. It is the exchange Helix makes too (Debian packages no Helix): code actions on a
 * range, "Santra: fix" through workspace/executeCommand, the approval as
 * window/showMessageRequest answered "allow", and the change arriving in the buffer through
 * workspace/applyEdit. Santra reads the buffer through the editor (unsaved changes included) and
 * puts its approved change into it. A fake Anthropic provider on 127.0.0.1 scripts the model.
 *
 * It lives in scripts/test: it runs the built server with the conformance suite's fake providers.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  type FakeProvider,
  type FakeTurn,
  startFakeProvider,
} from '../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../temp-dirs.ts';
import { nvimTestEnv, runHeadlessNvim, writeTesterAgent } from './helpers/editor-env.ts';
import { FIXED, ORIGINAL, readThenFixTurns, UNSAVED_LINE } from './helpers/greet-fixture.ts';

const SERVER = fileURLToPath(new URL('../../dist/santra-server.js', import.meta.url));
const SCRIPT = fileURLToPath(new URL('../../editors/lsp-test/fix_flow.lua', import.meta.url));
const FIXED_LINES = ['export function greet(name) {', '  return `Hello, ${name}!`;', '}'];

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

/**
 * Runs fix_flow.lua in a workspace holding greet.js as ORIGINAL, with `before` (Ex commands) run
 * first; the model follows `turns`. `serverLog` is what the server wrote to stderr, which Neovim
 * keeps in its LSP log.
 */
async function fixFlow(
  turns: FakeTurn[],
  before: string[] = [],
): Promise<{ report: Report; fake: FakeProvider; workspace: string; serverLog: string }> {
  const fake = await startFakeProvider('anthropic', turns);
  const home = tempDir('santra-lsp-nvim-home-');
  const workspace = tempDir('santra-lsp-nvim-ws-');
  cleanups.push(async () => {
    await fake.close();
    await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
  });
  writeTesterAgent(workspace, ['read_file', 'write_file', 'str_replace', 'task_completed'], 'LSP');
  writeFileSync(join(workspace, 'greet.js'), ORIGINAL);
  const out = join(home, 'report.json');
  const report = await runHeadlessNvim<Report>({
    args: [...before.flatMap((command) => ['-c', command]), '-c', `luafile ${SCRIPT}`],
    cwd: workspace,
    env: {
      ...nvimTestEnv(home, fake.url),
      SANTRA_LSP_NODE: process.execPath,
      SANTRA_LSP_SERVER: SERVER,
      SANTRA_LSP_OUT: out,
    },
    out,
  });
  const serverLog = readFileSync(join(home, '.cache/nvim/lsp.log'), 'utf8');
  return { report, fake, workspace, serverLog };
}

test('Neovim LSP client: "Santra: fix" from the code actions, approval allowed, the buffer gets the change', async () => {
  const { report, workspace } = await fixFlow([
    { toolCalls: [{ id: 't1', name: 'write_file', args: { path: 'greet.js', content: FIXED } }] },
    { text: 'Fixed greet().' },
  ]);
  assert.deepEqual(report.actions, ['Santra: fix', 'Santra: explain', 'Santra: ask…']);
  assert.equal(report.requests.length, 1);
  assert.match(report.requests[0]?.message ?? '', /^Santra wants to modify greet\.js \(\+1 -1\)/);
  assert.deepEqual(
    report.requests[0]?.actions.map((a) => a.title),
    ['allow', 'allow all', 'reject'],
  );
  // The buffer holds the change (applyEdit), and so does the file on disk (Santra wrote it).
  assert.deepEqual(report.lines, FIXED_LINES);
  // Modified, not reloaded: the change came as an edit, which the buffer's undo can take back.
  assert.equal(report.modified, true);
  assert.equal(readFileSync(join(workspace, 'greet.js'), 'utf8'), FIXED);
  assert.ok(report.messages.includes('Fixed greet().'), report.messages.join(' | '));
  assert.equal(report.exit_code, 0, 'santra-server lsp ends with 0 after shutdown and exit');
});

test('Neovim LSP client: Santra reads a buffer with an unsaved change, and its edit lands in the buffer with the change kept', async () => {
  const { report, fake, workspace, serverLog } = await fixFlow(
    readThenFixTurns(),
    // The user's change, made as the file is opened and never saved.
    [`autocmd BufReadPost greet.js call append(line('$'), '${UNSAVED_LINE}')`],
  );
  // The model's request after read_file carries its result: the buffer, not the file on disk.
  const readResult = JSON.stringify((fake.requests[1]?.body as { messages: unknown[] }).messages.at(-1));
  assert.ok(readResult.includes(UNSAVED_LINE), readResult);
  assert.equal(report.requests.length, 1);
  assert.match(report.requests[0]?.message ?? '', /^Santra wants to modify greet\.js \(\+1 -1\)/);
  assert.deepEqual(report.lines, [...FIXED_LINES, UNSAVED_LINE]);
  // Put there by fs/writeTextFile: the editor took the edit (Santra logs a write it could not make).
  assert.doesNotMatch(serverLog, /could not write/);
  assert.equal(report.modified, true);
  assert.equal(readFileSync(join(workspace, 'greet.js'), 'utf8'), `${FIXED}${UNSAVED_LINE}\n`);
  assert.ok(!report.messages.some((m) => m.includes('unsaved changes')), report.messages.join(' | '));
  assert.ok(report.messages.includes('Fixed greet().'), report.messages.join(' | '));
  assert.equal(report.exit_code, 0);
});
