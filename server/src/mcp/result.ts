/**
 * An MCP tool result as the model reads it. Every part is rendered as text: text as it is,
 * structured content as JSON, an embedded resource as its text (or a note for a blob), a resource
 * link as its URI, and an image or audio clip as a note of its type and size (Santra's tool results
 * carry text only, and a screenshot's base64 would spend the context for nothing). The whole is
 * then bounded like run_command's output: past the limit the middle is cut, the start and the end
 * kept, and the cut is stated. What a server returns may be hostile: it is data, never markup the
 * client renders (the client shows the one-line summary).
 */
import { Buffer } from 'node:buffer';

/** The parts of a CallToolResult this renders; anything else is named by its type. */
export interface McpContent {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

export interface McpCallResult {
  content?: McpContent[];
  structuredContent?: unknown;
  isError?: boolean;
  /** Old servers (protocol 2024-10-07) answer `toolResult`. */
  toolResult?: unknown;
}

/** The text of a result, unbounded. */
export function renderResult(result: McpCallResult): string {
  const parts = (result.content ?? []).map(renderPart);
  if (result.structuredContent !== undefined) {
    const json = JSON.stringify(result.structuredContent, null, 2);
    // Servers usually repeat structured content as text; say it once.
    if (!parts.includes(json)) parts.push(`Structured content:\n${json}`);
  }
  if (parts.length === 0 && result.toolResult !== undefined)
    parts.push(JSON.stringify(result.toolResult, null, 2));
  return parts.length === 0 ? '(the tool returned nothing)' : parts.join('\n\n');
}

function renderPart(part: McpContent): string {
  switch (part.type) {
    case 'text':
      return part.text ?? '';
    case 'image':
    case 'audio':
      return `[${part.type}: ${part.mimeType ?? 'unknown type'}, ${sizeOf(part.data)} — not shown to the model]`;
    case 'resource': {
      const resource = part.resource ?? {};
      if (resource.text !== undefined) return `Resource ${resource.uri ?? ''}:\n${resource.text}`;
      return `[resource ${resource.uri ?? ''}: ${resource.mimeType ?? 'binary'}, ${sizeOf(resource.blob)} — not shown]`;
    }
    case 'resource_link':
      return `[resource link: ${part.uri ?? ''}${part.name === undefined ? '' : ` (${part.name})`}]`;
    default:
      return `[content of type ${JSON.stringify(part.type)} — not shown]`;
  }
}

function sizeOf(base64: string | undefined): string {
  const bytes = base64 === undefined ? 0 : Math.floor((base64.length * 3) / 4);
  return bytes >= 1024 * 1024
    ? `${(bytes / 1024 / 1024).toFixed(1)} MB`
    : bytes >= 1024
      ? `${Math.round(bytes / 1024)} KB`
      : `${bytes} bytes`;
}

/**
 * `text` within `limit` bytes of UTF-8: past it, the middle is cut (the start and the end are
 * where a tool says what it did and how it ended) and the cut is stated for the model.
 */
export function boundOutput(text: string, limit: number): { text: string; cutBytes: number } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limit) return { text, cutBytes: 0 };
  const head = Math.floor(limit / 2);
  const tail = limit - head;
  const start = bytes
    .subarray(0, head)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  const end = bytes
    .subarray(bytes.length - tail)
    .toString('utf8')
    .replace(/^\uFFFD/, '');
  const cut = bytes.length - head - tail;
  return {
    text: `${start}\n\n[… ${cut} bytes of the MCP result cut here; the result was ${bytes.length} bytes. Ask the tool for less (a filter, a page) if you need the middle …]\n\n${end}`,
    cutBytes: cut,
  };
}
