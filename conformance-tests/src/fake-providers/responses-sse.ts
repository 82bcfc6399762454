/**
 * The OpenAI Responses API wire format (`POST /v1/responses`, also `/responses` for base URLs
 * without `/v1`). Every event is named (`event: <type>`) and carries its `type` and a
 * `sequence_number` counting from 0: `response.created`, `response.in_progress`, then one output
 * item after another — `response.output_item.added`, the item's part and delta events,
 * `response.output_item.done` — and `response.completed` with the whole Response (usage included),
 * or `response.incomplete` when the turn stops at `max_tokens`. Thinking is a `reasoning` item
 * whose summary streams as `response.reasoning_summary_text.delta`; text is a `message` item of
 * one `output_text` part; each tool call is a `function_call` item. A non-streaming request gets
 * the Response object; errors are Chat Completions' `{"error":{message,type,param,code}}` bodies,
 * and a mid-stream error is `event: error` with `{type, code, message, param, sequence_number}`.
 * Field names follow the `openai` SDK types (`ResponseStreamEvent`, `Response`, `ResponseUsage`);
 * their order follows streams recorded from the real API (after `type`, alphabetical).
 */
import { type Dialect, sse } from './dialect.ts';
import { openaiDialect } from './openai-sse.ts';
import { generatedToken, reasoningTokens, type TurnPlan, type WireEvent } from './turn-plan.ts';
import type { RecordedRequest } from './types.ts';

type Json = Record<string, unknown>;

/** The `include` value that asks for the reasoning item's `encrypted_content`. */
const INCLUDE_ENCRYPTED = 'reasoning.encrypted_content';

const pad = (ordinal: number) => String(ordinal).padStart(4, '0');

function requestBody(request: RecordedRequest): Json {
  const body: unknown = request.body;
  return typeof body === 'object' && body !== null ? (body as Json) : {};
}

/** Orders an object as the API does: `type` first, the other fields alphabetically. */
function ordered(type: string, fields: Json): Json {
  const sorted = Object.keys(fields)
    .sort()
    .map((key) => [key, fields[key]] as const);
  return { type, ...Object.fromEntries(sorted) };
}

/** An output item of the turn: its shape when added, the events that fill it, its final shape. */
interface OutputItem {
  added: Json;
  /** The item's own events, given its `output_index`, as `[type, fields, paced]`. */
  body: (outputIndex: number) => Generator<[string, Json, boolean]>;
  done: Json;
}

function outputItems(plan: TurnPlan, request: RecordedRequest): OutputItem[] {
  const items: OutputItem[] = [];
  const ordinal = pad(plan.ordinal);
  // When the turn runs out of tokens, the item it was writing is cut short.
  const lastStatus = plan.stopReason === 'max_tokens' ? 'incomplete' : 'completed';
  const statusOf = (isLast: boolean) => (isLast ? lastStatus : 'completed');
  const hasText = plan.text.length > 0 || plan.generatedTokens > 0;

  if (plan.thinking.length > 0) {
    const id = `rs_fake_${ordinal}`;
    const text = plan.thinking.join('');
    const include = requestBody(request).include;
    const encrypted = Array.isArray(include) && include.includes(INCLUDE_ENCRYPTED);
    const at = (output_index: number) => ({ item_id: id, output_index, summary_index: 0 });
    items.push({
      added: { id, type: 'reasoning', summary: [] },
      *body(outputIndex) {
        yield [
          'response.reasoning_summary_part.added',
          { ...at(outputIndex), part: { type: 'summary_text', text: '' } },
          false,
        ];
        for (const delta of plan.thinking)
          yield ['response.reasoning_summary_text.delta', { ...at(outputIndex), delta }, false];
        yield ['response.reasoning_summary_text.done', { ...at(outputIndex), text }, false];
        yield [
          'response.reasoning_summary_part.done',
          { ...at(outputIndex), part: { type: 'summary_text', text } },
          false,
        ];
      },
      done: {
        id,
        type: 'reasoning',
        ...(encrypted ? { encrypted_content: plan.signature } : {}),
        summary: [{ type: 'summary_text', text }],
      },
    });
  }
  if (hasText) {
    const id = `msg_fake_${ordinal}`;
    let text = plan.text.join('');
    for (let n = 1; n <= plan.generatedTokens; n++) text += generatedToken(n);
    const part = (partText: string) => ({
      type: 'output_text',
      annotations: [],
      logprobs: [],
      text: partText,
    });
    const at = (output_index: number) => ({ content_index: 0, item_id: id, output_index });
    items.push({
      added: { id, type: 'message', status: 'in_progress', content: [], role: 'assistant' },
      *body(outputIndex) {
        yield ['response.content_part.added', { ...at(outputIndex), part: part('') }, false];
        for (const delta of plan.text)
          yield ['response.output_text.delta', { ...at(outputIndex), delta, logprobs: [] }, false];
        for (let n = 1; n <= plan.generatedTokens; n++) {
          const delta = generatedToken(n);
          yield ['response.output_text.delta', { ...at(outputIndex), delta, logprobs: [] }, true];
        }
        yield ['response.output_text.done', { ...at(outputIndex), logprobs: [], text }, false];
        yield ['response.content_part.done', { ...at(outputIndex), part: part(text) }, false];
      },
      done: {
        id,
        type: 'message',
        status: statusOf(plan.toolCalls.length === 0),
        content: [part(text)],
        role: 'assistant',
      },
    });
  }
  for (const [index, call] of plan.toolCalls.entries()) {
    const id = `fc_fake_${ordinal}_${index + 1}`;
    const fields = { call_id: call.id ?? '', name: call.name };
    items.push({
      added: { id, type: 'function_call', status: 'in_progress', arguments: '', ...fields },
      *body(output_index) {
        for (const delta of call.argsChunks)
          yield ['response.function_call_arguments.delta', { delta, item_id: id, output_index }, false];
        yield [
          'response.function_call_arguments.done',
          { arguments: call.argsText, item_id: id, output_index },
          false,
        ];
      },
      done: {
        id,
        type: 'function_call',
        status: statusOf(index === plan.toolCalls.length - 1),
        arguments: call.argsText,
        ...fields,
      },
    });
  }
  return items;
}

function usage(plan: TurnPlan) {
  const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = plan.usage;
  // As in Chat Completions, the input count includes the cached tokens.
  const input = inputTokens + cacheReadTokens + cacheWriteTokens;
  return {
    input_tokens: input,
    input_tokens_details: {
      ...(plan.reportsCacheWrite ? { cache_write_tokens: cacheWriteTokens } : {}),
      cached_tokens: cacheReadTokens,
    },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens(plan) },
    total_tokens: input + outputTokens,
  };
}

type Status = 'in_progress' | 'completed' | 'incomplete';

/** The Response object at `status`, echoing the request's settings as the API does. */
function response(
  plan: TurnPlan,
  request: RecordedRequest,
  createdAt: number,
  status: Status,
  output: Json[],
) {
  const body = requestBody(request);
  const reasoning = (body.reasoning ?? {}) as Json;
  const finished = status !== 'in_progress';
  return {
    id: `resp_fake_${pad(plan.ordinal)}`,
    object: 'response',
    created_at: createdAt,
    status,
    background: false,
    completed_at: status === 'completed' ? Math.floor(Date.now() / 1000) : null,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: body.max_tool_calls ?? null,
    model: plan.model,
    output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    reasoning: { effort: reasoning.effort ?? null, summary: reasoning.summary ?? null },
    safety_identifier: null,
    service_tier: finished ? 'default' : 'auto',
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_logprobs: 0,
    top_p: body.top_p ?? 1,
    truncation: 'disabled',
    usage: finished && !plan.omitUsage ? usage(plan) : null,
    user: null,
    metadata: body.metadata ?? {},
  };
}

const finalStatus = (plan: TurnPlan): Status =>
  plan.stopReason === 'max_tokens' ? 'incomplete' : 'completed';

function* streamEvents(plan: TurnPlan, request: RecordedRequest): Generator<WireEvent> {
  let sequence = 0;
  const event = (type: string, fields: Json, paced = false): WireEvent => ({
    data: sse(ordered(type, { ...fields, sequence_number: sequence++ }), type),
    paced,
  });
  const createdAt = Math.floor(Date.now() / 1000);
  yield event('response.created', { response: response(plan, request, createdAt, 'in_progress', []) });
  yield event('response.in_progress', { response: response(plan, request, createdAt, 'in_progress', []) });
  const items = outputItems(plan, request);
  for (const [output_index, item] of items.entries()) {
    yield event('response.output_item.added', { item: item.added, output_index });
    for (const [type, fields, paced] of item.body(output_index)) yield event(type, fields, paced);
    yield event('response.output_item.done', { item: item.done, output_index });
  }
  const status = finalStatus(plan);
  const output = items.map((item) => item.done);
  yield event(`response.${status}`, { response: response(plan, request, createdAt, status, output) });
}

function message(plan: TurnPlan, request: RecordedRequest): unknown {
  const output = outputItems(plan, request).map((item) => item.done);
  return response(plan, request, Math.floor(Date.now() / 1000), finalStatus(plan), output);
}

export const responsesDialect: Dialect = {
  api: 'openai-responses',
  baseSuffix: '/v1',
  paths: ['/v1/responses', '/responses'],
  toolIdPrefix: 'call_fake_',
  responseHeaders: (plan) => openaiDialect.responseHeaders(plan),
  streamEvents,
  message,
  // Errors before the stream look as in Chat Completions.
  errorBody: (status, message, errorType, code) => openaiDialect.errorBody(status, message, errorType, code),
  statusForErrorType: (errorType) => openaiDialect.statusForErrorType(errorType),
  errorEvent: (errorType = 'server_error', message, sent) =>
    sse(
      ordered('error', {
        code: errorType,
        message: message ?? 'The server had an error while processing your request',
        param: null,
        sequence_number: sent,
      }),
      'error',
    ),
  malformedEvent: () =>
    sse(
      '{"type":"response.output_text.delta","content_index":0,"delta":"unterminat',
      'response.output_text.delta',
    ),
};
