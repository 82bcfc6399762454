/**
 * Approvals that edit in the TUI's overlay (§7.3.2), with ink-testing-library: the hunk cursor and
 * toggles, the answer they make (SANTRA-APPROVE-027: all kept is a plain allow, none a reject, a
 * strict subset an allow with `hunks`), and `e` (the editor itself is behind `onEdit`; the real one
 * runs in ui-approval-editor.test.ts). Also the pure rules of approval-edit.ts: the proposal
 * rebuilt from the file and the diff, and the answer a saved edit makes.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import type { ApproveParams, ApproveResult, FileDiff } from '#protocol';
import { cleanup, render } from 'ink-testing-library';
import { createElement as h } from 'react';
import {
  allowChosen,
  applyDiff,
  choosableHunks,
  editableAs,
  editProposal,
  ProposalMismatch,
} from '../src/ui/approval-edit.ts';
import { approvalEvent } from '../src/ui/approval-events.ts';
import { ApprovalOverlay, GUARD_MS } from '../src/ui/components/approval-overlay.ts';
import { frameWaits, until } from './helpers/until.ts';

afterEach(() => cleanup());

const DOWN = '\u001b[B';
const UP = '\u001b[A';

/** greet.ts before: 12 lines; the proposal changes line 2 and line 11 (two hunks, context 1). */
const OLD = [
  'export function greet() {',
  "  return 'hi';",
  '}',
  '// 4',
  '// 5',
  '// 6',
  '// 7',
  '// 8',
  'export function bye() {',
  '  // says bye',
  "  return 'bye';",
  '}',
]
  .map((line) => `${line}\n`)
  .join('');

const HUNKS: FileDiff['hunks'] = [
  {
    id: 'h-one',
    oldStart: 1,
    oldLines: 3,
    newStart: 1,
    newLines: 3,
    lines: [
      { type: 'context', text: 'export function greet() {', oldLine: 1, newLine: 1 },
      { type: 'removed', text: "  return 'hi';", oldLine: 2 },
      { type: 'added', text: "  return 'hello';", newLine: 2 },
      { type: 'context', text: '}', oldLine: 3, newLine: 3 },
    ],
  },
  {
    id: 'h-two',
    oldStart: 10,
    oldLines: 3,
    newStart: 10,
    newLines: 3,
    lines: [
      { type: 'context', text: '  // says bye', oldLine: 10, newLine: 10 },
      { type: 'removed', text: "  return 'bye';", oldLine: 11 },
      { type: 'added', text: "  return 'goodbye';", newLine: 11 },
      { type: 'context', text: '}', oldLine: 12, newLine: 12 },
    ],
  },
];

const UNIFIED = [
  '--- a/src/greet.ts',
  '+++ b/src/greet.ts',
  '@@ -1,3 +1,3 @@',
  ' export function greet() {',
  "-  return 'hi';",
  "+  return 'hello';",
  ' }',
  '@@ -10,3 +10,3 @@',
  '   // says bye',
  "-  return 'bye';",
  "+  return 'goodbye';",
  ' }',
  '',
].join('\n');

function twoHunks(): Extract<ApproveParams, { kind: 'file_change' }> {
  return {
    kind: 'file_change',
    sessionId: 's-1',
    runId: 'run-1',
    agentId: 'executor-1',
    toolCallId: 'c1',
    toolName: 'edit_file',
    path: 'src/greet.ts',
    operation: 'modify',
    diff: { added: 2, removed: 2, replacement: false, hunks: HUNKS, unifiedDiff: UNIFIED },
  };
}

const command: ApproveParams = {
  kind: 'command',
  sessionId: 's-1',
  runId: 'run-1',
  agentId: 'executor-1',
  toolCallId: 'c2',
  toolName: 'run_command',
  command: 'npm test',
  cwd: '/home/ada/project',
};

/**
 * An overlay on a clock the test moves. `edit` stands in for the editor (the component's seam to
 * it): it gets the hunks kept and gives the outcome.
 */
function overlay(
  params: ApproveParams,
  edit?: (chosen: ReadonlySet<string> | undefined) => Promise<ApproveResult | { note: string }>,
  maxRows = 24,
) {
  let clock = 1000;
  const answers: ApproveResult[] = [];
  const view = render(
    h(ApprovalOverlay, {
      params,
      position: 1,
      queued: 1,
      width: 90,
      maxRows,
      onAnswer: (result) => answers.push(result),
      onPrint: () => {},
      ...(edit === undefined ? {} : { onEdit: edit }),
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

describe('choosing hunks in the approval overlay', () => {
  test('each hunk has a row saying whether it is applied, the cursor on the first; the keys are shown', async () => {
    const view = overlay(twoHunks());
    await view.shows(/› \[x\] hunk 1\/2 {2}@@ -1,3 \+1,3 @@/);
    const frame = view.frame();
    assert.match(frame, / {2}\[x\] hunk 2\/2 {2}@@ -10,3 \+10,3 @@/);
    assert.match(frame, /\[y\] allow {2}\[a\] allow all {2}\[r\/n\] reject {2}\[f\] feedback/);
    assert.match(frame, /\[↑\/↓\] hunk {2}\[Space\] apply or not {2}\[p\] whole diff/);
    // Without an editor to open, `e` is not offered.
    assert.doesNotMatch(frame, /\[e\] edit/);
  });

  test('↓ then Space leaves the second hunk out: y allows only the first, with its id', async () => {
    const view = overlay(twoHunks());
    view.press(DOWN);
    await view.shows(/› \[x\] hunk 2\/2/);
    view.press(' ');
    await view.shows(/› \[ \] hunk 2\/2 .*\(not applied\)/);
    const frame = view.frame();
    assert.match(frame, /\[y\] allow 1 of 2 hunks {2}\[r\/n\] reject/);
    // "Allow all" would apply the hunk left out: not offered while one is.
    assert.doesNotMatch(frame, /\[a\] allow all/);
    view.press('a');
    view.press('y');
    await view.answered();
    // Had a answered (allow all), its answer would be the first.
    assert.deepEqual(view.answers, [{ decision: 'allow', hunks: ['h-one'] }]);
  });

  test('j/k move too; a hunk toggled off and on again is a plain allow', async () => {
    const view = overlay(twoHunks());
    view.press('j');
    view.press(' ');
    await view.shows(/\[ \] hunk 2\/2/);
    view.press('k');
    await view.shows(/› \[x\] hunk 1\/2/);
    view.press('j');
    view.press(' ');
    await view.shows(/› \[x\] hunk 2\/2/);
    assert.match(view.frame(), /\[a\] allow all/);
    view.press('y');
    await view.answered();
    assert.deepEqual(view.answers, [{ decision: 'allow' }]);
  });

  test('every hunk left out: y says it rejects, and answers a reject', async () => {
    const view = overlay(twoHunks());
    view.press(' ');
    view.press(DOWN);
    view.press(' ');
    await view.shows(/› \[ \] hunk 2\/2/);
    assert.match(view.frame(), /\[y\] allow no hunk \(reject\)/);
    view.press(UP);
    await view.shows(/› \[ \] hunk 1\/2/);
    view.press('y');
    await view.answered();
    assert.deepEqual(view.answers, [{ decision: 'reject' }]);
  });

  test('the cursor stops at either end, and a long diff scrolls to the hunk under it', async () => {
    const params = twoHunks();
    const view = overlay(params, undefined, 9);
    await view.shows(/› \[x\] hunk 1\/2/);
    assert.doesNotMatch(view.frame(), /hunk 2\/2/);
    view.press(DOWN);
    await view.shows(/› \[x\] hunk 2\/2/);
    view.press(DOWN);
    view.press(DOWN);
    view.press(' ');
    await view.shows(/› \[ \] hunk 2\/2/);
    view.press(UP);
    await view.shows(/› \[x\] hunk 1\/2/);
  });

  test('a change of one hunk, a deletion or an older server without ids has no hunk rows', async () => {
    const one = twoHunks();
    one.diff = { ...one.diff, hunks: [HUNKS[0] as FileDiff['hunks'][number]] };
    assert.equal(choosableHunks(one), undefined);
    assert.equal(choosableHunks({ ...twoHunks(), operation: 'delete' }), undefined);
    const old = twoHunks();
    old.diff = { ...old.diff, hunks: HUNKS.map(({ id: _id, ...hunk }) => hunk) };
    assert.equal(choosableHunks(old), undefined);
    const view = overlay(old);
    await view.shows(/\[y\] allow {2}\[a\] allow all/);
    assert.doesNotMatch(view.frame(), /hunk 1\/2|apply or not/);
    view.press(' ');
    view.press('y');
    await view.answered();
    assert.deepEqual(view.answers, [{ decision: 'allow' }]);
  });

  test("an allowed answer's diff for Ctrl+O has only the hunks applied", () => {
    const event = approvalEvent({ params: twoHunks(), result: { decision: 'allow', hunks: ['h-two'] } });
    assert.equal(event.type, 'approval');
    const diff = event.type === 'approval' ? (event.diff ?? []).join('\n') : '';
    assert.match(diff, /goodbye/);
    assert.doesNotMatch(diff, /hello/);
    assert.match(diff, /^--- a\/src\/greet\.ts\n\+\+\+ b\/src\/greet\.ts\n@@ -10,3/);
  });
});

describe("the overlay's e", () => {
  test('opens the editor with the hunks kept and answers what the editor gave', async () => {
    const asked: Array<string[] | undefined> = [];
    const view = overlay(twoHunks(), (chosen) => {
      asked.push(chosen === undefined ? undefined : [...chosen]);
      return Promise.resolve({ decision: 'allow', content: 'edited\n' });
    });
    await view.shows(/\[e\] edit/);
    view.press(' ');
    await view.shows(/› \[ \] hunk 1\/2/);
    view.press('e');
    await view.answered();
    assert.deepEqual(asked, [['h-two']]);
    assert.deepEqual(view.answers, [{ decision: 'allow', content: 'edited\n' }]);
  });

  test('an editor that failed answers nothing: the note is shown, keys wait while it runs', async () => {
    let finish: (outcome: { note: string }) => void = () => {};
    const view = overlay(command, () => new Promise((resolve) => (finish = resolve)));
    await view.shows(/\[e\] edit/);
    view.press('e');
    await view.shows(/Editing in /);
    // A key while the editor has the terminal does not answer.
    view.press('y');
    finish({ note: 'the editor `false` exited with 1: nothing was answered.' });
    await view.shows('the editor `false` exited with 1: nothing was answered.');
    assert.deepEqual(view.answers, []);
    // The next key clears the note and answers as usual.
    view.press('n');
    await view.answered();
    assert.deepEqual(view.answers, [{ decision: 'reject' }]);
  });

  test('is not offered for an escalation, a deletion or a move', async () => {
    assert.equal(editableAs({ ...twoHunks(), operation: 'delete' }), undefined);
    assert.equal(editableAs({ ...twoHunks(), operation: 'move', destination: 'b.ts' }), undefined);
    assert.equal(editableAs({ ...command, protected: true, escalation: { reason: 'network' } }), undefined);
    assert.equal(editableAs(command), 'command');
    let opened = 0;
    const view = overlay({ ...twoHunks(), operation: 'delete' }, () => {
      opened++;
      return Promise.resolve({ decision: 'allow' });
    });
    await view.shows(/\[y\] allow/);
    assert.doesNotMatch(view.frame(), /\[e\] edit/);
    view.press('e');
    view.press('n');
    await view.answered();
    assert.equal(opened, 0);
    assert.deepEqual(view.answers, [{ decision: 'reject' }]);
  });
});

describe('the proposal and the answers (approval-edit.ts)', () => {
  const read = (text: string | undefined) => () => text;

  test('the proposal is the file with every hunk applied, or only the chosen ones', () => {
    const all = applyDiff(OLD, twoHunks().diff, 'src/greet.ts');
    assert.equal(all, OLD.replace("'hi'", "'hello'").replace("'bye';", "'goodbye';"));
    const first = applyDiff(OLD, twoHunks().diff, 'src/greet.ts', (hunk) => hunk.id === 'h-one');
    assert.equal(first, OLD.replace("'hi'", "'hello'"));
  });

  test('CRLF files keep CRLF; a last line without a newline stays without one', () => {
    const crlf = OLD.replaceAll('\n', '\r\n');
    assert.equal(
      applyDiff(crlf, twoHunks().diff, 'src/greet.ts'),
      crlf.replace("'hi'", "'hello'").replace("'bye';", "'goodbye';"),
    );
    const diff: FileDiff = {
      added: 1,
      removed: 1,
      replacement: false,
      hunks: [
        {
          id: 'h1',
          oldStart: 1,
          oldLines: 1,
          newStart: 1,
          newLines: 1,
          lines: [
            { type: 'removed', text: 'a', oldLine: 1 },
            { type: 'added', text: 'b', newLine: 1 },
          ],
        },
      ],
      unifiedDiff:
        '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n',
    };
    assert.equal(applyDiff('a', diff, 'x'), 'b');
  });

  test('a file that changed since the diff is not rebuilt: the error names the line', () => {
    assert.throws(
      () => applyDiff(OLD.replace("'bye'", "'ciao'"), twoHunks().diff, 'src/greet.ts'),
      (error: unknown) =>
        error instanceof ProposalMismatch && /line 11 of src\/greet\.ts/.test(error.message),
    );
    assert.throws(
      () => editProposal(twoHunks(), undefined, read(undefined)),
      /src\/greet\.ts no longer exists/,
    );
  });

  test('a saved text: the full proposal is a plain allow, as opened with hunks left out the hunks, else content', () => {
    const proposal = editProposal(twoHunks(), new Set(['h-one']), read(OLD));
    assert.equal(proposal.text, OLD.replace("'hi'", "'hello'"));
    assert.equal(proposal.name, 'greet.ts');
    assert.deepEqual(proposal.answer(proposal.text), { decision: 'allow', hunks: ['h-one'] });
    const whole = OLD.replace("'hi'", "'hello'").replace("'bye';", "'goodbye';");
    assert.deepEqual(proposal.answer(whole), { decision: 'allow' });
    assert.deepEqual(proposal.answer('mine\n'), { decision: 'allow', content: 'mine\n' });
    // Opened with every hunk: saved unchanged is a plain allow.
    const full = editProposal(twoHunks(), new Set(['h-one', 'h-two']), read(OLD));
    assert.equal(full.text, whole);
    assert.deepEqual(full.answer(whole), { decision: 'allow' });
  });

  test('a command: the saved line runs instead; unchanged or emptied is a plain allow', () => {
    const proposal = editProposal(command, undefined, read(undefined));
    assert.equal(proposal.text, 'npm test\n');
    assert.deepEqual(proposal.answer('npm test\n'), { decision: 'allow' });
    assert.deepEqual(proposal.answer('\n'), { decision: 'allow' });
    assert.deepEqual(proposal.answer('npm test -- --grep greet\n'), {
      decision: 'allow',
      command: 'npm test -- --grep greet',
    });
  });

  test('allowChosen: all is a plain allow, none a reject, some the ids in diff order', () => {
    const ids = ['a', 'b', 'c'];
    assert.deepEqual(allowChosen(ids, new Set(ids)), { decision: 'allow' });
    assert.deepEqual(allowChosen(ids, new Set()), { decision: 'reject' });
    assert.deepEqual(allowChosen(ids, new Set(['c', 'a'])), { decision: 'allow', hunks: ['a', 'c'] });
  });
});
