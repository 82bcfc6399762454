/**
 * The OpenAI Chat Completions wire format (`POST /v1/chat/completions`, also `/chat/completions`
 * for base URLs without `/v1`): `data: {chat.completion.chunk}` lines ending in `data: [DONE]`;
 * thinking as `delta.reasoning_content` (the DeepSeek/Groq-style extension); tool calls as
 * `delta.tool_calls` pieces keyed by `index`; a usage chunk with empty `choices` when
 * `stream_options.include_usage` is set; and `{"error":{message,type,param,code}}` error bodies.
 * Field names follow the `openai` SDK types (`ChatCompletionChunk`, `ChatCompletion`, `CompletionUsage`).
 */
import { type Dialect, sse } from './dialect.ts';
import { fullText, generatedToken, reasoningTokens, type TurnPlan, type WireEvent } from './turn-plan.ts';
import type { RecordedRequest } from './types.ts';

const FINISH_REASONS = { end_turn: 'stop', tool_use: 'tool_calls', max_tokens: 'length' } as const;

/** The `error.type` and `error.code` OpenAI uses for each status. */
const ERRORS: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: 'invalid_request_error', code: null, message: 'Invalid request' },
  401: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory', message: 'Forbidden' },
  404: { type: 'invalid_request_error', code: 'model_not_found', message: 'The model does not exist' },
  429: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached for requests' },
  500: { type: 'server_error', code: null, message: 'The server had an error while processing your request' },
  503: { type: 'server_error', code: 'service_unavailable', message: 'The engine is currently overloaded' },
};
const SERVER_ERROR = { type: 'server_error', code: null, message: 'The server had an error' };

const completionId = (plan: { ordinal: number }) => `chatcmpl-fake-${String(plan.ordinal).padStart(4, '0')}`;

function wantsUsage(request: RecordedRequest): boolean {
  const body = request.body as { stream_options?: { include_usage?: unknown } } | null;
  return body?.stream_options?.include_usage === true;
}

function usage(plan: TurnPlan) {
  const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = plan.usage;
  const promptTokens = inputTokens + cacheReadTokens + cacheWriteTokens;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: outputTokens,
    total_tokens: promptTokens + outputTokens,
    prompt_tokens_details: {
      cached_tokens: cacheReadTokens,
      ...(plan.reportsCacheWrite ? { cache_write_tokens: cacheWriteTokens } : {}),
    },
    completion_tokens_details: { reasoning_tokens: reasoningTokens(plan) },
  };
}

function* streamEvents(plan: TurnPlan, request: RecordedRequest): Generator<WireEvent> {
  const includeUsage = wantsUsage(request);
  const base = {
    id: completionId(plan),
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: plan.model,
    system_fingerprint: 'fp_fake',
  };
  // With include_usage the real API puts `usage: null` on every chunk but the last.
  const chunk = (delta: unknown, finishReason: string | null = null, paced = false): WireEvent => ({
    data: sse({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(includeUsage ? { usage: null } : {}),
    }),
    paced,
  });

  yield chunk({ role: 'assistant', content: '', refusal: null });
  for (const reasoning_content of plan.thinking) yield chunk({ reasoning_content });
  for (const content of plan.text) yield chunk({ content });
  for (let n = 1; n <= plan.generatedTokens; n++) yield chunk({ content: generatedToken(n) }, null, true);
  for (const [index, call] of plan.toolCalls.entries()) {
    const key = plan.toolCallWire === 'no_index' ? {} : { index };
    const header = { ...key, ...(call.id === null ? {} : { id: call.id }), type: 'function' };
    // OpenAI names a call in its first piece only; later pieces carry arguments and the index alone.
    yield chunk({ tool_calls: [{ ...header, function: { name: call.name, arguments: '' } }] });
    for (const piece of call.argsChunks) {
      const part =
        plan.toolCallWire === 'repeat_header'
          ? { ...header, function: { name: call.name, arguments: piece } }
          : { ...key, function: { arguments: piece } };
      yield chunk({ tool_calls: [part] });
    }
  }
  yield chunk({}, FINISH_REASONS[plan.stopReason]);
  if (includeUsage && !plan.omitUsage)
    yield { data: sse({ ...base, choices: [], usage: usage(plan) }), paced: false };
  yield { data: sse('[DONE]'), paced: false };
}

function message(plan: TurnPlan): unknown {
  const text = fullText(plan);
  return {
    id: completionId(plan),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: plan.model,
    system_fingerprint: 'fp_fake',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text === '' && plan.toolCalls.length > 0 ? null : text,
          refusal: null,
          ...(plan.thinking.length > 0 ? { reasoning_content: plan.thinking.join('') } : {}),
          ...(plan.toolCalls.length > 0
            ? {
                tool_calls: plan.toolCalls.map((call) => ({
                  ...(call.id === null ? {} : { id: call.id }),
                  type: 'function',
                  function: { name: call.name, arguments: call.argsText },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: FINISH_REASONS[plan.stopReason],
      },
    ],
    ...(plan.omitUsage ? {} : { usage: usage(plan) }),
  };
}

export const openaiDialect: Dialect = {
  api: 'openai',
  baseSuffix: '/v1',
  paths: ['/v1/chat/completions', '/chat/completions'],
  toolIdPrefix: 'call_fake_',
  responseHeaders: (plan) => ({ 'x-request-id': `req_fake_${String(plan.ordinal).padStart(4, '0')}` }),
  streamEvents,
  message,
  errorBody: (status, message, errorType, code) => {
    const defaults = ERRORS[status] ?? SERVER_ERROR;
    return {
      error: {
        message: message ?? defaults.message,
        type: errorType ?? defaults.type,
        param: null,
        code: code ?? defaults.code,
      },
    };
  },
  statusForErrorType: (errorType) =>
    Number(Object.entries(ERRORS).find(([, error]) => error.type === errorType)?.[0] ?? 500),
  errorEvent: (errorType = 'server_error', message) =>
    sse({
      error: {
        message: message ?? 'The server had an error while processing your request',
        type: errorType,
        param: null,
        code: null,
      },
    }),
  malformedEvent: () =>
    sse(
      '{"id":"chatcmpl-fake","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"unterminat',
    ),
};
