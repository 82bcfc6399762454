/**
 * Turning what an SDK throws into a ProviderFailure: a kind for the retry policy, a message that
 * says what to do, and how long the provider asked us to wait. Both SDKs throw the same shapes
 * (status, Headers, parsed error body), so one classifier serves both.
 */
import { redactUrls } from '../support/url-redaction.ts';
import type { FailureKind, ModelRequest, ProviderFailure } from './stream.ts';
import type { ProviderEndpoint } from './types.ts';

interface SdkErrorShape {
  name?: string;
  message?: string;
  status?: number;
  headers?: { get(name: string): string | null };
  error?: unknown;
}

/** Wait time requested by the provider, from the standard and vendor rate-limit headers. */
export function retryAfterMs(
  headers: { get(name: string): string | null } | undefined,
  now = Date.now(),
): number | undefined {
  if (headers === undefined) return undefined;
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.get('retry-after-ms') !== null && Number.isFinite(ms) && ms >= 0) return ms;
  const after = headers.get('retry-after');
  if (after !== null) {
    const seconds = Number(after);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(after);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  // Anthropic: RFC 3339 reset times; OpenAI: durations like "1s", "6m0s", "250ms".
  const waits: number[] = [];
  for (const name of [
    'anthropic-ratelimit-requests-reset',
    'anthropic-ratelimit-tokens-reset',
    'anthropic-ratelimit-input-tokens-reset',
    'anthropic-ratelimit-output-tokens-reset',
  ]) {
    const value = headers.get(name);
    const date = value === null ? Number.NaN : Date.parse(value);
    if (Number.isFinite(date)) waits.push(Math.max(0, date - now));
  }
  for (const name of ['x-ratelimit-reset-requests', 'x-ratelimit-reset-tokens']) {
    const value = headers.get(name);
    const duration = value === null ? undefined : parseDuration(value);
    if (duration !== undefined) waits.push(duration);
  }
  return waits.length > 0 ? Math.max(...waits) : undefined;
}

function parseDuration(text: string): number | undefined {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text.trim()) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
  return parts.reduce((sum, [, n, u]) => sum + Number(n) * unit[u as keyof typeof unit], 0);
}

function bodyMessage(body: unknown): { type?: string; message?: string; code?: string } {
  if (typeof body !== 'object' || body === null) return {};
  const outer = body as { error?: unknown; type?: unknown; message?: unknown; code?: unknown };
  const inner = (typeof outer.error === 'object' && outer.error !== null ? outer.error : outer) as {
    type?: unknown;
    message?: unknown;
    code?: unknown;
  };
  return {
    ...(typeof inner.type === 'string' ? { type: inner.type } : {}),
    ...(typeof inner.message === 'string' ? { message: inner.message } : {}),
    ...(typeof inner.code === 'string' ? { code: inner.code } : {}),
  };
}

const SPEND_LIMIT = /credit balance|insufficient_quota|billing|spend limit|quota exceeded|payment/i;

/** Classifies anything thrown by an SDK call or while iterating its stream. */
export function classifyFailure(
  endpoint: ProviderEndpoint,
  modelId: string,
  thrown: unknown,
  aborted: boolean,
): ProviderFailure {
  const error = (
    typeof thrown === 'object' && thrown !== null ? thrown : { message: String(thrown) }
  ) as SdkErrorShape;
  const provider = endpoint.name;
  const fail = (
    kind: FailureKind,
    retryable: boolean,
    message: string,
    extra: Partial<ProviderFailure> = {},
  ): ProviderFailure => ({
    kind,
    provider: endpoint.id,
    retryable,
    // The base URL, and any URL an SDK quotes in its error, may carry a password or a key.
    message: redactUrls(`${provider}: ${message}`),
    ...(error.status === undefined ? {} : { status: error.status }),
    ...extra,
  });
  if (aborted || error.name === 'AbortError' || error.name === 'APIUserAbortError')
    return fail('cancelled', false, 'request cancelled.');
  if (error.name === 'OversizedEventError')
    return fail(
      'output_limit',
      false,
      `${error.message ?? 'a stream event was too large'}; the stream was stopped.`,
    );
  if (error.name === 'UnreadableEventError')
    return fail(
      'unreadable',
      false,
      `the response could not be read: ${error.message ?? 'an event of an unknown shape'}. This is a bug in Santra or the provider; please report it with the model name.`,
    );
  const status = error.status;
  const body = bodyMessage(error.error);
  const detail = body.message ?? error.message ?? 'no details';
  const shouldRetry = error.headers?.get('x-should-retry');
  if (status === undefined) {
    if (error.name === 'APIConnectionTimeoutError') return fail('timeout', true, 'the request timed out.');
    // A base URL with a user or password is refused before any connection: no retry can help.
    if (causes(thrown).some((cause) => /includes credentials/i.test(cause.message)))
      return fail('bad_request', false, connectionFailure(thrown, endpoint.baseUrl));
    if (
      error.name === 'APIConnectionError' ||
      /ECONNRESET|ECONNREFUSED|socket hang up|terminated|fetch failed|other side closed|^Connection error\.?$/i.test(
        `${error.message ?? ''}`,
      ) ||
      causes(thrown).some((cause) => cause.code !== undefined || cause.message === 'fetch failed')
    ) {
      return fail('network', true, connectionFailure(thrown, endpoint.baseUrl));
    }
    // An error object inside the stream (Anthropic `event: error`, an OpenAI-compatible error chunk).
    if (body.type === 'overloaded_error')
      return fail('overloaded', true, `overloaded (reported mid-stream: ${detail}).`);
    return fail('stream_error', true, `the stream reported an error: ${detail}`);
  }
  const wait = retryAfterMs(error.headers);
  const retryAfter = wait === undefined ? {} : { retryAfterMs: wait };
  if (status === 429) {
    if (SPEND_LIMIT.test(`${detail} ${body.code ?? ''} ${body.type ?? ''}`)) {
      return fail(
        'billing',
        false,
        `the account's spend limit or quota is reached (${detail}). Add credit or raise the limit, then try again.`,
      );
    }
    return fail('rate_limit', shouldRetry !== 'false', `rate limited (429): ${detail}`, retryAfter);
  }
  if (status === 529 || body.type === 'overloaded_error')
    return fail(
      'overloaded',
      shouldRetry !== 'false',
      `overloaded (${status}). Try again shortly.`,
      retryAfter,
    );
  if (status >= 500)
    return fail('server', shouldRetry !== 'false', `server error ${status}: ${detail}`, retryAfter);
  if (status === 401) {
    const key =
      endpoint.keyEnv === undefined
        ? 'the API key in the config file'
        : `${endpoint.keyEnv} (or the apiKey in the config file)`;
    return fail('auth', false, `the API key was rejected (401). Check ${key}.`);
  }
  if (status === 403)
    return fail(
      'permission',
      false,
      `access denied (403): ${detail}. The key may lack access to ${modelId}.`,
    );
  if (status === 404)
    return fail(
      'not_found',
      false,
      `model "${modelId}" or endpoint not found (404): ${detail}. Check the model id ("santra models", or model/list, shows the ones Santra knows) and ${endpoint.baseUrl}.`,
    );
  if (SPEND_LIMIT.test(detail))
    return fail('billing', false, `${detail}. Add credit or raise the limit, then try again.`);
  return fail('bad_request', false, `the request was refused (${status}): ${detail}`);
}

/**
 * How a stream that ran to its end without an exception may still have failed: the caller
 * aborted it (the OpenAI SDK then ends the iteration silently), or it never sent the API's final
 * event, `missing` (a truncated stream is incomplete, not success).
 */
export function endOfStreamFailure(
  endpoint: ProviderEndpoint,
  request: ModelRequest,
  missing: string | undefined,
): ProviderFailure | undefined {
  if (request.signal.aborted) return classifyFailure(endpoint, request.model.id, undefined, true);
  if (missing === undefined) return undefined;
  return {
    kind: 'incomplete',
    provider: endpoint.id,
    retryable: true,
    message: redactUrls(
      `${endpoint.name}: the response stream ended without ${missing}; the answer is incomplete.`,
    ),
  };
}

/** The causes an SDK's "Connection error." wraps: its `cause` chain (fetch failed → the system error). */
function causes(error: unknown): Array<{ code?: string; message: string }> {
  const out: Array<{ code?: string; message: string }> = [];
  let current: unknown = error;
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth++) {
    const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown };
    out.push({
      ...(typeof code === 'string' ? { code } : {}),
      message: typeof message === 'string' ? message : '',
    });
    current = cause;
  }
  return out;
}

/**
 * Why a connection to `baseUrl` failed, in words, with what to check: which URL (without the
 * credentials it may carry), and whether it was refused, not found, a TLS problem or a timeout.
 */
export function connectionFailure(error: unknown, baseUrl: string): string {
  return redactUrls(describeConnectionFailure(error, baseUrl));
}

function describeConnectionFailure(error: unknown, baseUrl: string): string {
  const chain = causes(error);
  const codes = chain.map((c) => c.code ?? '').join(' ');
  const text = chain.map((c) => c.message).join(' · ');
  const host = (() => {
    try {
      return new URL(baseUrl).host;
    } catch {
      return baseUrl;
    }
  })();
  // fetch refuses a URL with a user or password before it connects anywhere.
  if (/includes credentials/i.test(text))
    return `could not connect to ${baseUrl}: a base URL cannot carry a user name or password (user:password@): fetch, which the providers' SDKs use, refuses to send them. Remove them from the URL; the provider's key goes in its apiKey or its key variable.`;
  if (/ECONNREFUSED/.test(codes) || /ECONNREFUSED/.test(text))
    return `could not connect to ${baseUrl}: the connection was refused (nothing listens at ${host}). Is the server running, and is the base URL right?`;
  if (/ENOTFOUND|EAI_AGAIN|EAI_NONAME/.test(codes) || /ENOTFOUND|EAI_AGAIN/.test(text))
    return `could not connect to ${baseUrl}: the host name could not be resolved (DNS). Check the base URL and the network.`;
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL/.test(codes) || /certificate/i.test(text))
    return `could not connect to ${baseUrl}: the TLS certificate was not accepted (${text}). Check the URL; a local server usually wants http://, not https://.`;
  if (/EPROTO/.test(codes) || /wrong version number|ssl3_get_record|packet length too long/i.test(text))
    return `could not connect to ${baseUrl}: the TLS handshake failed — the server may speak plain HTTP. Try http:// instead of https://.`;
  if (/ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT|ENETUNREACH|EHOSTUNREACH/.test(codes))
    return `could not connect to ${baseUrl}: the connection timed out (the host is unreachable). Check the base URL and the network.`;
  if (/bad port/i.test(text))
    return `could not connect to ${baseUrl}: its port is one that HTTP clients refuse to use. Check the base URL.`;
  if (/ECONNRESET|socket hang up|other side closed|UND_ERR_SOCKET|terminated/i.test(`${codes} ${text}`))
    return `the connection to ${baseUrl} was closed by the other side before the answer was complete. Check that the server at ${host} is healthy.`;
  return `could not connect to ${baseUrl} (${text || 'no details'}). Check the base URL and the network.`;
}
