/**
 * The model fallback chain end to end (agent/fallback.ts): the built server over stdio, the real
 * Anthropic and OpenAI SDKs, a fake Anthropic and a fake OpenAI-compatible provider on loopback.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type FakeProvider, startFakeProvider } from '../../conformance-tests/src/fake-providers/index.ts';
import { CANARY_KEY, suiteHarnesses, textOf } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();
const result = (response: Json) => response.result as Json;
const statusLines = (phases: Json[]) =>
  phases.filter((p) => p.type === 'status').map((p) => p.text as string);

/** A fake OpenAI-compatible provider, closed after the file's tests by its harness's `close`. */
async function openAiFake(turns: Parameters<typeof startFakeProvider>[1]): Promise<FakeProvider> {
  return startFakeProvider('openai', turns);
}

const OVERLOADED = { fault: { kind: 'http_error', status: 529 }, repeat: true } as const;

describe('model fallback chain', () => {
  test('an overloaded Anthropic model falls back to an OpenAI-compatible one mid-session; the run completes, the history converted', async () => {
    const openai = await openAiFake([
      { toolCalls: [{ name: 'list_dir', args: { path: '.' } }] },
      { text: 'Done on the fallback.' },
      { text: 'Still on the fallback.' },
    ]);
    const h = await start(
      'anthropic',
      [
        // The first prompt is answered by Anthropic, with thinking and a tool call in its history.
        {
          thinking: 'Looking first.',
          signature: 'sig-anthropic',
          toolCalls: [{ name: 'list_dir', args: { path: '.' } }],
        },
        { text: 'Anthropic answered.' },
        OVERLOADED,
      ],
      { OPENAI_API_KEY: CANARY_KEY, OPENAI_BASE_URL: openai.url },
      { fallbackModels: ['openai/gpt-4o'] },
    );
    try {
      const first = await h.prompt({ text: 'Look around' });
      assert.equal(result(first.response).status, 'completed');
      assert.equal(result(first.response).modelUsage, undefined, 'a run its own model answered has no split');
      const sessionId = result(first.response).sessionId as string;
      const anthropicCalls = h.fake.requests.length;

      const second = await h.prompt({ text: 'Now finish', sessionId });
      const outcome = result(second.response);
      assert.equal(
        outcome.status,
        'completed',
        JSON.stringify(second.phases.filter((p) => p.type === 'error')),
      );
      assert.equal(outcome.output, 'Done on the fallback.');
      assert.equal(textOf(second.phases), 'Done on the fallback.');
      // One line says it fell back, which model failed and which one answers; no error phase.
      const fellBack = statusLines(second.phases).filter((line) => line.startsWith('Falling back'));
      assert.equal(fellBack.length, 1, statusLines(second.phases).join('\n'));
      assert.match(
        fellBack[0] ?? '',
        /^Falling back to openai\/gpt-4o: anthropic\/claude-sonnet-4-5 failed \(.*overloaded/,
      );
      assert.ok(!second.phases.some((p) => p.type === 'error'));
      // Anthropic was tried with its retries (4 attempts), then the OpenAI fake got the whole conversation.
      assert.equal(h.fake.requests.length, anthropicCalls + 4);
      const sent = openai.requests[0]?.body as { model: string; messages: Json[] };
      assert.equal(sent.model, 'gpt-4o');
      const wire = JSON.stringify(sent.messages);
      assert.match(wire, /Look around/);
      assert.match(wire, /Anthropic answered\./);
      assert.match(wire, /Now finish/);
      // Anthropic's tool call and its result keep one id on the OpenAI wire; its signed thinking is not sent.
      const call = sent.messages.find((m) => Array.isArray(m.tool_calls)) as {
        tool_calls: Array<{ id: string }>;
      };
      const callId = call.tool_calls[0]?.id;
      assert.ok(
        sent.messages.some((m) => m.role === 'tool' && m.tool_call_id === callId),
        wire,
      );
      assert.ok(!wire.includes('sig-anthropic'));
      // The OpenAI model's own tool call ran and its result went back to it.
      assert.equal(openai.requests.length, 2);

      // Usage per model: the usage phases of the fallback's calls name it, the result splits the run.
      // (The failed Anthropic call counted nothing: its usage phase is zero, at the run's model.)
      const usages = second.phases.filter((p) => p.type === 'usage');
      const counted = usages.filter((p) => (p.usage as Json).inputTokens !== 0);
      assert.equal(counted.length, 2);
      assert.ok(
        counted.every((p) => p.model === 'openai/gpt-4o'),
        JSON.stringify(usages),
      );
      assert.ok(
        usages.filter((p) => !counted.includes(p)).every((p) => p.model === undefined && p.costUsd === 0),
      );
      // Only the fallback counted anything: the run's cost is at its prices, and the split says whose.
      const byModel = outcome.modelUsage as Array<{ model: string; costUsd: number; usage: Json }>;
      assert.deepEqual(
        byModel.map((share) => share.model),
        ['openai/gpt-4o'],
      );
      assert.equal(outcome.costUsd, byModel[0]?.costUsd);
      assert.equal(
        outcome.costUsd,
        counted.reduce((sum, p) => sum + (p.costUsd as number), 0),
      );

      // The next prompt starts on the fallback (Anthropic cools down) and says so in one line.
      const third = await h.prompt({ text: 'And again', sessionId });
      assert.equal(result(third.response).output, 'Still on the fallback.');
      assert.equal(h.fake.requests.length, anthropicCalls + 4, 'a model cooling down is not called');
      assert.match(
        statusLines(third.phases).join('\n'),
        /Continuing on openai\/gpt-4o: anthropic\/claude-sonnet-4-5 failed recently/,
      );
    } finally {
      await openai.close();
    }
  });

  test('a run both models answered counts usage and cost per model, each at its own prices', async () => {
    const openai = await openAiFake([
      { text: 'Finished by OpenAI.', usage: { inputTokens: 2000, outputTokens: 100 } },
    ]);
    const h = await start(
      'anthropic',
      [
        {
          toolCalls: [{ name: 'list_dir', args: { path: '.' } }],
          usage: { inputTokens: 1000, outputTokens: 50 },
        },
        { fault: { kind: 'http_error', status: 500 }, repeat: true },
      ],
      { OPENAI_API_KEY: CANARY_KEY, OPENAI_BASE_URL: openai.url },
    );
    try {
      // The prompt's own list stands in for the (absent) configured one.
      const { response, phases } = await h.prompt({ text: 'Work', fallbackModels: ['openai/gpt-4o'] });
      const outcome = result(response);
      assert.equal(outcome.status, 'completed');
      const byModel = outcome.modelUsage as Array<{ model: string; costUsd: number; usage: Json }>;
      assert.deepEqual(
        byModel.map((entry) => [entry.model, entry.usage.inputTokens, entry.usage.outputTokens]),
        [
          ['anthropic/claude-sonnet-4-5', 1000, 50],
          ['openai/gpt-4o', 2000, 100],
        ],
      );
      // claude-sonnet-4-5: $3 / $15 per MTok; gpt-4o: $2.50 / $10 per MTok.
      const anthropicCost = (1000 * 3 + 50 * 15) / 1e6;
      const openaiCost = (2000 * 2.5 + 100 * 10) / 1e6;
      assert.ok(Math.abs((byModel[0]?.costUsd ?? 0) - anthropicCost) < 1e-12, String(byModel[0]?.costUsd));
      assert.ok(Math.abs((byModel[1]?.costUsd ?? 0) - openaiCost) < 1e-12, String(byModel[1]?.costUsd));
      assert.ok(Math.abs((outcome.costUsd as number) - (anthropicCost + openaiCost)) < 1e-12);
      const usages = phases.filter((p) => p.type === 'usage');
      assert.equal(usages.at(-1)?.model, 'openai/gpt-4o');
      assert.ok(Math.abs((usages.at(-1)?.costUsd as number) - openaiCost) < 1e-12);
      assert.ok(Math.abs((usages.at(-1)?.runCostUsd as number) - (anthropicCost + openaiCost)) < 1e-12);
    } finally {
      await openai.close();
    }
  });

  test('a refusal does not fall back: the answer is the refusal, and the fallback is never called', async () => {
    const openai = await openAiFake([{ text: 'should not be asked' }]);
    const refusal = [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"c","usage":{"input_tokens":9,"output_tokens":1}}}\n\n',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"refusal","stop_details":{"type":"refusal","category":"cyber","explanation":null}},"usage":{"output_tokens":1}}\n\n',
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ].join('');
    const h = await start(
      'anthropic',
      [{ recorded: refusal }],
      { OPENAI_API_KEY: CANARY_KEY, OPENAI_BASE_URL: openai.url },
      { fallbackModels: ['openai/gpt-4o'] },
    );
    try {
      const { response, phases } = await h.prompt({ text: 'Something refused' });
      assert.equal(result(response).stopReason, 'refusal');
      assert.match(result(response).output as string, /declined to answer/);
      assert.equal(openai.requests.length, 0);
      assert.ok(!statusLines(phases).some((line) => line.startsWith('Falling back')));
    } finally {
      await openai.close();
    }
  });

  test('a rejected key does not fall back to a model of the same provider, and the error says so', async () => {
    const h = await start(
      'anthropic',
      [{ fault: { kind: 'http_error', status: 401 }, repeat: true }],
      {},
      { fallbackModels: ['anthropic/claude-haiku-4-5', 'nonexistent-provider/some-model'] },
    );
    const { response, phases } = await h.prompt({ text: 'hi' });
    assert.equal(result(response).status, 'error');
    const error = phases.find((p) => p.type === 'error');
    assert.equal(error?.code, 'auth');
    assert.equal(h.fake.requests.length, 1, 'one call: the other Anthropic model would be refused too');
    // A listed model that cannot be used is said at the start, not on the day it is needed.
    assert.match(
      statusLines(phases).join('\n'),
      /The fallback model nonexistent-provider\/some-model cannot be used, so it is left out: Unknown provider/,
    );
  });
});
