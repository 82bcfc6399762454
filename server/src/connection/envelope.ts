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

export type Envelope =
  | { kind: 'request'; message: RequestEnvelope }
  | { kind: 'notification'; message: NotificationEnvelope }
  | { kind: 'response'; message: { jsonrpc: '2.0'; id: MessageId | null } }
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
      return { kind: 'response', message: value as { jsonrpc: '2.0'; id: MessageId | null } };
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
