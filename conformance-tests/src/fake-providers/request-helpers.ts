/**
 * Readers of recorded requests that work for both wire APIs: for writing `match` functions, and for
 * the one-line summary the fake puts in its "no scripted turn" error.
 */
import type { RecordedRequest } from './types.ts';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;

function messagesOf(request: RecordedRequest): Json[] {
  const body: unknown = request.body;
  if (!isObject(body) || !Array.isArray(body.messages)) return [];
  return body.messages.filter(isObject);
}

/**
 * The text of the last `user` message: a string content, or its `text` parts joined (Anthropic
 * text blocks and OpenAI text content parts look alike). Empty when there is none.
 */
export function lastUserText(request: RecordedRequest): string {
  const last = messagesOf(request)
    .filter((message) => message.role === 'user')
    .at(-1);
  if (last === undefined) return '';
  if (typeof last.content === 'string') return last.content;
  if (!Array.isArray(last.content)) return '';
  return last.content
    .filter((part): part is Json => isObject(part) && part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('');
}

/** The names of the tools the request offers (Anthropic `tools[].name`, OpenAI `tools[].function.name`). */
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
