/**
 * Every failure of a model call ends in a clear error phase or a successful retry — never a hang.
 * The built server over stdio, the real SDKs, faults injected by the fake providers.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { suiteHarnesses, textOf } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();

const outcome = (response: Json) => response.result as Json;
const errors = (phases: Json[]) => phases.filter((p) => p.type === 'error');
const statuses = (phases: Json[]) => phases.filter((p) => p.type === 'status').map((p) => String(p.text));

describe('retried failures', () => {
  for (const [name, api, fault] of [
    [
      '429 with retry-after',
      'anthropic',
      { kind: 'http_error', status: 429, headers: { 'retry-after': '0' } },
    ],
    ['500', 'openai', { kind: 'http_error', status: 500 }],
    ['503', 'anthropic', { kind: 'http_error', status: 503 }],
    ['529 overloaded', 'anthropic', { kind: 'http_error', status: 529, errorType: 'overloaded_error' }],
    ['a connection dropped before any output', 'openai', { kind: 'drop', afterEvents: 0 }],
    [
      'an error event before any output',
      'anthropic',
      { kind: 'error_event', afterEvents: 1, errorType: 'overloaded_error' },
    ],
    ['a stream that ends without its final event', 'openai', { kind: 'truncate', afterEvents: 1 }],
    ['malformed SSE', 'anthropic', { kind: 'malformed', afterEvents: 1 }],
  ] as const) {
    test(`${name} is retried and the run succeeds`, async () => {
      const h = await start(api, [{ fault }, { text: 'recovered' }]);
      const { response, phases } = await h.prompt({ text: 'go' });
      assert.equal(outcome(response).status, 'completed', JSON.stringify(phases));
      assert.equal(outcome(response).output, 'recovered');
      assert.equal(h.fake.requests.length, 2);
      assert.ok(
        statuses(phases).some((s) =>
          /Retrying in \d+ s \(attempt 2 of 4; giving up within [\d a-z]+ if it keeps failing\)/.test(s),
        ),
        statuses(phases).join('\n'),
      );
      assert.deepEqual(errors(phases), []);
    });
  }

  test('a stream that stalls before any output times out and is retried', async () => {
    const h = await start('anthropic', [
      { fault: { kind: 'stall', afterEvents: 1 } },
      { text: 'after the stall' },
    ]);
    const { response, phases } = await h.prompt({ text: 'go' });
    assert.equal(outcome(response).output, 'after the stall');
    assert.ok(
      statuses(phases).some((s) => /no response within 3 s/.test(s)),
      statuses(phases).join('\n'),
    );
  });

  test('a stream that stalls after output times out, keeps the text, and is not repeated', async () => {
    const h = await start('openai', [
      { text: ['first ', 'words '], fault: { kind: 'stall', afterEvents: 3 } },
      { text: 'never' },
    ]);
    const { response, phases } = await h.prompt({ text: 'go' });
    assert.equal(outcome(response).status, 'interrupted');
    assert.equal(outcome(response).output, 'first words ');
    assert.match(String(errors(phases)[0]?.message), /stalled for 1 s/);
    assert.equal(h.fake.requests.length, 1);
  });

  test('a slow first byte within the timeout is not an error', async () => {
    const h = await start('openai', [{ text: 'slow but fine', firstByteDelayMs: 300 }]);
    const { response } = await h.prompt({ text: 'go' });
    assert.equal(outcome(response).output, 'slow but fine');
    assert.equal(h.fake.requests.length, 1);
  });

  test('gives up after three retries with a clear error', async () => {
    const fault = { kind: 'http_error', status: 500 } as const;
    const h = await start('anthropic', [{ fault }, { fault }, { fault }, { fault }, { text: 'never' }]);
    const { response, phases } = await h.prompt({ text: 'go' });
    assert.equal(outcome(response).status, 'error');
    assert.equal(h.fake.requests.length, 4);
    const [error] = errors(phases);
    assert.match(String(error?.message), /server error 500.*gave up after 4 attempts/);
    assert.equal(error?.httpStatus, 500);
    assert.equal(error?.provider, 'anthropic');
  });
});

describe('failures that are not retried', () => {
  for (const [name, api, fault, message] of [
    [
      '400',
      'anthropic',
      { kind: 'http_error', status: 400, message: 'messages: bad shape' },
      /refused \(400\): messages: bad shape/,
    ],
    [
      '401',
      'anthropic',
      { kind: 'http_error', status: 401 },
      /API key was rejected \(401\)\. Check ANTHROPIC_API_KEY/,
    ],
    ['403', 'openai', { kind: 'http_error', status: 403 }, /access denied \(403\)/],
    ['404', 'openai', { kind: 'http_error', status: 404 }, /model "gpt-4o" or endpoint not found \(404\)/],
    [
      '429 with x-should-retry: false',
      'anthropic',
      { kind: 'http_error', status: 429, headers: { 'x-should-retry': 'false' } },
      /rate limited/,
    ],
    [
      '429 for a spent quota',
      'openai',
      {
        kind: 'http_error',
        status: 429,
        errorType: 'insufficient_quota',
        message: 'You exceeded your current quota',
      },
      /quota/,
    ],
    [
      '429 asking for an hour',
      'anthropic',
      { kind: 'http_error', status: 429, headers: { 'retry-after': '3600' } },
      /asks to wait 3600 s, more than Santra waits/,
    ],
  ] as const) {
    test(`${name}: one attempt and a message that says what to do`, async () => {
      const h = await start(api, [{ fault }, { text: 'never' }]);
      const { response, phases } = await h.prompt({ text: 'go' });
      assert.equal(outcome(response).status, 'error');
      assert.equal(h.fake.requests.length, 1);
      const [error] = errors(phases);
      assert.match(String(error?.message), message);
      assert.equal(error?.retryable, false);
    });
  }

  test('a connection dropped after output keeps the partial text and marks the run interrupted', async () => {
    const h = await start('openai', [
      { text: ['partial ', 'answer ', 'and more'], fault: { kind: 'drop', afterEvents: 3 } },
      { text: 'never' },
    ]);
    const { response, phases } = await h.prompt({ text: 'go' });
    assert.equal(outcome(response).status, 'interrupted');
    assert.ok(String(outcome(response).output).startsWith('partial'));
    assert.equal(h.fake.requests.length, 1, 'visible output is never retried (it would repeat)');
    assert.equal(errors(phases).length, 1);
    assert.ok(textOf(phases).startsWith('partial'));
  });
});

describe('cancellation and configuration', () => {
  test('cancelling a prompt mid-stream answers with status cancelled; the session goes on', async () => {
    // The stream never ends by itself: after two text deltas it stalls with the connection open, and
    // Santra's timeouts are set past the test's wait. Only aborting the model's stream ends the run.
    const h = await start(
      'anthropic',
      [
        {
          // message_start, content_block_start, ping, then two text deltas; then nothing more.
          text: ['partial ', 'answer ', 'never sent'],
          fault: { kind: 'stall', afterEvents: 5 },
        },
        { text: 'next prompt works' },
      ],
      { SANTRA_TIMEOUT_IDLE_MS: '600000', SANTRA_TIMEOUT_TOTAL_MS: '600000' },
    );
    const id = h.nextId();
    h.client.request(id, 'prompt', { text: 'write a lot' });
    await h.client.next((m) => m.method === 'phase' && (m.params as Json).type === 'text');
    h.client.notify('$/cancelRequest', { id });
    const response = await h.client.response(id);
    assert.equal(outcome(response).status, 'cancelled');
    // The provider reported no usage (its final event never came): estimated from what streamed.
    const usage = outcome(response).usage as Json;
    assert.equal(usage.estimated, true, 'a cancelled run that streamed text has estimated usage');
    assert.ok(Number(usage.outputTokens) >= 2, `output tokens estimated: ${JSON.stringify(usage)}`);
    assert.ok(Number(usage.inputTokens) > 0, `input tokens estimated: ${JSON.stringify(usage)}`);
    assert.equal((outcome(response).sessionUsage as Json).estimated, true);
    const complete = h.client.messages.find(
      (m) => m.method === 'phase' && (m.params as Json).type === 'complete',
    );
    assert.equal(
      (complete?.params as Json | undefined)?.status,
      'cancelled',
      'the complete phase came before the response',
    );
    h.client.messages.length = 0;
    const again = await h.prompt({ text: 'again', sessionId: outcome(response).sessionId });
    assert.equal(outcome(again.response).output, 'next prompt works');
  });

  test('no model configured: the run ends with an error saying which key to set', async () => {
    const h = await start('anthropic', [], { ANTHROPIC_API_KEY: '', SANTRA_MODEL: '' });
    const { response, phases } = await h.prompt({ text: 'hi' });
    assert.equal(outcome(response).status, 'error');
    assert.match(String(errors(phases)[0]?.message), /ANTHROPIC_API_KEY/);
  });

  test('a broken config file is reported with the file and the field; the server keeps serving', async () => {
    const h = await start('anthropic', [{ text: 'unused' }], {}, { agent: { maxTurnsPerRun: 'many' } });
    const id = h.nextId();
    h.client.request(id, 'prompt', { text: 'hi' });
    const failure = (await h.client.response(id)).error as Json;
    assert.equal(failure.code, -33006);
    assert.match(String(failure.message), /config\.json/);
    assert.match(String(failure.message), /agent\.maxTurnsPerRun/);
    h.client.request(id + 1, 'shutdown');
    assert.equal((await h.client.response(id + 1)).result, null);
  });

  test('model/list and model/set', async () => {
    const h = await start('anthropic', [{ text: 'from haiku' }]);
    const list = h.nextId();
    h.client.request(list, 'model/list', {});
    const listed = (await h.client.response(list)).result as Json;
    assert.equal(listed.current, 'anthropic/claude-sonnet-4-5');
    const models = listed.models as Json[];
    assert.ok(models.some((m) => m.ref === 'anthropic/claude-haiku-4-5' && m.configured === true));
    assert.ok(models.some((m) => m.provider === 'groq' && m.configured === false));
    const set = h.nextId();
    h.client.request(set, 'model/set', { model: 'anthropic/claude-haiku-4-5' });
    assert.deepEqual((await h.client.response(set)).result, { model: 'anthropic/claude-haiku-4-5' });
    await h.prompt({ text: 'hi' });
    assert.equal(h.fake.requests[0]?.body.model, 'claude-haiku-4-5');
    const bad = h.nextId();
    h.client.request(bad, 'model/set', { model: 'groq/llama-3.3-70b-versatile' });
    const refused = (await h.client.response(bad)).error as Json;
    assert.equal(refused.code, -33006);
    assert.match(String(refused.message), /GROQ_API_KEY/);
  });

  test('model/set refuses a provider it does not know, and a bare id it cannot place (§8.2)', async () => {
    const h = await start('anthropic', []);
    for (const model of ['nope/nothing', 'nothing']) {
      const id = h.nextId();
      h.client.request(id, 'model/set', { model });
      const refused = (await h.client.response(id)).error as Json | undefined;
      assert.equal(refused?.code, -33006, `${model} is refused with ModelUnavailable`);
    }
  });

  test('with OPENAI_BASE_URL, any model id goes to that endpoint, slashes and all (§8.2)', async () => {
    const h = await start('openai', [{ text: 'served' }]);
    const id = h.nextId();
    h.client.request(id, 'model/set', { model: 'nope/nothing' });
    assert.deepEqual((await h.client.response(id)).result, { model: 'openai/nope/nothing' });
    await h.prompt({ text: 'hi' });
    assert.equal(h.fake.requests[0]?.body.model, 'nope/nothing');
  });

  test('model/list takes no params; an unknown sessionId is refused with UnknownSession', async () => {
    const h = await start('anthropic', []);
    const bare = h.nextId();
    h.client.request(bare, 'model/list');
    assert.equal(((await h.client.response(bare)).result as Json).current, 'anthropic/claude-sonnet-4-5');
    const unknown = h.nextId();
    h.client.request(unknown, 'model/list', { sessionId: 'sess_doesnotexist' });
    assert.equal(((await h.client.response(unknown)).error as Json | undefined)?.code, -33005);
  });
});

describe('phase coalescing', () => {
  test('a fast stream becomes far fewer phases than deltas, with the text intact', async () => {
    const h = await start('openai', [{ generate: { tokens: 3000 } }]);
    const { response, phases } = await h.prompt({ text: 'go' });
    const texts = phases.filter((p) => p.type === 'text');
    assert.equal(textOf(phases), outcome(response).output);
    assert.ok(String(outcome(response).output).length > 3000);
    assert.ok(texts.length < 600, `${texts.length} text phases for 3000 deltas`);
  });
});
