/**
 * `prompt` end to end: the built server over stdio, the real SDKs, fake providers on loopback.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CANARY_KEY, suiteHarnesses, textOf } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();

const result = (response: Json) => response.result as Json;

function assertSeq(phases: Json[]): void {
  const seqs = phases.map((p) => p.seq as number);
  for (let i = 1; i < seqs.length; i++)
    assert.equal(seqs[i], (seqs[i - 1] as number) + 1, `seq gap at ${i}: ${seqs.join(',')}`);
}

describe('prompt with Anthropic', () => {
  test('agent takes precedence over mode: with both, the agent runs and mode is ignored (§7.1)', async () => {
    const h = await start('anthropic', [{ text: 'from the tester' }]);
    const { response, phases } = await h.prompt({ text: 'hi', agent: 'tester', mode: 'simple_chat' });
    assert.equal((response.result as Json).output, 'from the tester');
    const complete = phases.find((p) => p.type === 'complete' && p.parentAgentId === undefined);
    assert.equal(complete?.agentId, 'tester');
    const system = JSON.stringify(h.fake.requests[0]?.body.system);
    assert.match(system, /You are the test agent/);
  });

  test('streams text, reports usage and cost, and sends the key and the cached system prompt', async () => {
    const h = await start('anthropic', [
      {
        text: ['Hel', 'lo, ', 'world.'],
        usage: { inputTokens: 1200, outputTokens: 30, cacheReadTokens: 800, cacheWriteTokens: 100 },
      },
    ]);
    const { response, phases } = await h.prompt({ text: 'Say hello' });
    const outcome = result(response);
    assert.equal(outcome.status, 'completed');
    assert.equal(outcome.output, 'Hello, world.');
    assert.equal(textOf(phases), 'Hello, world.');
    assert.deepEqual(outcome.usage, {
      inputTokens: 1200,
      outputTokens: 30,
      cacheReadTokens: 800,
      cacheWriteTokens: 100,
    });
    assert.ok((outcome.costUsd as number) > 0, 'a priced model costs something');
    assert.equal(phases.at(-1)?.type, 'complete');
    assert.equal(phases[0]?.seq, 1);
    assertSeq(phases);
    const request = h.fake.requests[0];
    assert.ok(
      [request?.headers['x-api-key'], request?.headers.authorization].some((h) => h?.includes(CANARY_KEY)),
      'the key is sent',
    );
    assert.equal(request?.body.model, 'claude-sonnet-4-5');
    assert.deepEqual(request?.body.system.at(-1).cache_control, { type: 'ephemeral' });
    assert.equal(request?.body.messages.at(-1).content[0].text, 'Say hello');
  });

  test('thinking streams as thinking phases and its signature goes back on the next turn', async () => {
    const h = await start(
      'anthropic',
      [{ thinking: ['Let me ', 'think.'], text: 'Four.' }, { text: 'Five.' }],
      {},
      // The effort is for adaptive-thinking models only: not sent to Sonnet 4.5.
      { agent: { thinkingBudgetTokens: 2048, effort: 'high' } },
    );
    const first = await h.prompt({ text: 'What is 2+2?' });
    assert.equal(textOf(first.phases, 'thinking'), 'Let me think.');
    const sessionId = result(first.response).sessionId;
    const second = await h.prompt({ text: 'And 2+3?', sessionId });
    assert.equal(result(second.response).output, 'Five.');
    const sessionCost = result(second.response).sessionCostUsd as number;
    assert.ok(
      Math.abs(
        sessionCost -
          (result(first.response).costUsd as number) -
          (result(second.response).costUsd as number),
      ) < 1e-12,
      'the session cost is the sum of its runs',
    );
    assert.ok(
      (second.phases[0]?.seq as number) > (first.phases.at(-1)?.seq as number),
      'seq continues in the session',
    );
    assert.deepEqual(h.fake.requests[0]?.body.thinking, { type: 'enabled', budget_tokens: 2048 });
    assert.equal(h.fake.requests[0]?.body.output_config, undefined);
    assert.ok(
      h.fake.requests[0]?.body.max_tokens > 2048,
      'max_tokens leaves room beyond the thinking budget',
    );
    const history = h.fake.requests[1]?.body.messages as Json[];
    const thinking = (history[1]?.content as Json[]).find((block) => block.type === 'thinking');
    assert.equal(thinking?.thinking, 'Let me think.');
    assert.equal(typeof thinking?.signature, 'string');
  });

  test('current Claude models think adaptively, with room in max_tokens; thinking goes back only to the model that wrote it', async () => {
    const h = await start(
      'anthropic',
      [{ thinking: ['Adding ', 'up.'], text: 'Four.' }, { text: 'Five.' }],
      { SANTRA_MODEL: 'anthropic/claude-sonnet-5-5' },
      { agent: { thinkingBudgetTokens: 2048, maxOutputTokens: 4000, effort: 'medium' } },
    );
    const first = await h.prompt({ text: 'What is 2+2?' });
    assert.equal(textOf(first.phases, 'thinking'), 'Adding up.');
    const sent = h.fake.requests[0]?.body;
    // A budget is refused by these models: the configured one is not sent.
    assert.deepEqual(sent?.thinking, { type: 'adaptive', display: 'summarized' });
    assert.deepEqual(sent?.output_config, { effort: 'medium' });
    assert.equal(sent?.max_tokens, 4000 + 16_384);
    const sessionId = result(first.response).sessionId;
    const set = h.nextId();
    h.client.request(set, 'model/set', { model: 'anthropic/claude-opus-5-5' });
    assert.equal((await h.client.response(set)).error, undefined);
    const second = await h.prompt({ text: 'And 2+3?', sessionId });
    assert.equal(result(second.response).output, 'Five.');
    assert.equal(h.fake.requests[1]?.body.model, 'claude-opus-5-5');
    const history = h.fake.requests[1]?.body.messages as Json[];
    assert.deepEqual(
      history[1]?.content,
      [{ type: 'text', text: 'Four.' }],
      "sonnet's thinking is not sent to opus",
    );
  });

  test('a session that changes agent sends thinking back only to the agent that wrote it', async () => {
    const h = await start(
      'anthropic',
      [{ thinking: ['Tool work.'], text: 'Done.' }, { text: 'Hi!' }, { text: 'Again.' }],
      { SANTRA_MODEL: 'anthropic/claude-sonnet-5-5' },
      undefined,
      { generalist: false },
    );
    // The orchestrator, then the chat agent, then the orchestrator again, in one session.
    const first = await h.prompt({ text: 'Check the build in src/app.ts' });
    const sessionId = result(first.response).sessionId;
    await h.prompt({ text: 'hello', sessionId });
    await h.prompt({ text: 'Check the build in src/app.ts again', sessionId });
    const thinkingIn = (index: number) =>
      (h.fake.requests[index]?.body.messages as Json[]).flatMap((message) =>
        Array.isArray(message.content)
          ? (message.content as Json[]).filter((b) => b.type === 'thinking')
          : [],
      );
    // The chat agent has another system prompt and no tools: the orchestrator's thinking is not its to see.
    assert.deepEqual(thinkingIn(1), []);
    assert.equal(h.fake.requests[1]?.body.tools, undefined);
    assert.deepEqual(
      thinkingIn(2).map((block) => block.thinking),
      ['Tool work.'],
    );
  });

  test('a tool-call round trip: think, then task_completed ends the run with its result', async () => {
    const h = await start('anthropic', [
      { toolCalls: [{ id: 'toolu_1', name: 'think', args: { content: 'Plan: answer directly.' } }] },
      { toolCalls: [{ id: 'toolu_2', name: 'task_completed', args: { result: 'All done.' } }] },
    ]);
    const { response, phases } = await h.prompt({ text: 'Do it' });
    assert.equal(result(response).status, 'completed');
    assert.equal(result(response).output, 'All done.');
    assert.equal(textOf(phases, 'thinking'), 'Plan: answer directly.');
    const toolPhases = phases.filter((p) => p.type === 'tool_call').map((p) => p.toolName);
    assert.deepEqual(toolPhases, ['task_completed']);
    const second = h.fake.requests[1]?.body.messages as Json[];
    const toolResult = (second.at(-1)?.content as Json[])[0];
    assert.equal(toolResult?.type, 'tool_result');
    assert.equal(toolResult?.tool_use_id, 'toolu_1');
    const offered = (h.fake.requests[0]?.body.tools as Json[]).map((tool) => tool.name);
    for (const name of [
      'read_file',
      'write_file',
      'str_replace',
      'run_command',
      'grep_search',
      'think',
      'task_completed',
    ]) {
      assert.ok(offered.includes(name), `${name} is offered`);
    }
  });

  test('invalid tool arguments go back to the model as an error it can correct', async () => {
    const h = await start('anthropic', [
      { toolCalls: [{ id: 'toolu_a', name: 'task_completed', args: { outcome: 42 } }] },
      { toolCalls: [{ id: 'toolu_b', name: 'task_completed', args: { result: 'fixed' } }] },
    ]);
    const { response } = await h.prompt({ text: 'go' });
    assert.equal(result(response).output, 'fixed');
    const feedback = ((h.fake.requests[1]?.body.messages as Json[]).at(-1)?.content as Json[])[0];
    assert.equal(feedback?.is_error, true);
    assert.match(
      String(feedback?.content),
      /Invalid arguments for task_completed: result: .*expected string/,
    );
  });

  test('a provider id seen before does not stop a new call: it runs under an id of its own', async () => {
    const h = await start('anthropic', [
      { toolCalls: [{ id: 'toolu_same', name: 'think', args: { content: 'once' } }] },
      { toolCalls: [{ id: 'toolu_same', name: 'think', args: { content: 'twice' } }] },
      { text: 'ok' },
    ]);
    const { phases } = await h.prompt({ text: 'go' });
    assert.equal(textOf(phases, 'thinking'), 'oncetwice');
    const feedback = ((h.fake.requests[2]?.body.messages as Json[]).at(-1)?.content as Json[])[0];
    assert.notEqual(feedback?.is_error, true);
    assert.notEqual(feedback?.tool_use_id, 'toolu_same');
  });

  test('more tool calls than the cap in one response: the rest are refused, not run', async () => {
    const calls = Array.from({ length: 10 }, (_, i) => ({
      id: `toolu_${i}`,
      name: 'think',
      args: { content: `t${i}` },
    }));
    const h = await start('anthropic', [{ toolCalls: calls }, { text: 'done' }]);
    const { phases } = await h.prompt({ text: 'go' });
    assert.equal(textOf(phases, 'thinking'), 't0t1t2t3t4t5t6t7');
    const results = (h.fake.requests[1]?.body.messages as Json[]).at(-1)?.content as Json[];
    assert.equal(results.length, 10);
    assert.match(String(results[9]?.content), /at most 8 tool calls/);
  });

  test('arguments cut off by max_tokens are never executed', async () => {
    const h = await start('anthropic', [
      {
        toolCalls: [{ id: 'toolu_cut', name: 'task_completed', args: { raw: '{"result": "half' } }],
        stopReason: 'max_tokens',
      },
      { text: 'retrying smaller' },
    ]);
    const { response } = await h.prompt({ text: 'go' });
    assert.equal(result(response).output, 'retrying smaller');
    const feedback = ((h.fake.requests[1]?.body.messages as Json[]).at(-1)?.content as Json[])[0];
    assert.match(String(feedback?.content), /cut off/);
  });
});

describe('prompt with an OpenAI-compatible endpoint', () => {
  test('streams text and reasoning, uses include_usage, and splits cached tokens out of input', async () => {
    const h = await start('openai', [
      {
        thinking: 'Hmm.',
        text: ['Bon', 'jour'],
        usage: { inputTokens: 500, outputTokens: 12, cacheReadTokens: 200 },
      },
    ]);
    const { response, phases } = await h.prompt({ text: 'Say hi in French' });
    assert.equal(result(response).output, 'Bonjour');
    assert.equal(textOf(phases, 'thinking'), 'Hmm.');
    // The fake reports 500 uncached + 200 cached as prompt_tokens 700, and half the output as
    // reasoning tokens for a turn that thinks.
    assert.deepEqual(result(response).usage, {
      inputTokens: 500,
      outputTokens: 12,
      cacheReadTokens: 200,
      cacheWriteTokens: 0,
      reasoningTokens: 6,
    });
    const request = h.fake.requests[0];
    assert.equal(request?.headers.authorization, `Bearer ${CANARY_KEY}`);
    assert.deepEqual(request?.body.stream_options, { include_usage: true });
    assert.equal(request?.body.model, 'gpt-4o');
  });

  test('with OPENAI_BASE_URL any model id is served by that endpoint; missing usage is estimated', async () => {
    const h = await start('openai', [{ text: 'local answer', omitUsage: true }], {
      SANTRA_MODEL: 'qwen2.5-coder:7b',
    });
    const { response } = await h.prompt({ text: 'hi' });
    assert.equal(result(response).output, 'local answer');
    assert.equal((result(response).usage as Json).estimated, true);
    assert.equal(h.fake.requests[0]?.body.model, 'qwen2.5-coder:7b');
  });

  test('tool calls accumulated by index run and their results go back as tool messages', async () => {
    const h = await start('openai', [
      {
        toolCalls: [
          { id: 'call_1', name: 'think', args: { content: 'a' } },
          { id: 'call_2', name: 'think', args: { content: 'b' } },
        ],
      },
      { text: 'done' },
    ]);
    const { response, phases } = await h.prompt({ text: 'go' });
    assert.equal(result(response).output, 'done');
    assert.equal(textOf(phases, 'thinking'), 'ab');
    const messages = h.fake.requests[1]?.body.messages as Json[];
    assert.deepEqual(
      messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id),
      ['call_1', 'call_2'],
    );
  });

  test('a model without native tools uses the text protocol, parsed across any chunk boundary', async () => {
    const config = {
      providers: {
        box: { api: 'openai', baseUrl: 'FAKE_URL', models: ['tiny'], compat: { nativeTools: false } },
      },
      model: 'box/tiny',
    };
    const markup =
      'Let me finish.<status>Wrapping up</status><tool_call name="task_completed">{"result": "done via text",}</tool_call>';
    const chunks = markup.match(/.{1,3}/gs) ?? [];
    const h = await start('openai', [{ text: chunks }], { SANTRA_MODEL: '' }, config);
    const { response, phases } = await h.prompt({ text: 'go' });
    assert.equal(result(response).output, 'done via text');
    assert.equal(textOf(phases), 'Let me finish.');
    assert.ok(phases.some((p) => p.type === 'status' && p.text === 'Wrapping up'));
    const request = h.fake.requests[0];
    assert.equal(request?.body.tools, undefined);
    assert.match(String((request?.body.messages as Json[])[0]?.content), /<tool_call name=/);
  });
});

describe("streamed text and the client's drawing interval (§7.2)", () => {
  const streamed = async (capabilities: Json, config?: unknown) => {
    const h = await start('anthropic', [{ generate: { tokens: 80, tokensPerSecond: 200 } }], {}, config, {
      capabilities,
    });
    const { response, phases } = await h.prompt({ text: 'Write a paragraph', mode: 'simple_chat' });
    const texts = phases.filter((p) => p.type === 'text');
    return { output: result(response).output, text: textOf(phases), count: texts.length };
  };

  test('a client that draws every 50 ms gets the deltas of a 200 tokens/s stream merged: far fewer, same text', async () => {
    const every = await streamed({});
    const merged = await streamed({ textIntervalMs: 50 });
    assert.equal(every.text, every.output);
    assert.equal(merged.text, merged.output);
    assert.equal(merged.text.length, every.text.length);
    // 80 tokens over 400 ms: about 40 phases held 8 ms at a time, about 9 held 50 ms.
    assert.ok(merged.count * 2 < every.count, `${merged.count} phases against ${every.count}`);
  });

  test('a config that turns merging off (coalesceMs 0) is not overridden by the client', async () => {
    const off = await streamed({ textIntervalMs: 50 }, { stream: { coalesceMs: 0 } });
    assert.ok(off.count >= 40, `${off.count} phases for 80 tokens`);
  });
});
