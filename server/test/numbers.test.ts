import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupDigits } from '../src/support/numbers.ts';

test('groupDigits groups thousands and leaves small numbers and fractions alone', () => {
  assert.equal(groupDigits(0), '0');
  assert.equal(groupDigits(999), '999');
  assert.equal(groupDigits(1000), '1,000');
  assert.equal(groupDigits(100_000), '100,000');
  assert.equal(groupDigits(1_234_567), '1,234,567');
  assert.equal(groupDigits(-9876543), '-9,876,543');
  assert.equal(groupDigits(12345.678), '12,345.678');
});
