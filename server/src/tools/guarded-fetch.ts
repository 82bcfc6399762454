/**
 * HTTP GET for web_fetch with the checks a model-driven fetch needs: http(s) only, no loopback,
 * private, link-local or other non-public address (unless the user allows them), checked again
 * on every redirect (followed by hand, at most a few), one deadline for the whole exchange, and
 * a cap on the bytes read. Failures come back as values with an error type, never as throws.
 *
 * Limitation: the address is checked by resolving the host before fetch resolves it again, so a
 * DNS server that answers differently the second time (DNS rebinding) is not caught; pinning the
 * address would need an undici dispatcher, which Node's global fetch does not expose.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Which hosts may be fetched. */
export interface AddressPolicy {
  /** Allow every address, private ones included (the user's choice). */
  allowPrivateNetwork?: boolean;
  /** Decides per resolved IP address; default `isPublicAddress`. */
  allowAddress?: (address: string) => boolean;
  /** Resolves a host name to its addresses; default the system resolver (dns.lookup). */
  lookup?: (hostname: string) => Promise<string[]>;
}

export interface FetchLimits {
  /** For the whole exchange, redirects and body included. */
  timeoutMs: number;
  /** Bytes of body read; the rest is dropped and `truncated` set. */
  maxBytes: number;
  maxRedirects: number;
}

export interface FetchedPage {
  /** The URL the body came from, after redirects. */
  url: string;
  status: number;
  statusText: string;
  contentType: string;
  body: Uint8Array;
  truncated: boolean;
}

export type FetchOutcome =
  | { ok: true; page: FetchedPage }
  | { ok: false; errorType: string; message: string }
  /** The response is not worth reading (e.g. binary): its headers, body unread. */
  | { ok: 'rejected'; url: string; contentType: string };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** False for loopback, private, link-local, shared, multicast and reserved addresses (IPv4-mapped IPv6 included). */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

async function systemLookup(hostname: string): Promise<string[]> {
  return (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);
}

/** Undefined when `url` may be fetched, else why not (for the model). */
async function refusal(url: URL, policy: AddressPolicy): Promise<string | undefined> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `${url.href} is not an http:// or https:// URL; web_fetch fetches only those.`;
  }
  if (policy.allowPrivateNetwork === true) return undefined;
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const addresses = isIP(host) !== 0 ? [host] : await (policy.lookup ?? systemLookup)(host);
  if (addresses.length === 0) return `${host} does not resolve to any address.`;
  const allow = policy.allowAddress ?? isPublicAddress;
  const blocked = addresses.find((address) => !allow(address));
  if (blocked === undefined) return undefined;
  return (
    `${url.host} resolves to ${blocked}, a loopback, private or link-local address, which web_fetch does not fetch` +
    ' (the user can allow it in the config).'
  );
}

/**
 * GETs `input`, following redirects by hand. `accept` decides from the content type (and status)
 * whether the body is worth reading; when it says no, the body is dropped unread.
 */
export async function guardedFetch(
  input: string,
  options: {
    signal: AbortSignal;
    policy: AddressPolicy;
    limits: FetchLimits;
    headers: Record<string, string>;
    accept: (contentType: string) => boolean;
  },
): Promise<FetchOutcome> {
  const { limits, policy } = options;
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const signal = AbortSignal.any([options.signal, deadline]);
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return {
      ok: false,
      errorType: 'invalid_url',
      message: `${JSON.stringify(input)} is not a valid URL. Give an absolute http:// or https:// URL.`,
    };
  }
  try {
    for (let hop = 0; ; hop++) {
      const refused = await abortable(refusal(url, policy), signal);
      if (refused !== undefined) {
        const errorType =
          url.protocol === 'http:' || url.protocol === 'https:' ? 'blocked_address' : 'unsupported_url';
        return {
          ok: false,
          errorType,
          message: hop === 0 ? refused : `Redirected to ${url.href}: ${refused}`,
        };
      }
      const response = await fetch(url, { redirect: 'manual', signal, headers: options.headers });
      const location = response.headers.get('location');
      if (REDIRECTS.has(response.status) && location !== null) {
        await response.body?.cancel();
        if (hop >= limits.maxRedirects) {
          return {
            ok: false,
            errorType: 'too_many_redirects',
            message: `${input} redirected more than ${limits.maxRedirects} times; stopped at ${url.href}.`,
          };
        }
        url = new URL(location, url);
        continue;
      }
      const contentType = response.headers.get('content-type') ?? '';
      if (!options.accept(contentType)) {
        await response.body?.cancel();
        return { ok: 'rejected', url: url.href, contentType };
      }
      const { body, truncated } = await readCapped(response, limits.maxBytes);
      return {
        ok: true,
        page: {
          url: url.href,
          status: response.status,
          statusText: response.statusText,
          contentType,
          body,
          truncated,
        },
      };
    }
  } catch (error) {
    if (options.signal.aborted)
      return { ok: false, errorType: 'cancelled', message: 'The fetch was cancelled.' };
    if (deadline.aborted) {
      return {
        ok: false,
        errorType: 'timeout',
        message: `${url.href} did not answer in full within ${limits.timeoutMs / 1000} s.`,
      };
    }
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    return {
      ok: false,
      errorType: 'fetch_failed',
      message: `Fetching ${url.href} failed: ${cause ?? (error as Error).message}`,
    };
  }
}

async function readCapped(
  response: Response,
  maxBytes: number,
): Promise<{ body: Uint8Array; truncated: boolean }> {
  if (response.body === null) return { body: new Uint8Array(), truncated: false };
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { body: Buffer.concat(chunks, length), truncated: false };
    chunks.push(value);
    length += value.length;
    if (length > maxBytes) {
      await reader.cancel();
      return { body: Buffer.concat(chunks, length).subarray(0, maxBytes), truncated: true };
    }
  }
}

/** `promise`, or a rejection as soon as `signal` aborts (a DNS lookup cannot be cancelled itself). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
