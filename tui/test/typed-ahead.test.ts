/**
 * What is typed while santra starts (ui/typed-ahead.ts) reaches the composer as raw keys: an Enter
 * typed while the terminal was still in cooked mode (a line feed) is the carriage return a raw
 * Enter sends. The whole path, in a real terminal, is in scripts/test/tui-terminal.test.ts; the
 * composer's handling of keys that come together is in ui-app.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cookedAsRaw } from '../src/ui/typed-ahead.ts';

test('Enter typed in cooked mode (a line feed) is the raw Enter (a carriage return); the rest is as typed', () => {
  assert.equal(
    cookedAsRaw('hello\nare you there?\r/resume ses_1\rdraft'),
    'hello\rare you there?\r/resume ses_1\rdraft',
  );
  assert.equal(cookedAsRaw('only a draft'), 'only a draft');
});
