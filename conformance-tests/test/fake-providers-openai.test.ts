/**
 * The OpenAI fake, consumed by the real `openai` SDK: what the SDK makes of each scripted turn and
 * fault is what Santra's OpenAI-compatible provider will see.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { type FakeProvider, startFakeProvider } from '../src/fake-providers/index.ts';

let fake: FakeProvider;
let client: OpenAI;
before(async () => {
  fake = await startFakeProvider('openai');
  client = new OpenAI({ baseURL: fake.url, apiKey: 'test-key', maxRetries: 0, logLevel: 'off' });
});
after(() => fake.close());

const messages = [{ role: 'user' as const, content: 'Hello' }];

/** Streams one turn and collects its chunks, even when the iteration throws. */
async function streamTurn(options: { includeUsage?: boolean; signal?: AbortSignal; with?: OpenAI } = {}) {
  const chunks: ChatCompletionChunk[] = [];
  try {
    const stream = await (options.with ?? client).chat.completions.create(
      {
        model: 'gpt-fake',
        messages,
        stream: true,
        ...(options.includeUsage === true ? { stream_options: { include_usage: true } } : {}),
      },
      options.signal === undefined ? {} : { signal: options.signal },
    );
    for await (const chunk of stream) chunks.push(chunk);
    return { chunks, error: undefined };
  } catch (error) {
    return { chunks, error };
  }
}

const contents = (chunks: ChatCompletionChunk[]) =>
  chunks.flatMap((chunk) => chunk.choices.flatMap((choice) => choice.delta.content || []));
const finishReasons = (chunks: ChatCompletionChunk[]) =>
  chunks.flatMap((chunk) => chunk.choices.flatMap((choice) => choice.finish_reason ?? []));

describe('openai fake with the openai SDK', () => {
  test('streams content in the scripted chunks, ends with finish_reason stop, records the bearer key', async () => {
    fake.push({ text: ['Hel', 'lo, ', 'world'] });
    const { chunks, error } = await streamTurn();
    assert.equal(error, undefined);
    assert.deepEqual(contents(chunks), ['Hel', 'lo, ', 'world']);
    assert.deepEqual(finishReasons(chunks), ['stop']);
    assert.equal(chunks[0]?.choices[0]?.delta.role, 'assistant');
    assert.ok(
      chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.model === 'gpt-fake'),
    );
    assert.ok(
      chunks.every((chunk) => chunk.usage === undefined),
      'no usage unless include_usage was asked',
    );
    const request = fake.requests.at(-1);
    assert.equal(request?.path, '/v1/chat/completions');
    assert.equal(request?.headers.authorization, 'Bearer test-key');
    assert.equal((request?.body as { stream?: unknown }).stream, true);
  });

  test('a base URL without /v1 is served at /chat/completions', async () => {
    const bare = new OpenAI({ baseURL: fake.url.replace(/\/v1$/, ''), apiKey: 'k', maxRetries: 0 });
    fake.push({ text: 'no v1' });
    const { chunks, error } = await streamTurn({ with: bare });
    assert.equal(error, undefined);
    assert.equal(contents(chunks).join(''), 'no v1');
    assert.equal(fake.requests.at(-1)?.path, '/chat/completions');
  });

  test('thinking arrives as reasoning_content deltas before the content', async () => {
    fake.push({ thinking: ['Let me ', 'think.'], text: 'Done.' });
    const { chunks } = await streamTurn();
    const reasoning = chunks.flatMap((chunk) =>
      chunk.choices.flatMap(
        (choice) => (choice.delta as { reasoning_content?: string }).reasoning_content ?? [],
      ),
    );
    assert.deepEqual(reasoning, ['Let me ', 'think.']);
    const firstContent = chunks.findIndex((chunk) => chunk.choices[0]?.delta.content === 'Done.');
    const lastReasoning = chunks.findLastIndex(
      (chunk) => 'reasoning_content' in (chunk.choices[0]?.delta ?? {}),
    );
    assert.ok(lastReasoning < firstContent);
  });

  test('several tool calls accumulate by index into the scripted arguments', async () => {
    const readArgs = { path: 'src/main.ts', lines: [1, 20], note: 'naïve ünïcode ✓' };
    fake.push({
      toolCalls: [
        { id: 'call_read', name: 'read_file', args: readArgs, chunks: 5 },
        { name: 'list_dir', args: { path: '.' } },
      ],
    });
    const { chunks } = await streamTurn();
    const calls: { id?: string; name?: string; args: string; pieces: number }[] = [];
    for (const delta of chunks.flatMap((chunk) =>
      chunk.choices.flatMap((choice) => choice.delta.tool_calls ?? []),
    )) {
      const call = (calls[delta.index] ??= { args: '', pieces: 0 });
      if (delta.id !== undefined) {
        assert.equal(call.id, undefined, 'only the first piece of a call carries its id');
        assert.equal(delta.type, 'function');
        call.id = delta.id;
        call.name = delta.function?.name;
      }
      call.args += delta.function?.arguments ?? '';
      call.pieces++;
    }
    assert.deepEqual(
      calls.map((call) => [call.name, JSON.parse(call.args) as unknown]),
      [
        ['read_file', readArgs],
        ['list_dir', { path: '.' }],
      ],
    );
    assert.equal(calls[0]?.id, 'call_read');
    assert.match(calls[1]?.id ?? '', /^call_fake_\d+_2$/);
    assert.deepEqual(
      calls.map((call) => call.pieces),
      [6, 4],
    );
    assert.deepEqual(finishReasons(chunks), ['tool_calls']);
  });

  test("the SDK's own stream helper assembles the same tool calls", async () => {
    fake.push({ text: 'Looking.', toolCalls: [{ name: 'grep', args: { pattern: 'TODO', glob: '*.ts' } }] });
    const completion = await client.chat.completions
      .stream({ model: 'gpt-fake', messages, tools: [{ type: 'function', function: { name: 'grep' } }] })
      .finalChatCompletion();
    const message = completion.choices[0]?.message;
    assert.equal(message?.content, 'Looking.');
    const call = message?.tool_calls?.[0];
    assert.ok(call?.type === 'function');
    assert.deepEqual(
      [call.function.name, JSON.parse(call.function.arguments)],
      ['grep', { pattern: 'TODO', glob: '*.ts' }],
    );
    assert.equal(completion.choices[0]?.finish_reason, 'tool_calls');
  });

  test('include_usage adds a last chunk with empty choices and usage, cached tokens included', async () => {
    fake.push({
      text: 'cut sho',
      stopReason: 'max_tokens',
      usage: { inputTokens: 120, outputTokens: 7, cacheReadTokens: 3000, cacheWriteTokens: 450 },
    });
    const { chunks } = await streamTurn({ includeUsage: true });
    assert.deepEqual(finishReasons(chunks), ['length']);
    const last = chunks.at(-1);
    assert.deepEqual(last?.choices, []);
    assert.equal(last?.usage?.prompt_tokens, 120 + 3000 + 450);
    assert.equal(last?.usage?.completion_tokens, 7);
    assert.equal(last?.usage?.total_tokens, 120 + 3000 + 450 + 7);
    assert.equal(last?.usage?.prompt_tokens_details?.cached_tokens, 3000);
    assert.equal(last?.usage?.prompt_tokens_details?.cache_write_tokens, 450);
    assert.ok(chunks.slice(0, -1).every((chunk) => chunk.usage === null));
  });

  test('omitUsage sends no usage chunk even though include_usage asked for one', async () => {
    fake.push({ text: 'hi', omitUsage: true });
    const { chunks } = await streamTurn({ includeUsage: true });
    assert.ok(chunks.length > 0);
    assert.ok(chunks.every((chunk) => chunk.usage == null && chunk.choices.length === 1));
  });

  test('a non-streaming request gets a whole chat.completion', async () => {
    fake.push({
      text: 'Plain answer.',
      toolCalls: [{ name: 'grep', args: { pattern: 'TODO' } }],
      usage: { inputTokens: 10, outputTokens: 5 },
    });
    const completion = await client.chat.completions.create({ model: 'gpt-fake', messages });
    assert.equal(completion.object, 'chat.completion');
    const choice = completion.choices[0];
    assert.equal(choice?.message.content, 'Plain answer.');
    assert.equal(choice?.finish_reason, 'tool_calls');
    const call = choice?.message.tool_calls?.[0];
    assert.ok(call?.type === 'function');
    assert.deepEqual(JSON.parse(call.function.arguments), { pattern: 'TODO' });
    assert.deepEqual([completion.usage?.prompt_tokens, completion.usage?.completion_tokens], [10, 5]);
  });

  test('429 with retry-after reaches the SDK as a RateLimitError with the header and code', async () => {
    fake.push({
      fault: { kind: 'http_error', status: 429, headers: { 'retry-after': '7' }, message: 'slow down' },
    });
    const { error } = await streamTurn();
    assert.ok(error instanceof OpenAI.RateLimitError, `got ${String(error)}`);
    assert.equal(error.status, 429);
    assert.equal(error.headers.get('retry-after'), '7');
    assert.equal(error.code, 'rate_limit_exceeded');
    assert.match(error.message, /slow down/);
  });

  test('a mid-stream error chunk throws an APIError from the iteration, after the chunks before it', async () => {
    // role chunk, two content chunks, then the error.
    fake.push({
      text: ['one ', 'two ', 'three'],
      fault: { kind: 'error_event', afterEvents: 3, errorType: 'server_error', message: 'upstream died' },
    });
    const { chunks, error } = await streamTurn();
    assert.deepEqual(contents(chunks), ['one ', 'two ']);
    assert.ok(error instanceof OpenAI.APIError, `got ${String(error)}`);
    assert.equal(error.type, 'server_error');
    assert.match(error.message, /upstream died/);
  });

  test('a dropped connection mid-stream throws from the iteration', async () => {
    fake.push({ text: ['one ', 'two ', 'three'], fault: { kind: 'drop', afterEvents: 2 } });
    const { chunks, error } = await streamTurn();
    assert.deepEqual(contents(chunks), ['one ']);
    assert.ok(error instanceof Error, `got ${String(error)}`);
  });

  test('a malformed data line throws a SyntaxError from the iteration', async () => {
    fake.push({ text: ['one ', 'two'], fault: { kind: 'malformed', afterEvents: 2 } });
    const { chunks, error } = await streamTurn();
    assert.deepEqual(contents(chunks), ['one ']);
    assert.ok(error instanceof SyntaxError, `got ${String(error)}`);
  });

  test('truncate: the SDK ends the iteration silently; only the missing finish_reason tells', async () => {
    // The SDK does not require [DONE]: a provider layer must treat "no finish_reason" as an error.
    fake.push({ text: ['all ', 'of it'], fault: { kind: 'truncate', afterEvents: 3 } });
    const { chunks, error } = await streamTurn({ includeUsage: true });
    assert.equal(error, undefined);
    assert.deepEqual(contents(chunks), ['all ', 'of it']);
    assert.deepEqual(finishReasons(chunks), []);
    assert.ok(chunks.every((chunk) => chunk.usage == null));
  });

  test('a stalled stream aborted by the caller ends the iteration silently, without an error', async () => {
    // Unlike the Anthropic SDK, openai swallows the caller's abort: the caller must check its signal.
    fake.push({ text: ['one ', 'two'], fault: { kind: 'stall', afterEvents: 2 } });
    const controller = new AbortController();
    const chunks: ChatCompletionChunk[] = [];
    const stream = await client.chat.completions.create(
      { model: 'gpt-fake', messages, stream: true },
      { signal: controller.signal },
    );
    for await (const chunk of stream) {
      chunks.push(chunk);
      if (chunk.choices[0]?.delta.content === 'one ') controller.abort();
    }
    assert.deepEqual(contents(chunks), ['one ']);
    assert.ok(controller.signal.aborted);
  });
});
