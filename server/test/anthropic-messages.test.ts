/**
 * The conversation as Anthropic is sent it: thinking goes back (signed or redacted) only under the
 * model, system prompt and tools it was written under, and an assistant turn left empty is dropped.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ChatMessage } from '../src/providers/messages.ts';
import { userText } from '../src/providers/messages.ts';
import { thinkingContext, toAnthropicMessages } from '../src/providers/anthropic.ts';
import { resolveModel } from '../src/providers/catalog.ts';
import type { ModelSpec } from '../src/providers/types.ts';

const sonnet = resolveModel('claude-sonnet-5-5') as ModelSpec;
const opus = resolveModel('claude-opus-5-5') as ModelSpec;
const tool = { name: 'read_file', description: 'Read a file.', inputSchema: { type: 'object' } };
const written = thinkingContext({ model: sonnet, system: 'You are the reader.', tools: [tool] });

const conversation: ChatMessage[] = [
  userText('first'),
  {
    role: 'assistant',
    content: [
      { type: 'thinking', text: 'pondering', signature: 'sig-a', context: written },
      { type: 'thinking', text: '', redactedData: 'opaque', context: written },
      { type: 'text', text: 'answer' },
    ],
  },
  userText('second'),
  {
    role: 'assistant',
    content: [{ type: 'thinking', text: 'only thought', signature: 'sig-b', context: written }],
  },
  userText('third'),
];

describe('thinkingContext', () => {
  test('changes with the model, the system prompt or the tools, and only with them', () => {
    const same = thinkingContext({ model: sonnet, system: 'You are the reader.', tools: [{ ...tool }] });
    assert.equal(same, written);
    for (const other of [
      thinkingContext({ model: opus, system: 'You are the reader.', tools: [tool] }),
      thinkingContext({ model: sonnet, system: 'You are the writer.', tools: [tool] }),
      thinkingContext({ model: sonnet, system: 'You are the reader.', tools: [] }),
    ]) {
      assert.notEqual(other, written);
    }
  });
});

describe('toAnthropicMessages', () => {
  test('thinking goes back, signed or redacted, under the context that wrote it', () => {
    const sent = toAnthropicMessages(conversation, written);
    assert.equal(sent.length, 5);
    assert.deepEqual(sent[1]?.content, [
      { type: 'thinking', thinking: 'pondering', signature: 'sig-a' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'text', text: 'answer' },
    ]);
  });

  test('any other context is sent no thinking, and a turn that held only thinking is left out', () => {
    const elsewhere = thinkingContext({ model: sonnet, system: 'You chat.', tools: [] });
    const sent = toAnthropicMessages(conversation, elsewhere);
    assert.deepEqual(
      sent.map((message) => message.role),
      ['user', 'assistant', 'user', 'user'],
    );
    assert.deepEqual(sent[1]?.content, [{ type: 'text', text: 'answer' }]);
  });
});
