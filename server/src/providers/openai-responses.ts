/**
 * The OpenAI Responses API (`POST /responses`) through the `openai` SDK: OpenAI's API for its
 * reasoning models. Streamed text, reasoning summaries as thinking, function calls and their
 * outputs, usage with cached and reasoning tokens. Nothing is stored at OpenAI (`store: false`):
 * each request carries the whole conversation, and the model's reasoning goes back as the
 * encrypted items the API returned (`include: ["reasoning.encrypted_content"]`), under the model
 * that wrote them only.
 */
import OpenAI from 'openai';
import type { Usage } from '#protocol';
import type { AssistantBlock, ChatMessage, ThinkingBlock } from './messages.ts';
import { lastMarkable, OPENAI_BREAKPOINT } from './cache-plan.ts';
import { clientCache } from './client-cache.ts';
import { classifyFailure, endOfStreamFailure } from './failures.ts';
import { appendMerged, readBatch, readEvent, responseBody, sseBatches, StreamReportedError } from './sse.ts';
import type { ModelRequest, StopReason, StreamEvent, StreamFn } from './stream.ts';
import { parseToolArguments } from './tool-arguments.ts';

type InputItem = OpenAI.Responses.ResponseInputItem;

const clientFor = clientCache(
  (endpoint) =>
    new OpenAI({
      apiKey: endpoint.apiKey ?? 'no-key',
      baseURL: endpoint.baseUrl,
      maxRetries: 0,
      timeout: 10 * 60_000,
    }),
);

/** What a response's reasoning is bound to: encrypted reasoning is only accepted by its model. */
export function reasoningContext(request: Pick<ModelRequest, 'model'>): string {
  return `responses:${request.model.id}`;
}

export function toResponsesInput(messages: readonly ChatMessage[], context: string): InputItem[] {
  const input: InputItem[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      const texts: string[] = [];
      const flush = () => {
        if (texts.length > 0) input.push({ role: 'user', content: texts.splice(0).join('\n\n') });
      };
      for (const block of message.content) {
        if (block.type === 'text') texts.push(block.text);
        else {
          flush();
          input.push({ type: 'function_call_output', call_id: block.toolCallId, output: block.output });
        }
      }
      flush();
      continue;
    }
    for (const block of message.content) {
      if (block.type === 'thinking') {
        const item = reasoningItem(block, context);
        if (item !== undefined) input.push(item);
      } else if (block.type === 'text') {
        if (block.text !== '') input.push({ role: 'assistant', content: block.text });
      } else {
        input.push({
          type: 'function_call',
          call_id: block.id,
          name: block.name,
          arguments: block.argsText || JSON.stringify(block.args),
        });
      }
    }
  }
  return input;
}

/** A reasoning item to send back: only one this API returned, encrypted, under the same model. */
function reasoningItem(block: ThinkingBlock, context: string): InputItem | undefined {
  if (block.itemId === undefined || block.signature === undefined || block.context !== context)
    return undefined;
  return {
    type: 'reasoning',
    id: block.itemId,
    encrypted_content: block.signature,
    summary: block.text === '' ? [] : [{ type: 'summary_text', text: block.text }],
  };
}

type CacheParams = Pick<
  OpenAI.Responses.ResponseCreateParamsStreaming,
  'prompt_cache_key' | 'prompt_cache_options'
>;

/**
 * The request's prompt-cache fields (cache-plan.ts): the key of its line of requests, and on a
 * model that caches at breakpoints, one at the end of the history shared with sibling agents (the
 * instructions cannot carry one; OpenAI places the breakpoint at the end of the conversation).
 */
function applyCachePlan(request: ModelRequest, context: string, input: InputItem[]): CacheParams {
  const { compat } = request.model;
  const key =
    compat.promptCacheKey && request.cache !== undefined ? { prompt_cache_key: request.cache.key } : {};
  if (!compat.promptCaching) return key;
  const shared = request.cache?.sharedPrefix;
  if (shared !== undefined && shared > 0) {
    const end = toResponsesInput(request.messages.slice(0, shared), context).length - 1;
    const boundary = lastMarkable(input.map(isUserText), end);
    const item = boundary === undefined ? undefined : input[boundary];
    if (item !== undefined && isUserText(item) && typeof item.content === 'string')
      item.content = [{ type: 'input_text', text: item.content, prompt_cache_breakpoint: OPENAI_BREAKPOINT }];
  }
  return { ...key, prompt_cache_options: { mode: 'implicit' } };
}

/** A user message of text, as toResponsesInput writes them. */
function isUserText(item: InputItem): item is OpenAI.Responses.EasyInputMessage {
  return 'role' in item && item.role === 'user' && 'content' in item && typeof item.content === 'string';
}

function buildParams(request: ModelRequest, context: string): OpenAI.Responses.ResponseCreateParamsStreaming {
  const reasons = request.model.compat.reasoning === 'reasoning_items';
  const input = toResponsesInput(request.messages, context);
  const cache = applyCachePlan(request, context, input);
  return {
    model: request.model.id,
    instructions: request.system,
    input,
    stream: true,
    store: false,
    max_output_tokens: request.maxOutputTokens,
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            type: 'function' as const,
            name: tool.name,
            description: tool.description,
            parameters: tool.inputSchema,
            strict: false,
          })),
          parallel_tool_calls: request.model.compat.parallelToolCalls,
        }
      : {}),
    ...(reasons
      ? {
          reasoning: {
            summary: 'auto' as const,
            ...(request.effort === undefined ? {} : { effort: RESPONSES_EFFORT[request.effort] }),
          },
          include: ['reasoning.encrypted_content' as const],
        }
      : {}),
    ...cache,
  };
}

/** Santra's effort levels (Anthropic's) in the Responses API's words. */
const RESPONSES_EFFORT = {
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'high',
  max: 'high',
} as const;

/** An output item as it is built from the stream. */
type OpenItem =
  | { type: 'reasoning'; id: string; text: string; parts: number; encrypted?: string }
  | { type: 'message'; text: string }
  | { type: 'call'; id: string; callId: string; name: string; args: string };

interface WireItem {
  type?: string;
  id?: string;
  content?: Array<{ type?: string; text?: string; refusal?: string }>;
  call_id?: string;
  name?: string;
  arguments?: string;
  encrypted_content?: string | null;
}

interface WireResponse {
  status?: string;
  usage?: {
    input_tokens?: unknown;
    output_tokens?: unknown;
    input_tokens_details?: { cached_tokens?: unknown; cache_write_tokens?: unknown } | null;
    output_tokens_details?: { reasoning_tokens?: unknown } | null;
  } | null;
  incomplete_details?: { reason?: string } | null;
  error?: unknown;
}

/**
 * Usage as the API reports it: `input_tokens` counts the tokens read from and written to the
 * cache, Santra's `inputTokens` not.
 */
function readUsage(usage: WireResponse['usage']): Usage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const count = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
  const cached = count(usage.input_tokens_details?.cached_tokens);
  const written = count(usage.input_tokens_details?.cache_write_tokens);
  const reasoning = count(usage.output_tokens_details?.reasoning_tokens);
  return {
    inputTokens: Math.max(0, count(usage.input_tokens) - cached - written),
    outputTokens: count(usage.output_tokens),
    cacheReadTokens: cached,
    cacheWriteTokens: written,
    ...(reasoning > 0 ? { reasoningTokens: reasoning } : {}),
  };
}

export const streamOpenAIResponses: StreamFn = async function* (
  endpoint,
  request,
): AsyncGenerator<StreamEvent> {
  const context = reasoningContext(request);
  /** Items by output index, in the order the model wrote them. */
  const items: OpenItem[] = [];
  let usage: Usage | undefined;
  let refused = false;
  let final: WireResponse | undefined;
  let finalType: string | undefined;

  const handle = (event: Record<string, unknown>, out: StreamEvent[]): void => {
    const index = typeof event.output_index === 'number' ? event.output_index : items.length - 1;
    const delta = typeof event.delta === 'string' ? event.delta : '';
    switch (event.type) {
      case 'response.output_item.added':
      case 'response.output_item.done': {
        const item = (event.item ?? {}) as WireItem;
        const open = (items[index] ??= openItem(item));
        if (open.type === 'call') {
          if (item.call_id) open.callId = item.call_id;
          if (item.name) open.name = item.name;
          if (event.type === 'response.output_item.added' && open.args === '')
            out.push({ type: 'tool_call_delta', id: open.callId, name: open.name, argsDelta: '' });
          // The finished item's arguments are the whole; the deltas may have missed some.
          if (event.type === 'response.output_item.done' && typeof item.arguments === 'string')
            open.args = item.arguments;
        } else if (open.type === 'reasoning') {
          if (item.id) open.id = item.id;
          if (typeof item.encrypted_content === 'string') open.encrypted = item.encrypted_content;
        } else if (event.type === 'response.output_item.done' && open.text === '') {
          // A server that sends a message whole, without deltas: its text is the answer all the same.
          const whole = (item.content ?? []).map((part) => part.text ?? part.refusal ?? '').join('');
          if (whole !== '') {
            open.text = whole;
            appendMerged(out, { type: 'text_delta', text: whole });
          }
        }
        return;
      }
      case 'response.output_text.delta':
      case 'response.refusal.delta': {
        if (event.type === 'response.refusal.delta') refused = true;
        const open = (items[index] ??= { type: 'message', text: '' });
        if (open.type !== 'message' || delta === '') return;
        open.text += delta;
        appendMerged(out, { type: 'text_delta', text: delta });
        return;
      }
      case 'response.reasoning_summary_part.added':
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta': {
        const open = (items[index] ??= { type: 'reasoning', id: '', text: '', parts: 0 });
        if (open.type !== 'reasoning') return;
        if (event.type === 'response.reasoning_summary_part.added') {
          // Summary parts are paragraphs of one summary.
          if (open.parts++ > 0 && open.text !== '') {
            open.text += '\n\n';
            appendMerged(out, { type: 'thinking_delta', text: '\n\n' });
          }
          return;
        }
        if (delta === '') return;
        open.text += delta;
        appendMerged(out, { type: 'thinking_delta', text: delta });
        return;
      }
      case 'response.function_call_arguments.delta': {
        const open = items[index];
        if (open?.type !== 'call' || delta === '') return;
        open.args += delta;
        out.push({ type: 'tool_call_delta', id: open.callId, name: open.name, argsDelta: delta });
        return;
      }
      case 'response.function_call_arguments.done': {
        const open = items[index];
        if (open?.type === 'call' && typeof event.arguments === 'string') open.args = event.arguments;
        return;
      }
      case 'response.completed':
      case 'response.incomplete':
        final = event.response ?? {};
        finalType = event.type;
        usage = readUsage(final.usage) ?? usage;
        return;
      case 'response.failed':
        throw new StreamReportedError({
          error: (event.response as WireResponse | undefined)?.error ?? event,
        });
      case 'error':
        // Flat (`{type, code, message}`, as the SDK types it) or nested (`{type, error: {…}}`, as
        // the API has been recorded sending it).
        throw new StreamReportedError(
          typeof event.error === 'object' && event.error !== null ? event : { error: event },
        );
      default:
        // Progress events (created, in_progress, content_part.*, *.done) carry nothing more.
        return;
    }
  };

  try {
    const response = await clientFor(endpoint)
      .responses.create(buildParams(request, context), { signal: request.signal })
      .asResponse();
    for await (const batch of sseBatches(responseBody(response))) {
      const { out, failure } = readBatch(batch, (sse, out) => {
        if (sse.data === '[DONE]') return;
        const event = JSON.parse(sse.data) as Record<string, unknown>;
        readEvent(() => handle(event, out), sse.data);
      });
      yield* out;
      if (failure !== undefined) throw failure;
    }
  } catch (error) {
    yield {
      type: 'error',
      failure: classifyFailure(endpoint, request.model.id, error, request.signal.aborted),
    };
    return;
  }
  const early = endOfStreamFailure(
    endpoint,
    request,
    final === undefined ? 'its final event (response.completed)' : undefined,
  );
  if (early !== undefined) {
    yield { type: 'error', failure: early };
    return;
  }
  const incomplete =
    finalType === 'response.incomplete' ? (final?.incomplete_details?.reason ?? '') : undefined;
  const calls = items.filter((item) => item?.type === 'call');
  let stopReason: StopReason = calls.length > 0 ? 'tool_use' : 'end_turn';
  if (incomplete === 'content_filter' || (refused && calls.length === 0)) stopReason = 'refusal';
  else if (incomplete !== undefined) stopReason = 'max_tokens';
  const content = finishItems(items, stopReason, context);
  const text = content.reduce((n, block) => n + (block.type === 'text' ? block.text.length : 0), 0);
  yield {
    type: 'done',
    content,
    stopReason,
    ...(incomplete === undefined || incomplete === '' || incomplete === 'max_output_tokens'
      ? {}
      : { stopDetail: `the response is incomplete: ${incomplete.replaceAll('_', ' ')}` }),
    usage: usage ?? {
      inputTokens: Math.ceil((JSON.stringify(request.messages).length + request.system.length) / 6),
      outputTokens: Math.ceil(text / 6),
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      estimated: true,
    },
  };
};

function openItem(item: WireItem): OpenItem {
  if (item.type === 'function_call')
    return {
      type: 'call',
      id: item.id ?? '',
      callId: item.call_id ?? item.id ?? '',
      name: item.name ?? '',
      args: '',
    };
  if (item.type === 'reasoning') return { type: 'reasoning', id: item.id ?? '', text: '', parts: 0 };
  return { type: 'message', text: '' };
}

function finishItems(
  items: readonly (OpenItem | undefined)[],
  stopReason: StopReason,
  context: string,
): AssistantBlock[] {
  const content: AssistantBlock[] = [];
  for (const item of items) {
    if (item === undefined) continue;
    if (item.type === 'reasoning') {
      content.push({
        type: 'thinking',
        text: item.text,
        ...(item.encrypted === undefined ? {} : { signature: item.encrypted }),
        ...(item.id === '' ? {} : { itemId: item.id }),
        context,
      });
    } else if (item.type === 'message') {
      if (item.text !== '') content.push({ type: 'text', text: item.text });
    } else {
      content.push({
        type: 'tool_call',
        id: item.callId,
        name: item.name,
        ...parseToolArguments(item.args, stopReason === 'max_tokens'),
      });
    }
  }
  return content;
}
