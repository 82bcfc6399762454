/**
 * The wire transcript of one scenario: every frame each side wrote, in order, with what the client
 * mode found wrong with the client's frames. It is the evidence a finding cites and what the report
 * shows on failure.
 */

export type Direction = 'client' | 'server' | 'note';

export interface WireEntry {
  /** Milliseconds since the scripted server started. */
  at: number;
  from: Direction;
  /** The parsed body (a JSON-RPC message), when it was JSON. */
  message?: unknown;
  /** The body as written, when it was not JSON (or for a note, the note). */
  text?: string;
  /** The body's length in bytes (client frames). */
  bytes?: number;
  /** Framing faults of this client frame (§1.2). */
  faults?: string[];
}

/** A JSON-RPC message as the checks see it. */
export interface RpcMessage {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

export function asMessage(entry: WireEntry): RpcMessage | undefined {
  const m: unknown = entry.message;
  return typeof m === 'object' && m !== null && !Array.isArray(m) ? m : undefined;
}

export const isRequest = (m: RpcMessage): boolean => typeof m.method === 'string' && Object.hasOwn(m, 'id');
export const isNotification = (m: RpcMessage): boolean =>
  typeof m.method === 'string' && !Object.hasOwn(m, 'id');
export const isResponse = (m: RpcMessage): boolean =>
  m.method === undefined && (Object.hasOwn(m, 'result') || Object.hasOwn(m, 'error'));

/** §2.3: `1` and `"1"` are the same id. */
export function sameId(a: unknown, b: unknown): boolean {
  return (typeof a === 'string' || typeof a === 'number') && (typeof b === 'string' || typeof b === 'number')
    ? String(a) === String(b)
    : false;
}

/** A one-line rendering of an entry for messages and the text report. */
export function describeEntry(entry: WireEntry): string {
  const arrow = entry.from === 'client' ? '→' : entry.from === 'server' ? '←' : '·';
  const body = entry.message === undefined ? (entry.text ?? '') : JSON.stringify(entry.message);
  const clipped = body.length > 400 ? `${body.slice(0, 400)}… (${body.length} chars)` : body;
  const faults =
    entry.faults === undefined || entry.faults.length === 0 ? '' : `  !! ${entry.faults.join('; ')}`;
  return `${String(entry.at).padStart(6)}ms ${arrow} ${clipped}${faults}`;
}
