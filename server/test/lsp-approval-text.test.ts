/**
 * What `santra lsp` says when it asks for an approval (approval-text.ts): the excerpt of the diff
 * numbers each line as in the file and shows the code around a change, leaves out what is far
 * from any change (⋯), and counts what does not fit. The diffs are Santra's own (computeDiff), so
 * the numbers are the ones the approval carries.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ApproveParams } from '#protocol';
import { computeDiff } from '../src/approval/diff.ts';
import { approvalSummary } from '../src/connection/lsp/approval-text.ts';

const lines = (count: number, name = 'line') =>
  Array.from({ length: count }, (_, index) => `${name} ${index + 1}`);

function change(
  path: string,
  before: string[] | undefined,
  after: string[],
  fields: Partial<ApproveParams> = {},
): ApproveParams {
  const oldText = before === undefined ? '' : `${before.join('\n')}\n`;
  return {
    kind: 'file_change',
    sessionId: 'ses_1',
    runId: 'run_1',
    agentId: 'executor-1',
    toolCallId: 't1',
    toolName: 'write_file',
    path,
    operation: before === undefined ? 'create' : 'modify',
    diff: computeDiff(path, oldText, `${after.join('\n')}\n`),
    ...fields,
  } as ApproveParams;
}

describe('approvalSummary', () => {
  test('a change deep in a file: two lines of context each side, numbered as the file is now; an added line has no number yet', () => {
    const before = lines(40);
    const after = before.map((line) => (line === 'line 20' ? 'line twenty' : line));
    assert.equal(
      approvalSummary(change('src/a.ts', before, after)),
      [
        'Santra wants to modify src/a.ts (+1 -1)',
        '18   line 18',
        '19   line 19',
        '20 - line 20',
        '   + line twenty',
        '21   line 21',
        '22   line 22',
      ].join('\n'),
    );
  });

  test('two changes far apart are two parts with ⋯ between, numbered as the file is now', () => {
    const before = lines(30);
    const after = [
      ...before.slice(0, 3),
      'new',
      ...before.slice(3, 25),
      'line 26 changed',
      ...before.slice(26),
    ];
    assert.equal(
      approvalSummary(change('src/a.ts', before, after)),
      [
        'Santra wants to modify src/a.ts (+2 -1)',
        ' 2   line 2',
        ' 3   line 3',
        '   + new',
        ' 4   line 4',
        ' 5   line 5',
        '⋯',
        '24   line 24',
        '25   line 25',
        '26 - line 26',
        '   + line 26 changed',
        '27   line 27',
        '28   line 28',
      ].join('\n'),
    );
  });

  test('a created file is numbered as it will be; a long change is cut, the rest counted; a protected location says why', () => {
    const summary = approvalSummary(
      change('.husky/pre-commit', undefined, lines(30, 'echo'), {
        protected: true,
        protectedReason: 'git hooks installed by husky',
      }),
    );
    assert.deepEqual(summary.split('\n'), [
      'Santra wants to create .husky/pre-commit (+30 -0)',
      ...lines(12, 'echo').map((line, index) => `${String(index + 1).padStart(2)} + ${line}`),
      '… 18 more changed lines',
      'Protected location: git hooks installed by husky',
    ]);
  });

  test("santra.undo's question says it is the undo, of a file changed since", () => {
    const summary = approvalSummary(
      change('src/a.ts', ['a', 'b'], ['a', 'c'], { toolName: 'session/undo', agentId: 'undo' }),
    );
    assert.equal(
      summary.split('\n')[0],
      'santra.undo, on a file changed since, wants to modify src/a.ts (+1 -1)',
    );
  });

  test('a command: the command line and where it runs', () => {
    assert.equal(
      approvalSummary({
        kind: 'command',
        sessionId: 'ses_1',
        runId: 'run_1',
        agentId: 'executor-1',
        toolCallId: 't2',
        toolName: 'run_command',
        command: 'npm test',
        cwd: '/home/ada/project',
      }),
      'Santra wants to run: npm test (in /home/ada/project)',
    );
  });
});
