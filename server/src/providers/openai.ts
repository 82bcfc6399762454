/**
 * OpenAI Chat Completions and every OpenAI-compatible endpoint (Groq, Together, Fireworks,
 * OpenRouter, NVIDIA NIM, Ollama, LM Studio, vLLM…) through the `openai` SDK: streamed deltas,
 * tool calls accumulated by index, usage via `stream_options.include_usage`, and reasoning from
 * `reasoning_content`/`reasoning` where a provider sends it. Differences between vendors are the
 * model's `compat` flags. Models without native tools get the tools as a text protocol in the
 * system prompt (their calls are parsed from the text by the agent loop).
 */
import OpenAI from 'openai';
import type { Usage } from '#protocol';
import type { AssistantBlock, ChatMessage } from './messages.ts';
import { clientCache } from './client-cache.ts';
import { classifyFailure, endOfStreamFailure } from './failures.ts';
import type { ModelRequest, StopReason, StreamEvent, StreamFn } from './stream.ts';
import { formatToolResult, textProtocolInstructions } from './text-protocol/prompt.ts';
import { appendMerged, responseBody, sseBatches, StreamReportedError } from './sse.ts';
import { parseToolArguments } from './tool-arguments.ts';

type MessageParam = OpenAI.Chat.Completions.ChatCompletionMessageParam;

// Local servers need no key, but the SDK insists on one.
const clientFor = clientCache(
  (endpoint) =>
    new OpenAI({
      apiKey: endpoint.apiKey ?? 'no-key',
      baseURL: endpoint.baseUrl,
      maxRetries: 0,
      timeout: 10 * 60_000,
    }),
);

export function toOpenAIMessages(
  system: string,
  messages: readonly ChatMessage[],
  request: ModelRequest,
): MessageParam[] {
  const native = request.model.compat.nativeTools;
  const out: MessageParam[] = [{ role: request.model.compat.systemRole, content: system }];
  for (const message of messages) {
    if (message.role === 'user') {
      const texts: string[] = [];
      for (const block of message.content) {
        if (block.type === 'text') texts.push(block.text);
        else if (native) out.push({ role: 'tool', tool_call_id: block.toolCallId, content: block.output });
        else texts.push(formatToolResult(block.toolCallId, block.toolName, block.output, block.isError));
      }
      if (texts.length > 0) out.push({ role: 'user', content: texts.join('\n\n') });
      continue;
    }
    const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
    const calls = message.content.filter((block) => block.type === 'tool_call');
    if (native) {
      out.push({
        role: 'assistant',
        content: text === '' ? null : text,
        ...(calls.length > 0
          ? {
              tool_calls: calls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: call.argsText || JSON.stringify(call.args) },
              })),
            }
          : {}),
      });
    } else {
      // The model wrote its calls as markup; the text already contains them.
      out.push({ role: 'assistant', content: text });
    }
  }
  return out;
}

function buildParams(request: ModelRequest): OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming {
  const { compat } = request.model;
  const system =
    compat.nativeTools || request.tools.length === 0
      ? request.system
      : `${request.system}\n\n${textProtocolInstructions(request.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema })))}`;
  const tools =
    compat.nativeTools && request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            type: 'function' as const,
            function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
          })),
          ...(compat.parallelToolCalls ? { parallel_tool_calls: true } : {}),
        }
      : {};
  return {
    model: request.model.id,
    messages: toOpenAIMessages(system, request.messages, request),
    stream: true,
    ...(compat.streamUsage ? { stream_options: { include_usage: true } } : {}),
    [compat.maxTokensField]: request.maxOutputTokens,
    ...tools,
  };
}

const FINISH: Record<string, StopReason> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
};

interface OpenCall {
  id: string;
  name: string;
  args: string;
}

type ToolCallPart = Partial<OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta.ToolCall>;

/**
 * Adds one streamed tool-call piece to the calls of a response. OpenAI sends the id and name once
 * and keys later pieces by `index`; compatible servers differ, and each way is read here:
 * - the id and the whole name repeated in every piece (DeepSeek, Qwen, Xinference): the name
 *   is not appended to itself;
 * - no `index` (some Gemini and vLLM versions): a piece with a new id starts a new call, other
 *   pieces continue the last one;
 * - arguments sent whole, or cumulatively, in more than one piece: once the arguments so far are
 *   complete JSON, a piece repeating them replaces them instead of being appended.
 * Ids are not checked here: the agent loop replaces missing or repeated ones.
 */
function accumulateToolCall(calls: OpenCall[], part: ToolCallPart): { call: OpenCall; piece: string } {
  const id = typeof part.id === 'string' ? part.id : '';
  const name = part.function?.name ?? '';
  let index = typeof part.index === 'number' && part.index >= 0 ? part.index : undefined;
  if (index === undefined) {
    const last = calls.length - 1;
    const startsNew =
      last < 0 ||
      (id !== '' && id !== calls[last]?.id) ||
      (name !== '' && isCompleteJson(calls[last]?.args ?? ''));
    index = startsNew ? calls.length : last;
  }
  const call = (calls[index] ??= { id: '', name: '', args: '' });
  if (id !== '') call.id = id;
  if (name !== '') call.name = name === call.name || name.startsWith(call.name) ? name : call.name + name;
  let piece = part.function?.arguments ?? '';
  // Checked in this order so that JSON is parsed only for a piece that repeats the arguments.
  if (call.args !== '' && piece.startsWith(call.args) && isCompleteJson(call.args)) {
    piece = piece.slice(call.args.length);
  }
  call.args += piece;
  return { call, piece };
}

function isCompleteJson(text: string): boolean {
  if (text.trim() === '') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export const streamOpenAI: StreamFn = async function* (endpoint, request): AsyncGenerator<StreamEvent> {
  let text = '';
  let thinking = '';
  const calls: OpenCall[] = [];
  let usage: Usage | undefined;
  let finish: string | undefined;
  try {
    const response = await clientFor(endpoint)
      .chat.completions.create(buildParams(request), { signal: request.signal })
      .asResponse();
    let finished = false;
    for await (const batch of sseBatches(responseBody(response))) {
      const out: StreamEvent[] = [];
      for (const { data } of batch) {
        if (data === '[DONE]') {
          finished = true;
          break;
        }
        const chunk = JSON.parse(data) as OpenAI.Chat.Completions.ChatCompletionChunk & { error?: unknown };
        // An error object in place of a chunk: what OpenAI-compatible servers send mid-stream.
        if (chunk.error !== undefined) throw new StreamReportedError(chunk);
        if (chunk.usage) {
          const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
          usage = {
            inputTokens: Math.max(0, chunk.usage.prompt_tokens - cached),
            outputTokens: chunk.usage.completion_tokens,
            cacheReadTokens: cached,
            cacheWriteTokens: 0,
          };
        }
        const choice = chunk.choices?.[0];
        if (choice === undefined) continue;
        const delta = choice.delta as OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta & {
          reasoning_content?: string | null;
          reasoning?: string | null;
        };
        const reasoning = delta.reasoning_content ?? delta.reasoning;
        if (typeof reasoning === 'string' && reasoning !== '') {
          thinking += reasoning;
          appendMerged(out, { type: 'thinking_delta', text: reasoning });
        }
        if (typeof delta.content === 'string' && delta.content !== '') {
          text += delta.content;
          appendMerged(out, { type: 'text_delta', text: delta.content });
        }
        for (const part of delta.tool_calls ?? []) {
          const { call, piece } = accumulateToolCall(calls, part);
          out.push({ type: 'tool_call_delta', id: call.id, name: call.name, argsDelta: piece });
        }
        if (choice.finish_reason) finish = choice.finish_reason;
      }
      yield* out;
      if (finished) break;
    }
  } catch (error) {
    yield {
      type: 'error',
      failure: classifyFailure(endpoint, request.model.id, error, request.signal.aborted),
    };
    return;
  }
  const early = endOfStreamFailure(endpoint, request, finish === undefined ? 'a finish_reason' : undefined);
  if (early !== undefined) {
    yield { type: 'error', failure: early };
    return;
  }
  const stopReason = FINISH[finish ?? ''] ?? 'other';
  const content: AssistantBlock[] = [];
  if (thinking !== '') content.push({ type: 'thinking', text: thinking });
  if (text !== '') content.push({ type: 'text', text });
  // A call may be missing (indices with gaps); its id may be empty (the loop gives it one).
  calls.forEach((call) => {
    content.push({
      type: 'tool_call',
      id: call.id,
      name: call.name,
      ...parseToolArguments(call.args, stopReason === 'max_tokens'),
    });
  });
  // Where the endpoint reports no usage, estimate at 6 characters per token.
  const estimated: Usage = {
    inputTokens: Math.ceil(JSON.stringify(request.messages).length / 6 + request.system.length / 6),
    outputTokens: Math.ceil(
      (text.length + thinking.length + calls.reduce((n, c) => n + c.args.length, 0)) / 6,
    ),
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    estimated: true,
  };
  yield { type: 'done', content, stopReason, usage: usage ?? estimated };
};
