/**
 * The filtering proxy through which a sandboxed command reaches the domains the user allowed
 * (config `sandbox.allowedDomains`). The sandbox has no network of its own; the proxy listens on
 * a Unix socket that is bound into it, where a relay offers it as http://127.0.0.1:3128
 * (HTTP_PROXY, HTTPS_PROXY and ALL_PROXY point there). It speaks HTTP: `CONNECT host:port` for
 * TLS and anything else, and plain requests in absolute form (`GET http://host/…`).
 *
 * A destination is allowed when its host matches an entry (`example.com`, `*.example.com` for
 * its subdomains, either with `:port`). A host name is resolved here, once, and refused when it
 * resolves to a loopback, private, link-local or otherwise local address — whoever controls a
 * permitted name's DNS must not reach the user's machine or network through it — unless that
 * address itself is listed (`127.0.0.1:8080`). The address checked is the address connected to.
 * Every refusal is recorded, so the command's result can say what the sandbox blocked.
 *
 * One proxy per command: it starts with the command and stops when it ends.
 */
import { lookup } from 'node:dns/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer, isIP, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface DomainProxy {
  /** The Unix socket to bind into the sandbox (Linux). */
  socketPath: string;
  /** With `tcp`: the port on 127.0.0.1 (macOS, where the sandbox shares the host's network). */
  port?: number;
  /** Destinations refused so far (`host:port`), in order, without repeats. */
  readonly blocked: readonly string[];
  close(): Promise<void>;
}

const MAX_HEAD = 64 * 1024;

/** Starts a proxy that lets through exactly `allowedDomains`. */
export async function startDomainProxy(
  allowedDomains: readonly string[],
  options: { tcp?: boolean } = {},
): Promise<DomainProxy> {
  const dir = await mkdtemp(join(tmpdir(), 'santra-proxy-'));
  const socketPath = join(dir, 'proxy.sock');
  const blocked: string[] = [];
  const sockets = new Set<Socket>();
  const refuse = (client: Socket, destination: string, why: string) => {
    if (!blocked.includes(destination)) blocked.push(destination);
    const body = `Santra's sandbox blocked ${destination}: ${why}\n`;
    client.end(
      `HTTP/1.1 403 Forbidden\r\nX-Santra-Sandbox: blocked\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > MAX_HEAD) client.destroy();
        return;
      }
      client.off('data', onData);
      client.pause();
      void handle(client, head.subarray(0, end).toString('latin1'), head.subarray(end + 4));
    };
    client.on('data', onData);
  });

  async function handle(client: Socket, head: string, rest: Buffer): Promise<void> {
    const [requestLine = '', ...headerLines] = head.split('\r\n');
    const [method = '', target = ''] = requestLine.split(' ');
    let host: string;
    let port: number;
    let forwarded: Buffer | undefined;
    if (method.toUpperCase() === 'CONNECT') {
      const parsed = splitHostPort(target, 443);
      if (parsed === undefined) return void client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      ({ host, port } = parsed);
    } else {
      let url: URL;
      try {
        url = new URL(target);
      } catch {
        return void client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      }
      if (url.protocol !== 'http:') return void client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      host = url.hostname.replace(/^\[|\]$/g, '');
      port = url.port === '' ? 80 : Number(url.port);
      const headers = headerLines.filter((line) => !/^(proxy-[a-z-]+|connection)\s*:/i.test(line));
      forwarded = Buffer.concat([
        Buffer.from(
          `${method} ${url.pathname}${url.search} HTTP/1.1\r\n${[...headers, 'Connection: close'].join('\r\n')}\r\n\r\n`,
          'latin1',
        ),
        rest,
      ]);
    }
    const destination = `${host}:${port}`;
    const entry = allowedDomains.find((pattern) => matches(pattern, host, port));
    if (entry === undefined) return refuse(client, destination, 'not in sandbox.allowedDomains');
    let address = host;
    if (isIP(host) === 0) {
      const found = await lookup(host, { all: true }).catch(() => []);
      const usable = found.find(
        (candidate) =>
          !isLocalAddress(candidate.address) ||
          allowedDomains.some((pattern) => matches(pattern, candidate.address, port)),
      );
      if (usable === undefined)
        return refuse(
          client,
          destination,
          found.length === 0 ? 'the name does not resolve' : 'it resolves to a local address',
        );
      address = usable.address;
    }
    const upstream = createConnection({ host: address, port });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.once('error', () => {
      if (forwarded === undefined && !client.destroyed) client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      else client.destroy();
    });
    upstream.once('connect', () => {
      if (forwarded === undefined) {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (rest.length > 0) upstream.write(rest);
      } else upstream.write(forwarded);
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
    client.once('close', () => upstream.destroy());
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if (options.tcp === true) server.listen(0, '127.0.0.1', () => resolve());
    else server.listen(socketPath, () => resolve());
  });
  const bound = server.address();
  return {
    socketPath,
    ...(typeof bound === 'object' && bound !== null ? { port: bound.port } : {}),
    blocked,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function splitHostPort(target: string, defaultPort: number): { host: string; port: number } | undefined {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(target);
  if (bracketed !== null) return { host: bracketed[1] ?? '', port: Number(bracketed[2] ?? defaultPort) };
  const colon = target.lastIndexOf(':');
  if (colon < 0) return target === '' ? undefined : { host: target, port: defaultPort };
  const port = Number(target.slice(colon + 1));
  if (!Number.isInteger(port) || port <= 0 || port > 65535) return undefined;
  return { host: target.slice(0, colon), port };
}

/** Whether an allowlist entry (`host`, `*.host`, either with `:port`, `[v6]:port`) admits `host:port`. */
export function matches(pattern: string, host: string, port: number): boolean {
  const parsed = splitHostPort(pattern.trim(), 0);
  if (parsed === undefined) return false;
  if (parsed.port !== 0 && parsed.port !== port) return false;
  const want = parsed.host.toLowerCase();
  const have = host.toLowerCase().replace(/\.$/, '');
  if (want.startsWith('*.')) return have.endsWith(want.slice(1)) && have.length > want.length - 1;
  return have === want;
}

/** Loopback, private, link-local, unspecified, multicast, CGNAT and unique-local addresses. */
export function isLocalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const v4 = mapped ?? (isIP(address) === 4 ? address : undefined);
  if (v4 !== undefined) {
    const [a = 0, b = 0] = v4.split('.').map(Number);
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 100 && b >= 64 && b < 128) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b < 32) ||
      (a === 192 && b === 168) ||
      a >= 224
    );
  }
  const v6 = address.toLowerCase();
  return v6 === '::' || v6 === '::1' || /^(fe[89ab]|fc|fd|ff)/.test(v6);
}
