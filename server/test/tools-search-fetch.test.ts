/**
 * web_fetch against a real HTTP server on 127.0.0.1: HTML to text, other text as is, binary
 * refused, redirects followed by hand and every hop checked, the address policy (by default the
 * local server itself is refused), the download and text caps, the deadline and cancellation.
 */
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { isPublicAddress } from '../src/tools/web/guarded-fetch.ts';
import { type WebFetchOptions, webFetchTool } from '../src/tools/web-fetch.ts';
import { tempWorkspace, testContext } from './helpers/tool-context.ts';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

const PAGE = `<!doctype html><html><head><title>Fetch &amp; Test</title><style>.x{color:red}</style>
<script>document.write("script text")</script></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<h1>Welcome</h1><p>Read <a href="/docs/intro">the introduction</a> first.</p>
<ul><li>alpha</li><li>beta</li></ul><noscript>Enable JavaScript</noscript></body></html>`;

const routes: Record<string, Handler> = {
  '/page': (_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE),
  '/json': (_request, response) =>
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok": true}'),
  '/latin1': (_request, response) =>
    response
      .writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' })
      .end(Buffer.from([0x63, 0x61, 0x66, 0xe9])),
  '/png': (_request, response) =>
    response.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(100_000)),
  '/untyped-binary': (_request, response) => {
    response.removeHeader('content-type');
    response.writeHead(200).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13]));
  },
  '/big': (_request, response) =>
    response.writeHead(200, { 'content-type': 'text/plain' }).end('0123456789'.repeat(50_000)),
  '/missing': (_request, response) =>
    response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not here</h1>'),
  '/r1': (_request, response) => response.writeHead(302, { location: '/r2' }).end(),
  '/r2': (request, response) =>
    response.writeHead(301, { location: `http://${request.headers.host}/page` }).end(),
  '/loop': (_request, response) => response.writeHead(307, { location: '/loop' }).end(),
  '/to-metadata': (_request, response) =>
    response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
  '/to-private-name': (_request, response) =>
    response.writeHead(302, { location: 'http://intranet.test/' }).end(),
  '/to-file': (_request, response) => response.writeHead(302, { location: 'file:///etc/passwd' }).end(),
  '/gzip': (_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(gzipSync(PAGE)),
  '/brotli-bomb': (_request, response) =>
    response
      .writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'br' })
      .end(brotliCompressSync(Buffer.alloc(50_000_000, 'a'))),
  '/drop': (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000' });
    response.write('the start of it', () => response.socket?.destroy());
  },
  '/hang': () => {
    // Never answers.
  },
};

describe('web_fetch', () => {
  let base: string;
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(request.url ?? '');
    const handler = routes[request.url ?? ''];
    if (handler === undefined) response.writeHead(404).end();
    else handler(request, response);
  });
  let root: string;

  before(async () => {
    root = await tempWorkspace('santra-fetch-');
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await rm(root, { recursive: true, force: true });
  });

  /** Allows the test server's address only: everything else private stays refused. */
  const local: WebFetchOptions = {
    allowAddress: (address) => address === '127.0.0.1' || isPublicAddress(address),
    lookup: (hostname) => Promise.resolve(hostname === 'intranet.test' ? ['10.1.2.3'] : []),
  };
  const fetchWith = async (
    url: string,
    options: WebFetchOptions = local,
    prepare?: (abort: () => void) => void,
  ) => {
    const context = await testContext(root);
    prepare?.(() => context.abort());
    return webFetchTool(options).execute({ url }, context);
  };

  test('HTML becomes readable text: title, headings, lists, links with URLs; no script, style or navigation', async () => {
    const result = await fetchWith(`${base}/page`);
    assert.equal(result.isError, undefined);
    assert.equal(
      result.output,
      [
        `URL: ${base}/page`,
        'Title: Fetch & Test',
        '',
        '# Welcome',
        '',
        `Read the introduction (${base}/docs/intro) first.`,
        '',
        '- alpha',
        '- beta',
      ].join('\n'),
    );
    assert.match(result.summary, /^text\/html, \d+ chars$/);
  });

  test('JSON and other text come back as they are, in the charset the server names', async () => {
    assert.equal((await fetchWith(`${base}/json`)).output, `URL: ${base}/json\n\n{"ok": true}`);
    assert.equal((await fetchWith(`${base}/latin1`)).output, `URL: ${base}/latin1\n\ncafé`);
  });

  test('binary content is refused, by its type or by its bytes', async () => {
    const png = await fetchWith(`${base}/png`);
    assert.equal(png.errorType, 'binary_content');
    assert.match(png.output, /image\/png, not text/);
    assert.equal((await fetchWith(`${base}/untyped-binary`)).errorType, 'binary_content');
  });

  test('a redirect chain is followed, and the output says where the text came from', async () => {
    requests.length = 0;
    const result = await fetchWith(`${base}/r1`);
    assert.deepEqual(requests, ['/r1', '/r2', '/page']);
    assert.match(result.output, new RegExp(`^URL: ${base}/page \\(redirected from ${base}/r1\\)\n`));
    assert.match(result.output, /# Welcome/);
  });

  test('every hop is checked: redirects to link-local, private or non-http targets are refused', async () => {
    const metadata = await fetchWith(`${base}/to-metadata`);
    assert.equal(metadata.errorType, 'blocked_address');
    assert.match(
      metadata.output,
      /^Redirected to http:\/\/169\.254\.169\.254\/latest\/meta-data\/: .*169\.254\.169\.254/,
    );
    const named = await fetchWith(`${base}/to-private-name`);
    assert.equal(named.errorType, 'blocked_address');
    assert.match(named.output, /intranet\.test resolves to 10\.1\.2\.3/);
    assert.equal((await fetchWith(`${base}/to-file`)).errorType, 'unsupported_url');
    const loop = await fetchWith(`${base}/loop`);
    assert.equal(loop.errorType, 'too_many_redirects');
  });

  test('by default loopback and private addresses are refused before any request; the setting allows them', async () => {
    requests.length = 0;
    for (const url of [
      `${base}/page`,
      'http://localhost:1/',
      'http://[::1]:1/',
      'http://10.0.0.1/',
      'http://[::ffff:127.0.0.1]:1/',
    ]) {
      const result = await fetchWith(url, {});
      assert.equal(result.errorType, 'blocked_address', url);
    }
    assert.deepEqual(requests, []);
    const allowed = await fetchWith(`${base}/page`, { allowPrivateNetwork: true });
    assert.equal(allowed.isError, undefined);
  });

  test('the address checked is the address connected to: one lookup per connection, so DNS rebinding gets nowhere', async () => {
    // A resolver that answers an allowed address once and a refused one every time after: a fetch
    // that resolved again to connect would reach 127.0.0.2 (or fail); this one uses the first answer.
    const answers: string[] = [];
    const rebinding: WebFetchOptions = {
      allowAddress: (address) => address === '127.0.0.1',
      lookup: (hostname) => {
        const address = answers.length === 0 ? '127.0.0.1' : '127.0.0.2';
        answers.push(`${hostname} -> ${address}`);
        return Promise.resolve([address]);
      },
    };
    const port = new URL(base).port;
    const result = await fetchWith(`http://rebind.test:${port}/page`, rebinding);
    assert.equal(result.isError, undefined, result.output);
    assert.match(result.output, /# Welcome/);
    assert.deepEqual(answers, ['rebind.test -> 127.0.0.1']);
    const again = await fetchWith(`http://rebind.test:${port}/page`, rebinding);
    assert.equal(again.errorType, 'blocked_address');
    assert.match(again.output, /rebind\.test:\d+ resolves to 127\.0\.0\.2/);
  });

  test('compressed bodies are decoded, and the byte cap applies to the decoded size', async () => {
    const page = await fetchWith(`${base}/gzip`);
    assert.equal(page.isError, undefined, page.output);
    assert.match(page.output, /Title: Fetch & Test\n\n# Welcome/);
    // 50 MB of text in about 50 KB of brotli: reading stops at the cap.
    const bomb = await fetchWith(`${base}/brotli-bomb`, { ...local, maxBytes: 1_000_000 });
    assert.match(bomb.output, /\[The download stopped at 1,000,000 bytes/);
  });

  test('URLs that are not http(s) or not URLs at all', async () => {
    assert.equal((await fetchWith('ftp://example.com/file')).errorType, 'unsupported_url');
    assert.equal((await fetchWith('file:///etc/passwd')).errorType, 'unsupported_url');
    assert.equal((await fetchWith('not a url')).errorType, 'invalid_url');
  });

  test('a download over the byte cap is cut, and text over the character cap too; both are stated', async () => {
    const bytes = await fetchWith(`${base}/big`, { ...local, maxBytes: 100_000 });
    assert.match(
      bytes.output,
      /\[The download stopped at 100,000 bytes; the rest of the page was not read\.\]/,
    );
    const chars = await fetchWith(`${base}/big`, { ...local, maxChars: 1000 });
    const body = chars.output.split('\n')[2] ?? '';
    assert.equal(body.length, 1000);
    assert.match(chars.output, /\[Cut at 1,000 of 500,000 characters\.\]/);
  });

  test('an HTTP error status is an error with the start of the page', async () => {
    const result = await fetchWith(`${base}/missing`);
    assert.equal(result.errorType, 'http_error');
    assert.match(result.output, /answered HTTP 404 Not Found\.\n\n# Not here/);
  });

  test('a connection dropped in the middle of the body is a fetch error, not a crash', async () => {
    const result = await fetchWith(`${base}/drop`);
    assert.equal(result.errorType, 'fetch_failed', result.output);
    assert.match(result.output, /Fetching .*\/drop failed: /);
  });

  test('a server that never answers runs into the deadline', async () => {
    const result = await fetchWith(`${base}/hang`, { ...local, timeoutMs: 300 });
    assert.equal(result.errorType, 'timeout');
    assert.match(result.output, /within 0\.3 s/);
  });

  test('cancelling the run stops the fetch', async () => {
    const result = await fetchWith(`${base}/hang`, local, (abort) => setTimeout(abort, 50));
    assert.equal(result.errorType, 'cancelled');
  });
});

describe('isPublicAddress', () => {
  test('refuses loopback, private, link-local, shared and mapped addresses; allows public ones', () => {
    for (const address of [
      '127.0.0.1',
      '10.2.3.4',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      'ff02::1',
      'not-an-ip',
    ]) {
      assert.equal(isPublicAddress(address), false, address);
    }
    for (const address of ['8.8.8.8', '1.1.1.1', '2001:4860:4860::8888', '172.32.0.1']) {
      assert.equal(isPublicAddress(address), true, address);
    }
  });
});
