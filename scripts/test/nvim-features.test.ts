/**
 * What the Neovim plugin offers around a run, end to end in one headless Neovim
 * (editors/nvim/test/features_flow.lua) against the built santra-server and a fake Anthropic
 * provider: the chat buffer with `@file` completion and history, the statusline, the quickfix list
 * of the changed files, following a tool call to its file and line, :SantraUndo (refused over
 * unsaved changes, then restoring the file and its buffer), :SantraNew, and the filter before
 * Neovim's own vim.ui.select when the list is long.
 *
 * And the editor's context sent with a prompt (editors/nvim/test/context_flow.lua): the lines
 * selected with `:'<,'>Santra`, the file and cursor of `:Santra`, the file the chat was opened
 * from, and their diagnostics, asserted from what the fake model was sent.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { lastUserText, type RecordedRequest } from '../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../temp-dirs.ts';
import { nvimFlowSuite, runNvimFlow, writeTesterAgent } from './helpers/editor-env.ts';

const { SERVER, PLUGIN, cleanups } = nvimFlowSuite();

const GREET = "function greet(name) {\n  return 'Hello, ' + name;\n}\n";

interface FeaturesReport {
  error?: string;
  notices: string[];
  statusline_before: string;
  chat_name: string;
  chat_completed: string[];
  chat_after_send: string[];
  statusline_waiting: string;
  cursor_in_chat: boolean;
  statusline_after: string;
  first_session: string;
  first_transcript_name: string;
  quickfix_title: string;
  quickfix: { file: string; lnum: number; text: string }[];
  followed_read: [string, number];
  followed_last: [string, number];
  greet_after_run: string[];
  history_back: string[];
  history_forward: string[];
  undo_refused: string;
  undo_notice: string;
  greet_undone: string[];
  greet_undone_modified: boolean;
  second_session: string;
  second_transcript_name: string;
  second_transcript: string[];
  first_transcript_kept: string;
  filter_prompt: string;
  filtered_choices: string[];
  model_notice: string;
  server_exited: boolean;
}

describe('santra.nvim around a run', () => {
  test('chat buffer, statusline, quickfix, follow, undo, a second session and a filtered model list', async () => {
    const { report, fake, workspace } = await runNvimFlow<FeaturesReport>({
      plugin: PLUGIN,
      server: SERVER,
      script: join(PLUGIN, 'test/features_flow.lua'),
      turns: [
        { toolCalls: [{ id: 'r1', name: 'read_file', args: { path: 'greet.js', startLine: 2 } }] },
        {
          toolCalls: [
            {
              id: 'e1',
              name: 'str_replace',
              args: { path: 'greet.js', oldStr: "'Hello, ' + name", newStr: '`Hello, ${name}`' },
            },
          ],
        },
        { text: 'greet() uses a template string.' },
        { text: 'Hello again.' },
      ],
      prepare: (workspace) => {
        writeTesterAgent(workspace, ['read_file', 'str_replace', 'task_completed'], 'Neovim plugin');
        writeFileSync(join(workspace, 'greet.js'), GREET);
        mkdirSync(join(workspace, 'src'));
        writeFileSync(join(workspace, 'src/great-helpers.js'), '');
        writeFileSync(join(workspace, 'notes.txt'), '');
      },
      env: {},
      cleanups,
    });
    assert.equal(report.statusline_before, '');
    // The chat: `@gre` completed to a workspace file (those starting so first), sent with <C-s>.
    assert.equal(report.chat_name.endsWith('santra://chat'), true, report.chat_name);
    assert.deepEqual(report.chat_completed, ['Use a template string', 'in @greet.js']);
    assert.deepEqual(report.chat_after_send, ['']);
    const firstUser = JSON.stringify(fake.requests[0]?.body.messages[0]);
    assert.match(firstUser, /Use a template string\\nin @greet\.js/);
    // The approval did not take the cursor from the chat; the statusline counted it.
    assert.equal(report.cursor_in_chat, true);
    assert.equal(report.statusline_waiting, 'santra: tester running · 1 approval');
    assert.match(report.statusline_after, /^santra: \$\d+\.\d{4}$/);
    assert.match(report.first_session, /^ses_/);
    assert.ok(report.first_transcript_name.endsWith(`santra://transcript/${report.first_session}`));
    // The quickfix list: the file the run changed, at its changed line.
    assert.equal(report.quickfix_title, 'Santra: Use a template string');
    assert.deepEqual(report.quickfix, [
      { file: 'greet.js', lnum: 2, text: 'str_replace: updated greet.js (3 lines)' },
    ]);
    // <CR> on the read_file row: the file at the line it read from; :SantraFollow: the last call.
    assert.deepEqual(report.followed_read, ['greet.js', 2]);
    assert.deepEqual(report.followed_last, ['greet.js', 2]);
    assert.deepEqual(report.greet_after_run, ['function greet(name) {', '  return `Hello, ${name}`;', '}']);
    // History: <C-p> brought the prompt back, <C-n> the draft.
    assert.deepEqual(report.history_back, ['Use a template string', 'in @greet.js']);
    assert.deepEqual(report.history_forward, ['a draft']);
    // :SantraUndo refused while greet.js had unsaved changes, then restored it, buffer reloaded.
    assert.equal(
      report.undo_refused,
      'santra: nothing undone: greet.js has unsaved changes; :write or :edit! it first',
    );
    assert.equal(report.undo_notice, 'santra: undone: 1 change (see the transcript)');
    assert.equal(readFileSync(join(workspace, 'greet.js'), 'utf8'), GREET);
    assert.deepEqual(report.greet_undone, GREET.trimEnd().split('\n'));
    assert.equal(report.greet_undone_modified, false);
    // :SantraNew: another session, in a transcript named after it; the first one stays.
    assert.match(report.second_session, /^ses_/);
    assert.notEqual(report.second_session, report.first_session);
    assert.ok(report.second_transcript_name.endsWith(`santra://transcript/${report.second_session}`));
    // Sent with :Santra from the chat, it carries the file the user came to the chat from.
    assert.deepEqual(report.second_transcript.slice(0, 3), [
      '> hello again',
      '(with greet.js at line 2)',
      '',
    ]);
    assert.match(report.second_transcript.join('\n'), /^Hello again\.$/m);
    assert.equal(report.first_transcript_kept, '> Use a template string');
    // A long model list with Neovim's own select: a filter first, then the matches only.
    assert.match(report.filter_prompt, /^Model \(now .*\) — filter \d+ items/);
    assert.equal(report.filtered_choices[0], report.filter_prompt.replace(/ — filter.*/, ''));
    assert.deepEqual(report.filtered_choices.slice(1), ['1: anthropic/claude-haiku-4-5']);
    assert.equal(report.model_notice, 'santra: model: anthropic/claude-haiku-4-5');
    assert.equal(report.server_exited, true);
  });
});

/** What the model was sent as the user's turn in request `n` (none: ''). */
const sentIn = (requests: RecordedRequest[], n: number) => {
  const request = requests[n];
  assert.ok(request !== undefined, `the model got ${requests.length} requests, not ${n + 1}`);
  return lastUserText(request);
};

/** greet.js, 12 lines: a typo on lines 2 and 3 that a language server would flag. */
const GREET_TYPO = [
  '// greet.js',
  'function greet(nmae) {',
  "  return 'Hello, ' + nmae;",
  '}',
  'module.exports = greet;',
  '// six',
  '// seven: the line the chat asks about',
  '// eight',
  '// nine',
  '// ten',
  '// eleven',
  '// twelve',
];
/** big.js: 120 lines, `const v<n> = <n>;`. */
const BIG = Array.from({ length: 120 }, (_, i) => `const v${i + 1} = ${i + 1};`);

interface ContextReport {
  error?: string;
  notices: string[];
  transcript: string[];
  transcript_lines?: string[];
  resumed_transcript?: string[];
  view?: [number, number];
  server_exited: boolean;
}

/** context_flow.lua, case `which`, with `file` focused, notes.txt loaded and a file outside the workspace. */
async function runContextFlow(which: 'range' | 'cursor' | 'chat', file: string, turns: number) {
  const outside = tempDir('santra-nvim-outside-');
  cleanups.push(() => removeTempDir(outside));
  writeFileSync(join(outside, 'outside.txt'), 'a file outside the workspace\n');
  return runNvimFlow<ContextReport>({
    plugin: PLUGIN,
    server: SERVER,
    script: join(PLUGIN, 'test/context_flow.lua'),
    turns: Array.from({ length: turns }, (_, i) => ({ text: `Answer ${i + 1}.` })),
    prepare: (workspace) => {
      writeTesterAgent(workspace, ['read_file', 'task_completed'], 'Neovim plugin');
      writeFileSync(join(workspace, 'greet.js'), `${GREET_TYPO.join('\n')}\n`);
      writeFileSync(join(workspace, 'big.js'), `${BIG.join('\n')}\n`);
      writeFileSync(join(workspace, 'notes.txt'), 'notes\n');
    },
    env: {
      SANTRA_NVIM_CASE: which,
      SANTRA_NVIM_FILE: file,
      SANTRA_NVIM_OTHER: 'notes.txt',
      SANTRA_NVIM_OUTSIDE: join(outside, 'outside.txt'),
    },
    cleanups,
  });
}

/** Line `n` as read_file numbers it. */
const numbered = (n: number, text: string) =>
  new RegExp(`^\\s*${n}│ ${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm');

describe("santra.nvim sends the editor's context with a prompt", () => {
  test(":'<,'>Santra: the model gets exactly the lines selected and their diagnostics; a charwise selection its columns", async () => {
    const { report, fake } = await runContextFlow('range', 'greet.js', 2);
    const sent = sentIn(fake.requests, 0);
    assert.match(sent, /^explain\n/);
    // No cursor with a range: Neovim put it at the range's start to run the command.
    assert.match(sent, /The file in view: greet\.js\.\n/);
    assert.match(sent, /Selected, 2–3:\n/);
    assert.match(sent, numbered(2, 'function greet(nmae) {'));
    assert.match(sent, numbered(3, "  return 'Hello, ' + nmae;"));
    // Only those lines: neither the one before nor the one after.
    assert.doesNotMatch(sent, /^\s*1│ |^\s*4│ /m);
    // The diagnostic on the lines selected, 1-based, severity and source; not the one outside.
    assert.match(sent, /- greet\.js:2:16 error \(fakels F2\): Cannot find name 'nmae'\./);
    assert.doesNotMatch(sent, /outside the selection/);
    // The other workspace file loaded is named; the file outside the workspace and the scratch buffer are not.
    assert.match(sent, /Open: notes\.txt\./);
    assert.doesNotMatch(sent, /outside\.txt|scratch-notes|santra:\/\//);
    // The transcript says what was attached, under the prompt.
    assert.deepEqual(report.transcript_lines?.slice(0, 3), [
      '> explain',
      '(with greet.js:2–3 selected, 1 diagnostic, 1 other open file)',
      '',
    ]);
    // Charwise: from line 2, character 4, to line 3, character 5.
    const second = sentIn(fake.requests, 1);
    assert.match(second, /^and this part\n/);
    assert.match(second, /Selected, 2:4–3:5:\n/);
    assert.match(second, numbered(2, 'function greet(nmae) {'));
    assert.match(second, numbered(3, "  return 'Hello, ' + nmae;"));
    assert.equal(report.server_exited, true);
  });

  test(':Santra without a range: the focused file and the lines around the cursor, the diagnostics in view', async () => {
    const { report, fake } = await runContextFlow('cursor', 'big.js', 1);
    const sent = sentIn(fake.requests, 0);
    assert.match(sent, /^what is here\n/);
    assert.match(sent, /The file in view: big\.js, the cursor at line 60, column 5\./);
    // The server sends the 10 lines on each side of the cursor.
    assert.match(sent, /Around the cursor:\n/);
    assert.match(sent, numbered(50, 'const v50 = 50;'));
    assert.match(sent, numbered(70, 'const v70 = 70;'));
    assert.doesNotMatch(sent, /const v49 = |const v71 = /);
    // Line 62 is in view (the window showed lines view[0]–view[1]); line 5 is not.
    const [top, bottom] = report.view ?? [0, 0];
    assert.ok(top <= 62 && bottom >= 62 && top > 5, String(report.view));
    assert.match(sent, /- big\.js:62:3 hint \(fakels F62\): A hint in view\./);
    assert.doesNotMatch(sent, /out of view/);
    assert.deepEqual(report.transcript.slice(0, 2), [
      '> what is here',
      '(with big.js at line 60, 1 diagnostic, 1 other open file)',
    ]);
    // Resumed, the run is drawn again the same way: the context was recorded with the prompt.
    assert.deepEqual(report.resumed_transcript?.slice(2), report.transcript);
  });

  test('the chat buffer: the prompt carries the file and cursor of the window the chat was opened from', async () => {
    const { report, fake } = await runContextFlow('chat', 'greet.js', 1);
    const sent = sentIn(fake.requests, 0);
    assert.match(sent, /^What does this line do\?\n/);
    assert.match(sent, /The file in view: greet\.js, the cursor at line 7, column 1\./);
    assert.match(sent, numbered(7, '// seven: the line the chat asks about'));
    assert.doesNotMatch(sent, /santra:\/\/|outside\.txt/);
    assert.deepEqual(report.transcript.slice(0, 2), [
      '> What does this line do?',
      '(with greet.js at line 7, 1 other open file)',
    ]);
  });
});
