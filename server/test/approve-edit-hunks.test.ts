/**
 * approval/hunks.ts on its own: applying a subset of a diff's hunks to the real texts (line
 * endings, a last line without a newline, control characters shown as glyphs), and reading an
 * `allow` answer against the request it answers.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ApproveParams } from '#protocol';
import { computeDiff } from '../src/approval/diff.ts';
import { applyHunks, readAllowAnswer, withHunkIds } from '../src/approval/hunks.ts';

const ids = (oldText: string, newText: string) => {
  const diff = withHunkIds(computeDiff('f', oldText, newText, { context: 1 }));
  return { diff, all: diff.hunks.map((hunk) => String(hunk.id)) };
};

/** Every subset of the hunks, applied: all gives the new text, none the old, each hunk only its lines. */
function checkSubsets(oldText: string, newText: string): void {
  const { diff, all } = ids(oldText, newText);
  assert.equal(applyHunks(oldText, newText, diff, new Set(all)), newText, 'all hunks: the proposal');
  assert.equal(applyHunks(oldText, newText, diff, new Set()), oldText, 'no hunk: the file as it was');
  for (let mask = 0; mask < 1 << all.length; mask++) {
    const chosen = new Set(all.filter((_, i) => (mask & (1 << i)) !== 0));
    const result = applyHunks(oldText, newText, diff, chosen);
    // Applying the rest of the hunks to the partial result is the proposal: no hunk was half applied.
    const rest = ids(result, newText);
    assert.equal(applyHunks(result, newText, rest.diff, new Set(rest.all)), newText);
    assert.equal(rest.all.length <= all.length, true);
  }
}

describe('applyHunks', () => {
  test('separate changes at both ends and in the middle', () => {
    const old = Array.from({ length: 20 }, (_, i) => `l${i}\n`).join('');
    const next = old.replace('l0\n', 'first\n').replace('l10\n', '').replace('l19\n', 'l19\nadded\n');
    assert.equal(ids(old, next).all.length, 3);
    checkSubsets(old, next);
  });

  test('CRLF files keep their line endings byte for byte', () => {
    const old = 'a\r\nb\r\nc\r\nd\r\ne\r\nf\r\n';
    const next = 'A\r\nb\r\nc\r\nd\r\ne\r\nF\r\n';
    const { diff, all } = ids(old, next);
    assert.equal(applyHunks(old, next, diff, new Set([all[1] as string])), 'a\r\nb\r\nc\r\nd\r\ne\r\nF\r\n');
    checkSubsets(old, next);
  });

  test('a last line without a newline, and a change of it', () => {
    checkSubsets('a\nb\nc\nd\ne\nf', 'A\nb\nc\nd\ne\nf\ng');
    checkSubsets('one', 'one\ntwo\n');
  });

  test('control characters are applied as they are, not as the glyphs the diff shows', () => {
    const old = 'x\n\u001b[31mred\n1\n2\n3\n4\nz\n';
    const next = 'x\n\u001b[32mgreen\n1\n2\n3\n4\nZ\n';
    const { diff, all } = ids(old, next);
    assert.match(JSON.stringify(diff.hunks[0]), /␛/);
    assert.equal(
      applyHunks(old, next, diff, new Set([all[0] as string])),
      'x\n\u001b[32mgreen\n1\n2\n3\n4\nz\n',
    );
  });

  test('a creation is one hunk; an empty file gains lines', () => {
    checkSubsets('', 'new\nfile\n');
  });
});

describe('readAllowAnswer', () => {
  const base = { sessionId: 's', runId: 'r', agentId: 'a', toolCallId: 't', toolName: 'write_file' };
  const { diff, all } = ids('a\nb\nc\nd\ne\nf\n', 'A\nb\nc\nd\ne\nF\n');
  const change: ApproveParams = { kind: 'file_change', ...base, path: 'f', operation: 'modify', diff };
  const command: ApproveParams = { kind: 'command', ...base, command: 'ls', cwd: '/' };
  const editable = { file: true, command: true };

  test('a plain allow, every hunk, or the same command is no edit', () => {
    assert.equal(readAllowAnswer({ decision: 'allow' }, change, editable), undefined);
    assert.equal(readAllowAnswer({ decision: 'allow', hunks: all }, change, editable), undefined);
    assert.equal(readAllowAnswer({ decision: 'allow', command: 'ls' }, command, editable), undefined);
  });

  test('some hunks, content, a command', () => {
    const some = readAllowAnswer({ decision: 'allow', hunks: [all[0] as string] }, change, editable);
    assert.equal(some !== undefined && 'kind' in some && some.kind, 'hunks');
    assert.deepEqual(readAllowAnswer({ decision: 'allow', content: 'x' }, change, editable), {
      kind: 'content',
      content: 'x',
    });
    assert.deepEqual(readAllowAnswer({ decision: 'allow', command: 'pwd' }, command, editable), {
      kind: 'command',
      command: 'pwd',
    });
  });

  test('invalid: an unknown id (named), the wrong field for the request, two fields, a request that takes none', () => {
    const invalid = (answer: Parameters<typeof readAllowAnswer>[0], shown: ApproveParams, e = editable) => {
      const read = readAllowAnswer(answer, shown, e);
      assert.ok(read !== undefined && 'invalid' in read, JSON.stringify(read));
      return read.invalid;
    };
    assert.match(
      invalid({ decision: 'allow', hunks: ['nope'] }, change),
      /hunk id "nope" is not in the request \(it had h/,
    );
    assert.match(invalid({ decision: 'allow', command: 'pwd' }, change), /`command` does not apply/);
    assert.match(
      invalid({ decision: 'allow', content: 'x' }, command),
      /`content` does not apply to a command/,
    );
    assert.match(invalid({ decision: 'allow', content: 'x', command: 'y' }, command), /at most one/);
    assert.match(
      invalid(
        { decision: 'allow', command: 'pwd' },
        { ...command, escalation: { reason: 'net' } },
        { file: false, command: false },
      ),
      /an escalation/,
    );
    assert.match(
      invalid({ decision: 'allow', content: 'x' }, change, { file: false, command: false }),
      /a modify of a file/,
    );
  });
});
