/**
 * How large a model call can get, known before it is made: the most output tokens it can be
 * billed for, and its input tokens estimated on the high side. The budget ledger reserves a call's
 * worst case from them (agent/budget-ledger.ts); anthropic.ts sends the same output ceiling as
 * `max_tokens`, so the two never disagree.
 */
import type { ChatMessage } from './messages.ts';
import type { ModelRequest, ToolDefinition } from './stream.ts';

/** Output tokens added for an adaptive-thinking model's thinking (a budget model gets its budget). */
export const ADAPTIVE_THINKING_ROOM = 16_384;

/**
 * Bytes per token assumed where no provider has counted: tokens of English and code average 3.5 to
 * 4.5 bytes, so 3 errs high; CJK text (3 bytes a character, one or two characters a token) comes
 * near it.
 */
const BYTES_PER_TOKEN = 3;

/**
 * The most output tokens the call may produce: the requested answer, plus the room an Anthropic
 * thinking model is given on top of it (thinking is paid out of `max_tokens`), within the model's
 * own limit.
 */
export function outputTokenCeiling(
  request: Pick<ModelRequest, 'model' | 'maxOutputTokens' | 'thinkingBudget'>,
): number {
  const { api, compat, maxOutputTokens: modelMax } = request.model;
  if (api !== 'anthropic' || compat.reasoning !== 'anthropic_thinking') return request.maxOutputTokens;
  if (compat.thinkingMode === 'adaptive')
    return Math.min(request.maxOutputTokens + ADAPTIVE_THINKING_ROOM, modelMax);
  if (request.thinkingBudget !== undefined)
    return Math.min(request.maxOutputTokens + request.thinkingBudget, modelMax);
  return request.maxOutputTokens;
}

/** Input tokens of `messages`, estimated high (their JSON at BYTES_PER_TOKEN). */
export function messageTokensHigh(messages: readonly ChatMessage[]): number {
  return messages.length === 0 ? 0 : Math.ceil(Buffer.byteLength(JSON.stringify(messages)) / BYTES_PER_TOKEN);
}

/** The input tokens of the whole request (system prompt, tools, messages), estimated high. */
export function inputTokensHigh(
  request: Pick<ModelRequest, 'system' | 'messages'> & { tools: readonly ToolDefinition[] },
): number {
  const fixed = Buffer.byteLength(request.system) + Buffer.byteLength(JSON.stringify(request.tools));
  return Math.ceil(fixed / BYTES_PER_TOKEN) + messageTokensHigh(request.messages);
}
