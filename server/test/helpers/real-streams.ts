/**
 * The corpus of streams real providers sent (server/test/fixtures/real-streams/, SOURCES.md says
 * where each came from) and what a run of each must show: the recording's text, thinking, tool
 * calls (each run once, its result sent back under its id), usage and how it ended. Both the stdio
 * server test and the `santra -p` test check a run with `checkReplay`.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type {
  FakeApi,
  FakeTurn,
  RecordedRequest,
} from '../../../conformance-tests/src/fake-providers/index.ts';
import { CANARY_KEY } from './run.ts';
import type { Json } from './wire.ts';

const DIR = fileURLToPath(new URL('../fixtures/real-streams/', import.meta.url));

export type Stop = 'end_turn' | 'tool_use' | 'max_tokens' | 'refusal' | 'error';

export interface Recording {
  name: string;
  api: FakeApi;
  provider: string;
  what: string;
  /** The response body as the provider sent it. */
  sse: string;
  expect: {
    text: string;
    thinking: string;
    /** `args: null`: the call was cut off by the output limit. */
    toolCalls: { id: string | null; name: string; args: Record<string, unknown> | null }[];
    usage: {
      inputTokens: number;
      outputTokens: number;
      cacheReadTokens: number;
      cacheWriteTokens: number;
    } | null;
    stop: Stop;
    refusal?: string;
    error?: string;
  };
}

export function loadRecordings(): Recording[] {
  return readdirSync(DIR)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      const name = file.slice(0, -'.json'.length);
      const meta = JSON.parse(readFileSync(`${DIR}${file}`, 'utf8')) as Omit<Recording, 'name' | 'sse'>;
      return { name, ...meta, sse: readFileSync(`${DIR}${name}.sse`, 'utf8') };
    });
}

/** The prompt that asks for a recording: its name is how the fake picks the recording's turns. */
export const promptFor = (recording: Recording) => `Replay the recording ${recording.name}.`;

/** The tool results a request sends back, by the id they answer, in order. */
export function toolResultIds(api: FakeApi, request: RecordedRequest): string[] {
  const body = request.body as Json;
  switch (api) {
    case 'anthropic':
      return ((body.messages as Json[]) ?? []).flatMap((message) =>
        Array.isArray(message.content)
          ? (message.content as Json[])
              .filter((b) => b.type === 'tool_result')
              .map((b) => String(b.tool_use_id))
          : [],
      );
    case 'openai':
      return ((body.messages as Json[]) ?? [])
        .filter((m) => m.role === 'tool')
        .map((m) => String(m.tool_call_id));
    case 'openai-responses':
      return ((body.input as Json[]) ?? [])
        .filter((item) => item.type === 'function_call_output')
        .map((item) => String(item.call_id));
    default: {
      const exhaustive: never = api;
      throw new Error(`unknown api ${String(exhaustive)}`);
    }
  }
}

/** The model's final answer after its tool calls ran, with zero usage so the run's usage is the recording's. */
const FOLLOW_UP: Record<FakeApi, string> = {
  anthropic: [
    'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_follow_up","type":"message","role":"assistant","model":"claude","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}\n\n',
    'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Done."}}\n\n',
    'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
    'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":0}}\n\n',
    'event: message_stop\ndata: {"type":"message_stop"}\n\n',
  ].join(''),
  openai: [
    'data: {"id":"chatcmpl-follow-up","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Done."},"finish_reason":null}]}\n\n',
    'data: {"id":"chatcmpl-follow-up","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}\n\n',
    'data: [DONE]\n\n',
  ].join(''),
  'openai-responses': [
    'event: response.output_item.added\ndata: {"type":"response.output_item.added","output_index":0,"item":{"id":"msg_follow_up","type":"message","role":"assistant","content":[]},"sequence_number":0}\n\n',
    'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":"msg_follow_up","output_index":0,"content_index":0,"delta":"Done.","sequence_number":1}\n\n',
    'event: response.completed\ndata: {"type":"response.completed","response":{"id":"resp_follow_up","status":"completed","output":[],"usage":{"input_tokens":0,"output_tokens":0,"total_tokens":0}},"sequence_number":2}\n\n',
  ].join(''),
};

/**
 * The fake's turns for a recording: the recording itself for every request of its prompt that
 * carries no tool results (a retry gets it again, as a real provider would send it again), and
 * the follow-up answer for the request that carries them.
 */
export function turnsFor(recording: Recording): FakeTurn[] {
  const tag = promptFor(recording);
  const mine = (request: RecordedRequest) => JSON.stringify(request.body).includes(tag);
  const answered = (request: RecordedRequest) => toolResultIds(recording.api, request).length > 0;
  return [
    { recorded: recording.sse, repeat: true, match: (r) => mine(r) && !answered(r) },
    { recorded: FOLLOW_UP[recording.api], repeat: true, match: (r) => mine(r) && answered(r) },
  ];
}

/** The server's environment and config for a recording's api (the Responses API through a custom provider). */
export function providerSetup(api: FakeApi, url: string): { env: NodeJS.ProcessEnv; config?: unknown } {
  switch (api) {
    case 'anthropic':
      return {
        env: {
          ANTHROPIC_API_KEY: CANARY_KEY,
          ANTHROPIC_BASE_URL: url,
          SANTRA_MODEL: 'anthropic/claude-sonnet-4-5',
        },
      };
    case 'openai':
      return { env: { OPENAI_API_KEY: CANARY_KEY, OPENAI_BASE_URL: url, SANTRA_MODEL: 'openai/gpt-4o' } };
    case 'openai-responses':
      return {
        env: { SANTRA_MODEL: 'recorded/gpt-5' },
        config: {
          providers: {
            recorded: {
              api: 'openai-responses',
              baseUrl: url,
              apiKey: CANARY_KEY,
              compat: { reasoning: 'reasoning_items' },
            },
          },
        },
      };
    default: {
      const exhaustive: never = api;
      throw new Error(`unknown api ${String(exhaustive)}`);
    }
  }
}

/** Leading blank lines may be dropped; every other character stays. */
const trimStart = (text: string) => text.replace(/^(?:[ \t]*\r?\n)+/, '');

/** The notice that ends an unfinished answer: on a line of its own after text, alone without. */
const NOTICE = /^(?:\n\n)?\[(Answer cut off: .+|.+ declined to answer.*)\]$/s;

/**
 * Checks one replayed run: `phases` in order (the root agent's and any other), the prompt's
 * `result`, and the requests the fake received for it.
 */
export function checkReplay(
  recording: Recording,
  phases: Json[],
  result: Json,
  requests: RecordedRequest[],
): void {
  const { expect } = recording;
  const where = `${recording.name} (${recording.what})`;
  const root = phases.filter((phase) => phase.parentAgentId === undefined);
  const firstCall = root.findIndex((phase) => phase.type === 'tool_call');
  const firstTurn = firstCall === -1 ? root : root.slice(0, firstCall);
  const joined = (list: Json[], type: string) =>
    list
      .filter((phase) => phase.type === type)
      .map((phase) => String(phase.text))
      .join('');

  // Thinking, exactly.
  assert.equal(joined(firstTurn, 'thinking'), expect.thinking, `${where}: thinking`);

  // Text, exactly; an unfinished answer ends with a notice that says why.
  const text = joined(firstTurn, 'text');
  const unfinished =
    expect.toolCalls.length === 0 && (expect.stop === 'max_tokens' || expect.stop === 'refusal');
  if (unfinished) {
    assert.ok(trimStart(text).startsWith(trimStart(expect.text)), `${where}: text ${JSON.stringify(text)}`);
    const at = text.lastIndexOf('\n\n[');
    const notice = at === -1 ? (text.startsWith('[') ? text : '') : text.slice(at);
    assert.match(notice, NOTICE, `${where}: the notice`);
    if (expect.stop === 'max_tokens') assert.match(notice, /Answer cut off/, where);
    else assert.match(notice, /declined to answer/, where);
    if (expect.stop === 'refusal' && expect.refusal !== undefined && expect.refusal !== expect.text)
      assert.ok(
        notice.includes(expect.refusal.trim().replace(/\.$/, '')),
        `${where}: the notice explains the refusal: ${notice}`,
      );
    assert.equal(
      trimStart(text.slice(0, text.length - notice.length)),
      trimStart(expect.text),
      `${where}: text`,
    );
  } else {
    assert.equal(trimStart(text), trimStart(expect.text), `${where}: text`);
  }

  // Tool calls: as the recording made them, each run once, each result sent back under its id.
  const calls = root.filter((phase) => phase.type === 'tool_call');
  const results = root.filter((phase) => phase.type === 'tool_result');
  assert.deepEqual(
    calls.map((call) => call.toolName),
    expect.toolCalls.map((call) => call.name),
    `${where}: tool calls`,
  );
  const recordedIds = expect.toolCalls.map((call) => call.id);
  expect.toolCalls.forEach((expected, index) => {
    const call = calls[index] as Json;
    const id = String(call.toolCallId);
    const unique =
      expected.id !== null && expected.id !== '' && recordedIds.filter((x) => x === expected.id).length === 1;
    if (unique) assert.equal(id, expected.id, `${where}: call ${index} keeps its id`);
    const ran = results.filter((result) => result.toolCallId === id);
    assert.equal(ran.length, 1, `${where}: call ${id} has exactly one result`);
    if (expected.args === null) {
      assert.equal(ran[0]?.status, 'error', `${where}: a cut-off call is not run`);
      assert.match(String(ran[0]?.output), /cut off by the output token limit/, where);
    } else {
      assert.deepEqual(call.args, expected.args, `${where}: call ${index} arguments`);
    }
  });
  assert.equal(results.length, calls.length, `${where}: one result per call`);
  const answers = requests.filter((request) => toolResultIds(recording.api, request).length > 0);
  if (calls.length > 0 && expect.stop !== 'error') {
    assert.equal(answers.length, 1, `${where}: the results are sent back once`);
    assert.deepEqual(
      toolResultIds(recording.api, answers[0] as RecordedRequest),
      calls.map((call) => call.toolCallId),
      `${where}: results under the calls' ids`,
    );
    assert.equal(joined(root.slice(firstCall), 'text'), 'Done.', `${where}: the answer after the results`);
  } else {
    assert.equal(answers.length, 0, `${where}: no tool results sent`);
  }

  // How it ended.
  const complete = root.filter((phase) => phase.type === 'complete').at(-1);
  if (expect.stop === 'error') {
    assert.ok(
      ['error', 'interrupted'].includes(String(result.status)),
      `${where}: status ${String(result.status)}`,
    );
    const errors = root.filter((phase) => phase.type === 'error').map((phase) => String(phase.message));
    assert.ok(
      errors.some((message) => message.includes(expect.error ?? '')),
      `${where}: an error phase says ${JSON.stringify(expect.error)}: ${errors.join(' | ')}`,
    );
  } else {
    assert.equal(result.status, 'completed', `${where}: status`);
    const stop = unfinished ? expect.stop : 'end_turn';
    assert.equal(result.stopReason, stop, `${where}: the result's stopReason`);
    assert.equal(complete?.stopReason, stop, `${where}: the complete phase's stopReason`);
    const usage = result.usage as Json;
    if (expect.usage === null) {
      assert.equal(usage.estimated, true, `${where}: no usage reported, so it is estimated`);
    } else {
      const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = usage;
      assert.deepEqual(
        { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens },
        expect.usage,
        `${where}: usage`,
      );
      assert.equal(usage.estimated, undefined, `${where}: usage as reported`);
    }
  }
}

/** The exit code `santra -p` gives a recording's run (docs/user-guide.md). */
export function expectedExitCode(recording: Recording): number {
  const { stop, toolCalls } = recording.expect;
  if (stop === 'error') return 1;
  return toolCalls.length === 0 && (stop === 'max_tokens' || stop === 'refusal') ? 3 : 0;
}
