/**
 * web_search against fake backends on 127.0.0.1 that speak each service's JSON: SearXNG at the
 * configured URL, Brave and Tavily at injected base URLs. The requests are recorded, so the tests
 * check what each API is sent (query, key header, body) as well as what the model reads back.
 */
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { ToolSettings } from '../src/tools/types.ts';
import { type WebSearchOptions, webSearchTool } from '../src/tools/web-search.ts';
import { tempWorkspace, testContext } from './helpers/tool-context.ts';

interface Recorded {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: string;
}

describe('web_search', () => {
  const recorded: Recorded[] = [];
  let reply: (request: Recorded, response: ServerResponse) => void = (_request, response) =>
    response.end('{}');
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const entry = {
        method: request.method ?? '',
        url: new URL(request.url ?? '/', 'http://x'),
        headers: request.headers,
        body,
      };
      recorded.push(entry);
      reply(entry, response);
    });
  });
  let base: string;
  let root: string;

  before(async () => {
    root = await tempWorkspace('santra-search-');
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await rm(root, { recursive: true, force: true });
  });

  const json = (status: number, value: unknown) => (_request: Recorded, response: ServerResponse) =>
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
  const search = async (
    webSearch: ToolSettings['webSearch'],
    query = 'node test runner',
    options: WebSearchOptions = { braveUrl: `${base}/brave/search`, tavilyUrl: `${base}/tavily/search` },
  ) => {
    recorded.length = 0;
    const context = await testContext(root, { settings: webSearch === undefined ? {} : { webSearch } });
    return webSearchTool(options).execute({ query }, context);
  };

  test('without a backend: an error saying how to configure one', async () => {
    const result = await search(undefined);
    assert.equal(result.errorType, 'not_configured');
    assert.match(result.output, /"tools\.webSearch"/);
    assert.match(result.output, /\{"provider":"searxng","url":"http:\/\/localhost:8888"\}/);
    assert.match(result.output, /brave.*tavily/s);
  });

  test('SearXNG: GET <url>/search?q=…&format=json; results numbered with title, URL and snippet', async () => {
    reply = json(200, {
      query: 'node test runner',
      results: [
        {
          url: 'https://nodejs.org/api/test.html',
          title: 'Test runner | Node.js',
          content: 'The <b>node:test</b> module &amp; more',
          engine: 'x',
        },
        { url: 'https://example.test/b', title: 'Second', content: '' },
        { title: 'no url, skipped' },
      ],
    });
    const result = await search({ provider: 'searxng', url: `${base}/searx/` });
    assert.equal(recorded[0]?.method, 'GET');
    assert.equal(recorded[0]?.url.pathname, '/searx/search');
    assert.equal(recorded[0]?.url.searchParams.get('q'), 'node test runner');
    assert.equal(recorded[0]?.url.searchParams.get('format'), 'json');
    assert.equal(
      result.output,
      '1. Test runner | Node.js\n   https://nodejs.org/api/test.html\n   The node:test module & more\n\n2. Second\n   https://example.test/b',
    );
    assert.equal(result.summary, '2 results');
  });

  test('SearXNG without the JSON format enabled (HTTP 403) says what to change', async () => {
    reply = (_request, response) => response.writeHead(403).end('Forbidden');
    const result = await search({ provider: 'searxng', url: base });
    assert.equal(result.errorType, 'search_failed');
    assert.match(result.output, /search\.formats/);
  });

  test('Brave: the key in X-Subscription-Token, results from web.results', async () => {
    reply = json(200, {
      type: 'search',
      web: {
        type: 'search',
        results: [
          { title: 'Brave hit', url: 'https://brave.test/1', description: 'A <strong>bold</strong> claim' },
        ],
      },
    });
    const result = await search({ provider: 'brave', apiKey: 'brave-key' });
    const request = recorded[0];
    assert.equal(request?.url.pathname, '/brave/search');
    assert.equal(request?.url.searchParams.get('q'), 'node test runner');
    assert.equal(request?.url.searchParams.get('count'), '10');
    assert.equal(request?.headers['x-subscription-token'], 'brave-key');
    assert.equal(result.output, '1. Brave hit\n   https://brave.test/1\n   A bold claim');
  });

  test('Tavily: POST JSON with the query, the key as a bearer token', async () => {
    reply = json(200, {
      query: 'q',
      results: [{ title: 'Tavily hit', url: 'https://tavily.test/1', content: 'snippet', score: 0.9 }],
    });
    const result = await search({ provider: 'tavily', apiKey: 'tvly-key' }, 'q');
    const request = recorded[0];
    assert.equal(request?.method, 'POST');
    assert.equal(request?.url.pathname, '/tavily/search');
    assert.equal(request?.headers.authorization, 'Bearer tvly-key');
    assert.deepEqual(JSON.parse(request?.body ?? ''), { query: 'q', max_results: 10 });
    assert.equal(result.output, '1. Tavily hit\n   https://tavily.test/1\n   snippet');
  });

  test('a refused key, rate limiting, a non-JSON answer and no results', async () => {
    reply = json(401, { error: 'bad key' });
    assert.equal((await search({ provider: 'brave', apiKey: 'wrong' })).errorType, 'auth_failed');
    reply = json(429, {});
    assert.equal((await search({ provider: 'tavily', apiKey: 'k' })).errorType, 'rate_limited');
    reply = (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html' }).end('<html>oops</html>');
    const html = await search({ provider: 'searxng', url: base });
    assert.equal(html.errorType, 'search_failed');
    assert.match(html.output, /did not answer with JSON/);
    reply = json(200, { results: [] });
    const none = await search({ provider: 'searxng', url: base }, 'nothing');
    assert.equal(none.output, 'No results for "nothing".');
    assert.equal(none.isError, undefined);
  });

  test('a backend that never answers runs into the deadline; a cancelled run stops the search', async () => {
    reply = () => {
      // never answers
    };
    const slow = await search({ provider: 'searxng', url: base }, 'q', { timeoutMs: 200 });
    assert.equal(slow.errorType, 'timeout');
    const context = await testContext(root, { settings: { webSearch: { provider: 'searxng', url: base } } });
    setTimeout(() => context.abort(), 50);
    assert.equal((await webSearchTool().execute({ query: 'q' }, context)).errorType, 'cancelled');
  });

  test('a backend that cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const result = await search({ provider: 'searxng', url: `http://127.0.0.1:${port}` });
    assert.equal(result.errorType, 'search_failed');
    assert.match(result.output, /ECONNREFUSED/);
  });
});
