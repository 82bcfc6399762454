/**
 * The Anthropic Messages API wire format (`POST /v1/messages`): the SSE event sequence
 * `message_start`, `ping`, per block `content_block_start` / `content_block_delta`… /
 * `content_block_stop`, then `message_delta` (stop reason, usage) and `message_stop`; the Message
 * JSON for non-streaming requests; and `{"type":"error","error":{type,message}}` error bodies.
 * Field names follow the `@anthropic-ai/sdk` types (`RawMessageStreamEvent`, `Message`, `Usage`).
 */
import { type Dialect, sse } from './dialect.ts';
import { fullText, generatedToken, type TurnPlan, type WireEvent } from './turn-plan.ts';

const STOP_REASONS = { end_turn: 'end_turn', tool_use: 'tool_use', max_tokens: 'max_tokens' } as const;

/** The `error.type` Anthropic uses for each status; unknown statuses are `api_error`. */
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

const ERROR_MESSAGES: Record<string, string> = {
  overloaded_error: 'Overloaded',
  rate_limit_error: 'Number of request tokens has exceeded your per-minute rate limit',
  api_error: 'Internal server error',
};

const defaultMessage = (errorType: string) => ERROR_MESSAGES[errorType] ?? errorType.replace(/_/g, ' ');

const messageId = (plan: { ordinal: number }) => `msg_fake_${String(plan.ordinal).padStart(4, '0')}`;

function usage(plan: TurnPlan, outputTokens: number) {
  return {
    input_tokens: plan.usage.inputTokens,
    output_tokens: outputTokens,
    cache_creation_input_tokens: plan.usage.cacheWriteTokens,
    cache_read_input_tokens: plan.usage.cacheReadTokens,
    cache_creation: { ephemeral_5m_input_tokens: plan.usage.cacheWriteTokens, ephemeral_1h_input_tokens: 0 },
    service_tier: 'standard',
  };
}

function shell(plan: TurnPlan, content: unknown[], stopReason: string | null, outputTokens: number) {
  return {
    id: messageId(plan),
    type: 'message',
    role: 'assistant',
    model: plan.model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    stop_details: null,
    container: null,
    usage: usage(plan, outputTokens),
  };
}

const event = (name: string, data: unknown): WireEvent => ({
  data: sse({ type: name, ...(data as object) }, name),
  paced: false,
});

function* streamEvents(plan: TurnPlan): Generator<WireEvent> {
  // The real API reports the prompt's usage up front, with a token or so of output.
  yield event('message_start', { message: shell(plan, [], null, 1) });
  let index = 0;
  let pinged = false;
  function* start(block: unknown): Generator<WireEvent> {
    yield event('content_block_start', { index, content_block: block });
    if (!pinged) {
      pinged = true;
      yield event('ping', {});
    }
  }
  const delta = (payload: unknown, paced = false): WireEvent => ({
    data: sse({ type: 'content_block_delta', index, delta: payload }, 'content_block_delta'),
    paced,
  });
  const stop = () => event('content_block_stop', { index: index++ });

  if (plan.thinking.length > 0) {
    yield* start({ type: 'thinking', thinking: '', signature: '' });
    for (const thinking of plan.thinking) yield delta({ type: 'thinking_delta', thinking });
    yield delta({ type: 'signature_delta', signature: plan.signature });
    yield stop();
  }
  if (plan.text.length > 0 || plan.generatedTokens > 0) {
    yield* start({ type: 'text', text: '', citations: null });
    for (const text of plan.text) yield delta({ type: 'text_delta', text });
    for (let n = 1; n <= plan.generatedTokens; n++)
      yield delta({ type: 'text_delta', text: generatedToken(n) }, true);
    yield stop();
  }
  for (const call of plan.toolCalls) {
    yield* start({
      type: 'tool_use',
      id: call.id ?? '',
      name: call.name,
      input: {},
      caller: { type: 'direct' },
    });
    // The real API opens every tool input with an empty partial_json.
    yield delta({ type: 'input_json_delta', partial_json: '' });
    for (const partial_json of call.argsChunks) yield delta({ type: 'input_json_delta', partial_json });
    yield stop();
  }
  if (!pinged) yield event('ping', {});
  yield event('message_delta', {
    delta: { stop_reason: STOP_REASONS[plan.stopReason], stop_sequence: null, stop_details: null },
    usage: {
      input_tokens: plan.usage.inputTokens,
      output_tokens: plan.usage.outputTokens,
      cache_creation_input_tokens: plan.usage.cacheWriteTokens,
      cache_read_input_tokens: plan.usage.cacheReadTokens,
    },
  });
  yield event('message_stop', {});
}

function message(plan: TurnPlan): unknown {
  const content: unknown[] = [];
  if (plan.thinking.length > 0) {
    content.push({ type: 'thinking', thinking: plan.thinking.join(''), signature: plan.signature });
  }
  const text = fullText(plan);
  if (text !== '') content.push({ type: 'text', text, citations: null });
  for (const call of plan.toolCalls) {
    let input: unknown;
    try {
      input = JSON.parse(call.argsText);
    } catch {
      // Only a scripted `{ raw }` can be invalid; keep it visible rather than inventing an object.
      input = call.argsText;
    }
    content.push({ type: 'tool_use', id: call.id ?? '', name: call.name, input, caller: { type: 'direct' } });
  }
  return shell(plan, content, STOP_REASONS[plan.stopReason], plan.usage.outputTokens);
}

export const anthropicDialect: Dialect = {
  api: 'anthropic',
  baseSuffix: '',
  paths: ['/v1/messages'],
  toolIdPrefix: 'toolu_fake_',
  responseHeaders: (plan) => ({ 'request-id': `req_fake_${String(plan.ordinal).padStart(4, '0')}` }),
  streamEvents,
  message,
  errorBody: (status, message, errorType) => {
    const type = errorType ?? ERROR_TYPES[status] ?? 'api_error';
    return { type: 'error', error: { type, message: message ?? defaultMessage(type) }, request_id: null };
  },
  statusForErrorType: (errorType) =>
    Number(Object.entries(ERROR_TYPES).find(([, type]) => type === errorType)?.[0] ?? 529),
  errorEvent: (errorType = 'overloaded_error', message) =>
    sse(
      { type: 'error', error: { type: errorType, message: message ?? defaultMessage(errorType) } },
      'error',
    ),
  malformedEvent: () =>
    sse('{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","te', 'content_block_delta'),
};
