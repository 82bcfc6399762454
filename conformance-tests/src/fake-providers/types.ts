/**
 * The public contract of the fake model providers: loopback HTTP servers that speak the real
 * streaming wire formats of the Anthropic Messages API, the OpenAI Chat Completions API and the
 * OpenAI Responses API, and answer each request with a scripted turn.
 */

/**
 * Which wire API a fake provider speaks: `anthropic` (Messages), `openai` (Chat Completions) or
 * `openai-responses` (Responses). "OpenAI" below means both OpenAI APIs unless one is named.
 */
export type FakeApi = 'anthropic' | 'openai' | 'openai-responses';

/** One HTTP request as the fake received it, recorded before it was answered. */
export interface RecordedRequest {
  method: string;
  /** The request path without the query string, e.g. `/v1/messages`. */
  path: string;
  /** Lower-cased header names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** The parsed JSON body, or the raw text when it was not JSON (the fake then answers 400). */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary wire fields
  /** `Date.now()` when the whole body had arrived. */
  receivedAt: number;
}

/** A tool call the model makes in a turn. */
export interface FakeToolCall {
  /**
   * Defaults to `toolu_fake_N_M` (Anthropic) or `call_fake_N_M` (OpenAI; the Responses `call_id`),
   * for the M-th call of the provider's N-th answer. `null` sends no id (Chat Completions: the field
   * is left out; Anthropic and Responses: an empty string), as some compatible servers do.
   */
  id?: string | null;
  name: string;
  /**
   * The arguments: any JSON value, serialised with `JSON.stringify`; or `{ raw }` to send exactly
   * this argument text, which may be invalid JSON (to test how a client handles broken arguments).
   */
  args: unknown;
  /** Split the argument text into this many deltas (default 3). */
  chunks?: number;
}

/** Token counts reported for a turn; missing counts are estimated from the text sizes. */
export interface FakeUsage {
  /**
   * Uncached input tokens, in Anthropic's sense (`input_tokens`). OpenAI's `prompt_tokens` (Responses:
   * `input_tokens`) counts cached tokens too, so there it is `inputTokens + cacheReadTokens + cacheWriteTokens`.
   */
  inputTokens?: number;
  outputTokens?: number;
  /** Anthropic `cache_read_input_tokens`; OpenAI `prompt_tokens_details.cached_tokens` (Responses: `input_tokens_details`). */
  cacheReadTokens?: number;
  /** Anthropic `cache_creation_input_tokens`; OpenAI `prompt_tokens_details.cache_write_tokens` (likewise). */
  cacheWriteTokens?: number;
}

/**
 * What goes wrong with a turn. `afterEvents` counts the SSE events (each `data:` block, pings
 * included; a recorded body's events likewise) sent before the fault; for a non-streaming request the stream faults apply to the JSON
 * body instead (drop: half the body, then the socket is destroyed; malformed and truncate: half the
 * body as the whole response; error_event: an HTTP error of that type; stall: headers, then nothing).
 */
export type FakeFault =
  /** Answer with this status and the API's JSON error body, e.g. 429 with `retry-after`, or 529. */
  | {
      kind: 'http_error';
      status: number;
      headers?: Record<string, string>;
      /** Anthropic `error.type` / OpenAI `error.type`; defaults follow the status. */
      errorType?: string;
      /** OpenAI `error.code`; defaults follow the status. */
      code?: string;
      message?: string;
    }
  /** Destroy the socket mid-stream, without the terminating chunk. */
  | { kind: 'drop'; afterEvents: number }
  /** Send a syntactically broken SSE data line, then end the response. */
  | { kind: 'malformed'; afterEvents: number }
  /**
   * Anthropic: `event: error`; Chat Completions: a data chunk holding an `error` object; Responses:
   * `event: error` with `errorType` as its `code` (default `server_error`); then end.
   */
  | { kind: 'error_event'; afterEvents: number; errorType?: string; message?: string }
  /** End the response cleanly without the final event (no `message_stop`, `[DONE]` or `response.completed`). */
  | { kind: 'truncate'; afterEvents: number }
  /** Stop sending and keep the socket open until the client gives up or the fake is closed. */
  | { kind: 'stall'; afterEvents: number };

/** One scripted answer of the model. Blocks are sent in the order thinking, text, tool calls. */
export interface FakeTurn {
  /**
   * Serve this turn only to a request it matches (e.g. by the tools offered or the last user
   * message). A request gets the first unserved turn, in order, whose `match` is absent or true.
   */
  match?: (request: RecordedRequest) => boolean;
  /** Keep serving this turn to every request it matches instead of using it up (for benchmarks). */
  repeat?: boolean;
  /** The answer text; an array gives the exact deltas. */
  text?: string | string[];
  /**
   * Anthropic: a thinking block closed by a `signature_delta`; Chat Completions: `reasoning_content`
   * deltas; Responses: a `reasoning` item whose summary text arrives in these deltas.
   */
  thinking?: string | string[];
  /**
   * Anthropic: the thinking block's signature; Responses: the reasoning item's `encrypted_content`,
   * sent only when the request's `include` lists `reasoning.encrypted_content` (default: a fixed
   * fake base64 string).
   */
  signature?: string;
  toolCalls?: FakeToolCall[];
  /**
   * Chat Completions: how tool-call pieces are keyed, to imitate compatible servers. `repeat_header`: the id
   * and the whole name in every piece (DeepSeek, Qwen); `no_index`: pieces without `index`
   * (some Gemini and vLLM versions). Default: as OpenAI (id and name once, `index` on each).
   */
  toolCallWire?: 'openai' | 'repeat_header' | 'no_index';
  usage?: FakeUsage;
  /**
   * Chat Completions: send no usage chunk even though `stream_options.include_usage` asked for one,
   * and no `usage` in a whole answer; Responses: `usage: null` in the final response.
   */
  omitUsage?: boolean;
  /**
   * Mapped to `end_turn`/`tool_use`/`max_tokens` or `stop`/`tool_calls`/`length`; default from
   * toolCalls. Responses: `max_tokens` ends with `response.incomplete` (`incomplete_details.reason`
   * `max_output_tokens`, the last item `incomplete`) instead of `response.completed`.
   */
  stopReason?: 'end_turn' | 'tool_use' | 'max_tokens';
  /** Stream `tokens` text deltas (`tok1 `, `tok2 `, …) after `text`, unpaced or at a rate. */
  generate?: { tokens: number; tokensPerSecond?: number };
  /** Wait this long before sending the response headers. */
  firstByteDelayMs?: number;
  /** Wait this long between SSE events. */
  chunkDelayMs?: number;
  fault?: FakeFault;
  /**
   * An SSE body exactly as a real provider sent it (`event:` and `data:` lines, a blank line after
   * each event), served instead of one generated from the fields above, which it makes moot. A
   * streaming request gets status 200, `content-type: text/event-stream`, the api's response
   * headers, and this body byte for byte: nothing in it is rewritten. It is cut into events at the
   * blank lines; `chunkDelayMs` waits between them and a fault's `afterEvents` counts them.
   * `firstByteDelayMs`, `match`, `repeat` and an `http_error` fault apply as to any turn. A
   * non-streaming request gets HTTP 500 saying recorded turns only answer streaming requests.
   */
  recorded?: string;
}

/** A running fake provider. */
export interface FakeProvider {
  readonly api: FakeApi;
  /** What to pass as the SDK's `baseURL`: `http://127.0.0.1:PORT` (Anthropic) or `…/v1` (both OpenAI APIs). */
  readonly url: string;
  /** Every request received, in arrival order, including unanswerable ones. */
  readonly requests: RecordedRequest[];
  /** Adds turns after those already scripted. */
  push(...turns: FakeTurn[]): void;
  /** Turns not served yet (a `repeat` turn counts until it is first served). */
  pending(): number;
  /** Closes the server and every open socket, stalled ones included. */
  close(): Promise<void>;
}
