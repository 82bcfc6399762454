/**
 * A bound on one model response. A provider that streams without end — a model stuck in a loop,
 * a broken or hostile endpoint — would otherwise take the server's memory and flood the client
 * (measured before this bound: 2.8 GB in 14 s, 536 MB of text sent on). A response is stopped,
 * as a non-retryable `output_limit` failure, once its text, thinking and tool-call arguments hold
 * more characters than a response of the requested size can: the larger of the requested output
 * (plus the thinking budget) and the model's own maximum, at CHARS_PER_TOKEN, plus a margin.
 * Time is bounded by resilience.ts (`totalMs` per attempt).
 */
import { groupDigits } from '../support/numbers.ts';
import type { ModelRequest, StreamEvent, StreamFn } from './stream.ts';

/** Real tokens average about 4 characters; long runs of spaces or symbols reach 16 and more. */
export const CHARS_PER_TOKEN = 16;
const MARGIN_CHARS = 64 * 1024;

/** The most characters one response to `request` may stream. */
export function maxResponseChars(
  request: Pick<ModelRequest, 'maxOutputTokens' | 'thinkingBudget' | 'model'>,
): number {
  const tokens = Math.max(
    request.maxOutputTokens + (request.thinkingBudget ?? 0),
    request.model.maxOutputTokens,
  );
  return tokens * CHARS_PER_TOKEN + MARGIN_CHARS;
}

export function withOutputBound(
  stream: StreamFn,
  limit: typeof maxResponseChars = maxResponseChars,
): StreamFn {
  return async function* (endpoint, request): AsyncGenerator<StreamEvent> {
    const max = limit(request);
    const controller = new AbortController();
    const onAbort = () => controller.abort(request.signal.reason);
    request.signal.addEventListener('abort', onAbort, { once: true });
    if (request.signal.aborted) controller.abort(request.signal.reason);
    let chars = 0;
    try {
      for await (const event of stream(endpoint, { ...request, signal: controller.signal })) {
        if (event.type === 'text_delta' || event.type === 'thinking_delta') chars += event.text.length;
        else if (event.type === 'tool_call_delta') chars += event.argsDelta.length;
        if (chars > max) {
          // Stops the provider's HTTP stream; what was streamed so far stays with the caller.
          controller.abort(new Error('output limit'));
          yield {
            type: 'error',
            failure: {
              kind: 'output_limit',
              provider: endpoint.id,
              retryable: false,
              message: `${endpoint.name}: the answer passed ${groupDigits(max)} characters, more than a response of at most ${groupDigits(Math.max(request.maxOutputTokens, request.model.maxOutputTokens))} tokens can hold, so it was stopped. The model may be repeating itself: ask again, or ask for a shorter answer.`,
            },
          };
          return;
        }
        yield event;
        if (event.type === 'done' || event.type === 'error') return;
      }
    } finally {
      request.signal.removeEventListener('abort', onAbort);
    }
  };
}
