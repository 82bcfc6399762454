/**
 * Sorting a parsed JSON value into a JSON-RPC 2.0 request, notification or response — or an
 * invalid message with the reason and the id to answer with. vscode-jsonrpc only logs messages it
 * cannot classify; the protocol requires an InvalidRequest response instead.
 */

export type MessageId = number | string;

export interface RequestEnvelope {
  jsonrpc: '2.0';
  id: MessageId;
  method: string;
  params?: object;
}

export interface NotificationEnvelope {
  jsonrpc: '2.0';
  method: string;
  params?: object;
}

/** A response to one of the server's requests; `error` is as the client sent it, unchecked. */
export interface ResponseEnvelope {
  jsonrpc: '2.0';
  id: MessageId | null;
  result?: unknown;
  error?: unknown;
}

export type Envelope =
  | { kind: 'request'; message: RequestEnvelope }
  | { kind: 'notification'; message: NotificationEnvelope }
  | { kind: 'response'; message: ResponseEnvelope }
  /** `id` is the request id to answer with, or null when none can be told; notifications get no answer. */
  | { kind: 'invalid'; id: MessageId | null; answer: boolean; reason: string };

export function isMessageId(value: unknown): value is MessageId {
  return (typeof value === 'number' && Number.isInteger(value)) || typeof value === 'string';
}

export function classifyMessage(value: unknown): Envelope {
  if (Array.isArray(value)) {
    return invalid(
      null,
      true,
      'batches are not supported by the Santra protocol; send each message in its own frame',
    );
  }
  if (typeof value !== 'object' || value === null) {
    return invalid(
      null,
      true,
      `a message must be a JSON object, got ${value === null ? 'null' : typeof value}`,
    );
  }
  const message = value as Record<string, unknown>;
  const hasId = Object.hasOwn(message, 'id');
  const id = isMessageId(message.id) ? message.id : null;
  const isCall = Object.hasOwn(message, 'method');
  if (message.jsonrpc !== '2.0') {
    return invalid(id, isCall ? hasId : true, `"jsonrpc" must be the string "2.0"`);
  }
  if (!isCall) {
    const hasResult = Object.hasOwn(message, 'result');
    const hasError = Object.hasOwn(message, 'error');
    if (hasId && (message.id === null || id !== null) && hasResult !== hasError) {
      return { kind: 'response', message: value as ResponseEnvelope };
    }
    return invalid(
      id,
      true,
      'the message has no "method" and is not a response (an "id" with "result" or "error")',
    );
  }
  if (typeof message.method !== 'string' || message.method.length === 0) {
    return invalid(id, hasId, '"method" must be a non-empty string');
  }
  if (hasId && id === null) {
    const got = message.id === null ? 'null' : JSON.stringify(message.id);
    return invalid(
      null,
      true,
      `a request id must be an integer or a string, got ${got}; omit "id" to send a notification`,
    );
  }
  // JSON-RPC requires structured params; `null` is accepted as "no params", as several LSP clients send it.
  const params = message.params ?? undefined;
  if (params !== undefined && typeof params !== 'object') {
    return invalid(id, hasId, `"params" must be an object (or an array) when present, got ${typeof params}`);
  }
  const base = {
    jsonrpc: '2.0' as const,
    method: message.method,
    ...(params === undefined ? {} : { params }),
  };
  if (id !== null) return { kind: 'request', message: { ...base, id } };
  return { kind: 'notification', message: base };
}

function invalid(id: MessageId | null, answer: boolean, reason: string): Envelope {
  return { kind: 'invalid', id, answer, reason };
}

/** What the first bytes of a body tell about the message, when they tell enough. */
export interface LeadingId {
  id: MessageId;
  /** A request (a string `method` was read) or a response (a `result` or `error` key was read). */
  kind: 'request' | 'response';
}

/**
 * Reads the id of a message from the first bytes of its body, without parsing the rest — for
 * answering a message too large to read. Only top-level members that come before any nested
 * object or array are read, since skipping a nested value reliably would mean parsing it. Returns
 * undefined unless an integer or string `id` and a `method` (request) or a `result`/`error` key
 * (response) were both read; a truncated token counts as unread.
 */
export function leadingId(prefix: Buffer): LeadingId | undefined {
  // latin1 maps each byte to one char; the bytes of a multi-byte UTF-8 character are all >= 0x80,
  // so they can never be taken for `"`, `\` or a delimiter.
  const text = prefix.toString('latin1');
  let pos = 0;
  const skipSpace = () => {
    while (pos < text.length && ' \t\r\n'.includes(text.charAt(pos))) pos++;
  };
  /** Reads a complete string token at `pos` and returns its raw bytes' value, or undefined. */
  const readString = (): string | undefined => {
    const start = pos;
    for (pos = start + 1; pos < text.length; pos++) {
      const char = text.charAt(pos);
      if (char === '\\') pos++;
      else if (char === '"') {
        pos++;
        try {
          return JSON.parse(prefix.toString('utf8', start, pos)) as string;
        } catch {
          return undefined;
        }
      }
    }
    return undefined;
  };
  let id: MessageId | undefined;
  let method = false;
  let result = false;
  skipSpace();
  if (text.charAt(pos) !== '{') return undefined;
  pos++;
  for (;;) {
    skipSpace();
    if (text.charAt(pos) !== '"') break;
    const key = readString();
    if (key === undefined) break;
    if (key === 'result' || key === 'error') result = true;
    skipSpace();
    if (text.charAt(pos) !== ':') break;
    pos++;
    skipSpace();
    const first = text.charAt(pos);
    let value: unknown;
    if (first === '"') {
      value = readString();
      if (value === undefined) break;
    } else {
      // Numbers and literals; `{`, `[` and the end of the prefix stop the scan.
      const token = /^(?:-?\d[\d.eE+-]*|true|false|null)(?=[\s,}])/.exec(text.slice(pos, pos + 64));
      if (token === null) break;
      pos += token[0].length;
      try {
        value = JSON.parse(token[0]) as unknown;
      } catch {
        break;
      }
    }
    if (key === 'id') id = isMessageId(value) ? value : undefined;
    if (key === 'method') method = typeof value === 'string' && value.length > 0;
    skipSpace();
    if (text.charAt(pos) !== ',') break;
    pos++;
  }
  if (id === undefined) return undefined;
  if (method) return { id, kind: 'request' };
  return result ? { id, kind: 'response' } : undefined;
}
