/**
 * `web_search {query}`: a web search through the backend the user configured
 * (`settings.webSearch`): a SearXNG instance, the Brave Search API or Tavily. Results come back
 * as a numbered list of title, URL and snippet. Without a backend the model is told how the user
 * can set one up. The API base URLs are injectable so tests can point them at 127.0.0.1.
 */
import { decodeHTML } from 'entities';
import * as z from 'zod';
import { redactUrls } from '../support/url-redaction.ts';
import { defineTool, type ToolResult, type ToolSettings, toolError } from './types.ts';

export interface WebSearchOptions {
  /** Default https://api.search.brave.com/res/v1/web/search. */
  braveUrl?: string;
  /** Default https://api.tavily.com/search. */
  tavilyUrl?: string;
  /** Default 10 s. */
  timeoutMs?: number;
  /** Results asked for and shown. Default 10. */
  maxResults?: number;
}

interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

type Backend = NonNullable<ToolSettings['webSearch']>;

const SNIPPET_CHARS = 400;

export const NOT_CONFIGURED =
  'Web search is not set up. The user can set "tools.webSearch" in the Santra config: ' +
  '{"provider":"searxng","url":"http://localhost:8888"} for a SearXNG instance (with "json" in search.formats of its settings.yml), ' +
  '{"provider":"brave","apiKey":"…"} for the Brave Search API, or {"provider":"tavily","apiKey":"…"} for Tavily. ' +
  "Meanwhile, use web_fetch on a URL you know (such as a project's documentation).";

/** `web_search`: search the web with the configured backend. */
export function webSearchTool(options: WebSearchOptions = {}) {
  const maxResults = options.maxResults ?? 10;
  return defineTool({
    name: 'web_search',
    kind: 'fetch',
    description:
      `Search the web. Returns up to ${maxResults} results, numbered, each with title, URL and a snippet. ` +
      'Use it for current information, documentation or error messages you do not know; then read a result with web_fetch. ' +
      'Needs a search backend configured by the user; without one it says how to set it up.',
    parameters: z.object({
      query: z.string().min(1).describe('What to search for, as you would type it into a search engine.'),
    }),
    async execute(args, context) {
      const backend = context.settings.webSearch;
      if (backend === undefined) return toolError('not_configured', NOT_CONFIGURED);
      const timeoutMs = options.timeoutMs ?? 10_000;
      const deadline = AbortSignal.timeout(timeoutMs);
      const signal = AbortSignal.any([context.signal, deadline]);
      let hits: SearchHit[] | ToolResult;
      try {
        hits = await search(backend, args.query, maxResults, options, signal);
      } catch (error) {
        if (context.signal.aborted) return toolError('cancelled', 'The search was cancelled.');
        if (deadline.aborted)
          return toolError(
            'timeout',
            `The ${backend.provider} search did not answer within ${timeoutMs / 1000} s.`,
          );
        const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
        return toolError('search_failed', `The ${backend.provider} search failed: ${cause}`);
      }
      if (!Array.isArray(hits)) return hits;
      if (hits.length === 0)
        return { output: `No results for ${JSON.stringify(args.query)}.`, summary: 'no results' };
      const output = hits
        .slice(0, maxResults)
        .map(
          (hit, index) =>
            `${index + 1}. ${hit.title || '(untitled)'}\n   ${hit.url}${hit.snippet === '' ? '' : `\n   ${hit.snippet}`}`,
        )
        .join('\n\n');
      const shown = Math.min(hits.length, maxResults);
      return { output, summary: `${shown} ${shown === 1 ? 'result' : 'results'}` };
    },
  });
}

async function search(
  backend: Backend,
  query: string,
  count: number,
  options: WebSearchOptions,
  signal: AbortSignal,
): Promise<SearchHit[] | ToolResult> {
  switch (backend.provider) {
    case 'searxng': {
      const url = new URL(`${backend.url.replace(/\/+$/, '')}/search`);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      const response = await fetch(url, { signal, headers: { accept: 'application/json' } });
      const body = await parse(response, backend);
      if (!Array.isArray(body)) return body;
      return hitsFrom((body[0] as { results?: unknown }).results, 'content');
    }
    case 'brave': {
      const url = new URL(options.braveUrl ?? 'https://api.search.brave.com/res/v1/web/search');
      url.searchParams.set('q', query);
      url.searchParams.set('count', String(Math.min(count, 20)));
      const response = await fetch(url, {
        signal,
        redirect: 'error',
        headers: { accept: 'application/json', 'x-subscription-token': backend.apiKey },
      });
      const body = await parse(response, backend);
      if (!Array.isArray(body)) return body;
      return hitsFrom((body[0] as { web?: { results?: unknown } }).web?.results, 'description');
    }
    case 'tavily': {
      const response = await fetch(options.tavilyUrl ?? 'https://api.tavily.com/search', {
        method: 'POST',
        signal,
        redirect: 'error',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          authorization: `Bearer ${backend.apiKey}`,
        },
        body: JSON.stringify({ query, max_results: count }),
      });
      const body = await parse(response, backend);
      if (!Array.isArray(body)) return body;
      return hitsFrom((body[0] as { results?: unknown }).results, 'content');
    }
    default: {
      const _exhaustive: never = backend;
      return toolError(
        'not_configured',
        `Unknown web search provider in ${JSON.stringify(_exhaustive)}. ${NOT_CONFIGURED}`,
      );
    }
  }
}

/** The JSON body (wrapped in an array, to tell it from an error result), or the error for the model. */
async function parse(response: Response, backend: Backend): Promise<[unknown] | ToolResult> {
  const text = await response.text();
  const name =
    backend.provider === 'searxng'
      ? `SearXNG at ${redactUrls(backend.url)}`
      : backend.provider === 'brave'
        ? 'Brave Search'
        : 'Tavily';
  if (response.status === 401 || (response.status === 403 && backend.provider !== 'searxng')) {
    return toolError(
      'auth_failed',
      `${name} refused the API key (HTTP ${response.status}). The user should check "tools.webSearch.apiKey".`,
    );
  }
  if (response.status === 403) {
    return toolError(
      'search_failed',
      `${name} refused the request (HTTP 403): its settings.yml must list "json" in search.formats.`,
    );
  }
  if (response.status === 429)
    return toolError(
      'rate_limited',
      `${name} is rate-limiting requests (HTTP 429). Wait before searching again.`,
    );
  if (!response.ok) {
    return toolError(
      'search_failed',
      `${name} answered HTTP ${response.status} ${response.statusText}: ${text.slice(0, 500)}`,
    );
  }
  try {
    return [JSON.parse(text) as unknown];
  } catch {
    return toolError('search_failed', `${name} did not answer with JSON: ${text.slice(0, 200)}`);
  }
}

function hitsFrom(results: unknown, snippetField: string): SearchHit[] {
  if (!Array.isArray(results)) return [];
  const hits: SearchHit[] = [];
  for (const result of results as Array<Record<string, unknown>>) {
    if (typeof result?.url !== 'string') continue;
    hits.push({
      title: plain(result.title),
      url: result.url,
      snippet: cut(plain(result[snippetField]), SNIPPET_CHARS),
    });
  }
  return hits;
}

/** Snippets arrive with <strong> and entities; the model reads plain text. */
function plain(value: unknown): string {
  if (typeof value !== 'string') return '';
  return decodeHTML(value.replace(/<[^>]*>/g, ''))
    .replace(/\s+/g, ' ')
    .trim();
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
