/**
 * The provider layer against streams shaped as real providers send them, end to end through the
 * built server: the OpenAI Responses API across turns, answers cut at the output limit or refused,
 * and failures that must not be retried. The corpus of real recordings is replayed by
 * real-streams-server.test.ts and real-streams-print.test.ts.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { CANARY_KEY, suiteHarnesses, textOf } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();
const result = (response: Json) => response.result as Json;

/** A custom provider speaking the Responses API, pointed at the fake. */
const RESPONSES = {
  config: {
    providers: {
      resp: {
        api: 'openai-responses',
        baseUrl: 'FAKE_URL',
        apiKey: CANARY_KEY,
        compat: { reasoning: 'reasoning_items' },
      },
    },
  },
  env: { SANTRA_MODEL: 'resp/gpt-5' },
};

describe('the OpenAI Responses API', () => {
  test('a tool call across two turns: reasoning shown, carried back encrypted, results under the call ids', async () => {
    const h = await start(
      'openai-responses',
      [
        {
          thinking: ['Need the ', 'file.'],
          signature: 'ZW5jcnlwdGVkLXJlYXNvbmluZw==',
          text: 'Reading it.',
          toolCalls: [{ id: 'call_read_1', name: 'read_file', args: { path: 'a.txt' } }],
          usage: { inputTokens: 100, outputTokens: 40, cacheReadTokens: 60 },
        },
        { text: 'It says alpha.', usage: { inputTokens: 30, outputTokens: 5, cacheReadTokens: 150 } },
      ],
      RESPONSES.env,
      RESPONSES.config,
    );
    writeFileSync(`${h.workspace}/a.txt`, 'alpha\n');
    const { response, phases } = await h.prompt({ text: 'What does a.txt say?' });
    assert.equal(result(response).status, 'completed', JSON.stringify(phases));
    assert.equal(result(response).output, 'It says alpha.');
    assert.equal(result(response).stopReason, 'end_turn');
    assert.equal(textOf(phases, 'thinking'), 'Need the file.');
    const results = phases.filter((p) => p.type === 'tool_result');
    assert.deepEqual(
      results.map((p) => [p.toolCallId, p.status]),
      [['call_read_1', 'ok']],
    );
    // Usage with cached (and reasoning) tokens, summed over both turns.
    const usage = result(response).usage as Json;
    assert.equal(usage.inputTokens, 130);
    assert.equal(usage.cacheReadTokens, 210);
    assert.equal(usage.outputTokens, 45);
    assert.ok(typeof usage.reasoningTokens === 'number' && usage.reasoningTokens > 0, JSON.stringify(usage));

    const [first, second] = h.fake.requests;
    assert.equal(first?.path, '/v1/responses');
    assert.equal(first?.body.store, false);
    assert.deepEqual(first?.body.include, ['reasoning.encrypted_content']);
    assert.deepEqual(first?.body.reasoning, { summary: 'auto' });
    assert.equal(typeof first?.body.instructions, 'string');
    assert.ok(
      (first?.body.tools as Json[]).some((tool) => tool.name === 'read_file' && tool.type === 'function'),
    );
    // The second request carries the whole conversation: the reasoning item as returned, the
    // call, and its output under the call's id.
    const input = second?.body.input as Json[];
    const reasoning = input.find((item) => item.type === 'reasoning');
    assert.equal(reasoning?.encrypted_content, 'ZW5jcnlwdGVkLXJlYXNvbmluZw==');
    assert.match(String(reasoning?.id), /^rs_/);
    const call = input.find((item) => item.type === 'function_call');
    assert.equal(call?.call_id, 'call_read_1');
    assert.equal(call?.name, 'read_file');
    assert.deepEqual(JSON.parse(String(call?.arguments)), { path: 'a.txt' });
    const output = input.find((item) => item.type === 'function_call_output');
    assert.equal(output?.call_id, 'call_read_1');
    assert.match(String(output?.output), /alpha/);
    assert.ok(
      input.indexOf(reasoning) < input.indexOf(call) && input.indexOf(call) < input.indexOf(output),
      'reasoning, then the call, then its output',
    );
    assert.equal(second?.headers.authorization, `Bearer ${CANARY_KEY}`);
  });

  test('reasoning written under another model is not sent back', async () => {
    const h = await start(
      'openai-responses',
      [{ thinking: 'first model thinks', text: 'one' }, { text: 'two' }],
      RESPONSES.env,
      RESPONSES.config,
    );
    const first = await h.prompt({ text: 'first' });
    const sessionId = result(first.response).sessionId;
    await h.prompt({ text: 'second', sessionId, model: 'resp/gpt-5-mini' });
    const input = h.fake.requests[1]?.body.input as Json[];
    assert.equal(
      input.filter((item) => item.type === 'reasoning').length,
      0,
      'encrypted reasoning is bound to its model',
    );
    assert.ok(input.some((item) => item.role === 'assistant' && item.content === 'one'));
  });

  test('an answer cut at max_output_tokens ends with a notice and says so', async () => {
    const h = await start(
      'openai-responses',
      [{ text: 'The first half of', stopReason: 'max_tokens' }],
      RESPONSES.env,
      RESPONSES.config,
    );
    const { response, phases } = await h.prompt({ text: 'write' });
    assert.equal(result(response).status, 'completed');
    assert.equal(result(response).stopReason, 'max_tokens');
    assert.match(
      String(result(response).output),
      /^The first half of\n\n\[Answer cut off: gpt-5 reached its output limit/,
    );
    assert.equal(phases.find((p) => p.type === 'complete')?.stopReason, 'max_tokens');
  });
});

describe('answers that did not finish', () => {
  test('Anthropic max_tokens: the answer ends with a notice; the history keeps only what the model wrote', async () => {
    const h = await start('anthropic', [{ text: '{"', stopReason: 'max_tokens' }, { text: 'again' }]);
    const first = await h.prompt({ text: 'json please' });
    assert.equal(result(first.response).stopReason, 'max_tokens');
    assert.match(textOf(first.phases), /^\{"\n\n\[Answer cut off: /);
    await h.prompt({ text: 'continue', sessionId: result(first.response).sessionId });
    const messages = h.fake.requests[1]?.body.messages as Json[];
    const assistant = messages.find((m) => m.role === 'assistant');
    assert.deepEqual(assistant?.content, [{ type: 'text', text: '{"' }]);
  });

  test('OpenAI content_filter is a refusal, said as one', async () => {
    const h = await start('openai', [
      {
        recorded: [
          'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":"I can"},"finish_reason":null}]}\n\n',
          'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"content_filter"}]}\n\n',
          'data: [DONE]\n\n',
        ].join(''),
      },
    ]);
    const { response } = await h.prompt({ text: 'x' });
    assert.equal(result(response).status, 'completed');
    assert.equal(result(response).stopReason, 'refusal');
    assert.match(String(result(response).output), /^I can\n\n\[.+ declined to answer/);
  });
});

describe('failures that must not be retried', () => {
  for (const [name, event] of [
    ['a content block without its block', '{"type":"content_block_start","index":0}'],
    ['a delta without its delta', '{"type":"content_block_delta","index":0}'],
  ] as const) {
    test(`Anthropic ${name}: one request, an error that says what could not be read`, async () => {
      const recorded = [
        'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"c","usage":{"input_tokens":1,"output_tokens":1}}}\n\n',
        `event: x\ndata: ${event}\n\n`,
        'event: message_stop\ndata: {"type":"message_stop"}\n\n',
      ].join('');
      const h = await start('anthropic', [{ recorded, repeat: true }]);
      const { response, phases } = await h.prompt({ text: 'go' });
      assert.equal(result(response).status, 'error');
      assert.equal(h.fake.requests.length, 1, 'a deterministic failure is not retried');
      const error = phases.find((p) => p.type === 'error');
      assert.equal(error?.code, 'unreadable');
      assert.equal(error?.retryable, false);
      assert.match(String(error?.message), /could not be read: .+ in the event \{"type":"content_block_/);
      assert.ok(!phases.some((p) => p.type === 'status' && /Retrying/.test(String(p.text))));
    });
  }

  test('a stream with no usage anywhere completes, with the usage estimated', async () => {
    const recorded = [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"c"}}\n\n',
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"fine"}}\n\n',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"}}\n\n',
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ].join('');
    const h = await start('anthropic', [{ recorded }]);
    const { response } = await h.prompt({ text: 'go' });
    assert.equal(result(response).status, 'completed');
    assert.equal(result(response).output, 'fine');
    assert.equal((result(response).usage as Json).estimated, true);
    assert.equal(h.fake.requests.length, 1);
  });
});

describe('a large tool call being written', () => {
  test('shows one growing status line with the file it writes; a small call shows none', async () => {
    const big = 'x'.repeat(40 * 1024);
    const h = await start(
      'anthropic',
      [
        {
          toolCalls: [
            { name: 'write_file', args: { path: 'big.txt', content: big }, chunks: 40 },
            { name: 'think', args: { content: 'small' } },
          ],
        },
        { text: 'Wrote it.' },
      ],
      {},
      undefined,
      { args: ['--auto-approve'] },
    );
    const { phases } = await h.prompt({ text: 'write a big file' });
    const progress = phases.filter((p) => p.type === 'status' && p.key === 'tool-input');
    assert.ok(progress.length >= 2 && progress.length <= 6, JSON.stringify(progress.map((p) => p.text)));
    for (const line of progress) assert.match(String(line.text), /^write_file big\.txt: receiving \d+ KB$/);
    assert.match(String(progress.at(-1)?.text), /receiving (3[2-9]|40) KB/);
    assert.ok(!progress.some((p) => /think/.test(String(p.text))), 'a small call says nothing');
  });
});
