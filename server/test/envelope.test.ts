import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { classifyMessage } from '../src/connection/envelope.ts';

describe('classifyMessage', () => {
  test('requests, notifications and responses', () => {
    assert.deepEqual(classifyMessage({ jsonrpc: '2.0', id: 1, method: 'shutdown' }), {
      kind: 'request',
      message: { jsonrpc: '2.0', id: 1, method: 'shutdown' },
    });
    assert.deepEqual(classifyMessage({ jsonrpc: '2.0', id: 'a', method: 'x', params: [1] }).kind, 'request');
    assert.deepEqual(classifyMessage({ jsonrpc: '2.0', method: 'exit' }), {
      kind: 'notification',
      message: { jsonrpc: '2.0', method: 'exit' },
    });
    assert.equal(classifyMessage({ jsonrpc: '2.0', id: 3, result: null }).kind, 'response');
    assert.equal(
      classifyMessage({ jsonrpc: '2.0', id: null, error: { code: 1, message: 'x' } }).kind,
      'response',
    );
  });

  test('params null is treated as absent', () => {
    assert.deepEqual(classifyMessage({ jsonrpc: '2.0', id: 1, method: 'shutdown', params: null }), {
      kind: 'request',
      message: { jsonrpc: '2.0', id: 1, method: 'shutdown' },
    });
  });

  const cases: Array<[string, unknown, number | string | null, boolean, RegExp]> = [
    ['a batch', [{ jsonrpc: '2.0', id: 1, method: 'x' }], null, true, /batches are not supported/],
    ['a number', 42, null, true, /must be a JSON object, got number/],
    ['null', null, null, true, /got null/],
    ['a string', 'hi', null, true, /got string/],
    ['no jsonrpc', { id: 4, method: 'x' }, 4, true, /"jsonrpc" must be the string "2.0"/],
    ['jsonrpc 1.0 notification', { jsonrpc: '1.0', method: 'x' }, null, false, /"jsonrpc"/],
    ['a null id', { jsonrpc: '2.0', id: null, method: 'x' }, null, true, /got null; omit "id"/],
    ['a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'x' }, null, true, /got 1.5/],
    ['an object id', { jsonrpc: '2.0', id: {}, method: 'x' }, null, true, /must be an integer or a string/],
    [
      'a numeric method',
      { jsonrpc: '2.0', id: 2, method: 5 },
      2,
      true,
      /"method" must be a non-empty string/,
    ],
    ['an empty method', { jsonrpc: '2.0', id: 2, method: '' }, 2, true, /non-empty/],
    [
      'scalar params',
      { jsonrpc: '2.0', id: 2, method: 'x', params: 3 },
      2,
      true,
      /"params" must be an object/,
    ],
    [
      'scalar params in a notification',
      { jsonrpc: '2.0', method: 'x', params: 'p' },
      null,
      false,
      /"params"/,
    ],
    ['neither call nor response', { jsonrpc: '2.0', id: 9 }, 9, true, /not a response/],
    ['result and error', { jsonrpc: '2.0', id: 9, result: 1, error: {} }, 9, true, /not a response/],
  ];
  for (const [name, value, id, answer, reason] of cases) {
    test(`rejects ${name}`, () => {
      const envelope = classifyMessage(value);
      assert.equal(envelope.kind, 'invalid');
      if (envelope.kind !== 'invalid') return;
      assert.equal(envelope.id, id);
      assert.equal(envelope.answer, answer);
      assert.match(envelope.reason, reason);
    });
  }
});
