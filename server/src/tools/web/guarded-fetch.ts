/**
 * HTTP GET for web_fetch with the checks a model-driven fetch needs: http(s) only, no loopback,
 * private, link-local or other non-public address (unless the user allows them), checked again
 * on every redirect (followed by hand, at most a few), one deadline for the whole exchange, and
 * a cap on the bytes read (after decompression). Failures come back as values with an error type,
 * never as throws.
 *
 * The address check sits in the connection's own DNS lookup (node:http's `lookup` option): the
 * address that was checked is the address connected to, so a name that resolves to a public
 * address once and to a private one the next time (DNS rebinding) gets nowhere.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';

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

/** Why a connection to `host` is refused, carried out of the connection's lookup. */
class BlockedAddress extends Error {}

function blockedMessage(host: string, address: string): string {
  return (
    `${host} resolves to ${address}, a loopback, private or link-local address, which web_fetch does not fetch` +
    ' (the user can allow it in the config).'
  );
}

/** Undefined when `url` may be requested, else why not (for the model). Host names are checked as they are connected to. */
function refusal(url: URL, policy: AddressPolicy): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `${url.href} is not an http:// or https:// URL; web_fetch fetches only those.`;
  }
  if (policy.allowPrivateNetwork === true) return undefined;
  // An address literal is connected to without a lookup, so it is checked here.
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(host) === 0 || (policy.allowAddress ?? isPublicAddress)(host)) return undefined;
  return blockedMessage(url.host, host);
}

/**
 * The DNS lookup the connection uses: resolves with the policy's resolver and fails when any
 * address is not allowed, so the socket only ever connects to an address that passed the check.
 */
function checkedLookup(policy: AddressPolicy, displayHost: string): LookupFunction {
  const resolve = policy.lookup ?? systemLookup;
  const allow = policy.allowPrivateNetwork === true ? () => true : (policy.allowAddress ?? isPublicAddress);
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (found) => {
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const addresses = found.filter((address) => family === 0 || isIP(address) === family);
        const blocked = addresses.find((address) => !allow(address));
        if (addresses.length === 0) {
          const error = Object.assign(new Error(`${hostname} does not resolve to any address`), {
            code: 'ENOTFOUND',
          });
          callback(error, '', 0);
        } else if (blocked !== undefined) {
          callback(new BlockedAddress(blockedMessage(displayHost, blocked)), '', 0);
        } else if (options.all === true) {
          callback(
            null,
            addresses.map((address) => ({ address, family: isIP(address) })),
          );
        } else {
          const [address] = addresses as [string];
          callback(null, address, isIP(address));
        }
      },
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), '', 0),
    );
  };
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
      const refused = refusal(url, policy);
      if (refused !== undefined) {
        const errorType =
          url.protocol === 'http:' || url.protocol === 'https:' ? 'blocked_address' : 'unsupported_url';
        return {
          ok: false,
          errorType,
          message: hop === 0 ? refused : `Redirected to ${url.href}: ${refused}`,
        };
      }
      let response: IncomingMessage;
      try {
        response = await get(url, options.headers, checkedLookup(policy, url.host), signal);
      } catch (error) {
        if (!(error instanceof BlockedAddress)) throw error;
        const message = hop === 0 ? error.message : `Redirected to ${url.href}: ${error.message}`;
        return { ok: false, errorType: 'blocked_address', message };
      }
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (REDIRECTS.has(status) && location !== undefined) {
        response.destroy();
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
      const contentType = response.headers['content-type'] ?? '';
      if (!options.accept(contentType)) {
        response.destroy();
        return { ok: 'rejected', url: url.href, contentType };
      }
      const { body, truncated } = await readCapped(decoded(response), limits.maxBytes);
      return {
        ok: true,
        page: {
          url: url.href,
          status,
          statusText: response.statusMessage ?? '',
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
    return {
      ok: false,
      errorType: 'fetch_failed',
      message: `Fetching ${url.href} failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

/** One GET, resolved with the response once its headers arrive; no connection pooling. */
function get(
  url: URL,
  headers: Record<string, string>,
  lookup: LookupFunction,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  // Loaded on first use, and not through an ESM import: that would read node:http's lazy exports
  // and load its bundled undici, about 20 ms on the first prompt of every session.
  const { request } = process.getBuiltinModule(url.protocol === 'https:' ? 'node:https' : 'node:http');
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {
      method: 'GET',
      headers: { ...headers, 'accept-encoding': 'gzip, deflate, br' },
      lookup,
      signal,
      agent: false,
    });
    outgoing.once('response', resolve);
    // Kept for the whole exchange: a socket error after the headers must not go unhandled.
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** The body as sent, decompressed when the server compressed it. */
function decoded(response: IncomingMessage): Readable {
  const encoding = (response.headers['content-encoding'] ?? '').trim().toLowerCase();
  const { createBrotliDecompress, createGunzip, createInflate } = process.getBuiltinModule('node:zlib');
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  if (decoder === undefined) return response;
  response.on('error', (error) => decoder.destroy(error));
  decoder.on('close', () => response.destroy());
  return response.pipe(decoder);
}

/** Reads at most `maxBytes` (decompressed), then stops the transfer. */
async function readCapped(
  body: Readable,
  maxBytes: number,
): Promise<{ body: Uint8Array; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      length += chunk.length;
      if (length > maxBytes) {
        return { body: Buffer.concat(chunks, length).subarray(0, maxBytes), truncated: true };
      }
    }
  } finally {
    body.destroy();
  }
  return { body: Buffer.concat(chunks, length), truncated: false };
}
