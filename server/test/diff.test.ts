import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyPatch } from 'diff';
import { FileDiff as FileDiffSchema } from '#protocol';
import { computeDiff, type FileDiff, visibleControlChars } from '../src/approval/diff.ts';
import { planEdits, splitLines } from '../src/approval/diff-edits.ts';

const numbered = (count: number, from = 1) =>
  Array.from({ length: count }, (_, i) => `line ${from + i}\n`).join('');

/** Parses as the protocol type, applies as a patch, and checks hunks against both texts. */
function check(diff: FileDiff, oldText: string, newText: string): FileDiff {
  FileDiffSchema.parse(diff);
  assert.equal(
    applyPatch(oldText, diff.unifiedDiff),
    newText,
    `unifiedDiff does not apply:\n${diff.unifiedDiff}`,
  );
  const oldLines = oldText.split('\n');
  const newLines = newText.split('\n');
  if (oldText.endsWith('\n') || oldText === '') oldLines.pop();
  if (newText.endsWith('\n') || newText === '') newLines.pop();
  // Rebuilds the new text from the old one and the hunks alone.
  const rebuilt: string[] = [];
  let oldAt = 0;
  let added = 0;
  let removed = 0;
  for (const hunk of diff.hunks) {
    const first = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1;
    assert.ok(first >= oldAt, 'hunks are in order and do not overlap');
    rebuilt.push(...oldLines.slice(oldAt, first));
    assert.equal(hunk.newStart - (hunk.newLines === 0 ? 0 : 1), rebuilt.length, 'newStart matches');
    let oldLine = first + 1;
    let newLine = rebuilt.length + 1;
    for (const line of hunk.lines) {
      if (line.type !== 'added') {
        assert.equal(line.oldLine, oldLine);
        assert.equal(line.text, oldLines[oldLine - 1]);
        oldLine++;
      } else assert.equal(line.oldLine, undefined);
      if (line.type !== 'removed') {
        assert.equal(line.newLine, newLine);
        assert.equal(line.text, newLines[newLine - 1]);
        rebuilt.push(line.text);
        newLine++;
      } else assert.equal(line.newLine, undefined);
      if (line.type === 'added') added++;
      if (line.type === 'removed') removed++;
    }
    assert.equal(oldLine - 1 - first, hunk.oldLines, 'oldLines counts the hunk');
    assert.equal(
      newLine - hunk.newStart - (hunk.newLines === 0 ? 1 : 0),
      hunk.newLines,
      'newLines counts it',
    );
    oldAt = first + hunk.oldLines;
  }
  rebuilt.push(...oldLines.slice(oldAt));
  assert.deepEqual(rebuilt, newLines);
  assert.deepEqual([diff.added, diff.removed], [added, removed]);
  return diff;
}

/** A deterministic pseudo-random generator (mulberry32). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('computeDiff', () => {
  test('a new file adds every line, from /dev/null', () => {
    const diff = check(computeDiff('src/a.ts', undefined, 'one\ntwo\n'), '', 'one\ntwo\n');
    assert.equal(diff.unifiedDiff, '--- /dev/null\n+++ b/src/a.ts\n@@ -0,0 +1,2 @@\n+one\n+two\n');
    assert.deepEqual(diff.hunks[0]?.lines, [
      { type: 'added', text: 'one', newLine: 1 },
      { type: 'added', text: 'two', newLine: 2 },
    ]);
    assert.equal(diff.replacement, false);
  });

  test('a deletion removes every line, to /dev/null', () => {
    const diff = check(computeDiff('a.txt', 'one\n', undefined), 'one\n', '');
    assert.equal(diff.unifiedDiff, '--- a/a.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-one\n');
    assert.deepEqual([diff.added, diff.removed], [0, 1]);
  });

  test('a one-line change shows three lines of context on each side', () => {
    const oldText = numbered(20);
    const diff = check(
      computeDiff('f', oldText, oldText.replace('line 10\n', 'ten\n')),
      oldText,
      oldText.replace('line 10\n', 'ten\n'),
    );
    assert.equal(
      diff.unifiedDiff,
      '--- a/f\n+++ b/f\n@@ -7,7 +7,7 @@\n line 7\n line 8\n line 9\n-line 10\n+ten\n line 11\n line 12\n line 13\n',
    );
    assert.deepEqual(diff.hunks[0]?.lines[3], { type: 'removed', text: 'line 10', oldLine: 10 });
    assert.deepEqual(diff.hunks[0]?.lines[4], { type: 'added', text: 'ten', newLine: 10 });
    const wide = computeDiff('f', oldText, oldText.replace('line 10\n', 'ten\n'), { context: 5 });
    assert.deepEqual([wide.hunks[0]?.oldStart, wide.hunks[0]?.oldLines], [5, 11]);
  });

  test('edits at the start and the end of a file', () => {
    const oldText = numbered(10);
    const start = check(computeDiff('f', oldText, `new\n${oldText}`), oldText, `new\n${oldText}`);
    assert.deepEqual(
      start.hunks.map((h) => [h.oldStart, h.oldLines, h.newStart, h.newLines]),
      [[1, 3, 1, 4]],
    );
    const end = `${numbered(9)}last\n`;
    const atEnd = check(computeDiff('f', oldText, end), oldText, end);
    assert.deepEqual(
      atEnd.hunks.map((h) => [h.oldStart, h.oldLines, h.newStart, h.newLines]),
      [[7, 4, 7, 4]],
    );
    const appended = check(computeDiff('f', oldText, `${oldText}more\n`), oldText, `${oldText}more\n`);
    assert.match(appended.unifiedDiff, /@@ -8,3 \+8,4 @@\n line 8\n line 9\n line 10\n\+more\n$/);
  });

  test('close edits share a hunk; edits further apart than twice the context do not', () => {
    const oldText = numbered(40);
    const twoApart = (gap: number) =>
      oldText.replace('line 10\n', 'x\n').replace(`line ${11 + gap}\n`, 'y\n');
    assert.equal(check(computeDiff('f', oldText, twoApart(6)), oldText, twoApart(6)).hunks.length, 1);
    assert.equal(check(computeDiff('f', oldText, twoApart(7)), oldText, twoApart(7)).hunks.length, 2);
    assert.equal(computeDiff('f', oldText, twoApart(1), { context: 0 }).hunks.length, 2);
  });

  test('a CRLF file diffs by line with its CRs treated as line breaks', () => {
    const oldText = 'a\r\nb\r\nc\r\n';
    const newText = 'a\r\nB\r\nc\r\n';
    const diff = check(computeDiff('w.txt', oldText, newText), 'a\nb\nc\n', 'a\nB\nc\n');
    assert.equal(applyPatch(oldText, diff.unifiedDiff), newText);
    assert.deepEqual(
      diff.hunks[0]?.lines.map((line) => line.text),
      ['a', 'b', 'B', 'c'],
    );
  });

  test('a change of line endings shows the CRs', () => {
    const diff = computeDiff('w.txt', 'a\nb\n', 'a\r\nb\r\n');
    assert.deepEqual(
      diff.hunks[0]?.lines.map((line) => `${line.type} ${line.text}`),
      ['removed a', 'removed b', 'added a␍', 'added b␍'],
    );
  });

  test('no newline at the end of either side', () => {
    for (const [oldText, newText] of [
      ['a\nb', 'a\nc'],
      ['a\nb', 'a\nb\n'],
      ['a\nb\n', 'a\nb'],
      ['x\ny\nz', 'w\ny\nz'],
    ] as const) {
      const diff = check(computeDiff('f', oldText, newText), oldText, newText);
      assert.match(
        diff.unifiedDiff,
        /\n\\ No newline at end of file\n/,
        `${JSON.stringify([oldText, newText])}`,
      );
    }
    assert.equal(
      computeDiff('f', 'a\nb', 'a\nb\n').unifiedDiff,
      '--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n',
    );
  });

  test('empty old or new file, and no change at all', () => {
    assert.equal(
      check(computeDiff('f', '', 'x\n'), '', 'x\n').unifiedDiff,
      '--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+x\n',
    );
    assert.equal(
      check(computeDiff('f', 'x\n', ''), 'x\n', '').unifiedDiff,
      '--- a/f\n+++ b/f\n@@ -1 +0,0 @@\n-x\n',
    );
    const created = computeDiff('f', undefined, '');
    assert.deepEqual(created, {
      added: 0,
      removed: 0,
      hunks: [],
      unifiedDiff: '--- /dev/null\n+++ b/f\n',
      replacement: false,
    });
    assert.deepEqual(computeDiff('f', 'same\n', 'same\n').hunks, []);
    assert.throws(() => computeDiff('f', undefined, undefined), /pass '' for an empty file/);
  });

  test('applying the hunks to the old text yields the new text (200 random edit scripts)', () => {
    const next = random(20250101);
    const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T;
    // A small vocabulary makes repeated lines, which is where a diff has choices to get wrong.
    const vocabulary = ['', '}', '  return x;', 'a', 'b', 'c', 'import x', '\t\tindented'];
    for (let run = 0; run < 200; run++) {
      const oldLines = Array.from({ length: Math.floor(next() * 40) }, () => pick(vocabulary));
      const newLines = [...oldLines];
      for (let edits = Math.floor(next() * 6); edits > 0; edits--) {
        const at = Math.floor(next() * (newLines.length + 1));
        const op = next();
        if (op < 0.33) newLines.splice(at, 1 + Math.floor(next() * 3));
        else if (op < 0.66)
          newLines.splice(
            at,
            0,
            ...Array.from({ length: 1 + Math.floor(next() * 4) }, () => pick(vocabulary)),
          );
        else newLines.splice(at, 1, `changed ${run}`);
      }
      const join = (lines: string[]) => lines.join('\n') + (lines.length > 0 && next() < 0.8 ? '\n' : '');
      const oldText = join(oldLines);
      const newText = join(newLines);
      const context = pick([0, 1, 3]);
      const diff = check(computeDiff('r', oldText, newText, { context }), oldText, newText);
      for (const hunk of diff.hunks) {
        const leading = hunk.lines.findIndex((line) => line.type !== 'context');
        const trailing = [...hunk.lines].reverse().findIndex((line) => line.type !== 'context');
        assert.ok(
          leading <= context && trailing <= context,
          `at most ${context} lines of context around a hunk`,
        );
      }
      assert.equal(diff.replacement, false);
    }
  });

  test('control characters are visible while counts and line numbers stay right', () => {
    const oldText = 'safe\nplain\n';
    const newText = 'safe\nprint("\x1b[2J")\rhidden\nabc\u202edcba\n';
    const diff = check(computeDiff('f', oldText, newText), oldText, visibleNew(newText));
    assert.deepEqual([diff.added, diff.removed], [2, 1]);
    assert.deepEqual(diff.hunks[0]?.lines.slice(2), [
      { type: 'added', text: 'print("␛[2J")␍hidden', newLine: 2 },
      { type: 'added', text: 'abc\\u202edcba', newLine: 3 },
    ]);
    assert.doesNotMatch(diff.unifiedDiff, /[\x1b\r\u202e]/);
    assert.match(diff.unifiedDiff, /^\+print\("␛\[2J"\)␍hidden$/m);
    assert.equal(computeDiff('\x1b]0;x\x07', undefined, 'a\n').unifiedDiff.split('\n')[1], '+++ b/␛]0;x␇');
  });

  test('visibleControlChars keeps tabs and ordinary text', () => {
    assert.equal(visibleControlChars('\ta\u00e9 👩‍💻 \u200d'), '\ta\u00e9 👩‍💻 \u200d');
    assert.equal(visibleControlChars('\0\n\x7f\x9b\u2028\ufeff\u2066'), '␀␊␡\\u009b\\u2028\\ufeff\\u2066');
  });

  test('binary content is shown as a size change, not as lines', () => {
    const diff = computeDiff('img.png', '\x89PNG\0é', '\x89PNG\0\0é!');
    assert.deepEqual(diff, {
      added: 0,
      removed: 0,
      hunks: [],
      unifiedDiff: '--- a/img.png\n+++ b/img.png\nBinary file changed (8 bytes → 10 bytes)\n',
      replacement: true,
    });
    assert.match(computeDiff('b', undefined, 'a\0').unifiedDiff, /Binary file created \(2 bytes\)/);
    assert.match(computeDiff('b', 'text\n', 'a\0').unifiedDiff, /--- a\/b\n\+\+\+ b\/b\nBinary file changed/);
  });

  test('a 50,000-line file with a few edits gets a real diff', () => {
    const oldText = numbered(50_000);
    const newText = oldText
      .replace('line 7\n', 'seven\n')
      .replace('line 25000\n', 'line 25000\ninserted\n')
      .replace('line 49999\n', '');
    const diff = check(computeDiff('big', oldText, newText), oldText, newText);
    assert.equal(diff.replacement, false);
    assert.deepEqual([diff.added, diff.removed, diff.hunks.length], [2, 2, 3]);
    assert.deepEqual(diff.hunks[1]?.lines[3], { type: 'added', text: 'inserted', newLine: 25001 });
  });

  test('a 20,000-line rewrite falls back to a whole-file replacement', () => {
    const oldText = numbered(20_000);
    const newText = numbered(20_000).replaceAll('line', 'row');
    // Bounded without a search: the lower bound on the edit distance (40,000 lines) shows that
    // Myers could not finish within the default 200 ms, so it never starts. (What does reach the
    // search is bounded by its timeout, below; scripts/bench-diff.ts times both.)
    const plan = planEdits(oldText, newText, splitLines(oldText), splitLines(newText), { timeoutMs: 200 });
    assert.deepEqual(plan, { kind: 'done', edits: undefined });
    const diff = check(computeDiff('big', oldText, newText), oldText, newText);
    assert.equal(diff.replacement, true);
    assert.equal(diff.hunks.length, 1);
    assert.deepEqual(
      [diff.hunks[0]?.oldStart, diff.hunks[0]?.oldLines, diff.hunks[0]?.newStart, diff.hunks[0]?.newLines],
      [1, 20_000, 1, 20_000],
    );
    assert.deepEqual([diff.added, diff.removed], [20_000, 20_000]);
  });

  test('a diff that runs out of time or edit length is a replacement too', () => {
    // The same lines in another order: no cheap bound rules it out, so only the timeout stops it.
    const lines = numbered(20_000).split('\n').slice(0, -1);
    const shuffled = lines.map((line, i) => lines[(i * 7919) % lines.length]).join('\n') + '\n';
    const oldText = lines.join('\n') + '\n';
    const diff = check(computeDiff('f', oldText, shuffled, { timeoutMs: 50 }), oldText, shuffled);
    assert.equal(diff.replacement, true);
    const small = numbered(30);
    const edited = small.replace('line 3\n', 'x\n').replace('line 20\n', 'y\n');
    assert.equal(computeDiff('f', small, edited, { maxEditLength: 3 }).replacement, true);
    assert.equal(computeDiff('f', small, edited, { maxEditLength: 4 }).replacement, false);
  });
});

/** The new text as the diff shows it, for checking a diff whose lines contain control characters. */
function visibleNew(text: string): string {
  return text
    .split('\n')
    .map((line) => visibleControlChars(line))
    .join('\n');
}
