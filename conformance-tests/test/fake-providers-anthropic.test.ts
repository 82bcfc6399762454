/**
 * The Anthropic fake, consumed by the real `@anthropic-ai/sdk`: what the SDK makes of each scripted
 * turn and fault is what Santra's Anthropic provider will see.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { type FakeProvider, startFakeProvider } from '../src/fake-providers/index.ts';

let fake: FakeProvider;
let client: Anthropic;
before(async () => {
  fake = await startFakeProvider('anthropic');
  client = new Anthropic({ baseURL: fake.url, apiKey: 'test-key', maxRetries: 0, logLevel: 'off' });
});
after(() => fake.close());

const params = {
  model: 'claude-fake-1',
  max_tokens: 1024,
  messages: [{ role: 'user' as const, content: 'Hello' }],
};

/** Streams one turn, collecting the raw event types and text deltas even when the stream fails. */
async function streamTurn(signal?: AbortSignal) {
  const stream = client.messages.stream(params, signal === undefined ? {} : { signal });
  const eventTypes: string[] = [];
  const texts: string[] = [];
  stream.on('streamEvent', (event) => eventTypes.push(event.type));
  stream.on('text', (delta) => texts.push(delta));
  try {
    return { message: await stream.finalMessage(), eventTypes, texts, error: undefined };
  } catch (error) {
    return { message: undefined, eventTypes, texts, error };
  }
}

describe('anthropic fake with @anthropic-ai/sdk', () => {
  test('streams text in the scripted chunks and records the request with its API key', async () => {
    fake.push({ text: ['Hel', 'lo, ', 'world'] });
    const { message, texts, eventTypes } = await streamTurn();
    assert.deepEqual(texts, ['Hel', 'lo, ', 'world']);
    assert.equal(message?.model, 'claude-fake-1');
    assert.equal(message?.stop_reason, 'end_turn');
    assert.deepEqual(
      message?.content.map((block) => (block.type === 'text' ? block.text : block.type)),
      ['Hello, world'],
    );
    assert.equal(eventTypes[0], 'message_start');
    assert.equal(eventTypes.at(-1), 'message_stop');
    const request = fake.requests.at(-1);
    assert.equal(request?.path, '/v1/messages');
    // @anthropic-ai/sdk 1.x sends the API key as a bearer token, no longer as x-api-key.
    assert.equal(request?.headers.authorization, 'Bearer test-key');
    assert.equal(request?.headers['x-api-key'], undefined);
    assert.ok(request?.headers['anthropic-version'], 'the SDK sends anthropic-version');
    const body = request?.body as { stream?: unknown; messages?: unknown };
    assert.equal(body.stream, true);
    assert.deepEqual(body.messages, params.messages);
  });

  test('a thinking block reaches finalMessage() with its signature, before the text', async () => {
    fake.push({ thinking: ['Let me ', 'think.'], signature: 'sig-abc', text: 'Done.' });
    const stream = client.messages.stream(params);
    const thinking: string[] = [];
    stream.on('thinking', (delta) => thinking.push(delta));
    const message = await stream.finalMessage();
    assert.deepEqual(thinking, ['Let me ', 'think.']);
    assert.deepEqual(message.content[0], {
      type: 'thinking',
      thinking: 'Let me think.',
      signature: 'sig-abc',
    });
    assert.equal(message.content[1]?.type, 'text');
  });

  test('several tool calls with arguments split across deltas parse back to their objects', async () => {
    const readArgs = { path: 'src/main.ts', lines: [1, 20], note: 'naïve ünïcode ✓' };
    fake.push({
      text: 'Reading two files.',
      toolCalls: [
        { id: 'toolu_read', name: 'read_file', args: readArgs, chunks: 5 },
        { name: 'list_dir', args: { path: '.' } },
      ],
    });
    const stream = client.messages.stream(params);
    const partials: string[] = [];
    stream.on('inputJson', (partial) => partials.push(partial));
    const message = await stream.finalMessage();
    assert.equal(message.stop_reason, 'tool_use');
    const calls = message.content.filter((block) => block.type === 'tool_use');
    assert.deepEqual(
      calls.map((call) => [call.name, call.input]),
      [
        ['read_file', readArgs],
        ['list_dir', { path: '.' }],
      ],
    );
    assert.equal(calls[0]?.id, 'toolu_read');
    assert.match(calls[1]?.id ?? '', /^toolu_fake_\d+_2$/);
    assert.ok(partials.length >= 6, `arguments arrived in ${partials.length} pieces`);
  });

  test('usage carries input, output and cache token counts; max_tokens maps to its stop reason', async () => {
    fake.push({
      text: 'cut sho',
      stopReason: 'max_tokens',
      usage: { inputTokens: 120, outputTokens: 7, cacheReadTokens: 3000, cacheWriteTokens: 450 },
    });
    const { message } = await streamTurn();
    assert.equal(message?.stop_reason, 'max_tokens');
    assert.equal(message?.usage.input_tokens, 120);
    assert.equal(message?.usage.output_tokens, 7);
    assert.equal(message?.usage.cache_read_input_tokens, 3000);
    assert.equal(message?.usage.cache_creation_input_tokens, 450);
  });

  test('a non-streaming request gets a whole Message', async () => {
    fake.push({ text: 'Plain answer.', toolCalls: [{ name: 'grep', args: { pattern: 'TODO' } }] });
    const message = await client.messages.create(params);
    assert.equal((fake.requests.at(-1)?.body as { stream?: unknown }).stream, undefined);
    assert.equal(message.stop_reason, 'tool_use');
    assert.deepEqual(message.content[0], { type: 'text', text: 'Plain answer.', citations: null });
    assert.deepEqual(message.content[1]?.type === 'tool_use' && message.content[1].input, {
      pattern: 'TODO',
    });
  });

  test('429 with retry-after reaches the SDK as a RateLimitError with the header readable', async () => {
    fake.push({ fault: { kind: 'http_error', status: 429, headers: { 'retry-after': '7' } } });
    const { error } = await streamTurn();
    assert.ok(error instanceof Anthropic.RateLimitError, `got ${String(error)}`);
    assert.equal(error.status, 429);
    assert.equal(error.headers.get('retry-after'), '7');
    assert.equal(error.type, 'rate_limit_error');
  });

  test('529 is an OverloadedError of type overloaded_error', async () => {
    fake.push({ fault: { kind: 'http_error', status: 529 } });
    const { error } = await streamTurn();
    assert.ok(error instanceof Anthropic.OverloadedError, `got ${String(error)}`);
    assert.equal(error.status, 529);
    assert.equal(error.type, 'overloaded_error');
  });

  test('the SDK retries a 429 after retry-after-ms when retries are allowed', async () => {
    const retrying = new Anthropic({ baseURL: fake.url, apiKey: 'test-key', maxRetries: 1, logLevel: 'off' });
    fake.push(
      { fault: { kind: 'http_error', status: 429, headers: { 'retry-after-ms': '10' } } },
      { text: 'second try' },
    );
    const before = fake.requests.length;
    const message = await retrying.messages.stream(params).finalMessage();
    assert.deepEqual(message.content, [{ type: 'text', text: 'second try', citations: null }]);
    assert.equal(fake.requests.length - before, 2);
  });

  test('a mid-stream error event fails the stream with the error type, after the text before it', async () => {
    // message_start, content_block_start, ping, two text deltas, then the error.
    fake.push({ text: ['one ', 'two ', 'three'], fault: { kind: 'error_event', afterEvents: 5 } });
    const { error, texts, message } = await streamTurn();
    assert.equal(message, undefined);
    assert.deepEqual(texts, ['one ', 'two ']);
    assert.ok(error instanceof Anthropic.APIError, `got ${String(error)}`);
    assert.equal(error.type, 'overloaded_error');
    assert.equal(error.status, undefined);
  });

  test('a dropped connection mid-stream fails the stream (not as an abort)', async () => {
    fake.push({ text: ['one ', 'two ', 'three'], fault: { kind: 'drop', afterEvents: 4 } });
    const { error, texts } = await streamTurn();
    assert.deepEqual(texts, ['one ']);
    assert.ok(error instanceof Anthropic.AnthropicError, `got ${String(error)}`);
    assert.ok(!(error instanceof Anthropic.APIUserAbortError));
  });

  test('a malformed SSE data line fails the stream with a JSON error', async () => {
    fake.push({ text: ['one ', 'two'], fault: { kind: 'malformed', afterEvents: 4 } });
    const { error } = await streamTurn();
    assert.ok(error instanceof Anthropic.AnthropicError, `got ${String(error)}`);
    assert.match(error.message, /JSON/);
  });

  test('truncate: no message_stop, so finalMessage() rejects though every text delta arrived', async () => {
    // Everything up to and including message_delta (stop reason, usage) is sent; message_stop is not.
    fake.push({ text: ['all ', 'of it'], fault: { kind: 'truncate', afterEvents: 7 } });
    const { error, eventTypes, texts } = await streamTurn();
    assert.deepEqual(texts, ['all ', 'of it']);
    assert.equal(eventTypes.at(-1), 'message_delta');
    assert.ok(!eventTypes.includes('message_stop'));
    assert.ok(error instanceof Anthropic.AnthropicError, `got ${String(error)}`);
    assert.match(error.message, /stream ended without producing a Message/);
  });

  test('a stalled stream is ended by the caller aborting, as APIUserAbortError', async () => {
    fake.push({ text: ['one ', 'two'], fault: { kind: 'stall', afterEvents: 4 } });
    const controller = new AbortController();
    const stream = client.messages.stream(params, { signal: controller.signal });
    stream.on('text', () => controller.abort());
    await assert.rejects(stream.finalMessage(), Anthropic.APIUserAbortError);
  });
});
