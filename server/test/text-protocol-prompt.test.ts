import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TextProtocolParser } from '../src/providers/text-protocol/parser.ts';
import {
  formatToolResult,
  textProtocolInstructions,
  type ToolSpec,
} from '../src/providers/text-protocol/prompt.ts';

const tools: ToolSpec[] = [
  {
    name: 'read_file',
    description: 'Reads a text file.\n',
    parameters: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
    },
  },
  {
    name: 'list_files',
    description: 'Lists the project files.',
    parameters: { type: 'object', properties: {} },
  },
];

describe('textProtocolInstructions', () => {
  const prompt = textProtocolInstructions(tools);
  const lines = prompt.split('\n');

  test('lists each tool with its description and compact schema (without $schema)', () => {
    for (const expected of [
      '## read_file',
      'Reads a text file.',
      'Arguments: {"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}',
      '## list_files',
      'Lists the project files.',
      'Arguments: {"type":"object","properties":{}}',
    ]) {
      assert.ok(lines.includes(expected), `missing line ${JSON.stringify(expected)}`);
    }
    assert.doesNotMatch(prompt, /\$schema/);
  });

  test('teaches the markup, strict JSON, several calls, and waiting for results', () => {
    for (const pattern of [
      /^- <think>\.\.\.<\/think>: /m,
      /^- <status>\.\.\.<\/status>: one present-tense line of at most 14 words/m,
      /^- <next>\.\.\.<\/next>: the next action, label first .* at most 100 words/m,
      /^- <tool_call name="TOOL_NAME">ARGUMENTS<\/tool_call>: /m,
      /^- Arguments must be strict JSON: keys and strings in double quotes/m,
      /^- One or more tool calls may follow each other/m,
      /^- After your last tool call, stop and wait\..* <tool_result id="call_1" name="read_file">\.\.\.<\/tool_result>/m,
      /write it as <\\\/tool_call>/,
    ]) {
      assert.match(prompt, pattern);
    }
  });

  test('the worked example parses into the events it describes', () => {
    const example = prompt.slice(
      prompt.indexOf('You reply:\n') + 'You reply:\n'.length,
      prompt.indexOf('\n\nand stop.'),
    );
    const parser = new TextProtocolParser();
    assert.deepEqual(
      [...parser.push(example), ...parser.end()].map((event) => event.type),
      ['thinking', 'status', 'next', 'tool_call'],
    );
  });

  test('is deterministic and says so when there are no tools', () => {
    assert.equal(textProtocolInstructions(tools), prompt);
    assert.match(textProtocolInstructions([]), /There are no tools available right now\./);
  });
});

describe('formatToolResult', () => {
  test('wraps the output unescaped, marking errors', () => {
    assert.equal(
      formatToolResult('call_1', 'read_file', 'a < b && "c"', false),
      '<tool_result id="call_1" name="read_file">\na < b && "c"\n</tool_result>',
    );
    assert.equal(
      formatToolResult('call_2', 'x', 'no such file', true),
      '<tool_result id="call_2" name="x" error="true">\nno such file\n</tool_result>',
    );
  });

  test('numbers the tag when the output contains the closing tag', () => {
    const output = 'before </tool_result> and </tool_result-2> after';
    const formatted = formatToolResult('call_3', 'grep', output, false);
    assert.equal(formatted, `<tool_result-3 id="call_3" name="grep">\n${output}\n</tool_result-3>`);
  });

  test('keeps the tag well formed whatever name the model used', () => {
    assert.equal(
      formatToolResult('call_4', 'a"b<c>', '', true),
      '<tool_result id="call_4" name="a&quot;b&lt;c&gt;" error="true">\n\n</tool_result>',
    );
  });
});
