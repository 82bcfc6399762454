/**
 * What the fake providers do regardless of wire API: matching turns to requests, explaining a
 * request no turn answers, timing, generated token streams, closing with stalled sockets, and the
 * serve.ts command line.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { lastUserText, startFakeProvider, toolNames } from '../src/fake-providers/index.ts';

const SERVE = fileURLToPath(new URL('../src/fake-providers/serve.ts', import.meta.url));

const anthropic = (url: string, maxRetries = 0) =>
  new Anthropic({ baseURL: url, apiKey: 'test-key', maxRetries, logLevel: 'off' });
const openai = (url: string) =>
  new OpenAI({ baseURL: url, apiKey: 'test-key', maxRetries: 0, logLevel: 'off' });

async function ask(client: Anthropic, text: string, tools: string[] = []): Promise<string> {
  const message = await client.messages
    .stream({
      model: 'claude-fake-1',
      max_tokens: 100,
      messages: [{ role: 'user', content: text }],
      ...(tools.length > 0
        ? { tools: tools.map((name) => ({ name, input_schema: { type: 'object' as const } })) }
        : {}),
    })
    .finalMessage();
  return message.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('');
}

async function streamedText(client: OpenAI, content = 'go'): Promise<string> {
  const stream = await client.chat.completions.create({
    model: 'gpt-fake',
    messages: [{ role: 'user', content }],
    stream: true,
  });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  return text;
}

describe('fake providers', () => {
  test('turns are served to the requests they match, in any order; the rest in script order', async () => {
    const fake = await startFakeProvider('anthropic', [
      { match: (request) => lastUserText(request).includes('weather'), text: 'Sunny.' },
      { match: (request) => toolNames(request).includes('read_file'), text: 'Reading.' },
      { text: 'Anything else.' },
    ]);
    try {
      const client = anthropic(fake.url);
      assert.equal(await ask(client, 'open it', ['read_file']), 'Reading.');
      assert.equal(fake.pending(), 2);
      assert.equal(await ask(client, 'hello'), 'Anything else.');
      assert.equal(await ask(client, "what's the weather?"), 'Sunny.');
      assert.equal(fake.pending(), 0);
    } finally {
      await fake.close();
    }
  });

  test('a request no turn answers gets a 500 that explains itself and is not retried', async () => {
    const fake = await startFakeProvider('anthropic', [{ match: () => false, text: 'never' }]);
    try {
      // Default-like retries: the fake's x-should-retry: false must stop them.
      const client = anthropic(fake.url, 2);
      const error = await ask(client, 'summarise the repository').then(
        () => assert.fail('expected the request to fail'),
        (error: unknown) => error,
      );
      assert.ok(error instanceof Anthropic.InternalServerError, `got ${String(error)}`);
      assert.equal(error.status, 500);
      assert.match(error.message, /fake provider: no scripted turn for this request/);
      assert.match(error.apiMessage ?? '', /model claude-fake-1/);
      assert.match(error.apiMessage ?? '', /last user text "summarise the repository"/);
      assert.match(error.apiMessage ?? '', /1 turns pending, none matched/);
      assert.equal(fake.requests.length, 1);
    } finally {
      await fake.close();
    }
  });

  test('the OpenAI no-turn error uses the OpenAI error shape', async () => {
    const fake = await startFakeProvider('openai');
    try {
      await assert.rejects(streamedText(openai(fake.url), 'hi'), (error: unknown) => {
        assert.ok(error instanceof OpenAI.InternalServerError, `got ${String(error)}`);
        assert.equal(error.type, 'server_error');
        assert.match(
          error.message,
          /fake provider: no scripted turn for this request .*POST \/v1\/chat\/completions/,
        );
        return true;
      });
    } finally {
      await fake.close();
    }
  });

  test('unknown paths answer 404 and non-JSON bodies 400, both recorded', async () => {
    const fake = await startFakeProvider('openai', [{ text: 'unused' }]);
    try {
      const missing = await fetch(`${fake.url}/models`);
      assert.equal(missing.status, 404);
      const notFound = (await missing.json()) as { error: { message: string } };
      assert.match(notFound.error.message, /nothing is served at GET \/v1\/models/);
      const broken = await fetch(`${fake.url}/chat/completions`, { method: 'POST', body: '{"model":' });
      assert.equal(broken.status, 400);
      assert.deepEqual(
        fake.requests.map((request) => [request.method, request.path, request.body as unknown]),
        [
          ['GET', '/v1/models', ''],
          ['POST', '/v1/chat/completions', '{"model":'],
        ],
      );
      assert.equal(fake.pending(), 1, 'neither request used up a turn');
    } finally {
      await fake.close();
    }
  });

  test('stream faults break non-streaming answers too', async () => {
    const fake = await startFakeProvider('anthropic', [
      { text: 'half of this is lost', fault: { kind: 'malformed', afterEvents: 0 } },
      { text: 'half of this is lost', fault: { kind: 'drop', afterEvents: 0 } },
      { text: 'never', fault: { kind: 'error_event', afterEvents: 0, errorType: 'overloaded_error' } },
    ]);
    try {
      const client = anthropic(fake.url);
      const create = () =>
        client.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
      await assert.rejects(create(), SyntaxError);
      // Losing the body after the headers is fetch's own TypeError, not an SDK error class.
      await assert.rejects(create(), TypeError);
      await assert.rejects(create(), Anthropic.OverloadedError);
      assert.equal(fake.pending(), 0);
    } finally {
      await fake.close();
    }
  });

  test('firstByteDelayMs holds back the response headers', async () => {
    const fake = await startFakeProvider('anthropic', [{ text: 'late', firstByteDelayMs: 300 }]);
    try {
      const started = performance.now();
      const { response } = await anthropic(fake.url)
        .messages.create({
          model: 'm',
          max_tokens: 10,
          messages: [{ role: 'user', content: 'hi' }],
          stream: true,
        })
        .withResponse();
      // Lower bounds only, here and below: a busy machine makes the fake later, never earlier (Node
      // starts a timer from the current time, and the slack covers its millisecond rounding).
      assert.ok(performance.now() - started >= 290, 'headers arrived before the delay');
      assert.equal(response.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      await response.body?.cancel();
    } finally {
      await fake.close();
    }
  });

  test('generate streams numbered tokens; tokensPerSecond and chunkDelayMs slow the stream down', async () => {
    const fake = await startFakeProvider('openai', [
      { generate: { tokens: 2000 } },
      { generate: { tokens: 20, tokensPerSecond: 100 } },
      { text: ['a', 'b', 'c', 'd', 'e'], chunkDelayMs: 40 },
    ]);
    try {
      const client = openai(fake.url);
      const fast = await streamedText(client);
      assert.equal(fast.split(' ').length - 1, 2000);
      assert.ok(fast.startsWith('tok1 tok2 ') && fast.endsWith('tok1999 tok2000 '));
      let started = performance.now();
      assert.equal((await streamedText(client)).split(' ').length - 1, 20);
      assert.ok(performance.now() - started >= 180, '20 tokens at 100/s take at least 190 ms');
      started = performance.now();
      assert.equal(await streamedText(client), 'abcde');
      // role, five contents, finish and [DONE]: seven gaps of 40 ms.
      assert.ok(performance.now() - started >= 270);
    } finally {
      await fake.close();
    }
  });

  test('repeat turns serve every matching request and count as pending only until first served', async () => {
    const fake = await startFakeProvider('openai', [{ text: 'again', repeat: true }]);
    try {
      assert.equal(fake.pending(), 1);
      const client = openai(fake.url);
      for (let i = 0; i < 3; i++) assert.equal(await streamedText(client), 'again');
      assert.equal(fake.pending(), 0);
      fake.push({ match: () => false, text: 'unmatched' });
      assert.equal(fake.pending(), 1);
    } finally {
      await fake.close();
    }
  });

  test(
    'close() returns promptly with a stalled stream still open, and the reader then fails',
    { timeout: 5000 },
    async () => {
      const fake = await startFakeProvider('openai', [
        { text: ['one ', 'two'], fault: { kind: 'stall', afterEvents: 2 } },
      ]);
      const stream = await openai(fake.url).chat.completions.create({
        model: 'gpt-fake',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      });
      const iterator = stream[Symbol.asyncIterator]();
      assert.equal((await iterator.next()).done, false);
      const second = await iterator.next();
      assert.equal(second.done ? undefined : second.value.choices[0]?.delta.content, 'one ');
      const waiting = iterator.next();
      await fake.close();
      await assert.rejects(waiting);
    },
  );

  test(
    'serve.ts prints the base URL first and serves the turn to every request with --repeat',
    { timeout: 8000 },
    async () => {
      const child = spawn(process.execPath, [SERVE, '--api', 'openai', '--generate', '50', '--repeat'], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      try {
        const lines = createInterface({ input: child.stdout });
        const [url] = (await once(lines, 'line')) as [string];
        assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
        const client = openai(url);
        for (let i = 0; i < 2; i++) assert.equal((await streamedText(client)).split(' ').length - 1, 50);
      } finally {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
    },
  );

  test('serve.ts rejects a bad --api with exit code 2 and says what is allowed', async () => {
    const child = spawn(process.execPath, [SERVE, '--api', 'gemini'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    assert.equal(code, 2);
    assert.match(stderr, /--api must be 'anthropic', 'openai' or 'openai-responses', got 'gemini'/);
  });
});
