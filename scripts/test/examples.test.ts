/** The example exchanges are data: every message must pass the schemas (or fail them, where marked). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ExchangeValidator, methods } from '#protocol';
import { loadExamples } from '../examples.ts';

const dir = fileURLToPath(new URL('../../protocol-spec/examples', import.meta.url));
const examples = await loadExamples(dir);

describe('protocol examples', () => {
  for (const example of examples) {
    test(`${example.file}: every message matches the schemas, every request is answered`, () => {
      const validator = new ExchangeValidator();
      const unanswered = new Map<string, number>();
      example.lines.forEach((line, index) => {
        const where = `${example.file}:${index + 1}`;
        if (line.note !== undefined) return;
        assert.ok(
          line.from === 'client' || line.from === 'server',
          `${where}: "from" must be client or server`,
        );
        if (line.raw !== undefined) return;
        assert.ok(line.message, `${where}: a line needs "message", "raw" or "note"`);
        const problems = validator.check(line.from, line.message);
        if (line.invalid)
          assert.notDeepEqual(problems, [], `${where} is marked invalid but passes the schemas`);
        else assert.deepEqual(problems, [], where);
        const { id, method } = line.message;
        const key = `${line.from}:${String(id)}`;
        if (method !== undefined && id !== undefined) unanswered.set(key, index + 1);
        if (method === undefined)
          unanswered.delete(`${line.from === 'client' ? 'server' : 'client'}:${String(id)}`);
      });
      assert.deepEqual([...unanswered.keys()], [], `${example.file}: requests without a response`);
    });
  }

  test('every method of the table appears in some example', () => {
    const used = new Set(examples.flatMap((example) => example.lines.map((line) => line.message?.method)));
    assert.deepEqual(
      Object.keys(methods).filter((method) => !used.has(method)),
      [],
    );
  });

  test('the validator catches what the examples rely on it to catch', () => {
    const validator = new ExchangeValidator();
    assert.deepEqual(
      validator.check('client', { jsonrpc: '2.0', method: 'phase', params: {} }).length > 0,
      true,
    );
    assert.match(
      validator.check('server', { jsonrpc: '2.0', id: 1, result: null })[0] ?? '',
      /answers no pending client request/,
    );
    validator.check('client', { jsonrpc: '2.0', id: 1, method: 'shutdown' });
    assert.deepEqual(validator.check('server', { jsonrpc: '2.0', id: 1, result: null }), []);
    validator.check('client', { jsonrpc: '2.0', id: 2, method: 'shutdown' });
    assert.match(
      validator.check('server', { jsonrpc: '2.0', id: 2, result: { unexpected: true } })[0] ?? '',
      /shutdown result/,
    );
  });
});
