/**
 * The conversation as Anthropic is sent it: thinking kept for the model that wrote it (with its
 * signature or redacted data), dropped for any other, and an assistant turn left empty dropped.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ChatMessage } from '../src/agent/messages.ts';
import { userText } from '../src/agent/messages.ts';
import { toAnthropicMessages } from '../src/providers/anthropic.ts';

const conversation: ChatMessage[] = [
  userText('first'),
  {
    role: 'assistant',
    content: [
      { type: 'thinking', text: 'pondering', signature: 'sig-a', model: 'claude-sonnet-5-5' },
      { type: 'thinking', text: '', redactedData: 'opaque', model: 'claude-sonnet-5-5' },
      { type: 'text', text: 'answer' },
    ],
  },
  userText('second'),
  {
    role: 'assistant',
    content: [{ type: 'thinking', text: 'only thought', signature: 'sig-b', model: 'claude-sonnet-5-5' }],
  },
  userText('third'),
];

describe('toAnthropicMessages', () => {
  test('thinking goes back, signed or redacted, to the model that wrote it', () => {
    const sent = toAnthropicMessages(conversation, 'claude-sonnet-5-5');
    assert.equal(sent.length, 5);
    assert.deepEqual(sent[1]?.content, [
      { type: 'thinking', thinking: 'pondering', signature: 'sig-a' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'text', text: 'answer' },
    ]);
  });

  test('another model is sent no thinking, and a turn that held only thinking is left out', () => {
    const sent = toAnthropicMessages(conversation, 'claude-opus-5-5');
    assert.deepEqual(
      sent.map((message) => message.role),
      ['user', 'assistant', 'user', 'user'],
    );
    assert.deepEqual(sent[1]?.content, [{ type: 'text', text: 'answer' }]);
  });

  test('thinking with no model recorded (older sessions) is still sent back', () => {
    const legacy: ChatMessage[] = [
      userText('q'),
      {
        role: 'assistant',
        content: [
          { type: 'thinking', text: 't', signature: 's' },
          { type: 'text', text: 'a' },
        ],
      },
    ];
    assert.deepEqual(toAnthropicMessages(legacy, 'claude-haiku-4-5')[1]?.content, [
      { type: 'thinking', thinking: 't', signature: 's' },
      { type: 'text', text: 'a' },
    ]);
  });
});
