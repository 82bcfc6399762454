/**
 * The approval and question overlays with ink-testing-library: frames and keys, without a terminal.
 * The clock is the test's, so the early-keypress guard is checked without sleeping; each key's
 * effect is waited for (a frame, an answer), and a key that must do nothing is checked by a key
 * after it that does something.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import type { ApproveParams, ApproveResult, AskParams, AskResult } from '#protocol';
import { cleanup, render } from 'ink-testing-library';
import { createElement as h } from 'react';
import { ApprovalOverlay, GUARD_MS } from '../src/ui/components/approval-overlay.ts';
import { QuestionOverlay } from '../src/ui/components/question-overlay.ts';
import { frameWaits, until } from './helpers/until.ts';

afterEach(() => cleanup());

const ESC = '\u001b';
const UP = '\u001b[A';
const DOWN = '\u001b[B';

function fileChange(lines: number): Extract<ApproveParams, { kind: 'file_change' }> {
  const added = Array.from({ length: lines }, (_, i) => ({
    type: 'added' as const,
    text: `line ${i + 1}`,
    newLine: i + 1,
  }));
  return {
    kind: 'file_change',
    sessionId: 's-1',
    runId: 'run-1',
    agentId: 'executor-3',
    toolCallId: 'c1',
    toolName: 'write_file',
    path: 'src/greet.ts',
    operation: 'modify',
    diff: {
      added: lines,
      removed: 1,
      replacement: false,
      hunks: [
        {
          oldStart: 1,
          oldLines: 2,
          newStart: 1,
          newLines: lines + 1,
          lines: [
            { type: 'context', text: 'export function greet() {', oldLine: 1, newLine: 1 },
            { type: 'removed', text: "  return 'hi';", oldLine: 2 },
            ...added.map((line) => ({ ...line, newLine: line.newLine + 1 })),
          ],
        },
      ],
      unifiedDiff: '',
    },
  };
}

/** An approval overlay on a clock the test moves; returns the answers it gave. */
const PAGE_UP = '\u001b[5~';
const PAGE_DOWN = '\u001b[6~';

function approval(params: ApproveParams, maxRows = 20) {
  let clock = 1000;
  const answers: ApproveResult[] = [];
  let printed = 0;
  const view = render(
    h(ApprovalOverlay, {
      params,
      position: 1,
      queued: 2,
      width: 80,
      maxRows,
      onAnswer: (result) => answers.push(result),
      onPrint: () => printed++,
      now: () => clock,
    }),
  );
  return {
    ...view,
    ...frameWaits(view),
    answers,
    printed: () => printed,
    later: (ms: number) => (clock += ms),
    /** Types `keys`; what they do is waited for with `shows`, `hides`, `answered` or `until`. */
    press: (keys: string) => void view.stdin.write(keys),
    /** Waits for the overlay's first answer. */
    answered: () => until(() => answers.length > 0, 'an answer', { state: () => view.lastFrame() ?? '' }),
  };
}

describe('the approval overlay', () => {
  test('shows who asks, the queue, the diff with line numbers, and the keys', async () => {
    const view = approval(fileChange(2));
    await view.shows(/Approval · executor-3 · write_file · 1 of 2 waiting/);
    const frame = view.frame();
    assert.match(frame, /modify src\/greet\.ts {2}\+2 −1/);
    assert.match(frame, /1 1 {3}export function greet\(\) \{/);
    assert.match(frame, /2 {3}- {3}return 'hi';/);
    assert.match(frame, / {2}2 \+ line 1/);
    assert.match(
      frame,
      /\[y\] allow {2}\[a\] allow all {2}\[r\/n\] reject {2}\[f\] feedback {2}\[p\] whole diff/,
    );
  });

  test('a move shows where the file goes', async () => {
    const move: ApproveParams = {
      kind: 'file_change',
      sessionId: 's-1',
      runId: 'run-1',
      agentId: 'executor-3',
      toolCallId: 'call-9',
      toolName: 'move_file',
      operation: 'move',
      path: 'a.txt',
      destination: 'sub/b.txt',
      diff: {
        added: 0,
        removed: 0,
        replacement: false,
        hunks: [],
        unifiedDiff: '--- a/a.txt\n+++ b/sub/b.txt\n',
      },
    };
    const view = approval(move);
    await view.shows(/move a\.txt → sub\/b\.txt {2}\+0 −0/);
  });

  test('keys typed in the first 250 ms are dropped; y then allows', async () => {
    const view = approval(fileChange(1));
    view.press('a');
    view.later(GUARD_MS - 10);
    view.press('n');
    view.later(20);
    view.press('y');
    await view.answered();
    // Had a key of the first 250 ms counted, its answer (allow all, reject) would be the first.
    assert.deepEqual(view.answers, [{ decision: 'allow' }]);
  });

  for (const [key, decision] of [
    ['a', 'allow_all'],
    ['r', 'reject'],
    ['n', 'reject'],
    ['Y', 'allow'],
  ] as const) {
    test(`${key} answers ${decision}`, async () => {
      const view = approval(fileChange(1));
      view.later(GUARD_MS);
      view.press('x'); // not a key of the overlay: nothing happens
      view.press(key);
      await view.answered();
      assert.deepEqual(view.answers, [{ decision }]);
    });
  }

  test('f asks for feedback, Esc goes back, Enter rejects with the text', async () => {
    const view = approval(fileChange(1));
    view.later(GUARD_MS);
    view.press('f');
    await view.shows('Feedback for the agent:');
    view.press('use tabs');
    await view.shows('Feedback for the agent: use tabs');
    view.press(ESC); // Ink holds a lone Esc back for a moment: its effect is waited for
    await view.hides('Feedback for the agent:');
    view.press('f');
    await view.shows('Feedback for the agent:');
    // Keys of the overlay are text here: y does not allow. One key at a time, each drawn.
    let typed = '';
    for (const char of 'y, tabs please') {
      view.press(char);
      typed += char;
      await view.shows(`Feedback for the agent: ${typed.trimEnd()}`);
    }
    assert.deepEqual(view.answers, []);
    view.press('\r');
    await view.answered();
    assert.deepEqual(view.answers, [{ decision: 'feedback', feedback: 'y, tabs please' }]);
  });

  test('every key of a chunk counts: Backspace held down, then Enter, in one write', async () => {
    const view = approval(fileChange(2));
    view.later(GUARD_MS);
    view.press('f');
    await view.shows('Feedback for the agent:');
    view.press('use tabs');
    await view.shows('Feedback for the agent: use tabs');
    view.press('\u007f\u007f\u007f\u007f\u007f\r');
    await view.answered();
    assert.deepEqual(view.answers, [{ decision: 'feedback', feedback: 'use' }]);
  });

  test('an empty feedback is a plain reject', async () => {
    const view = approval(fileChange(1));
    view.later(GUARD_MS);
    view.press('f');
    await view.shows('Feedback for the agent:');
    view.press('\r');
    await view.answered();
    assert.deepEqual(view.answers, [{ decision: 'reject' }]);
  });

  test('a long diff is cut to the rows there are, with "… N more lines", and p prints it whole', async () => {
    const view = approval(fileChange(50), 12);
    await view.shows(/… \d+ more lines/);
    const frame = view.frame();
    assert.ok(frame.split('\n').length <= 12, frame);
    const more = /… (\d+) more lines \(PgUp\/PgDn: scroll · p: print the whole diff above\)/.exec(frame);
    assert.ok(more !== null, frame);
    const lines = (text: string) =>
      text
        .split('\n')
        .map((line) => /\+ line (\d+)/.exec(line)?.[1])
        .filter((n) => n !== undefined)
        .map(Number);
    const shown = lines(frame);
    assert.equal(shown.length + Number(more[1]), 50);
    view.later(GUARD_MS);
    // PgDn scrolls the diff a page (as many rows as are shown); PgUp back; never past either end.
    view.press(PAGE_DOWN);
    await view.until(() => lines(view.frame())[0] === (shown.at(-1) ?? 0) + 1, 'the next page');
    assert.match(view.frame(), /↑ \d+ lines above · … \d+ more lines/);
    for (let i = 0; i < 10; i++) view.press(PAGE_DOWN);
    await view.hides('more lines');
    assert.equal(lines(view.frame()).at(-1), 50);
    for (let i = 0; i < 10; i++) view.press(PAGE_UP);
    await view.hides('lines above');
    assert.deepEqual(lines(view.frame()), shown);
    view.press('p');
    await view.until(() => view.printed() > 0, 'the whole diff printed');
    assert.equal(view.printed(), 1);
    // No key of these answered: the last, p, came after them all.
    assert.deepEqual(view.answers, []);
  });

  test('a command shows exactly what runs and where; a protected request says so', async () => {
    const view = approval({
      kind: 'command',
      sessionId: 's-1',
      runId: 'run-1',
      agentId: 'orchestrator',
      toolCallId: 'c2',
      toolName: 'run_command',
      command: 'rm -rf .git/hooks',
      cwd: '/home/ada/project',
      protected: true,
      protectedReason: "git's internals",
    });
    await view.shows(/\$ rm -rf \.git\/hooks/);
    const frame = view.frame();
    assert.match(frame, /! protected location \(git's internals\): asked every time/);
    assert.match(frame, /\$ rm -rf \.git\/hooks/);
    assert.match(frame, /in \/home\/ada\/project/);
    assert.doesNotMatch(frame, /\[p\] whole diff/);
  });

  test('a protected location offers no "allow all": it is asked every time', async () => {
    const view = approval({
      ...fileChange(1),
      path: '.git/hooks/pre-commit',
      protected: true,
      protectedReason: 'git hooks run code',
    });
    view.later(GUARD_MS);
    await view.shows(/\[y\] allow {2}\[r\/n\] reject {2}\[f\] feedback/);
    assert.doesNotMatch(view.frame(), /allow all|\[a\]/);
    view.press('a');
    view.press('y');
    await view.answered();
    // Had a answered (allow all), its answer would be the first.
    assert.deepEqual(view.answers, [{ decision: 'allow' }]);
  });

  test("an undo's question says what it asks, offers no feedback, and names no protocol method", async () => {
    const view = approval({ ...fileChange(1), agentId: 'undo', toolName: 'session/undo' });
    view.later(GUARD_MS);
    await view.shows(/Undo · this file changed since the agent wrote it: put it back anyway\?/);
    const frame = view.frame();
    assert.doesNotMatch(frame, /session\/undo|Approval ·|feedback|\[f\]/);
    assert.match(frame, /\[y\] allow {2}\[a\] allow all {2}\[r\/n\] reject {2}\[p\] whole diff/);
    view.press('f');
    view.press('n');
    await view.answered();
    // Had f opened a feedback field, n would have been typed into it, not answered.
    assert.deepEqual(view.answers, [{ decision: 'reject' }]);
    assert.doesNotMatch(view.frame(), /Feedback for the agent/);
  });
});

function question(params: Omit<AskParams, 'sessionId' | 'runId' | 'agentId' | 'toolCallId'>) {
  let clock = 0;
  const answers: AskResult[] = [];
  const view = render(
    h(QuestionOverlay, {
      params: { sessionId: 's-1', runId: 'run-1', agentId: 'reader-2', toolCallId: 'call-1', ...params },
      position: 1,
      queued: 1,
      width: 80,
      maxRows: 20,
      onAnswer: (result) => answers.push(result),
      now: () => clock,
    }),
  );
  clock += GUARD_MS;
  return {
    ...view,
    ...frameWaits(view),
    answers,
    press: (keys: string) => void view.stdin.write(keys),
    answered: () => until(() => answers.length > 0, 'an answer', { state: () => view.lastFrame() ?? '' }),
  };
}

describe('the question overlay', () => {
  const colours = {
    prompt: 'Which colour?',
    header: 'Theme',
    options: [
      { label: 'Red', value: 'red' },
      { label: 'Blue', value: 'blue' },
    ],
  };

  test('options are chosen with the arrows and Enter', async () => {
    const view = question(colours);
    await view.shows(/Theme · reader-2/);
    assert.match(view.frame(), /› 1\. Red/);
    view.press(DOWN);
    await view.shows(/› 2\. Blue/);
    view.press('\r');
    await view.answered();
    assert.deepEqual(view.answers, [{ answer: 'blue' }]);
  });

  test('a free answer is always possible: the last row', async () => {
    const view = question(colours);
    view.press(DOWN);
    await view.shows(/› 2\. Blue/);
    view.press(DOWN);
    await view.shows(/› Other:/);
    view.press(DOWN); // stays on the last row: the Up after it goes to the second
    view.press(UP);
    await view.shows(/› 2\. Blue/);
    view.press(DOWN);
    await view.shows(/› Other:/);
    view.press('green');
    await view.shows(/› Other: green/);
    view.press('\r');
    await view.answered();
    assert.deepEqual(view.answers, [{ answer: 'green' }]);
  });

  test('every key of a chunk counts: two arrows and Enter in one write answer the third option', async () => {
    const view = question({ ...colours, options: [...colours.options, { label: 'Grey', value: 'grey' }] });
    await view.shows(/› 1\. Red/);
    view.press(`${DOWN}${DOWN}\r`);
    await view.answered();
    assert.deepEqual(view.answers, [{ answer: 'grey' }]);
  });

  test('without options it is a text field; a secret answer is masked', async () => {
    const view = question({ prompt: 'API key?', secret: true });
    view.press('sk-hidden-123');
    await view.shows(/Answer: •{13}/);
    const frame = view.frame();
    assert.doesNotMatch(frame, /sk-hidden/);
    assert.match(frame, /masked and never saved/);
    view.press('\r');
    await view.answered();
    assert.deepEqual(view.answers, [{ answer: 'sk-hidden-123' }]);
  });
});
