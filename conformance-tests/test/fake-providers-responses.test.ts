/**
 * The OpenAI Responses fake, consumed by the real `openai` SDK: the raw event iteration of
 * `responses.create({stream: true})` and the accumulating `responses.stream()` helper, which
 * checks every event against the response it builds (so a malformed sequence fails here).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import {
  type FakeProvider,
  lastRole,
  lastUserText,
  startFakeProvider,
  toolNames,
} from '../src/fake-providers/index.ts';

let fake: FakeProvider;
let client: OpenAI;
before(async () => {
  fake = await startFakeProvider('openai-responses');
  client = new OpenAI({ baseURL: fake.url, apiKey: 'test-key', maxRetries: 0, logLevel: 'off' });
});
after(() => fake.close());

const ENCRYPTED = 'reasoning.encrypted_content' as const;

/** Streams one turn and collects its events, even when the iteration throws. */
async function streamTurn(options: { include?: (typeof ENCRYPTED)[]; with?: OpenAI } = {}) {
  const events: ResponseStreamEvent[] = [];
  try {
    const stream = await (options.with ?? client).responses.create({
      model: 'gpt-fake',
      input: 'Hello',
      stream: true,
      ...(options.include === undefined ? {} : { include: options.include }),
    });
    for await (const event of stream) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

const types = (events: ResponseStreamEvent[]) => events.map((event) => event.type);
const textDeltas = (events: ResponseStreamEvent[]) =>
  events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : []));

describe('openai-responses fake with the openai SDK', () => {
  test('streams text as a message item, numbered from 0, and records the request', async () => {
    fake.push({ text: ['Hel', 'lo, ', 'world'] });
    const { events, error } = await streamTurn();
    assert.equal(error, undefined);
    assert.deepEqual(types(events), [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    assert.deepEqual(
      events.map((event) => event.sequence_number),
      events.map((_, index) => index),
    );
    assert.deepEqual(textDeltas(events), ['Hel', 'lo, ', 'world']);
    const delta = events.find((event) => event.type === 'response.output_text.delta');
    assert.deepEqual(delta?.type === 'response.output_text.delta' && delta.logprobs, []);
    const done = events.at(-1);
    assert.ok(done?.type === 'response.completed');
    assert.equal(done.response.status, 'completed');
    assert.equal(done.response.model, 'gpt-fake');
    const message = done.response.output[0];
    assert.match(message?.id ?? '', /^msg_fake_\d+$/);
    assert.deepEqual(done.response.output, [
      {
        id: message?.id,
        type: 'message',
        status: 'completed',
        content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'Hello, world' }],
        role: 'assistant',
      },
    ]);
    const request = fake.requests.at(-1);
    assert.equal(request?.path, '/v1/responses');
    assert.equal(request?.headers.authorization, 'Bearer test-key');
    assert.equal((request?.body as { stream?: unknown }).stream, true);
  });

  test('every event on the wire is named after its type', async () => {
    fake.push({ thinking: 'Hmm.', text: 'Hi', toolCalls: [{ name: 'grep', args: {} }] });
    const response = await fetch(`${fake.url}/responses`, {
      method: 'POST',
      body: JSON.stringify({ model: 'gpt-fake', input: 'x', stream: true }),
    });
    const blocks = (await response.text()).split('\n\n').filter((block) => block !== '');
    assert.ok(blocks.length > 10);
    for (const block of blocks) {
      const match = /^event: (\S+)\ndata: (.*)$/.exec(block);
      assert.ok(match, block);
      assert.equal((JSON.parse(match[2] ?? '') as { type: string }).type, match[1]);
    }
  });

  test('a base URL without /v1 is served at /responses', async () => {
    const bare = new OpenAI({ baseURL: fake.url.replace(/\/v1$/, ''), apiKey: 'k', maxRetries: 0 });
    fake.push({ text: 'no v1' });
    const { events, error } = await streamTurn({ with: bare });
    assert.equal(error, undefined);
    assert.equal(textDeltas(events).join(''), 'no v1');
    assert.equal(fake.requests.at(-1)?.path, '/responses');
  });

  test('thinking is a reasoning item before the message; encrypted_content only when included', async () => {
    fake.push(
      { thinking: ['Let me ', 'think.'], text: 'Done.' },
      { thinking: 'Again.', signature: 'c2lnLTI=' },
    );
    const plain = await streamTurn();
    const summary = plain.events.flatMap((event) =>
      event.type === 'response.reasoning_summary_text.delta' ? [event.delta] : [],
    );
    assert.deepEqual(summary, ['Let me ', 'think.']);
    assert.deepEqual(types(plain.events).slice(2, 9), [
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
    ]);
    const added = plain.events[2];
    assert.ok(added?.type === 'response.output_item.added');
    assert.deepEqual(added.item, { id: added.item.id, type: 'reasoning', summary: [] });
    assert.match(added.item.id ?? '', /^rs_fake_\d+$/);
    const itemDone = plain.events[8];
    assert.ok(itemDone?.type === 'response.output_item.done' && itemDone.item.type === 'reasoning');
    assert.deepEqual(itemDone.item.summary, [{ type: 'summary_text', text: 'Let me think.' }]);
    assert.equal('encrypted_content' in itemDone.item, false, 'not asked for, not sent');
    assert.deepEqual(
      types(plain.events).filter((type) => type.startsWith('response.output_item')),
      [
        'response.output_item.added',
        'response.output_item.done',
        'response.output_item.added',
        'response.output_item.done',
      ],
    );

    const response = await client.responses
      .stream({ model: 'gpt-fake', input: 'Hello', include: [ENCRYPTED] })
      .finalResponse();
    const reasoning = response.output[0];
    assert.ok(reasoning?.type === 'reasoning');
    assert.equal(reasoning.encrypted_content, 'c2lnLTI=');
    assert.equal(reasoning.summary[0]?.text, 'Again.');
    assert.equal(response.output.length, 1);
    assert.ok((response.usage?.output_tokens_details.reasoning_tokens ?? 0) > 0);
  });

  test('the default encrypted_content is a fixed fake base64 string', async () => {
    fake.push({ thinking: 'Quietly.', text: 'ok' });
    const response = await client.responses
      .stream({ model: 'gpt-fake', input: 'Hello', include: [ENCRYPTED] })
      .finalResponse();
    const reasoning = response.output[0];
    assert.ok(reasoning?.type === 'reasoning');
    assert.match(reasoning.encrypted_content ?? '', /^[A-Za-z0-9+/]+=*$/);
  });

  test('tool calls are function_call items whose argument deltas join into the scripted arguments', async () => {
    const readArgs = { path: 'src/main.ts', lines: [1, 20], note: 'naïve ünïcode ✓' };
    fake.push({
      toolCalls: [
        { id: 'call_read', name: 'read_file', args: readArgs, chunks: 5 },
        { name: 'list_dir', args: { path: '.' } },
      ],
    });
    const { events } = await streamTurn();
    const calls = new Map<string, { added: unknown; args: string; pieces: number; done?: string }>();
    for (const event of events) {
      if (event.type === 'response.output_item.added' && event.item.type === 'function_call')
        calls.set(event.item.id ?? '', { added: event.item, args: '', pieces: 0 });
      if (event.type === 'response.function_call_arguments.delta') {
        const call = calls.get(event.item_id);
        assert.ok(call, 'a delta follows its item');
        call.args += event.delta;
        call.pieces++;
      }
      if (event.type === 'response.function_call_arguments.done') {
        const call = calls.get(event.item_id);
        assert.ok(call);
        call.done = event.arguments;
      }
    }
    const [read, list] = [...calls.values()];
    const readId = (read?.added as { id: string }).id;
    assert.match(readId, /^fc_fake_\d+_1$/);
    assert.deepEqual(read?.added, {
      id: readId,
      type: 'function_call',
      status: 'in_progress',
      arguments: '',
      call_id: 'call_read',
      name: 'read_file',
    });
    assert.match((list?.added as { call_id: string }).call_id, /^call_fake_\d+_2$/);
    assert.deepEqual(JSON.parse(read?.args ?? ''), readArgs);
    assert.equal(read?.done, read?.args);
    assert.deepEqual(JSON.parse(list?.args ?? ''), { path: '.' });
    assert.deepEqual([read?.pieces, list?.pieces], [5, 3]);
    const done = events.at(-1);
    assert.ok(done?.type === 'response.completed');
    assert.deepEqual(
      done.response.output.map((item) => item.type === 'function_call' && [item.name, item.status]),
      [
        ['read_file', 'completed'],
        ['list_dir', 'completed'],
      ],
    );
  });

  test("the SDK's stream helper assembles text and tool calls into the final response", async () => {
    fake.push({ text: 'Looking.', toolCalls: [{ name: 'grep', args: { pattern: 'TODO', glob: '*.ts' } }] });
    const response = await client.responses
      .stream({
        model: 'gpt-fake',
        input: [{ role: 'user', content: 'find todos' }],
        tools: [{ type: 'function', name: 'grep', parameters: null, strict: false }],
      })
      .finalResponse();
    assert.equal(response.status, 'completed');
    assert.equal(response.output_text, 'Looking.');
    const call = response.output[1];
    assert.ok(call?.type === 'function_call');
    assert.deepEqual([call.name, JSON.parse(call.arguments)], ['grep', { pattern: 'TODO', glob: '*.ts' }]);
    assert.match(call.call_id, /^call_fake_\d+_1$/);
    assert.equal(response.tools[0]?.type === 'function' && response.tools[0].name, 'grep', 'tools echoed');
  });

  test('match functions read the Responses input: text parts, tool names, a tool result as role tool', async () => {
    fake.push(
      { match: (request) => lastRole(request) === 'tool', text: 'after the tool' },
      {
        match: (request) => lastUserText(request) === 'find todos' && toolNames(request).includes('grep'),
        text: 'first',
      },
    );
    const tools = [{ type: 'function' as const, name: 'grep', parameters: null, strict: false }];
    const input = [{ role: 'user' as const, content: [{ type: 'input_text' as const, text: 'find todos' }] }];
    const first = await client.responses.create({ model: 'gpt-fake', input, tools });
    assert.equal(first.output_text, 'first');
    const second = await client.responses.create({
      model: 'gpt-fake',
      tools,
      input: [
        ...input,
        { type: 'function_call', call_id: 'call_1', name: 'grep', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'no todos' },
      ],
    });
    assert.equal(second.output_text, 'after the tool');
    // A request no turn answers is summarised from its input.
    const error = await client.responses.create({ model: 'gpt-fake', input: 'anyone there?' }).then(
      () => assert.fail('expected the request to fail'),
      (error: unknown) => error,
    );
    assert.ok(error instanceof OpenAI.InternalServerError, `got ${String(error)}`);
    assert.match(error.message, /1 messages, last role user, last user text "anyone there\?"/);
  });

  test('generated tokens stream as text deltas', async () => {
    fake.push({ text: 'Count: ', generate: { tokens: 3 } });
    const { events } = await streamTurn();
    assert.deepEqual(textDeltas(events), ['Count: ', 'tok1 ', 'tok2 ', 'tok3 ']);
  });

  test('usage counts cached tokens in input_tokens, as the API does', async () => {
    fake.push({ text: 'ok', usage: { inputTokens: 120, outputTokens: 7, cacheReadTokens: 3000 } });
    const { events } = await streamTurn();
    const created = events[0];
    assert.ok(created?.type === 'response.created');
    assert.equal(created.response.usage, null, 'no usage until the response is done');
    const done = events.at(-1);
    assert.ok(done?.type === 'response.completed');
    assert.deepEqual(done.response.usage, {
      input_tokens: 3120,
      input_tokens_details: { cached_tokens: 3000 },
      output_tokens: 7,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 3127,
    });
  });

  test('omitUsage leaves usage null in the final response', async () => {
    fake.push({ text: 'hi', omitUsage: true });
    const { events } = await streamTurn();
    const done = events.at(-1);
    assert.ok(done?.type === 'response.completed');
    assert.equal(done.response.usage, null);
  });

  test('max_tokens ends with response.incomplete and the cut item incomplete', async () => {
    fake.push({ text: 'cut sho', stopReason: 'max_tokens' }, { text: 'cut again', stopReason: 'max_tokens' });
    const { events } = await streamTurn();
    assert.deepEqual(types(events).slice(-2), ['response.output_item.done', 'response.incomplete']);
    const done = events.at(-1);
    assert.ok(done?.type === 'response.incomplete');
    assert.deepEqual(done.response.incomplete_details, { reason: 'max_output_tokens' });
    assert.equal(done.response.status, 'incomplete');
    const response = await client.responses.stream({ model: 'gpt-fake', input: 'Hello' }).finalResponse();
    assert.equal(response.status, 'incomplete');
    assert.equal(response.output_text, 'cut again');
    assert.ok(response.output[0]?.type === 'message' && response.output[0].status === 'incomplete');
  });

  test('a non-streaming request gets the whole Response object', async () => {
    fake.push({
      text: 'Plain answer.',
      toolCalls: [{ name: 'grep', args: { pattern: 'TODO' } }],
      usage: { inputTokens: 10, outputTokens: 5 },
    });
    const response = await client.responses.create({ model: 'gpt-fake', input: 'Hello' });
    assert.equal(response.object, 'response');
    assert.equal(response.status, 'completed');
    assert.equal(response.output_text, 'Plain answer.');
    const call = response.output[1];
    assert.ok(call?.type === 'function_call');
    assert.deepEqual(JSON.parse(call.arguments), { pattern: 'TODO' });
    assert.deepEqual([response.usage?.input_tokens, response.usage?.output_tokens], [10, 5]);
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

  test('a mid-stream error event throws an APIError from the iteration, after the events before it', async () => {
    // created, in_progress, item added, part added, one delta; then the error.
    fake.push({
      text: ['one ', 'two ', 'three'],
      fault: { kind: 'error_event', afterEvents: 5, errorType: 'server_error', message: 'upstream died' },
    });
    const { events, error } = await streamTurn();
    assert.deepEqual(textDeltas(events), ['one ']);
    assert.ok(error instanceof OpenAI.APIError, `got ${String(error)}`);
    assert.equal(error.code, 'server_error');
    assert.match(error.message, /upstream died/);
    assert.equal((error.error as { sequence_number?: number }).sequence_number, 5);
  });

  test('the stream helper rejects on an error event', async () => {
    fake.push({ text: 'partial', fault: { kind: 'error_event', afterEvents: 3 } });
    await assert.rejects(
      client.responses.stream({ model: 'gpt-fake', input: 'Hello' }).finalResponse(),
      (error: unknown) => error instanceof OpenAI.APIError && error.code === 'server_error',
    );
  });

  test('a malformed data line throws a SyntaxError from the iteration', async () => {
    fake.push({ text: ['one ', 'two'], fault: { kind: 'malformed', afterEvents: 5 } });
    const { events, error } = await streamTurn();
    assert.deepEqual(textDeltas(events), ['one ']);
    assert.ok(error instanceof SyntaxError, `got ${String(error)}`);
  });

  test('truncate: the iteration ends silently; only the missing response.completed tells', async () => {
    fake.push({ text: ['all ', 'of it'], fault: { kind: 'truncate', afterEvents: 9 } });
    const { events, error } = await streamTurn();
    assert.equal(error, undefined);
    assert.deepEqual(textDeltas(events), ['all ', 'of it']);
    assert.equal(types(events).at(-1), 'response.output_item.done');
  });
});
