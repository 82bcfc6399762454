import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OutputCapture, splitBudget } from '../src/tools/commands/output-capture.ts';

function capture(limit: number, ...chunks: Array<string | Buffer>): OutputCapture {
  const result = new OutputCapture(limit);
  for (const chunk of chunks) result.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return result;
}

describe('OutputCapture', () => {
  test('keeps everything that fits', () => {
    const captured = capture(100, 'hello ', 'world\n').text(100);
    assert.deepEqual(captured, { text: 'hello world\n', totalBytes: 12, cutBytes: 0 });
  });

  test('100 MB pushed in 64 KiB chunks: the text stays within the limit and states the cut', () => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const output = new OutputCapture(1_000);
    output.push(Buffer.from('START\n'));
    for (let i = 0; i < 1_600; i++) output.push(chunk);
    output.push(Buffer.from('\nEND\n'));
    const captured = output.text(1_000);
    assert.equal(captured.totalBytes, 6 + 1_600 * 64 * 1024 + 5);
    assert.ok(captured.cutBytes > 100_000_000);
    assert.ok(Buffer.byteLength(captured.text) <= 1_000 + 60, `${Buffer.byteLength(captured.text)} bytes`);
    assert.match(captured.text, /^START\n/);
    assert.match(captured.text, /\nEND\n$/);
    assert.match(captured.text, new RegExp(`\\[… ${captured.cutBytes} bytes of output cut …\\]`));
  });

  test('keeps 40% head and 60% tail of the budget', () => {
    const digits = Array.from({ length: 1_000 }, (_, i) => String(i % 10)).join('');
    const captured = capture(100, digits).text(100);
    const [head, tail] = captured.text.split(/\n?\[… \d+ bytes of output cut …\]\n/);
    assert.equal(head, digits.slice(0, 40));
    assert.equal(tail, digits.slice(-60));
    assert.equal(captured.cutBytes, 900);
  });

  test('a smaller budget than the limit cuts further, taking the end from the head when the tail is short', () => {
    // 200 bytes all fit in the head of a 1000-byte capture; a budget of 100 shows the first 40 and the last 60.
    const text = Array.from({ length: 200 }, (_, i) => String.fromCharCode(65 + (i % 26))).join('');
    const captured = capture(1_000, text).text(100);
    assert.equal(captured.cutBytes, 100);
    assert.equal(captured.text.replace(/\n\[.*\]\n/, ''), text.slice(0, 40) + text.slice(140));
  });

  test('never splits a UTF-8 character', () => {
    const captured = capture(101, 'é'.repeat(1_000)).text(101);
    assert.ok(!captured.text.includes('\ufffd'), captured.text);
    assert.match(captured.text, /^é+\n\[… \d+ bytes of output cut …\]\né+$/);
    assert.equal(Buffer.byteLength(captured.text.replace(/\n\[.*\]\n/, '')) + captured.cutBytes, 2_000);
  });

  test('cuts at a line break when one is near', () => {
    const lines = Array.from({ length: 200 }, (_, i) => `line ${String(i).padStart(3, '0')}\n`).join('');
    const captured = capture(200, lines).text(200);
    const [head, tail] = captured.text.split(/\[… \d+ bytes of output cut …\]\n/);
    assert.match(head ?? '', /^(line \d{3}\n)+$/);
    assert.match(tail ?? '', /^(line \d{3}\n)+$/);
  });

  test('what falls between head and tail is counted exactly', () => {
    // 120 bytes into a limit of 100: the head holds 40, the tail the last 60, 20 were dropped.
    const text = Array.from({ length: 120 }, (_, i) => String.fromCharCode(65 + (i % 26))).join('');
    const captured = capture(100, text).text(100);
    assert.equal(captured.cutBytes, 20);
    assert.equal(captured.text.replace(/\n\[.*\]\n/, ''), text.slice(0, 40) + text.slice(60));
  });
});

describe('splitBudget', () => {
  test('both fit: each keeps what it has', () => {
    assert.deepEqual(splitBudget(100, 30, 50), [30, 50]);
  });

  test('a short stream keeps all of it, the long one gets the rest', () => {
    assert.deepEqual(splitBudget(100, 10, 500), [10, 90]);
    assert.deepEqual(splitBudget(100, 500, 20), [80, 20]);
  });

  test('both long: half each', () => {
    assert.deepEqual(splitBudget(101, 500, 500), [50, 51]);
  });
});
