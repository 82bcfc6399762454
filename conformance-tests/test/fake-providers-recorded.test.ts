/**
 * Recorded turns: an SSE body as a real provider sent it comes back byte for byte, split into
 * events at its blank lines for timing and faults, and the real SDKs read it as they read the API.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import {
  type FakeApi,
  type FakeProvider,
  type FakeTurn,
  startFakeProvider,
} from '../src/fake-providers/index.ts';

/** An Anthropic Messages stream in the API's own shape, ids and model included. */
const ANTHROPIC_RECORDING = [
  'event: message_start',
  'data: {"type":"message_start","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}',
  '',
  'event: content_block_start',
  'data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
  '',
  'event: ping',
  'data: {"type": "ping"}',
  '',
  'event: content_block_delta',
  'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Recorded "}}',
  '',
  'event: content_block_delta',
  'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"héllo ✓"}}',
  '',
  'event: content_block_stop',
  'data: {"type":"content_block_stop","index":0}',
  '',
  'event: message_delta',
  'data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":6}}',
  '',
  'event: message_stop',
  'data: {"type":"message_stop"}',
  '',
  '',
].join('\n');

/** A Chat Completions stream with CRLF line ends, as some proxies send it. */
const OPENAI_RECORDING = [
  'data: {"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_eb9dce56a8","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}',
  '',
  'data: {"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_eb9dce56a8","choices":[{"index":0,"delta":{"content":"Recorded"},"logprobs":null,"finish_reason":null}]}',
  '',
  'data: {"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_eb9dce56a8","choices":[{"index":0,"delta":{"content":" answer"},"logprobs":null,"finish_reason":null}]}',
  '',
  'data: {"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_eb9dce56a8","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}',
  '',
  'data: [DONE]',
  '',
  '',
].join('\r\n');

/** A Responses API stream, shortened from a real one: every event named, numbered from 0. */
const RESPONSE = (status: string, output: string, usage: string) =>
  `{"id":"resp_0775572d10a16b66","object":"response","created_at":1787659560,"status":"${status}","error":null,"incomplete_details":null,"instructions":null,"model":"gpt-5.1-2025-11-13","output":[${output}],"parallel_tool_calls":true,"tool_choice":"auto","tools":[],"usage":${usage},"metadata":{}}`;
const MESSAGE = (status: string, text: string) =>
  `{"id":"msg_0775572d","type":"message","status":"${status}","content":[${text}],"role":"assistant"}`;
const PART = (text: string) => `{"type":"output_text","annotations":[],"logprobs":[],"text":"${text}"}`;
const RESPONSES_RECORDING = [
  ['response.created', `"response":${RESPONSE('in_progress', '', 'null')},"sequence_number":0`],
  ['response.in_progress', `"response":${RESPONSE('in_progress', '', 'null')},"sequence_number":1`],
  ['response.output_item.added', `"item":${MESSAGE('in_progress', '')},"output_index":0,"sequence_number":2`],
  [
    'response.content_part.added',
    `"content_index":0,"item_id":"msg_0775572d","output_index":0,"part":${PART('')},"sequence_number":3`,
  ],
  [
    'response.output_text.delta',
    `"content_index":0,"delta":"Recorded","item_id":"msg_0775572d","logprobs":[],"output_index":0,"sequence_number":4`,
  ],
  [
    'response.output_text.done',
    `"content_index":0,"item_id":"msg_0775572d","logprobs":[],"output_index":0,"sequence_number":5,"text":"Recorded"`,
  ],
  [
    'response.content_part.done',
    `"content_index":0,"item_id":"msg_0775572d","output_index":0,"part":${PART('Recorded')},"sequence_number":6`,
  ],
  [
    'response.output_item.done',
    `"item":${MESSAGE('completed', PART('Recorded'))},"output_index":0,"sequence_number":7`,
  ],
  [
    'response.completed',
    `"response":${RESPONSE('completed', MESSAGE('completed', PART('Recorded')), '{"input_tokens":12,"input_tokens_details":{"cached_tokens":0},"output_tokens":2,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":14}')},"sequence_number":8`,
  ],
]
  .map(([type, fields]) => `event: ${type}\ndata: {"type":"${type}",${fields}}\n\n`)
  .join('');

/** The events of a recording, each with its blank line, as a test writes them out by hand. */
const OPENAI_EVENTS = OPENAI_RECORDING.split(/(?<=\r\n\r\n)/);

/** POSTs a request to the fake and returns the raw answer. */
async function post(url: string, path: string, body: object) {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** Starts a fake with `turns`, runs `body` against it, and closes it. */
async function withFake(
  api: FakeApi,
  turns: FakeTurn[],
  body: (url: string, fake: FakeProvider) => Promise<void>,
) {
  const fake = await startFakeProvider(api, turns);
  try {
    await body(fake.url, fake);
  } finally {
    await fake.close();
  }
}

const anthropicRequest = {
  model: 'claude-fake-1',
  max_tokens: 100,
  stream: true,
  messages: [{ role: 'user', content: 'hi' }],
};
const openaiRequest = { model: 'gpt-fake', stream: true, messages: [{ role: 'user', content: 'hi' }] };

describe('recorded turns', () => {
  test('a recorded Anthropic body comes back byte-exact, with the SSE status and headers', async () => {
    await withFake('anthropic', [{ recorded: ANTHROPIC_RECORDING, text: 'ignored' }], async (url) => {
      const { status, headers, text } = await post(url, '/v1/messages', anthropicRequest);
      assert.equal(status, 200);
      assert.match(headers.get('content-type') ?? '', /^text\/event-stream\b/);
      assert.equal(headers.get('request-id'), 'req_fake_0001');
      // The recording's model and ids stay as recorded, even though the request named another model.
      assert.equal(text, ANTHROPIC_RECORDING);
    });
  });

  test('a recorded OpenAI body with CRLF line ends comes back byte-exact', async () => {
    assert.ok(OPENAI_EVENTS.length === 5 && OPENAI_EVENTS.join('') === OPENAI_RECORDING, 'control');
    await withFake('openai', [{ recorded: OPENAI_RECORDING }], async (url) => {
      const { status, headers, text } = await post(url, '/chat/completions', openaiRequest);
      assert.equal(status, 200);
      assert.match(headers.get('content-type') ?? '', /^text\/event-stream\b/);
      assert.equal(headers.get('x-request-id'), 'req_fake_0001');
      assert.equal(text, OPENAI_RECORDING);
    });
  });

  test('the real SDKs read recorded bodies as they read the API', async () => {
    await withFake('anthropic', [{ recorded: ANTHROPIC_RECORDING }], async (url) => {
      const client = new Anthropic({ baseURL: url, apiKey: 'k', maxRetries: 0, logLevel: 'off' });
      const message = await client.messages
        .stream({ model: 'claude-fake-1', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] })
        .finalMessage();
      assert.equal(message.id, 'msg_01XFDUDYJgAACzvnptvVoYEL');
      assert.equal(message.model, 'claude-sonnet-4-5-20250929');
      assert.deepEqual(message.content, [{ type: 'text', text: 'Recorded héllo ✓' }]);
      assert.equal(message.usage.output_tokens, 6);
    });
    await withFake('openai', [{ recorded: OPENAI_RECORDING }], async (url) => {
      const client = new OpenAI({ baseURL: url, apiKey: 'k', maxRetries: 0, logLevel: 'off' });
      const completion = await client.chat.completions
        .stream({ model: 'gpt-fake', messages: [{ role: 'user', content: 'hi' }] })
        .finalChatCompletion();
      assert.equal(completion.id, 'chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG');
      assert.equal(completion.choices[0]?.message.content, 'Recorded answer');
      assert.equal(completion.choices[0]?.finish_reason, 'stop');
    });
  });

  test('a recorded Responses body is served by the openai-responses fake as it is', async () => {
    await withFake('openai-responses', [{ recorded: RESPONSES_RECORDING }], async (url) => {
      const raw = await post(url, '/responses', { model: 'gpt-fake', input: 'hi', stream: true });
      assert.equal(raw.text, RESPONSES_RECORDING);
    });
    await withFake('openai-responses', [{ recorded: RESPONSES_RECORDING }], async (url) => {
      const client = new OpenAI({ baseURL: url, apiKey: 'k', maxRetries: 0, logLevel: 'off' });
      const response = await client.responses.stream({ model: 'gpt-fake', input: 'hi' }).finalResponse();
      assert.equal(response.id, 'resp_0775572d10a16b66');
      assert.equal(response.output_text, 'Recorded');
      assert.equal(response.usage?.total_tokens, 14);
    });
  });

  test('afterEvents counts the recorded events: truncate, error_event and drop cut at blank lines', async () => {
    const turns: FakeTurn[] = [
      { recorded: OPENAI_RECORDING, fault: { kind: 'truncate', afterEvents: 2 } },
      {
        recorded: OPENAI_RECORDING,
        fault: { kind: 'error_event', afterEvents: 3, message: 'mid-recording' },
      },
      { recorded: OPENAI_RECORDING, fault: { kind: 'truncate', afterEvents: 99 } },
    ];
    await withFake('openai', turns, async (url) => {
      assert.equal(
        (await post(url, '/chat/completions', openaiRequest)).text,
        OPENAI_EVENTS.slice(0, 2).join(''),
      );
      const errored = (await post(url, '/chat/completions', openaiRequest)).text;
      assert.ok(errored.startsWith(OPENAI_EVENTS.slice(0, 3).join('')), errored);
      const tail = errored.slice(OPENAI_EVENTS.slice(0, 3).join('').length);
      assert.match(tail, /^data: \{"error":\{"message":"mid-recording"/);
      // A fault past the end happens after the whole recording.
      assert.equal((await post(url, '/chat/completions', openaiRequest)).text, OPENAI_RECORDING);
    });
    // The Anthropic recording has eight events, the ping among them: the SDK sees both text deltas
    // (the fourth and fifth events) only when the drop comes after the fifth.
    await withFake(
      'anthropic',
      [
        { recorded: ANTHROPIC_RECORDING, fault: { kind: 'drop', afterEvents: 4 } },
        { recorded: ANTHROPIC_RECORDING, fault: { kind: 'drop', afterEvents: 5 } },
      ],
      async (url) => {
        const client = new Anthropic({ baseURL: url, apiKey: 'k', maxRetries: 0, logLevel: 'off' });
        for (const expected of [['Recorded '], ['Recorded ', 'héllo ✓']]) {
          const texts: string[] = [];
          const stream = client.messages.stream({
            model: 'claude-fake-1',
            max_tokens: 100,
            messages: [{ role: 'user', content: 'hi' }],
          });
          stream.on('text', (delta) => texts.push(delta));
          await assert.rejects(stream.finalMessage());
          assert.deepEqual(texts, expected);
        }
      },
    );
  });

  test('chunkDelayMs waits between recorded events', async () => {
    await withFake('openai', [{ recorded: OPENAI_RECORDING, chunkDelayMs: 40 }], async (url) => {
      const started = performance.now();
      assert.equal((await post(url, '/chat/completions', openaiRequest)).text, OPENAI_RECORDING);
      // Five events, four gaps of 40 ms.
      assert.ok(performance.now() - started >= 150);
    });
  });

  test('a non-streaming request to a recorded turn gets a 500 saying why, not retried', async () => {
    await withFake('anthropic', [{ recorded: ANTHROPIC_RECORDING }], async (url) => {
      const { status, headers, text } = await post(url, '/v1/messages', {
        ...anthropicRequest,
        stream: false,
      });
      assert.equal(status, 500);
      assert.equal(headers.get('x-should-retry'), 'false');
      const body = JSON.parse(text) as { type: string; error: { type: string; message: string } };
      assert.equal(body.type, 'error');
      assert.match(body.error.message, /recorded turns only answer streaming requests/);
    });
    await withFake('openai', [{ recorded: OPENAI_RECORDING }], async (url, fake) => {
      const client = new OpenAI({ baseURL: url, apiKey: 'k', maxRetries: 2, logLevel: 'off' });
      const error = await client.chat.completions
        .create({ model: 'gpt-fake', messages: [{ role: 'user', content: 'hi' }] })
        .then(
          () => assert.fail('expected the request to fail'),
          (error: unknown) => error,
        );
      assert.ok(error instanceof OpenAI.InternalServerError, `got ${String(error)}`);
      assert.match(error.message, /recorded turns only answer streaming requests/);
      assert.equal(fake.requests.length, 1, 'x-should-retry: false stopped the retries');
    });
  });

  test('an http_error fault still answers with the error instead of the recording', async () => {
    const fault = { kind: 'http_error' as const, status: 529 };
    await withFake('anthropic', [{ recorded: ANTHROPIC_RECORDING, fault }], async (url) => {
      const { status, text } = await post(url, '/v1/messages', anthropicRequest);
      assert.equal(status, 529);
      assert.match(text, /overloaded_error/);
    });
  });
});
