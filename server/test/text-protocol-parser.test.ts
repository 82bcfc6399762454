import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type TextProtocolEvent, TextProtocolParser } from '../src/providers/text-protocol/parser.ts';

/** An expected event; a tool_call_error's message is matched by pattern rather than spelled out. */
type Expected =
  | Exclude<TextProtocolEvent, { type: 'tool_call_error' }>
  | { type: 'tool_call_error'; id: string; name?: string; raw: string; message: RegExp };

const text = (value: string): Expected => ({ type: 'text', text: value });
const thinking = (value: string): Expected => ({ type: 'thinking', text: value });
const call = (id: string, name: string, args: Record<string, unknown>, repaired = false): Expected => ({
  type: 'tool_call',
  id,
  name,
  args,
  repaired,
});

/** Runs chunks through one parser; merges adjacent deltas, which any split may cut differently. */
function run(
  chunks: readonly string[],
  options?: { idPrefix?: string; toolCalls?: boolean },
): TextProtocolEvent[] {
  const parser = new TextProtocolParser(options);
  const events = [...chunks.flatMap((chunk) => parser.push(chunk)), ...parser.end()];
  const merged: TextProtocolEvent[] = [];
  for (const event of events) {
    if (event.type === 'text' || event.type === 'thinking') {
      assert.notEqual(event.text, '', 'no empty deltas');
      const last = merged.at(-1);
      if (last?.type === event.type) {
        merged[merged.length - 1] = { type: event.type, text: last.text + event.text };
        continue;
      }
    }
    merged.push({ ...event });
  }
  return merged;
}

function assertEvents(actual: TextProtocolEvent[], expected: Expected[]): void {
  assert.equal(actual.length, expected.length, `events: ${JSON.stringify(actual, null, 1)}`);
  actual.forEach((event, index) => {
    const wanted = expected[index];
    if (wanted?.type === 'tool_call_error' && event.type === 'tool_call_error') {
      const { message, ...rest } = event;
      const { message: pattern, ...wantedRest } = wanted;
      assert.match(message, pattern);
      assert.deepEqual(rest, wantedRest);
    } else {
      assert.deepEqual(event, wanted);
    }
  });
}

const cases: { name: string; input: string; expected: Expected[] }[] = [
  {
    name: 'plain text',
    input: 'Hello, world.\nSecond line.',
    expected: [text('Hello, world.\nSecond line.')],
  },
  {
    name: 'a < b, x<y, HTML and stray or unknown tags are text',
    input: 'If a < b and x<y then <div>ok</div> <t> <thinker> </think> <tool_calls> <next-step> <status',
    expected: [
      text('If a < b and x<y then <div>ok</div> <t> <thinker> </think> <tool_calls> <next-step> <status'),
    ],
  },
  {
    name: 'think then answer',
    input: '<think>\nIs 2 < 3? Yes.\n</think>\n\nThe answer is 4.',
    expected: [thinking('Is 2 < 3? Yes.\n'), text('The answer is 4.')],
  },
  {
    name: '<thinking> and a mismatched closer',
    input: '<thinking>plan </thin> more</think>Done.',
    expected: [thinking('plan </thin> more'), text('Done.')],
  },
  {
    name: 'status, next and a tool call',
    input:
      '<status>Reading the greeting module</status>\n<next>Edit: change greet() to take a name</next>\n' +
      '<tool_call name="read_file">{"path": "src/greet.ts"}</tool_call>\n',
    expected: [
      { type: 'status', text: 'Reading the greeting module' },
      { type: 'next', text: 'Edit: change greet() to take a name' },
      call('call_1', 'read_file', { path: 'src/greet.ts' }),
    ],
  },
  {
    name: 'name attribute in single quotes, unquoted, and with extra attributes',
    input:
      "<tool_call name='a'>{}</tool_call><tool_call name=b>{}</tool_call>" +
      '<tool_call id="7"  name = "c" >{"x": 1}</tool_call>',
    expected: [call('call_1', 'a', {}), call('call_2', 'b', {}), call('call_3', 'c', { x: 1 })],
  },
  {
    name: 'Hermes form with arguments, parameters, args, a JSON string and the OpenAI shape',
    input:
      '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>\n' +
      '<tool_call>{"name": "b", "parameters": {"n": 2}}</tool_call>' +
      '<tool_call>{"name": "c", "args": {"n": 3}}</tool_call>' +
      '<tool_call>{"name": "d", "arguments": "{\\"n\\": 4}"}</tool_call>' +
      '<tool_call>{"type": "function", "function": {"name": "e", "arguments": "{}"}}</tool_call>' +
      '<tool_call>{"name": "f"}</tool_call>',
    expected: [
      call('call_1', 'read_file', { path: 'a.ts' }),
      call('call_2', 'b', { n: 2 }),
      call('call_3', 'c', { n: 3 }),
      call('call_4', 'd', { n: 4 }),
      call('call_5', 'e', {}),
      call('call_6', 'f', {}),
    ],
  },
  {
    name: 'the Hermes body repeated inside the attribute form is unwrapped',
    input: '<tool_call name="read_file">{"name": "read_file", "arguments": {"path": "a"}}</tool_call>',
    expected: [call('call_1', 'read_file', { path: 'a' })],
  },
  {
    name: 'several calls with text around them',
    input:
      'Let me look.\n<tool_call name="list">{"dir": "."}</tool_call>\n\n' +
      '<tool_call name="read">{"path": "b"}</tool_call>Then more text.',
    expected: [
      text('Let me look.\n'),
      call('call_1', 'list', { dir: '.' }),
      call('call_2', 'read', { path: 'b' }),
      text('Then more text.'),
    ],
  },
  {
    name: 'empty arguments',
    input: '<tool_call name="list_files"></tool_call>',
    expected: [call('call_1', 'list_files', {})],
  },
  {
    name: 'repairable JSON, one repair kind per call',
    input: [
      `<tool_call name="t">{"a": 1, "b": [1, 2,],}</tool_call>`,
      `<tool_call name="t">{'a': 'b', 'note': "it's"}</tool_call>`,
      `<tool_call name="t">{a: 1, b_c: "x"}</tool_call>`,
      `<tool_call name="t">{"content": "say "hi" now"}</tool_call>`,
      `<tool_call name="t">{"content": "line 1\nline 2\tend"}</tool_call>`,
      `<tool_call name="t">{"x": True, "y": False, "z": None}</tool_call>`,
      '<tool_call name="t">```json\n{"a": 1}\n```</tool_call>',
      `<tool_call name="t">{"a": 1} I hope this helps.</tool_call>`,
    ].join('\n'),
    expected: [
      call('call_1', 't', { a: 1, b: [1, 2] }, true),
      call('call_2', 't', { a: 'b', note: "it's" }, true),
      call('call_3', 't', { a: 1, b_c: 'x' }, true),
      call('call_4', 't', { content: 'say "hi" now' }, true),
      call('call_5', 't', { content: 'line 1\nline 2\tend' }, true),
      call('call_6', 't', { x: true, y: false, z: null }, true),
      call('call_7', 't', { a: 1 }, true),
      call('call_8', 't', { a: 1 }, true),
    ],
  },
  {
    name: 'unrecoverable JSON',
    input: '<tool_call name="read_file">{"path": src/a.ts}</tool_call>',
    expected: [
      {
        type: 'tool_call_error',
        id: 'call_1',
        name: 'read_file',
        raw: '<tool_call name="read_file">{"path": src/a.ts}</tool_call>',
        message:
          /^The tool call to read_file was not run: its arguments are not valid JSON: .*"src".* at line 1, column 10 .*Write <tool_call name="read_file">/,
      },
    ],
  },
  {
    name: 'missing name',
    input: '<tool_call>{"arguments": {"path": "a"}}</tool_call>',
    expected: [
      {
        type: 'tool_call_error',
        id: 'call_1',
        raw: '<tool_call>{"arguments": {"path": "a"}}</tool_call>',
        message: /names no tool.*<tool_call name="TOOL_NAME">/,
      },
    ],
  },
  {
    name: 'arguments that are not an object, and an opening tag without ">"',
    input: '<tool_call name="x">[1, 2]</tool_call><tool_call name="y"</tool_call>',
    expected: [
      {
        type: 'tool_call_error',
        id: 'call_1',
        name: 'x',
        raw: '<tool_call name="x">[1, 2]</tool_call>',
        message: /must be a JSON object, not an array/,
      },
      {
        type: 'tool_call_error',
        id: 'call_2',
        raw: '<tool_call name="y"</tool_call>',
        message: /opening tag was not closed with ">"/,
      },
    ],
  },
  {
    name: 'a call cut off at the end is an error, never a call',
    input: 'Writing it.\n<tool_call name="write_file">{"path": "a.txt", "content": "hel',
    expected: [
      text('Writing it.\n'),
      {
        type: 'tool_call_error',
        id: 'call_1',
        name: 'write_file',
        raw: '<tool_call name="write_file">{"path": "a.txt", "content": "hel',
        message: /cut off.*ending with <\/tool_call>\.$/,
      },
    ],
  },
  {
    name: 'a cut-off call whose body is complete JSON still does not run',
    input: '<tool_call>{"name": "rm", "arguments": {"path": "/"}}</tool_ca',
    expected: [
      {
        type: 'tool_call_error',
        id: 'call_1',
        name: 'rm',
        raw: '<tool_call>{"name": "rm", "arguments": {"path": "/"}}</tool_ca',
        message: /^The tool call to rm was not run: .*cut off/,
      },
    ],
  },
  {
    name: '</tool_call> inside a JSON string is content when the body before it is incomplete',
    input:
      '<tool_call name="write_file">{"path": "notes.md", "content": "end with </tool_call> \\"always\\""}' +
      '</tool_call>Done.',
    expected: [
      call('call_1', 'write_file', { path: 'notes.md', content: 'end with </tool_call> "always"' }),
      text('Done.'),
    ],
  },
  {
    name: '</tool_call> inside a string (per the quote count) still ends a call whose body parses',
    input: '<tool_call name="echo">{"text": "a 5" screen"}</tool_call>\nok',
    expected: [call('call_1', 'echo', { text: 'a 5" screen' }, true), text('ok')],
  },
  {
    name: 'an unmatched </tool_call> in a string, then the stream ends: cut off, with the hint',
    input: '<tool_call name="w">{"content": "x </tool_call> y',
    expected: [
      {
        type: 'tool_call_error',
        id: 'call_1',
        name: 'w',
        raw: '<tool_call name="w">{"content": "x </tool_call> y',
        message: /cut off.*write it as <\\\/tool_call>/,
      },
    ],
  },
  {
    name: 'a code fence that only wraps tool calls is dropped',
    input:
      'I\'ll read both.\n```xml\n<tool_call name="read">{"path": "a"}</tool_call>\n' +
      '<tool_call name="read">{"path": "b"}</tool_call>\n```\nThanks.',
    expected: [
      text("I'll read both.\n"),
      call('call_1', 'read', { path: 'a' }),
      call('call_2', 'read', { path: 'b' }),
      text('Thanks.'),
    ],
  },
  {
    name: 'a fence around a call at the very end of the stream',
    input: '```\n<tool_call name="read">{"path": "a"}</tool_call>\n```',
    expected: [call('call_1', 'read', { path: 'a' })],
  },
  {
    name: 'a fence right after fenced calls that is not their closing fence is text',
    input: '```\n<tool_call name="a">{}</tool_call>\n```ts\nlet x;\n```',
    expected: [call('call_1', 'a', {}), text('```ts\nlet x;\n```')],
  },
  {
    name: 'other code fences and backticks are text',
    input: '```ts\nconst a = 1 < 2;\n```\n```json\n{"a": 1}\n```\n`code` and ``x``\n``\n```',
    expected: [text('```ts\nconst a = 1 < 2;\n```\n```json\n{"a": 1}\n```\n`code` and ``x``\n``\n```')],
  },
  {
    name: 'unterminated think flushes as thinking',
    input: 'Hmm.<think>still thinking </thi',
    expected: [text('Hmm.'), thinking('still thinking </thi')],
  },
  {
    name: 'unterminated status flushes as text, an empty status is dropped',
    input: '<status> </status><status>Reading a',
    expected: [text('Reading a')],
  },
  {
    name: 'markup inside thinking is thinking',
    input: '<think>I could <tool_call name="x">{}</tool_call></think>',
    expected: [thinking('I could <tool_call name="x">{}</tool_call>')],
  },
];

describe('TextProtocolParser', () => {
  for (const { name, input, expected } of cases) {
    test(`${name}: the same events at every split point and in 1-char chunks`, () => {
      const whole = run([input]);
      assertEvents(whole, expected);
      for (let split = 0; split <= input.length; split++) {
        assert.deepEqual(run([input.slice(0, split), input.slice(split)]), whole, `split at ${split}`);
      }
      assert.deepEqual(run([...input]), whole, '1-char chunks');
    });
  }

  test('ids use the prefix and count per parser', () => {
    const input = '<tool_call name="a">{}</tool_call><tool_call name="b">{}</tool_call>';
    assertEvents(run([input], { idPrefix: 'turn3' }), [call('turn3_1', 'a', {}), call('turn3_2', 'b', {})]);
    assertEvents(run([input]), [call('call_1', 'a', {}), call('call_2', 'b', {})]);
  });

  test('streams text and thinking at once, holding back only a possible partial tag', () => {
    const parser = new TextProtocolParser();
    assert.deepEqual(parser.push('Hello <'), [text('Hello ')]);
    assert.deepEqual(parser.push('div> a < b x<y'), [text('<div> a < b x<y')]);
    assert.deepEqual(parser.push(' and <thi'), [text(' and ')]);
    assert.deepEqual(parser.push('nk>deep'), [thinking('deep')]);
    assert.deepEqual(parser.push(' thought </'), [thinking(' thought ')]);
    assert.deepEqual(parser.push('b>'), [thinking('</b>')]);
    assert.deepEqual(parser.push('</think>Answer'), [text('Answer')]);
    assert.deepEqual(parser.push('<to'), []);
    assert.deepEqual(parser.push('ol_call name="x">{"a"'), []);
    assert.deepEqual(parser.push(': 1}</tool_call>'), [call('call_1', 'x', { a: 1 })]);
    assert.deepEqual(parser.end(), []);
  });

  test('end() resets the parser for another stream; ids keep counting', () => {
    const parser = new TextProtocolParser();
    parser.push('<tool_call name="a">{"x": ');
    assert.equal(parser.end()[0]?.type, 'tool_call_error');
    assert.deepEqual(parser.push('  Hi <tool_call name="b">{}</tool_call>'), [
      text('Hi '),
      call('call_2', 'b', {}),
    ]);
    assert.deepEqual(parser.end(), []);
  });

  test(
    'stays linear: 1 MB of text, thinking and call arguments in 1-char chunks',
    { timeout: 60_000 },
    () => {
      const prose = 'a < b, x<y and <div> `tick`\n'.repeat(40_000).slice(0, 1_000_000);
      const content = 'line "quoted" \\ </tool_ and more\n'.repeat(30_000).slice(0, 1_000_000);
      const input =
        `${prose}<think>${prose}</think>` +
        `<tool_call name="write_file">${JSON.stringify({ path: 'big.txt', content })}</tool_call>`;
      const parser = new TextProtocolParser();
      let answer = '';
      let thought = '';
      const calls: TextProtocolEvent[] = [];
      for (const char of input) {
        for (const event of parser.push(char)) {
          if (event.type === 'text') answer += event.text;
          else if (event.type === 'thinking') thought += event.text;
          else calls.push(event);
        }
      }
      assert.deepEqual(parser.end(), []);
      assert.equal(answer, prose);
      assert.equal(thought, prose);
      assert.deepEqual(calls, [call('call_1', 'write_file', { path: 'big.txt', content })]);
    },
  );

  test('toolCalls: false (a native-tool model): tool-call markup is answer text at every split', () => {
    const input =
      'See:\n```xml\n<tool_call name="read_file">{"path": "secret.txt"}</tool_call>\n```\n' +
      '<tool_call>{"name": "write_file", "arguments": {"path": "x"}}</tool_call><think>hm</think>end';
    const answer = input.replace('<think>hm</think>', '');
    for (let size = 1; size <= input.length; size += 7) {
      const chunks = input.match(new RegExp(`.{1,${size}}`, 'gs')) ?? [];
      assertEvents(run(chunks, { toolCalls: false }), [
        text(answer.slice(0, answer.indexOf('end'))),
        thinking('hm'),
        text('end'),
      ]);
    }
  });
});
