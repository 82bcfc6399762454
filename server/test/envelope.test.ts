import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { classifyMessage, leadingId } from '../src/connection/envelope.ts';

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

describe('leadingId (the id of a message too large to read)', () => {
  const cases: Array<[string, string, ReturnType<typeof leadingId>]> = [
    [
      'a request with id first',
      '{"jsonrpc":"2.0","id":5,"method":"prompt","params":{"text":"',
      { id: 5, kind: 'request' },
    ],
    [
      'a string id, spaced out',
      ' {\n "method" : "prompt" ,\r\n\t"id" : "a\\"b\u00fc" , "params"',
      { id: 'a"bü', kind: 'request' },
    ],
    [
      'an id that looks like a key inside a string',
      '{"method":"x","note":"\\",\\"id\\":9","id":3,',
      { id: 3, kind: 'request' },
    ],
    [
      'a response to the server',
      '{"jsonrpc":"2.0","id":12,"result":{"decision":',
      { id: 12, kind: 'response' },
    ],
    ['an error response', '{"id":12,"jsonrpc":"2.0","error":{"code":', { id: 12, kind: 'response' }],
    ['an id after params', '{"jsonrpc":"2.0","method":"prompt","params":{"id":1},"id":4}', undefined],
    ['an id inside a nested value only', '{"jsonrpc":"2.0","method":"prompt","params":{"id":1', undefined],
    ['an id without a method (yet)', '{"jsonrpc":"2.0","id":5,"params":{"text":"', undefined],
    ['a truncated number', '{"method":"prompt","id":12', undefined],
    ['a truncated string id', '{"method":"prompt","id":"abc', undefined],
    ['a fractional id', '{"method":"prompt","id":1.5,', undefined],
    ['a null id', '{"method":"prompt","id":null,', undefined],
    ['an empty method', '{"method":"","id":1,', undefined],
    ['not an object', '[{"method":"prompt","id":1}]', undefined],
    ['not JSON', 'Content-Length: 44\r\n\r\n{"id":1,"method":"x"}', undefined],
  ];
  for (const [name, prefix, expected] of cases) {
    test(name, () => {
      assert.deepEqual(leadingId(Buffer.from(prefix, 'utf8')), expected);
    });
  }
});
