import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseLenientJson } from '../src/providers/text-protocol/json-repair.ts';

function repaired(text: string): unknown {
  const result = parseLenientJson(text);
  assert.ok(result.ok, `expected ${JSON.stringify(text)} to be repaired: ${result.ok ? '' : result.message}`);
  assert.equal(result.repaired, true);
  return result.value;
}

function failure(text: string): string {
  const result = parseLenientJson(text);
  assert.ok(!result.ok, `expected ${JSON.stringify(text)} to fail, got ${JSON.stringify(result)}`);
  return result.message;
}

describe('parseLenientJson', () => {
  test('strict JSON is parsed unchanged and not marked repaired', () => {
    for (const text of ['{"a": [1, 2.5e3, "x\\n"], "b": {"c": null}}', ' [] ', '"s"', '0', 'true']) {
      assert.deepEqual(parseLenientJson(text), {
        ok: true,
        value: JSON.parse(text) as unknown,
        repaired: false,
      });
    }
  });

  const repairs: [string, string, unknown][] = [
    ['trailing commas', '{"a": [1, 2,], "b": {"c": 3,},}', { a: [1, 2], b: { c: 3 } }],
    ['single-quoted strings and keys', `{'a': 'x', "b": ['y', "z"]}`, { a: 'x', b: ['y', 'z'] }],
    ['an escaped quote in a single-quoted string', `{'a': 'it\\'s'}`, { a: "it's" }],
    ['unquoted keys', '{path: "a.ts", max_lines: 3, $ref: 1}', { path: 'a.ts', max_lines: 3, $ref: 1 }],
    ['unescaped quotes in a value', '{"content": "say "hi" now", "n": 1}', { content: 'say "hi" now', n: 1 }],
    ['an unescaped quote before a word', '{"a": "5" screen"}', { a: '5" screen' }],
    ['raw newlines and tabs in strings', '{"a": "x\ny\tz"}', { a: 'x\ny\tz' }],
    ['Python literals', '{"a": True, "b": False, "c": None}', { a: true, b: false, c: null }],
    ['a code fence', '```json\n{"a": 1}\n```', { a: 1 }],
    ['a code fence without a language', '```\n[1, 2]\n```\n', [1, 2]],
    ['text after the value', '{"a": 1}\nThis reads the file.', { a: 1 }],
    ['a stray closing brace', '{"a": {"b": 1}}}', { a: { b: 1 } }],
    ['unknown escapes kept literally', '{"re": "\\d+\\.ts"}', { re: '\\d+\\.ts' }],
    ['comments', '{\n  // the file\n  "path": "a" /* relative */\n}', { path: 'a' }],
    ['lenient numbers', '[+1, .5, 2.]', [1, 0.5, 2]],
    ['several repairs at once', "```\n{path: 'a', recursive: True,}\n```", { path: 'a', recursive: true }],
  ];
  for (const [name, text, value] of repairs) {
    test(`repairs ${name}`, () => assert.deepEqual(repaired(text), value));
  }

  test('a "__proto__" key becomes an own property, not the prototype', () => {
    const value = repaired('{"__proto__": {"polluted": true},}') as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.deepEqual(Object.keys(value), ['__proto__']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  test('never completes a truncated value', () => {
    assert.match(failure('{"path": "a.ts", "content": "hel'), /unterminated string .* line 1, column 29/);
    assert.match(failure('{"path": "a.ts"'), /ended inside an object \(a "}" is missing\)/);
    assert.match(failure('[1, 2'), /ended inside an array/);
    assert.match(failure('{"a":'), /ended where a value was expected/);
    assert.match(failure('{"a": "x\\'), /unterminated string/);
  });

  test('a failure says where (line, column, excerpt) and what form is expected', () => {
    const message = failure('{\n  "path": "a.ts"\n  "limit": 3\n}');
    assert.match(message, /^expected "," or "}" after the value of "path" at line 3, column 3 /);
    assert.match(message, /\(near ".*\\n {2}\\"limit\\".*"\)/);
    assert.match(message, /Expected strict JSON such as \{"path": "src\/a.ts", "limit": 10\}/);
    assert.match(failure('{"a": src}'), /unexpected bare word "src" .* column 7/);
    assert.match(failure('{"a" 1}'), /expected ":" after the key "a"/);
    assert.match(failure('{1: 2}'), /expected a key in double quotes but found "1"/);
    assert.match(failure(''), /is empty; expected a JSON value/);
    assert.match(failure('```json\n```'), /is empty/);
    assert.match(failure('[1 2]'), /expected "," or "]" after item 1 of an array/);
  });

  test('never throws, whatever the input', () => {
    assert.match(failure('['.repeat(100_000)), /nesting deeper than 256 levels/);
    const alphabet = ['{', '}', '[', ']', '"', "'", ':', ',', '\\', 'a', '1', ' ', '\n', '/', '*', '`', 'u'];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 5000; round++) {
      const length = Math.floor(random() * 24);
      const text = Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      const result = parseLenientJson(text);
      if (!result.ok) assert.match(result.message, /at line \d+, column \d+/, text);
    }
  });
});
