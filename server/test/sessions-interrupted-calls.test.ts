/**
 * A run killed mid-call leaves tool calls without results in the saved session. Loading it pairs
 * each with a result saying it was interrupted (sessions/interrupted-calls.ts), never runs it again,
 * and leaves complete conversations untouched.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatMessage } from '../src/providers/messages.ts';
import { INTERRUPTED_CALL_OUTPUT, pairInterruptedCalls } from '../src/sessions/interrupted-calls.ts';
import { foldSession } from '../src/sessions/summary.ts';

const call = (id: string): ChatMessage => ({
  role: 'assistant',
  content: [
    { type: 'tool_call', id, name: 'run_command', args: { command: 'make' }, argsText: '{"command":"make"}' },
  ],
});
const result = (id: string): ChatMessage => ({
  role: 'user',
  content: [{ type: 'tool_result', toolCallId: id, toolName: 'run_command', output: 'ok', isError: false }],
});
const prompt: ChatMessage = { role: 'user', content: [{ type: 'text', text: 'do it' }] };

test('a call without a result at the end gets one saying it was interrupted', () => {
  const paired = pairInterruptedCalls([prompt, call('c1')]);
  assert.equal(paired.length, 3);
  assert.deepEqual(paired[2], {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        toolCallId: 'c1',
        toolName: 'run_command',
        output: INTERRUPTED_CALL_OUTPUT,
        isError: true,
      },
    ],
  });
});

test('a call followed by a later prompt gets its result before the prompt; results already there are kept', () => {
  const both: ChatMessage = {
    role: 'assistant',
    content: [
      { type: 'tool_call', id: 'c1', name: 'read_file', args: {}, argsText: '{}' },
      { type: 'tool_call', id: 'c2', name: 'run_command', args: {}, argsText: '{}' },
    ],
  };
  const paired = pairInterruptedCalls([prompt, call('c0'), prompt, both, result('c1')]);
  assert.equal(paired.length, 6);
  assert.equal(paired[2]?.role, 'user');
  assert.match(JSON.stringify(paired[2]), /"toolCallId":"c0".*Interrupted/);
  assert.deepEqual(paired[3], prompt);
  const last = paired[5];
  assert.deepEqual(
    last?.content.map((block) => (block.type === 'tool_result' ? block.toolCallId : '')),
    ['c2', 'c1'],
  );
});

test('a complete conversation is left as it is', () => {
  const messages = [prompt, call('c1'), result('c1')];
  assert.deepEqual(pairInterruptedCalls(messages), messages);
});

test('a saved session read back has the interrupted call paired (the fold does it)', () => {
  const state = foldSession([
    {
      type: 'session',
      format: 1,
      sessionId: 's',
      workspaceRoot: '/w',
      createdAt: '2026-01-01T00:00:00Z',
      santraVersion: '0',
    },
    { type: 'prompt', runId: 'r', at: '2026-01-01T00:00:01Z', text: 'do it', model: 'm' },
    { type: 'message', runId: 'r', message: prompt },
    { type: 'message', runId: 'r', message: call('c1') },
  ]);
  assert.equal(state?.messages.length, 3);
  assert.match(JSON.stringify(state?.messages[2]), /Interrupted/);
});
