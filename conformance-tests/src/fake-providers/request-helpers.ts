/**
 * Readers of recorded requests that work for every wire API: for writing `match` functions, and for
 * the one-line summary the fake puts in its "no scripted turn" error.
 */
import type { RecordedRequest } from './types.ts';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;

/** Roles for the Responses API's input items that are not messages. */
const ITEM_ROLES: Record<string, string> = {
  function_call: 'assistant',
  reasoning: 'assistant',
  function_call_output: 'tool',
};

/**
 * The conversation: `messages` (Anthropic, Chat Completions) or the Responses API's `input`, a
 * string (one user message) or a list of items, where a tool call counts as an `assistant` and a
 * tool result as a `tool` message.
 */
function messagesOf(request: RecordedRequest): Json[] {
  const body: unknown = request.body;
  if (!isObject(body)) return [];
  if (Array.isArray(body.messages)) return body.messages.filter(isObject);
  if (typeof body.input === 'string') return [{ role: 'user', content: body.input }];
  if (!Array.isArray(body.input)) return [];
  return body.input.filter(isObject).flatMap((item) => {
    if (typeof item.role === 'string') return [item];
    const role = typeof item.type === 'string' ? ITEM_ROLES[item.type] : undefined;
    return role === undefined ? [] : [{ ...item, role }];
  });
}

/** Text content parts: Anthropic and Chat Completions `text`, Responses `input_text`. */
const TEXT_PARTS = new Set(['text', 'input_text']);

/**
 * The text of the last `user` message: a string content, or its text parts joined (Anthropic
 * text blocks, OpenAI text content parts and Responses `input_text` parts). Empty when there is none.
 */
export function lastUserText(request: RecordedRequest): string {
  const last = messagesOf(request)
    .filter((message) => message.role === 'user')
    .at(-1);
  if (last === undefined) return '';
  if (typeof last.content === 'string') return last.content;
  if (!Array.isArray(last.content)) return '';
  return last.content
    .filter(
      (part): part is Json =>
        isObject(part) &&
        typeof part.type === 'string' &&
        TEXT_PARTS.has(part.type) &&
        typeof part.text === 'string',
    )
    .map((part) => part.text as string)
    .join('');
}

/**
 * The names of the tools the request offers (Anthropic and Responses `tools[].name`, Chat
 * Completions `tools[].function.name`).
 */
export function toolNames(request: RecordedRequest): string[] {
  const body: unknown = request.body;
  if (!isObject(body) || !Array.isArray(body.tools)) return [];
  return body.tools.flatMap((tool: unknown) => {
    if (!isObject(tool)) return [];
    const named = isObject(tool.function) ? tool.function : tool;
    return typeof named.name === 'string' ? [named.name] : [];
  });
}

/** The role of the last message (`user`, `assistant`, `tool`, …), or undefined for none. */
export function lastRole(request: RecordedRequest): string | undefined {
  const role = messagesOf(request).at(-1)?.role;
  return typeof role === 'string' ? role : undefined;
}

/** One line saying what was asked, so a test that scripted the wrong turns fails with a reason. */
export function summarizeRequest(request: RecordedRequest): string {
  const body: unknown = request.body;
  const parts = [`${request.method} ${request.path}`];
  if (isObject(body)) {
    if (typeof body.model === 'string') parts.push(`model ${body.model}`);
    parts.push(body.stream === true ? 'streaming' : 'not streaming');
    parts.push(`${messagesOf(request).length} messages, last role ${lastRole(request) ?? 'none'}`);
    const text = lastUserText(request);
    parts.push(`last user text ${JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text)}`);
    parts.push(`tools [${toolNames(request).join(', ')}]`);
  }
  return parts.join(', ');
}
