/**
 * What the HTTP plumbing needs from a wire API: its paths, its stream events, its JSON bodies and
 * its error shapes. One implementation per API (`anthropic-sse.ts`, `openai-sse.ts`,
 * `responses-sse.ts`); the server owns everything else (recording, matching, timing, faults).
 */
import type { FakeApi, RecordedRequest } from './types.ts';
import type { TurnPlan, WireEvent } from './turn-plan.ts';

export interface Dialect {
  readonly api: FakeApi;
  /** Appended to `http://127.0.0.1:PORT` to give the SDK base URL. */
  readonly baseSuffix: string;
  /** The request paths answered with turns. */
  readonly paths: readonly string[];
  /** Prefix of generated tool call ids. */
  readonly toolIdPrefix: string;
  /** Headers on every answer, e.g. the request id. */
  responseHeaders(plan: { ordinal: number }): Record<string, string>;
  /** The stream events of a turn, final event included, in order. */
  streamEvents(plan: TurnPlan, request: RecordedRequest): Iterable<WireEvent>;
  /** The non-streaming answer body of a turn. */
  message(plan: TurnPlan, request: RecordedRequest): unknown;
  /** The JSON body of an HTTP error response; type, code and message default from the status. */
  errorBody(status: number, message?: string, errorType?: string, code?: string): unknown;
  /** The status an `error_event` of this type would have had as an HTTP error. */
  statusForErrorType(errorType: string | undefined): number;
  /** A mid-stream error event, as the API sends it, after `sent` events. */
  errorEvent(errorType: string | undefined, message: string | undefined, sent: number): string;
  /** An SSE event whose data is not valid JSON. */
  malformedEvent(): string;
}

/** Formats one SSE event: an optional `event:` line, one `data:` line and the blank line. */
export function sse(data: unknown, event?: string): string {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return `${event === undefined ? '' : `event: ${event}\n`}data: ${payload}\n\n`;
}

/**
 * Ends an SSE event: a line break (any of the three SSE allows) directly followed by another. A
 * `\r` directly before `\n` is never a line break of its own, so `\r\n` alone is not a blank line.
 */
const EVENT_END = /(?:\r\n|\r(?!\n)|\n)(?:\r\n|\r(?!\n)|\n)/g;

/**
 * Cuts a recorded SSE body into its events, each ending with its blank line, without changing a
 * byte: the events joined are `body`. Text after the last blank line is a last, unfinished event.
 */
export function recordedEvents(body: string): WireEvent[] {
  const events: WireEvent[] = [];
  let start = 0;
  for (const end of body.matchAll(EVENT_END)) {
    const stop = end.index + end[0].length;
    events.push({ data: body.slice(start, stop), paced: false });
    start = stop;
  }
  if (start < body.length) events.push({ data: body.slice(start), paced: false });
  return events;
}
