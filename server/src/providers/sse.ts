/**
 * Server-sent events read straight off a response body, a network read at a time.
 *
 * The SDKs build and send the request (auth, headers, error responses as typed errors), but
 * their stream iterators cost about 8 µs per event — more than all of Santra's own work per
 * delta, and the bulk of the time a fast answer takes (docs/performance.md). Parsing here
 * yields every event that one read completed as a batch, so the layers above pay per read, not
 * per token.
 */

import type { StreamEvent } from './stream.ts';

export interface SseEvent {
  /** The `event:` field, or '' when absent. */
  event: string;
  /** The `data:` lines joined with newlines. */
  data: string;
}

/** No real event comes near this; a server that never ends one would otherwise fill memory. */
export const MAX_EVENT_CHARS = 8 * 1024 * 1024;

/** An event that did not end within MAX_EVENT_CHARS. */
export class OversizedEventError extends Error {
  constructor() {
    super(`a stream event passed ${MAX_EVENT_CHARS / 1024 / 1024} MiB without ending`);
    this.name = 'OversizedEventError';
  }
}

/** Yields the events of `body` in batches, one batch per read that completed any. */
export async function* sseBatches(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent[]> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const bytes of body) {
    buffer += decoder.decode(bytes, { stream: true });
    const end = lastBoundary(buffer);
    if (end === -1) {
      if (buffer.length > MAX_EVENT_CHARS) throw new OversizedEventError();
      continue;
    }
    const complete = buffer.slice(0, end);
    buffer = buffer.slice(end);
    if (buffer.length > MAX_EVENT_CHARS) throw new OversizedEventError();
    const events = parseEvents(complete);
    if (events.length > 0) yield events;
  }
  buffer += decoder.decode();
  const rest = parseEvents(buffer);
  if (rest.length > 0) yield rest;
}

/** The index just past the last blank line (an event boundary), or -1. */
function lastBoundary(text: string): number {
  const lf = text.lastIndexOf('\n\n');
  const crlf = text.lastIndexOf('\r\n\r\n');
  if (lf === -1 && crlf === -1) return -1;
  return lf > crlf ? lf + 2 : crlf + 4;
}

function parseEvents(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (block === '') continue;
    let event = '';
    let data: string | undefined;
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('data:')) {
        const value = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
        data = data === undefined ? value : `${data}\n${value}`;
      } else if (line.startsWith('event:')) {
        event = line.slice(line.charCodeAt(6) === 32 ? 7 : 6);
      }
      // Comments (`:` lines, e.g. keep-alives), `id:` and `retry:` carry nothing we use.
    }
    if (data !== undefined) events.push({ event, data });
  }
  return events;
}

/** An error carried inside a stream, shaped like the SDKs' errors so one classifier serves both. */
export class StreamReportedError extends Error {
  readonly error: unknown;

  constructor(body: unknown) {
    super('the stream reported an error');
    this.name = 'StreamReportedError';
    this.error = body;
  }
}

/** Appends `event`, merging it into the previous one when both are text or both thinking deltas. */
export function appendMerged(out: StreamEvent[], event: StreamEvent): void {
  const last = out.at(-1);
  if (event.type === 'text_delta' && last?.type === 'text_delta') last.text += event.text;
  else if (event.type === 'thinking_delta' && last?.type === 'thinking_delta') last.text += event.text;
  else out.push(event);
}

/** The body of a successful streaming response (the SDKs turn error statuses into exceptions first). */
export function responseBody(response: Response): AsyncIterable<Uint8Array> {
  if (response.body === null) throw new Error('the response has no body');
  return response.body;
}

/**
 * An event that parsed as JSON but did not have a shape Santra can read. The same response read
 * again fails the same way, so it is not retried (failures.ts).
 */
export class UnreadableEventError extends Error {
  constructor(cause: unknown, data: string) {
    const excerpt = data.length > 200 ? `${data.slice(0, 200)}…` : data;
    super(`${cause instanceof Error ? cause.message : String(cause)} in the event ${excerpt}`);
    this.name = 'UnreadableEventError';
  }
}

/** Applies one parsed event; a failure of our reading of it becomes an UnreadableEventError. */
export function readEvent(apply: () => void, data: string): void {
  try {
    apply();
  } catch (error) {
    if (error instanceof StreamReportedError) throw error;
    throw new UnreadableEventError(error, data);
  }
}

/** What one batch of events gave: the stream events read, and whether the stream ended or failed. */
export interface BatchResult {
  out: StreamEvent[];
  /** The API's end-of-stream marker was read (OpenAI's `[DONE]`). */
  ended: boolean;
  /** What an event of the batch threw; the events before it are in `out`, to be shown first. */
  failure?: Error;
}

/**
 * Reads the events of a batch with `read` (which returns 'end' at an end-of-stream marker). An
 * event that throws — an error the provider sent, or one Santra cannot read — stops the batch,
 * but what the events before it held is kept: text a provider streamed before its error was shown
 * to the user, and stays shown.
 */
export function readBatch(
  batch: readonly SseEvent[],
  read: (event: SseEvent, out: StreamEvent[]) => 'end' | void,
): BatchResult {
  const out: StreamEvent[] = [];
  try {
    for (const event of batch) if (read(event, out) === 'end') return { out, ended: true };
  } catch (failure) {
    return { out, ended: false, failure: failure instanceof Error ? failure : new Error(String(failure)) };
  }
  return { out, ended: false };
}
