/**
 * Bounded model output: an endless stream ends the run with a clear error instead of taking the
 * server's memory, and nothing the server sends exceeds the message limit it advertises.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ANSWER_KEPT, PhaseStream } from '../src/agent/phase-stream.ts';
import { fitArgs, fitText, MAX_WIRE_TEXT_BYTES, wireBytes } from '../src/agent/wire-text.ts';
import { maxResponseChars } from '../src/providers/output-bound.ts';
import { MAX_EVENT_CHARS, sseBatches } from '../src/providers/sse.ts';
import type { Phase } from '#protocol';
import { suiteHarnesses, textOf } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';
import type { RecordedRequest } from '../../conformance-tests/src/fake-providers/index.ts';

const start = suiteHarnesses();
const ADVERTISED = 16 * 1024 * 1024;

describe('an endless model stream', () => {
  for (const [api, env] of [
    ['openai', { SANTRA_MODEL: 'qwen2.5-coder:7b' }],
    ['anthropic', {}],
  ] as const) {
    test(`${api}: stops at the response bound with an output_limit error; the server keeps serving`, async () => {
      // The next prompt may first compact the runaway answer (it can pass 80% of the window).
      const summary = (request: RecordedRequest) => JSON.stringify(request.body).includes('<conversation>');
      const h = await start(
        api,
        [
          { generate: { tokens: 50_000_000 } },
          { match: summary, text: 'The model talked on and was stopped.' },
          { match: (request) => !summary(request), text: 'still here' },
        ],
        env,
      );
      const { response, phases } = await h.prompt({ text: 'talk forever' });
      const result = response.result as Json;
      assert.equal(result.status, 'interrupted');
      const errors = phases.filter((p) => p.type === 'error');
      assert.equal(errors.length, 1, JSON.stringify(errors));
      assert.equal(errors[0]?.code, 'output_limit');
      assert.equal(errors[0]?.retryable, false);
      assert.match(
        String(errors[0]?.message),
        /passed [\d,]+ characters, more than a response of at most [\d,]+ tokens/,
      );
      const streamed = textOf(phases).length;
      assert.ok(streamed > 100_000, `the text streamed until the bound (${streamed})`);
      assert.ok(streamed < 2_000_000, `and not much past it (${streamed})`);
      assert.equal(h.fake.requests.length, 1, 'a runaway answer is not retried');
      for (const message of h.client.messages) {
        const bytes = Buffer.byteLength(JSON.stringify(message));
        assert.ok(bytes <= ADVERTISED, `a ${bytes}-byte message exceeds the advertised limit`);
      }
      const next = await h.prompt({ text: 'hello?', sessionId: result.sessionId });
      assert.equal((next.response.result as Json).output, 'still here');
    });
  }

  test('the bound follows the model: its maximum output at 16 characters a token, plus a margin', () => {
    const model = { maxOutputTokens: 8192 } as Parameters<typeof maxResponseChars>[0]['model'];
    assert.equal(maxResponseChars({ maxOutputTokens: 4096, model }), 8192 * 16 + 64 * 1024);
    assert.equal(
      maxResponseChars({ maxOutputTokens: 32_000, thinkingBudget: 8000, model }),
      40_000 * 16 + 64 * 1024,
    );
  });

  test('an SSE event that never ends is refused past 8 MiB instead of buffered', async () => {
    async function* endless() {
      yield new TextEncoder().encode('data: {"x":"');
      const block = new TextEncoder().encode('y'.repeat(1024 * 1024));
      for (let i = 0; i < 64; i++) yield block;
    }
    await assert.rejects(
      async () => {
        for await (const _ of sseBatches(endless())) assert.fail('no event ended');
      },
      { name: 'OversizedEventError', message: /8 MiB without ending/ },
    );
    assert.equal(MAX_EVENT_CHARS, 8 * 1024 * 1024);
  });
});

describe('text bound for the wire', () => {
  test('short text is sent as it is', () => {
    assert.equal(fitText('hello', 'x'), 'hello');
  });

  for (const [name, unit] of [
    ['plain', 'a'],
    ['control characters (6 bytes each in JSON)', '\u0001'],
    ['non-BMP characters', '😀'],
    ['quotes and backslashes', '"\\'],
  ] as const) {
    test(`long text is cut to fit, with a note: ${name}`, () => {
      const text = unit.repeat(Math.ceil((3 * MAX_WIRE_TEXT_BYTES) / unit.length));
      const fitted = fitText(text, 'the session keeps it');
      assert.ok(wireBytes(fitted) <= MAX_WIRE_TEXT_BYTES, `${wireBytes(fitted)} bytes`);
      assert.ok(wireBytes(fitted) > MAX_WIRE_TEXT_BYTES * 0.99, 'and uses the room there is');
      assert.match(fitted, /\[… \d+ more characters not sent \(\d+ in all\); the session keeps it\.\]$/);
      const kept = fitted.slice(0, fitted.indexOf('\n\n[…'));
      assert.ok(text.startsWith(kept));
      assert.doesNotThrow(() => encodeURIComponent(kept), 'no lone surrogate');
    });
  }

  test('tool-call arguments: long strings are cut only when the whole is too large', () => {
    const small = { path: 'a.txt', content: 'x'.repeat(1000) };
    assert.equal(fitArgs(small), small);
    const big = { path: 'a.txt', edits: [{ oldStr: 'o', newStr: 'n'.repeat(2 * MAX_WIRE_TEXT_BYTES) }] };
    const fitted = fitArgs(big) as { path: string; edits: Array<{ newStr: string }> };
    assert.equal(fitted.path, 'a.txt');
    assert.ok(wireBytes(JSON.stringify(fitted)) <= MAX_WIRE_TEXT_BYTES);
    assert.match(fitted.edits[0]?.newStr ?? '', /the tool received it whole/);
  });

  test('phases: a long answer, tool output and error are cut; held deltas are sent before they grow large', () => {
    const sent: Phase[] = [];
    let seq = 0;
    const phases = new PhaseStream({
      runId: 'r',
      sessionId: 's',
      coalesceMs: 60_000,
      nextSeq: () => ++seq,
      send: (phase) => sent.push(phase),
    });
    const agent = { agentId: 'a' };
    const long = 'z'.repeat(3 * MAX_WIRE_TEXT_BYTES);
    phases.emit(agent, { type: 'text', text: 'first' });
    for (let i = 0; i < 100; i++) phases.emit(agent, { type: 'text', text: 'y'.repeat(10_000) });
    phases.emit(agent, {
      type: 'tool_result',
      toolCallId: 't',
      toolName: 'read_file',
      status: 'ok',
      summary: 's',
      output: long,
    });
    phases.emit(agent, { type: 'error', message: long, retryable: false });
    phases.emit(agent, { type: 'complete', status: 'completed', output: long });
    for (const phase of sent) assert.ok(wireBytes(JSON.stringify(phase)) <= MAX_WIRE_TEXT_BYTES + 1024);
    const texts = sent.filter((p) => p.type === 'text');
    assert.ok(texts.length >= 10, `held text is flushed as it grows (${texts.length} phases)`);
    assert.equal(texts.map((p) => (p as { text: string }).text).join('').length, 5 + 1_000_000);
    const complete = sent.at(-1) as { output: string };
    assert.ok(complete.output.endsWith(`${ANSWER_KEPT}.]`));
  });
});
