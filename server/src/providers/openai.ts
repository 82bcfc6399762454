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
import { lastMarkable, OPENAI_BREAKPOINT, planAnthropicCache } from './cache-plan.ts';
import { clientCache } from './client-cache.ts';
import { classifyFailure, endOfStreamFailure } from './failures.ts';
import type { ModelRequest, StopReason, StreamEvent, StreamFn } from './stream.ts';
import { formatToolResult, textProtocolInstructions } from './text-protocol/prompt.ts';
import { appendMerged, readBatch, readEvent, responseBody, sseBatches, StreamReportedError } from './sse.ts';
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
      if (texts.length > 0) {
        // Two user turns in a row (a note on what the user did, then their message) are one:
        // some compatible servers' chat templates insist that turns alternate.
        const last = out.at(-1);
        if (last?.role === 'user' && typeof last.content === 'string')
          last.content = `${last.content}\n\n${texts.join('\n\n')}`;
        else out.push({ role: 'user', content: texts.join('\n\n') });
      }
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

type CacheParams = Pick<
  OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming,
  'prompt_cache_key' | 'prompt_cache_options'
>;

/**
 * The request's prompt-cache fields (cache-plan.ts): the key of its line of requests, and on a
 * model that caches at breakpoints, one on the system prompt and one at the end of the history
 * shared with sibling agents (OpenAI places the one at the end of the conversation itself). A
 * relay to Claude (`cacheControlParts`) gets Anthropic's markers where Anthropic's plan puts them.
 */
function applyCachePlan(request: ModelRequest, system: string, messages: MessageParam[]): CacheParams {
  const { compat } = request.model;
  const key =
    compat.promptCacheKey && request.cache !== undefined ? { prompt_cache_key: request.cache.key } : {};
  if (compat.cacheControlParts) {
    markLikeAnthropic(request, system, messages);
    return key;
  }
  if (!compat.promptCaching) return key;
  const marks = new Map<number, number | undefined>([[0, undefined]]);
  const boundary = sharedBoundary(request, system, messages);
  if (boundary !== undefined) marks.set(boundary.index, boundary.at);
  for (const [index, at] of marks) markMessage(messages[index], at);
  return { ...key, prompt_cache_options: { mode: 'implicit' } };
}

/**
 * Anthropic's plan (at most 4 breakpoints; no tools here, whose markers a relay does not take): the
 * system prompt, the anchor — the end of the history shared with siblings, or of the agent's
 * previous request — and the end of the conversation, each on the last message at or before it
 * that can carry a marker. Every such message is sent as parts, marked or not, so that a marker
 * moving on is the only difference between one request's prefix and the next's.
 */
function markLikeAnthropic(request: ModelRequest, system: string, messages: MessageParam[]): void {
  const shared = sharedBoundary(request, system, messages);
  const plan = planAnthropicCache({
    promptCaching: true,
    autoCacheControl: false,
    toolCount: 0,
    roles: messages.map((message) => (message.role === 'assistant' ? 'assistant' : 'user')),
    ...(shared === undefined ? {} : { sharedPrefix: shared.messages }),
  });
  const markable = messages.map((message) => message.role !== 'assistant' && message.role !== 'function');
  const marks = new Set([0]);
  for (const planned of plan.messages) {
    const index = lastMarkable(markable, planned);
    if (index !== undefined) marks.add(index);
  }
  messages.forEach((message, index) => {
    if (!markable[index] || typeof message.content !== 'string') return;
    const text = message.content;
    // The message the task was folded into is split where the shared history ends, in every request.
    const cut =
      index === shared?.index && shared.at !== undefined && shared.at < text.length ? shared.at : undefined;
    const parts = cut === undefined ? [text] : [text.slice(0, cut), text.slice(cut)];
    const marked = !marks.has(index)
      ? []
      : index === shared?.index && cut !== undefined
        ? [0]
        : [parts.length - 1];
    // The end of the conversation, too, when the shared history's last turn ends it.
    if (cut !== undefined && marks.has(index) && index === messages.length - 1) marked.push(1);
    message.content = parts.map((part, at) => ({
      type: 'text' as const,
      text: part,
      ...(marked.includes(at) ? ANTHROPIC_MARK : {}),
    }));
  });
}

/**
 * Where the history a sub-agent shares with its siblings ends in the wire messages: the last one
 * that can carry a marker, the wire messages the history makes, and — when the task was folded
 * into the shared history's last user turn (toOpenAIMessages) — how many of its characters are
 * shared. Undefined for a request that shares nothing.
 */
function sharedBoundary(
  request: ModelRequest,
  system: string,
  messages: readonly MessageParam[],
): { index: number; messages: number; at?: number } | undefined {
  const shared = request.cache?.sharedPrefix;
  if (shared === undefined || shared <= 0) return undefined;
  const before = toOpenAIMessages(system, request.messages.slice(0, shared), request);
  const end = before.length - 1;
  const index = lastMarkable(
    messages.map((message) => message.role !== 'assistant'),
    end,
  );
  if (index === undefined) return undefined;
  const sharedEnd = before[end];
  return index === end && sharedEnd?.role === 'user' && typeof sharedEnd.content === 'string'
    ? { index, messages: before.length, at: sharedEnd.content.length }
    : { index, messages: before.length };
}

/** OpenAI's breakpoint on a content part (gpt-5.6 and later). */
const OPENAI_MARK = { prompt_cache_breakpoint: OPENAI_BREAKPOINT };
/** Anthropic's, as a relay to Claude takes it on a content part. */
const ANTHROPIC_MARK = { cache_control: { type: 'ephemeral' as const } };

/**
 * Puts OpenAI's breakpoint on a user, tool or system message: at its end (its text as one part), or
 * after its first `at` characters — where the history siblings share ends, when the task given to
 * a sub-agent was folded into that user turn (toOpenAIMessages) — the rest a second part.
 */
function markMessage(message: MessageParam | undefined, at?: number): void {
  if (message === undefined || message.role === 'assistant' || message.role === 'function') return;
  if (typeof message.content !== 'string') return;
  const text = message.content;
  const cut = at === undefined || at >= text.length ? text.length : at;
  message.content = [
    { type: 'text', text: text.slice(0, cut), ...OPENAI_MARK },
    ...(cut < text.length ? [{ type: 'text' as const, text: text.slice(cut) }] : []),
  ];
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
  const messages = toOpenAIMessages(system, request.messages, request);
  const cache = applyCachePlan(request, system, messages);
  return {
    model: request.model.id,
    messages,
    stream: true,
    ...(compat.streamUsage ? { stream_options: { include_usage: true } } : {}),
    [compat.maxTokensField]: request.maxOutputTokens,
    ...tools,
    ...cache,
  };
}

const FINISH: Record<string, StopReason> = {
  stop: 'end_turn',
  eos: 'end_turn',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
  model_length: 'max_tokens',
  content_filter: 'refusal',
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
  const name = typeof part.function?.name === 'string' ? part.function.name : '';
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
  // Arguments are a JSON string on the wire; a server that sends the object itself is read too.
  const raw: unknown = part.function?.arguments;
  let piece = typeof raw === 'string' ? raw : raw != null ? JSON.stringify(raw) : '';
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

/** The pieces of one streamed delta, read whichever way the server wrote them. */
interface DeltaParts {
  text: string;
  thinking: string;
  refusal: string;
}

/**
 * Reads a delta's text. `content` is a string on OpenAI's API; some compatible servers send an
 * array of parts instead (Mistral's reasoning models: `{type:"thinking", thinking:[{type:"text",
 * text}]}` then `{type:"text", text}`). Reasoning arrives as `reasoning_content` (DeepSeek, vLLM,
 * Qwen) or `reasoning` (OpenRouter, Groq, Ollama); a refusal as `refusal` (OpenAI).
 */
function readDelta(delta: Record<string, unknown>): DeltaParts {
  const parts: DeltaParts = { text: '', thinking: '', refusal: '' };
  const reasoning = delta.reasoning_content ?? delta.reasoning;
  if (typeof reasoning === 'string') parts.thinking += reasoning;
  readContent(delta.content, parts, 'text');
  if (typeof delta.refusal === 'string') parts.refusal += delta.refusal;
  return parts;
}

/** Adds `content` — a string, a part, or an array of parts (parts may nest) — to `parts[into]`. */
function readContent(content: unknown, parts: DeltaParts, into: 'text' | 'thinking'): void {
  if (typeof content === 'string') {
    parts[into] += content;
    return;
  }
  if (Array.isArray(content)) {
    for (const part of content) readContent(part, parts, into);
    return;
  }
  if (typeof content !== 'object' || content === null) return;
  const part = content as { type?: unknown; text?: unknown; thinking?: unknown; refusal?: unknown };
  if (part.type === 'thinking' || part.type === 'reasoning') {
    readContent(part.thinking ?? part.text, parts, 'thinking');
  } else if (part.type === 'refusal' && typeof part.refusal === 'string') {
    parts.refusal += part.refusal;
  } else if (typeof part.text === 'string') {
    parts[into] += part.text;
  }
}

type ChunkUsage = {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  prompt_tokens_details?: { cached_tokens?: unknown; cache_write_tokens?: unknown } | null;
  completion_tokens_details?: { reasoning_tokens?: unknown } | null;
};

/**
 * A chunk's usage: `usage` (OpenAI with `include_usage`, and the running totals some servers put
 * on every chunk: the last one counts), or `x_groq.usage` (Groq). `prompt_tokens` counts the
 * tokens read from and written to the cache too; Santra's `inputTokens` does not.
 */
function readUsage(chunk: { usage?: unknown; x_groq?: unknown }): Usage | undefined {
  const reported = (chunk.usage ?? (chunk.x_groq as { usage?: unknown } | undefined)?.usage) as
    ChunkUsage | null | undefined;
  if (typeof reported !== 'object' || reported === null) return undefined;
  const count = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
  const cached = count(reported.prompt_tokens_details?.cached_tokens);
  const written = count(reported.prompt_tokens_details?.cache_write_tokens);
  const reasoning = count(reported.completion_tokens_details?.reasoning_tokens);
  return {
    inputTokens: Math.max(0, count(reported.prompt_tokens) - cached - written),
    outputTokens: count(reported.completion_tokens),
    cacheReadTokens: cached,
    cacheWriteTokens: written,
    ...(reasoning > 0 ? { reasoningTokens: reasoning } : {}),
  };
}

export const streamOpenAI: StreamFn = async function* (endpoint, request): AsyncGenerator<StreamEvent> {
  let text = '';
  let thinking = '';
  let refused = false;
  const calls: OpenCall[] = [];
  let usage: Usage | undefined;
  let finish: string | undefined;
  /** `[DONE]` was read: OpenAI's end of stream, final even where a server sent no finish_reason. */
  let done = false;
  try {
    const response = await clientFor(endpoint)
      .chat.completions.create(buildParams(request), { signal: request.signal })
      .asResponse();
    for await (const batch of sseBatches(responseBody(response))) {
      const { out, ended, failure } = readBatch(batch, ({ data }, out) => {
        if (data === '[DONE]') return 'end';
        const chunk = JSON.parse(data) as {
          error?: unknown;
          usage?: unknown;
          x_groq?: unknown;
          choices?: Array<{
            index?: number;
            delta?: Record<string, unknown> | null;
            finish_reason?: unknown;
          }>;
        };
        // An error object in place of a chunk: what OpenAI-compatible servers send mid-stream.
        if (chunk.error !== undefined && chunk.error !== null) throw new StreamReportedError(chunk);
        readEvent(() => {
          usage = readUsage(chunk) ?? usage;
          // Only the first choice is read (Santra never asks for more than one).
          const choice = Array.isArray(chunk.choices)
            ? chunk.choices.find((c) => (c.index ?? 0) === 0)
            : undefined;
          if (choice === undefined) return;
          const delta = choice.delta ?? {};
          const parts = readDelta(delta);
          if (parts.thinking !== '') {
            thinking += parts.thinking;
            appendMerged(out, { type: 'thinking_delta', text: parts.thinking });
          }
          // A refusal is what the model said instead of an answer: shown as the answer is.
          if (parts.refusal !== '') refused = true;
          const shown = parts.text + parts.refusal;
          if (shown !== '') {
            text += shown;
            appendMerged(out, { type: 'text_delta', text: shown });
          }
          const toolCalls = delta.tool_calls;
          for (const part of Array.isArray(toolCalls) ? (toolCalls as ToolCallPart[]) : []) {
            const { call, piece } = accumulateToolCall(calls, part);
            out.push({ type: 'tool_call_delta', id: call.id, name: call.name, argsDelta: piece });
          }
          if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '')
            finish = choice.finish_reason;
        }, data);
      });
      yield* out;
      if (failure !== undefined) throw failure;
      if (ended) {
        done = true;
        break;
      }
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
    finish === undefined && !done ? 'a finish_reason or [DONE]' : undefined,
  );
  if (early !== undefined) {
    yield { type: 'error', failure: early };
    return;
  }
  // A stream that ended with [DONE] alone finished as its content says.
  let stopReason = FINISH[finish ?? (calls.length > 0 ? 'tool_calls' : 'stop')] ?? 'other';
  if (refused && calls.length === 0) stopReason = 'refusal';
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
