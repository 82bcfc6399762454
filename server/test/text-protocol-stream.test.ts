/**
 * The text tool-call protocol is read in the provider layer: a stream yields the same events
 * whichever channel the model used, and the agent loop never parses text.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { StreamEvent, StreamFn } from '../src/providers/stream.ts';
import { EMPTY_USAGE } from '../src/providers/stream.ts';
import { readTextMarkup } from '../src/providers/text-protocol/stream.ts';
import type { ModelSpec, ProviderEndpoint } from '../src/providers/types.ts';

const ENDPOINT: ProviderEndpoint = {
  id: 'ollama',
  name: 'Ollama',
  api: 'openai',
  baseUrl: 'http://127.0.0.1:1/v1',
  needsKey: false,
};

function model(nativeTools: boolean, api: ModelSpec['api'] = 'openai'): ModelSpec {
  return {
    provider: 'ollama',
    id: 'm',
    api,
    contextWindow: 32_000,
    maxOutputTokens: 4096,
    compat: { nativeTools } as ModelSpec['compat'],
  };
}

/** A stream function that sends `chunks` as text deltas, then `end`. */
function source(chunks: string[], end: StreamEvent | 'done' = 'done', before: StreamEvent[] = []): StreamFn {
  return async function* () {
    await Promise.resolve();
    yield* before;
    for (const text of chunks) yield { type: 'text_delta', text };
    if (end !== 'done') {
      yield end;
      return;
    }
    yield {
      type: 'done',
      content: [
        { type: 'text', text: chunks.join('') },
        { type: 'tool_call', id: 'native_1', name: 'list_dir', args: {}, argsText: '{}' },
      ],
      stopReason: 'end_turn',
      usage: EMPTY_USAGE,
    };
  };
}

async function collect(stream: StreamFn, spec: ModelSpec): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  const request = {
    model: spec,
    system: '',
    messages: [],
    tools: [],
    maxOutputTokens: 100,
    signal: new AbortController().signal,
  };
  for await (const event of readTextMarkup(stream)(ENDPOINT, request)) events.push(event);
  return events;
}

const text = (events: StreamEvent[]) => events.map((e) => (e.type === 'text_delta' ? e.text : '')).join('');
const done = (events: StreamEvent[]) => {
  const last = events.at(-1);
  assert.equal(last?.type, 'done');
  return last.type === 'done' ? last.content : [];
};

const CALL = 'Reading.\n<tool_call name="read_file">{"path": "a.ts"}</tool_call>';

describe('readTextMarkup', () => {
  test('a text-protocol model: its <tool_call> markup is a call in the done content, its native calls are dropped', async () => {
    const events = await collect(source(CALL.match(/.{1,7}/gs) ?? []), model(false));
    assert.equal(text(events), 'Reading.\n');
    const content = done(events);
    assert.deepEqual(
      content.filter((b) => b.type === 'tool_call'),
      [{ type: 'tool_call', id: '', name: 'read_file', args: { path: 'a.ts' }, argsText: '{"path":"a.ts"}' }],
      'one call, from the text; the runtime names it',
    );
    assert.deepEqual(content[0], { type: 'text', text: CALL }, 'the history keeps the text as written');
  });

  for (const [label, spec] of [
    ['an OpenAI model with native tools', model(true)],
    ['an Anthropic model', model(false, 'anthropic')],
  ] as const) {
    test(`${label}: <tool_call> markup in its prose is text, never a call`, async () => {
      const events = await collect(source([CALL]), spec);
      assert.equal(text(events), CALL);
      assert.deepEqual(
        done(events)
          .filter((b) => b.type === 'tool_call')
          .map((b) => b.type === 'tool_call' && b.id),
        ['native_1'],
      );
    });
  }

  test('thinking, status and next markup become their own events for every model', async () => {
    const events = await collect(
      source(['<think>hmm</think>', '<status>Reading files</status>', '<next>Edit: a.ts</next>Done.']),
      model(true),
    );
    assert.deepEqual(
      events.filter((e) => e.type !== 'done'),
      [
        { type: 'thinking_delta', text: 'hmm' },
        { type: 'status', text: 'Reading files' },
        { type: 'status', text: 'Next: Edit: a.ts' },
        { type: 'text_delta', text: 'Done.' },
      ],
    );
  });

  test('a failure: the text shown stays, a call it cut short never runs', async () => {
    const failure = { kind: 'network', provider: 'ollama', message: 'gone', retryable: true } as const;
    const events = await collect(
      source(['Start. <tool_call name="write_file">{"path": "x"'], { type: 'error', failure }),
      model(false),
    );
    assert.equal(text(events), 'Start. ');
    assert.deepEqual(events.at(-1), { type: 'error', failure });
  });

  test('a retried attempt starts from a clean slate: the failed attempt held nothing over', async () => {
    const failure = { kind: 'network', provider: 'ollama', message: 'gone', retryable: true } as const;
    const retrying: StreamEvent = {
      type: 'retrying',
      failure,
      attempt: 1,
      maxAttempts: 3,
      delayMs: 0,
      giveUpWithinMs: 0,
    };
    const stream: StreamFn = async function* (endpoint, request) {
      yield { type: 'text_delta', text: '<tool_call name="write_file">{"pa' };
      yield retrying;
      yield* source([CALL])(endpoint, request);
    };
    const events = await collect(stream, model(false));
    const calls = done(events).filter((b) => b.type === 'tool_call');
    assert.equal(calls.length, 1);
    assert.equal(calls[0]?.type === 'tool_call' && calls[0].name, 'read_file');
  });
});
