/**
 * The Anthropic Messages API through @anthropic-ai/sdk: streaming, native tool use (arguments
 * accumulated from `input_json_delta`), thinking (adaptive, or a budget for older models) with
 * signatures kept for the next turn under the same model, prompt and tools, prompt caching as
 * cache-plan.ts places it (tools, system prompt, the conversation), and usage with cache reads and
 * writes.
 */
import { createHash } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import type { Usage } from '#protocol';
import type { AssistantBlock, ChatMessage } from './messages.ts';
import { type AnthropicCachePlan, planAnthropicCache } from './cache-plan.ts';
import { clientCache } from './client-cache.ts';
import { classifyFailure, endOfStreamFailure } from './failures.ts';
import { appendMerged, readBatch, readEvent, responseBody, sseBatches, StreamReportedError } from './sse.ts';
import { outputTokenCeiling } from './request-size.ts';
import { parseToolArguments } from './tool-arguments.ts';
import { anthropicToolCallId } from './tool-call-id.ts';
import type { ModelRequest, StopReason, StreamEvent, StreamFn } from './stream.ts';

type MessageParam = Anthropic.Messages.MessageParam;
type ContentBlockParam = Anthropic.Messages.ContentBlockParam;

const clientFor = clientCache(
  (endpoint) =>
    new Anthropic({
      apiKey: endpoint.apiKey ?? null,
      baseURL: endpoint.baseUrl,
      maxRetries: 0,
      timeout: 10 * 60_000,
    }),
);

/**
 * The key of what a response's thinking is bound to besides the messages before it: the model, the
 * system prompt and the tools. Thinking goes back only to a request with the same key, so a session
 * that changes agent (another prompt, other tools) or model drops it instead of being refused.
 */
export function thinkingContext(request: Pick<ModelRequest, 'model' | 'system' | 'tools'>): string {
  const hash = createHash('sha256').update(request.system).update('\0').update(JSON.stringify(request.tools));
  return `${request.model.id}#${hash.digest('base64url').slice(0, 22)}`;
}

export function toAnthropicMessages(messages: readonly ChatMessage[], context: string): MessageParam[] {
  const converted = messages.map((message): MessageParam => {
    if (message.role === 'user') {
      return {
        role: 'user',
        content: message.content.map((block): ContentBlockParam =>
          block.type === 'text'
            ? { type: 'text', text: block.text }
            : {
                type: 'tool_result',
                tool_use_id: anthropicToolCallId(block.toolCallId),
                content: block.output,
                is_error: block.isError,
              },
        ),
      };
    }
    const content: ContentBlockParam[] = [];
    for (const block of message.content) {
      if (block.type === 'text') {
        if (block.text !== '') content.push({ type: 'text', text: block.text });
      } else if (block.type === 'thinking') {
        if (block.context !== undefined && block.context !== context) continue;
        if (block.redactedData !== undefined)
          content.push({ type: 'redacted_thinking', data: block.redactedData });
        // Thinking without a signature (e.g. from another provider) cannot be sent back.
        else if (block.signature !== undefined)
          content.push({ type: 'thinking', thinking: block.text, signature: block.signature });
      } else {
        content.push({
          type: 'tool_use',
          id: anthropicToolCallId(block.id),
          name: block.name,
          input: block.args,
        });
      }
    }
    return { role: 'assistant', content };
  });
  // An assistant turn left empty (it held only thinking written elsewhere) is dropped: the API
  // rejects empty content, and merges the user turns on either side.
  return converted.filter((message) => message.role === 'user' || message.content.length > 0);
}

const EPHEMERAL = { type: 'ephemeral' as const };

/** The request's breakpoints (cache-plan.ts), for its messages as converted. */
function cachePlan(
  request: ModelRequest,
  messages: readonly MessageParam[],
  context: string,
): AnthropicCachePlan {
  const shared = request.cache?.sharedPrefix;
  return planAnthropicCache({
    promptCaching: request.model.compat.promptCaching,
    autoCacheControl: request.model.compat.autoCacheControl,
    toolCount: request.tools.length,
    roles: messages.map((message) => message.role),
    // Conversion only drops messages, so a prefix converts to a prefix.
    ...(shared === undefined
      ? {}
      : { sharedPrefix: toAnthropicMessages(request.messages.slice(0, shared), context).length }),
  });
}

/** Puts a breakpoint on the last block of `message` that can carry one (thinking cannot). */
function markLastBlock(message: MessageParam | undefined): void {
  if (message === undefined || typeof message.content === 'string') return;
  for (let index = message.content.length - 1; index >= 0; index--) {
    const block = message.content[index];
    if (block === undefined || block.type === 'thinking' || block.type === 'redacted_thinking') continue;
    block.cache_control = EPHEMERAL;
    return;
  }
}

/** Thinking as the model is asked for it, and the output room it is paid from. */
function thinkingParams(
  request: ModelRequest,
): Pick<Anthropic.Messages.MessageCreateParamsStreaming, 'thinking' | 'output_config'> {
  const { compat } = request.model;
  if (compat.reasoning !== 'anthropic_thinking') return {};
  if (compat.thinkingMode === 'adaptive')
    return {
      thinking: { type: 'adaptive', display: 'summarized' },
      ...(request.effort === undefined ? {} : { output_config: { effort: request.effort } }),
    };
  const budget = request.thinkingBudget;
  return budget === undefined ? {} : { thinking: { type: 'enabled', budget_tokens: budget } };
}

function buildParams(
  request: ModelRequest,
  context: string,
): Anthropic.Messages.MessageCreateParamsStreaming {
  const messages = toAnthropicMessages(request.messages, context);
  const plan = cachePlan(request, messages, context);
  for (const index of plan.messages) markLastBlock(messages[index]);
  const tools = request.tools.map((tool, index): Anthropic.Messages.Tool => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema as Anthropic.Messages.Tool.InputSchema,
    ...(plan.tools && index === request.tools.length - 1 ? { cache_control: EPHEMERAL } : {}),
  }));
  return {
    model: request.model.id,
    // Thinking is paid out of max_tokens: room for it on top of the answer (request-size.ts).
    max_tokens: outputTokenCeiling(request),
    system: [{ type: 'text', text: request.system, ...(plan.system ? { cache_control: EPHEMERAL } : {}) }],
    messages,
    ...(tools.length > 0 ? { tools } : {}),
    ...thinkingParams(request),
    ...(plan.auto ? { cache_control: EPHEMERAL } : {}),
    stream: true,
  };
}

const STOP_REASONS: Record<string, StopReason> = {
  end_turn: 'end_turn',
  stop_sequence: 'end_turn',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  model_context_window_exceeded: 'max_tokens',
  refusal: 'refusal',
};

type OpenBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string; signature?: string }
  | { type: 'redacted'; data: string }
  | { type: 'tool'; id: string; name: string; json: string };

/**
 * Usage as the stream reports it. Any field may be missing — `message_start` without `usage` is on
 * Anthropic's own streaming docs page, and compatible servers drop what they do not count — and a
 * missing count leaves the one before it.
 */
function readUsage(usage: Usage, reported: object | null | undefined): boolean {
  if (typeof reported !== 'object' || reported === null) return false;
  const counts = reported as Partial<Record<string, unknown>>;
  let read = false;
  const count = (value: unknown, previous: number) => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return previous;
    read = true;
    return value;
  };
  usage.inputTokens = count(counts.input_tokens, usage.inputTokens);
  usage.outputTokens = count(counts.output_tokens, usage.outputTokens);
  usage.cacheReadTokens = count(counts.cache_read_input_tokens, usage.cacheReadTokens);
  usage.cacheWriteTokens = count(counts.cache_creation_input_tokens, usage.cacheWriteTokens);
  return read;
}

/** A refusal's `stop_details` in words: its category and the provider's explanation, when given. */
function refusalDetail(details: unknown): string | undefined {
  if (typeof details !== 'object' || details === null) return undefined;
  const { category, explanation } = details as { category?: unknown; explanation?: unknown };
  const parts = [
    typeof category === 'string' && category !== '' ? `category: ${category.replaceAll('_', ' ')}` : '',
    typeof explanation === 'string' ? explanation.trim().replace(/\.$/, '') : '',
  ].filter((part) => part !== '');
  return parts.length === 0 ? undefined : parts.join(' — ');
}

export const streamAnthropic: StreamFn = async function* (endpoint, request): AsyncGenerator<StreamEvent> {
  const blocks: OpenBlock[] = [];
  const usage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  let stopReason: StopReason = 'other';
  let stopDetail: string | undefined;
  let stopped = false;
  /** Whether any event carried a count: a stream with none gets an estimate, marked as one. */
  let usageReported = false;
  /** Applies one stream event to the blocks being built, collecting what to yield in `out`. */
  const handle = (event: Anthropic.Messages.RawMessageStreamEvent, out: StreamEvent[]): void => {
    switch (event.type) {
      case 'message_start':
        usageReported = readUsage(usage, event.message?.usage) || usageReported;
        break;
      case 'content_block_start': {
        const block = event.content_block;
        if (block.type === 'text') blocks[event.index] = { type: 'text', text: block.text ?? '' };
        else if (block.type === 'thinking')
          blocks[event.index] = { type: 'thinking', text: block.thinking ?? '' };
        else if (block.type === 'redacted_thinking')
          blocks[event.index] = { type: 'redacted', data: block.data };
        else if (block.type === 'tool_use') {
          blocks[event.index] = { type: 'tool', id: block.id ?? '', name: block.name ?? '', json: '' };
          out.push({ type: 'tool_call_delta', id: block.id ?? '', name: block.name ?? '', argsDelta: '' });
        }
        // The text of a block that starts with some (a compatible server may) is part of the answer.
        if (block.type === 'text' && block.text) appendMerged(out, { type: 'text_delta', text: block.text });
        break;
      }
      case 'content_block_delta': {
        const block = blocks[event.index];
        const delta = event.delta;
        if (delta.type === 'text_delta' && block?.type === 'text') {
          block.text += delta.text;
          appendMerged(out, { type: 'text_delta', text: delta.text });
        } else if (delta.type === 'thinking_delta' && block?.type === 'thinking') {
          block.text += delta.thinking;
          appendMerged(out, { type: 'thinking_delta', text: delta.thinking });
        } else if (delta.type === 'signature_delta' && block?.type === 'thinking') {
          block.signature = (block.signature ?? '') + delta.signature;
        } else if (delta.type === 'input_json_delta' && block?.type === 'tool') {
          block.json += delta.partial_json;
          out.push({
            type: 'tool_call_delta',
            id: block.id,
            name: block.name,
            argsDelta: delta.partial_json,
          });
        }
        break;
      }
      case 'message_delta': {
        const reason = event.delta?.stop_reason;
        if (reason != null) stopReason = STOP_REASONS[reason] ?? 'other';
        if (reason === 'model_context_window_exceeded')
          stopDetail = "the conversation filled the model's context window";
        const details = (event.delta as { stop_details?: unknown } | undefined)?.stop_details;
        stopDetail = refusalDetail(details) ?? stopDetail;
        usageReported = readUsage(usage, event.usage) || usageReported;
        break;
      }
      case 'message_stop':
        stopped = true;
        break;
      case 'content_block_stop':
        break;
      default: {
        // Event types newer than this SDK's types are ignored.
        const _unknown: never = event;
        break;
      }
    }
  };
  const context = thinkingContext(request);
  try {
    const response = await clientFor(endpoint)
      .messages.create(buildParams(request, context), { signal: request.signal })
      .asResponse();
    for await (const batch of sseBatches(responseBody(response))) {
      const { out, failure } = readBatch(batch, (sse, out) => {
        if (sse.event === 'ping') return;
        const event = JSON.parse(sse.data) as Anthropic.Messages.RawMessageStreamEvent | { type: 'error' };
        if (event.type === 'error') throw new StreamReportedError(event);
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
  const early = endOfStreamFailure(endpoint, request, stopped ? undefined : 'its final event (message_stop)');
  if (early !== undefined) {
    yield { type: 'error', failure: early };
    return;
  }
  const content = finishBlocks(blocks, stopReason, context);
  yield {
    type: 'done',
    content,
    stopReason,
    ...(stopDetail === undefined ? {} : { stopDetail }),
    usage: usageReported ? usage : estimateUsage(request, content),
  };
};

/** Usage at 6 characters per token, for a stream that reported none (the protocol's estimate, §6.2). */
function estimateUsage(request: ModelRequest, content: readonly AssistantBlock[]): Usage {
  const generated = content.reduce(
    (n, block) =>
      n +
      (block.type === 'text' || block.type === 'thinking'
        ? block.text.length
        : block.type === 'tool_call'
          ? block.argsText.length
          : 0),
    0,
  );
  return {
    inputTokens: Math.ceil((JSON.stringify(request.messages).length + request.system.length) / 6),
    outputTokens: Math.ceil(generated / 6),
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    estimated: true,
  };
}

function finishBlocks(
  blocks: readonly (OpenBlock | undefined)[],
  stopReason: StopReason,
  context: string,
): AssistantBlock[] {
  const content: AssistantBlock[] = [];
  for (const block of blocks) {
    if (block === undefined) continue;
    if (block.type === 'text') content.push({ type: 'text', text: block.text });
    else if (block.type === 'thinking')
      content.push({
        type: 'thinking',
        text: block.text,
        ...(block.signature === undefined ? {} : { signature: block.signature }),
        context,
      });
    else if (block.type === 'redacted')
      content.push({ type: 'thinking', text: '', redactedData: block.data, context });
    else
      content.push({
        type: 'tool_call',
        id: block.id,
        name: block.name,
        ...parseToolArguments(block.json, stopReason === 'max_tokens'),
      });
  }
  return content;
}
