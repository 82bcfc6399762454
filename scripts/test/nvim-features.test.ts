/**
 * What the Neovim plugin offers around a run, end to end in one headless Neovim
 * (editors/nvim/test/features_flow.lua) against the built santra-server and a fake Anthropic
 * provider: the chat buffer with `@file` completion and history, the statusline, the quickfix list
 * of the changed files, following a tool call to its file and line, :SantraUndo (refused over
 * unsaved changes, then restoring the file and its buffer), :SantraNew, and the filter before
 * Neovim's own vim.ui.select when the list is long.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runNvimFlow, writeTesterAgent } from './helpers/editor-env.ts';

const SERVER = fileURLToPath(new URL('../../dist/santra-server.js', import.meta.url));
const PLUGIN = fileURLToPath(new URL('../../editors/nvim', import.meta.url));
const cleanups: (() => Promise<void>)[] = [];

after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

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
    assert.deepEqual(report.second_transcript.slice(0, 2), ['> hello again', '']);
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
