/**
 * The Neovim plugin's approvals against what real users did (issue 31), end to end: a headless
 * Neovim with the plugin runs a Lua flow of editors/nvim/test against the built santra-server and
 * a fake Anthropic provider on 127.0.0.1.
 *
 * - stale_flow.lua: the user edits the file while its approval is open, then allows: the change
 *   is made again on the user's text and asked again, never written over it.
 * - focus_flow.lua (typing): keys typed for the file right after `:Santra` go to the file, not
 *   to the approval, which waits for a deliberate answer.
 * - focus_flow.lua (close): `:q` on the approval rejects it and the run goes on; a window closed
 *   otherwise leaves it waiting, and `:SantraApprovals` shows it again.
 * - focus_flow.lua (question): questions (`ask`) do not take the keyboard either: keys typed for
 *   the file go there while the question waits; answered in its window, with inputsecret() for a
 *   secret (which no buffer or history keeps), declined with `:q`.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { FakeTurn, RecordedRequest } from '../../conformance-tests/src/fake-providers/index.ts';
import { nvimFlowSuite, runNvimFlow, writeTesterAgent } from './helpers/editor-env.ts';

const { SERVER, PLUGIN, cleanups } = nvimFlowSuite();

const tool = (id: string, name: string, args: unknown): FakeTurn => ({ toolCalls: [{ id, name, args }] });

/** The last message of a request the model got (a tool's result comes back in it), as JSON text. */
const lastMessage = (request: RecordedRequest | undefined) =>
  JSON.stringify((request?.body.messages as unknown[] | undefined)?.at(-1));

/** What a flow reports of the approval waiting, and of where the cursor is. */
interface ApprovalState {
  waiting: boolean;
  path?: string;
  shown: boolean;
  entered: boolean;
  cursor_in_file: boolean;
}

interface FocusReport {
  error?: string;
  notices: string[];
  question_lines?: string[];
  typed_secret_refused?: boolean;
  secret_prompt?: string;
  kept?: string[];
  shown_while_typing?: boolean;
  file?: string[];
  after_typing?: ApprovalState;
  statusline_waiting?: string;
  first?: ApprovalState;
  second?: ApprovalState;
  hidden?: ApprovalState;
  reopened?: ApprovalState;
  result_status: string;
  transcript: string[];
  statusline_after: string;
  server_exited: boolean;
}

const SECRET = 'tok-s3cret-4242';

function runFocusFlow(which: 'typing' | 'close' | 'question', turns: FakeTurn[]) {
  return runNvimFlow<FocusReport>({
    plugin: PLUGIN,
    server: SERVER,
    script: join(PLUGIN, 'test/focus_flow.lua'),
    turns,
    prepare: (workspace) => {
      writeTesterAgent(workspace, ['write_file', 'ask_user', 'task_completed'], 'Neovim plugin');
      writeFileSync(join(workspace, 'notes.md'), '# notes\n');
    },
    env: { SANTRA_NVIM_CASE: which, SANTRA_NVIM_FILE: 'notes.md', SANTRA_NVIM_SECRET: SECRET },
    cleanups,
  });
}

describe('santra.nvim approvals', () => {
  test('an edit made while the approval is open is not written over: the change is made again on it and asked again', async () => {
    const { report, workspace } = await runNvimFlow<{
      error?: string;
      approvals: string[][];
      edited: string[];
      result_status: string;
      after: string[];
      after_modified: boolean;
      undone: string[];
      undone_modified: boolean;
      server_exited: boolean;
    }>({
      plugin: PLUGIN,
      server: SERVER,
      script: join(PLUGIN, 'test/stale_flow.lua'),
      turns: [
        tool('t1', 'str_replace', { path: 'hello.txt', oldStr: 'hello', newStr: 'goodbye' }),
        { text: 'Done.' },
      ],
      prepare: (workspace) => {
        writeTesterAgent(workspace, ['read_file', 'str_replace', 'task_completed'], 'Neovim plugin');
        writeFileSync(join(workspace, 'hello.txt'), 'hello world\n');
      },
      env: {
        SANTRA_NVIM_FILE: 'hello.txt',
        SANTRA_NVIM_PROMPT: 'Say goodbye',
        SANTRA_NVIM_EDIT: 's/world/there/',
      },
      cleanups,
    });
    const [first, second] = report.approvals;
    assert.ok(first?.includes('+goodbye world'), (first ?? []).join('\n'));
    assert.deepEqual(report.edited, ['hello there']);
    // Allowing did not write the first diff: Santra read the buffer again, made the change on the
    // user's text, and asked again with the new diff.
    assert.equal(report.approvals.length, 2, JSON.stringify(report.approvals));
    assert.ok(second?.includes('-hello there'), (second ?? []).join('\n'));
    assert.ok(second?.includes('+goodbye there'), (second ?? []).join('\n'));
    assert.match(second?.[1] ?? '', /You changed the file while you were asked/);
    assert.equal(report.result_status, 'completed');
    // Buffer and disk hold the user's edit and Santra's; one undo brings back the user's text.
    assert.deepEqual(report.after, ['goodbye there']);
    assert.equal(report.after_modified, false);
    assert.equal(readFileSync(join(workspace, 'hello.txt'), 'utf8'), 'goodbye there\n');
    assert.deepEqual(report.undone, ['hello there']);
    assert.equal(report.undone_modified, true);
    assert.equal(report.server_exited, true);
  });

  test('keys typed for the file right after :Santra go to the file; the approval waits for :SantraAllow', async () => {
    const { report, workspace } = await runFocusFlow('typing', [
      tool('w1', 'write_file', { path: 'greeting.txt', content: 'hello from nvim\n' }),
      { text: 'Wrote greeting.txt.' },
    ]);
    // The approval appeared while the user was typing in the file, and every key went there.
    assert.equal(report.shown_while_typing, true);
    assert.deepEqual(report.file, ['# notes', '# typing in my buffer, yes and no']);
    assert.deepEqual(report.after_typing, {
      waiting: true,
      path: 'greeting.txt',
      shown: true,
      entered: false,
      cursor_in_file: true,
    });
    // A one-line notice said how to answer; the statusline counts the approval.
    assert.ok(
      report.notices.some((n) => /^santra: create greeting\.txt\? :SantraAllow, :SantraReject/.test(n)),
      report.notices.join('\n'),
    );
    assert.equal(report.statusline_waiting, 'santra: tester running · 1 approval');
    // Only :SantraAllow answered it.
    assert.equal(report.result_status, 'completed');
    assert.equal(readFileSync(join(workspace, 'greeting.txt'), 'utf8'), 'hello from nvim\n');
    assert.match(report.transcript.join('\n'), /✓ ok: created greeting\.txt/);
    assert.match(report.statusline_after, /^santra: \$\d+\.\d{4}$/);
    assert.equal(report.server_exited, true);
  });

  test(':q on the approval rejects it and the run goes on; :only hides one, :SantraApprovals shows it again', async () => {
    const { report, workspace } = await runFocusFlow('close', [
      tool('w1', 'write_file', { path: 'a.txt', content: 'a\n' }),
      tool('w2', 'write_file', { path: 'b.txt', content: 'b\n' }),
      { text: 'Wrote b.txt only.' },
    ]);
    assert.deepEqual(report.first, {
      waiting: true,
      path: 'a.txt',
      shown: true,
      entered: false,
      cursor_in_file: true,
    });
    // :q rejected a.txt (with a notice), and the run went on to b.txt.
    assert.ok(
      report.notices.includes('santra: rejected (you closed the approval with :q): create a.txt'),
      report.notices.join('\n'),
    );
    assert.equal(existsSync(join(workspace, 'a.txt')), false);
    assert.equal(report.second?.path, 'b.txt');
    // :only closed its window: it still waits, and the user is told how to get it back.
    assert.deepEqual(report.hidden, {
      waiting: true,
      path: 'b.txt',
      shown: false,
      entered: false,
      cursor_in_file: true,
    });
    assert.ok(
      report.notices.some((n) =>
        n.startsWith('santra: approval hidden, still waiting: :SantraApprovals shows it'),
      ),
      report.notices.join('\n'),
    );
    assert.deepEqual(report.reopened, {
      waiting: true,
      path: 'b.txt',
      shown: true,
      entered: true,
      cursor_in_file: false,
    });
    assert.equal(readFileSync(join(workspace, 'b.txt'), 'utf8'), 'b\n');
    assert.equal(report.result_status, 'completed');
    const transcript = report.transcript.join('\n');
    assert.match(transcript, /⊘ rejected/);
    assert.match(transcript, /✓ ok: created b\.txt/);
    assert.equal(report.server_exited, true);
  });

  test('a question does not take the keyboard: keys typed go to the file, it waits to be answered in its window; a secret is typed hidden, :q declines', async () => {
    const { report, fake } = await runFocusFlow('question', [
      tool('q1', 'ask_user', {
        prompt: 'Tabs or spaces?',
        options: [
          { label: 'Tabs', value: 'tabs' },
          { label: 'Spaces', value: 'spaces' },
        ],
      }),
      tool('q2', 'ask_user', { prompt: 'Your deploy token?', secret: true }),
      tool('q3', 'ask_user', { prompt: 'Anything else?' }),
      { text: 'Set up with spaces.' },
    ]);
    // The question appeared while the user was typing in the file, and every key went there.
    assert.equal(report.shown_while_typing, true);
    assert.deepEqual(report.file, ['# notes', '# typing in my buffer, yes and no']);
    assert.deepEqual(report.after_typing, {
      waiting: true,
      shown: true,
      entered: false,
      cursor_in_file: true,
    });
    assert.deepEqual(report.question_lines, [
      'Santra asks: Tabs or spaces?',
      '[1-2] choose   [<CR>] the option under the cursor   [i] another answer   (:q declines)',
      '',
      '  1. Tabs',
      '  2. Spaces',
      '',
      'From any window: :SantraAnswer [text]  :SantraAnswer! declines  :SantraQuestions',
    ]);
    assert.ok(
      report.notices.some((n) => n.startsWith('santra: question: Tabs or spaces?  :SantraAnswer answers')),
      report.notices.join('\n'),
    );
    assert.equal(report.statusline_waiting, 'santra: tester running · 1 question');
    // Nothing typed in the file answered it: the model's second request carries the answer given
    // afterwards, by "2" in the question's window.
    assert.equal(fake.requests.length, 4);
    assert.match(lastMessage(fake.requests[1]), /The user answered: spaces/);
    // The secret: typed after :SantraAnswer it was refused; asked with inputsecret(), it reached
    // the model, and no buffer, transcript or history holds it.
    assert.equal(report.typed_secret_refused, true);
    assert.ok(
      report.notices.includes(
        'santra: not taken: a secret is typed where it is not shown, :SantraAnswer without text',
      ),
      report.notices.join('\n'),
    );
    assert.equal(report.secret_prompt, 'Your deploy token? ');
    assert.match(lastMessage(fake.requests[2]), new RegExp(`The user answered: ${SECRET}`));
    // A command typed before it is in the history: the history was kept, and read.
    assert.ok(report.kept?.includes('echo "a command of my own"'), (report.kept ?? []).join('\n'));
    assert.deepEqual(
      report.kept?.filter((line) => line.includes(SECRET)),
      [],
    );
    assert.match(report.transcript.join('\n'), /answered \(secret\)/);
    // :q declined the third: the agent was told it went unanswered, and the run went on.
    assert.match(
      lastMessage(fake.requests[3]),
      /could not be asked or was not answered: .*closed the question/,
    );
    assert.ok(
      report.notices.includes('santra: declined (you closed the question with :q): question: Anything else?'),
      report.notices.join('\n'),
    );
    assert.equal(report.result_status, 'completed');
    assert.match(report.transcript.join('\n'), /^Set up with spaces\.$/m);
    assert.equal(report.server_exited, true);
  });
});
