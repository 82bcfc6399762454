/**
 * What is typed while santra starts (ui/typed-ahead.ts): read as the lines the user ended with
 * Enter and an unfinished rest, whether the terminal was still in cooked mode (Enter a line feed)
 * or already raw (a carriage return). The whole path, in a real terminal, is in
 * scripts/test/tui-terminal.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readTypedAhead } from '../src/ui/typed-ahead.ts';

describe('keys typed while santra starts', () => {
  test('Enter ends a line, in cooked mode (a line feed) and in raw mode (a carriage return)', () => {
    assert.deepEqual(readTypedAhead('hello\nare you there?\r/resume ses_1\rdraft'), {
      lines: ['hello', 'are you there?', '/resume ses_1'],
      rest: 'draft',
    });
    assert.deepEqual(readTypedAhead('only a draft'), { lines: [], rest: 'only a draft' });
    assert.deepEqual(readTypedAhead(''), { lines: [], rest: '' });
  });

  test('Backspace and Ctrl+U edit the line, Ctrl+C drops it; empty lines are not sent', () => {
    assert.deepEqual(readTypedAhead('helo\u007flo\r\r  \rwrong\u0015right\rnever mind\u0003'), {
      lines: ['hello', 'right'],
      rest: '',
    });
    // A character of two UTF-16 units goes with one Backspace.
    assert.deepEqual(readTypedAhead('ok 👍\u007f\r'), { lines: ['ok '], rest: '' });
  });

  test('a bracketed paste is text, its line breaks kept; the Enter after it sends it', () => {
    const paste = '\u001b[200~line one\r\nline two\rline three\u001b[201~';
    assert.deepEqual(readTypedAhead(`explain:\n${paste}\rnext`), {
      lines: ['explain:', 'line one\nline two\nline three'],
      rest: 'next',
    });
    assert.deepEqual(readTypedAhead(`look: ${paste}`), {
      lines: [],
      rest: 'look: line one\nline two\nline three',
    });
    // A paste cut off by the release keeps what came.
    assert.deepEqual(readTypedAhead('\u001b[200~half a pas'), { lines: [], rest: 'half a pas' });
  });

  test('arrows, function keys and other control keys are not text', () => {
    assert.deepEqual(readTypedAhead('a\u001b[Ab\u001bOPc\u001b[1;5Cd\u0001\u0007e\tf\r'), {
      lines: ['abcde\tf'],
      rest: '',
    });
    assert.deepEqual(readTypedAhead('x\u001b'), { lines: [], rest: 'x' });
  });
});
