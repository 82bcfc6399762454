/**
 * `web_fetch {url}`: a web page as readable text. HTML is converted (web/html-to-text.ts), other text
 * types are returned as they are, binary types refused. The fetch itself (web/guarded-fetch.ts) keeps
 * to public addresses unless the user allows private ones, and to a deadline and a download cap.
 */
import * as z from 'zod';
import { type AddressPolicy, type FetchedPage, guardedFetch } from './web/guarded-fetch.ts';
import { htmlToText } from './web/html-to-text.ts';
import { defineTool, type ToolResult, toolError } from './types.ts';
import { groupDigits } from '../support/numbers.ts';

/** Limits and address policy; the defaults are what the model is told. Tests shorten and loosen them. */
export interface WebFetchOptions extends AddressPolicy {
  /** The whole exchange, redirects and body included. Default 10 s. */
  timeoutMs?: number;
  /** Bytes downloaded at most. Default 5 MB. */
  maxBytes?: number;
  /** Characters of text returned at most. Default 100,000. */
  maxChars?: number;
  /** Default 5. */
  maxRedirects?: number;
}

const TEXT_TYPES = new Set([
  'application/json',
  'application/xml',
  'application/javascript',
  'application/ecmascript',
  'application/x-javascript',
  'application/x-sh',
  'application/x-yaml',
  'application/yaml',
  'application/toml',
  'application/sql',
  'application/graphql',
  'application/x-ndjson',
]);
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

function mimeOf(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

function isText(mime: string): boolean {
  return (
    mime === '' ||
    mime.startsWith('text/') ||
    TEXT_TYPES.has(mime) ||
    mime.endsWith('+json') ||
    mime.endsWith('+xml')
  );
}

/** `web_fetch`: GET a URL and return its text. */
export function webFetchTool(options: WebFetchOptions = {}) {
  const limits = {
    timeoutMs: options.timeoutMs ?? 10_000,
    maxBytes: options.maxBytes ?? 5 * 1024 * 1024,
    maxRedirects: options.maxRedirects ?? 5,
  };
  const maxChars = options.maxChars ?? 100_000;
  return defineTool({
    name: 'web_fetch',
    kind: 'fetch',
    description:
      'Fetch a web page or text file by URL and return its readable text: HTML is converted to text (headings as "#", lists as "-", links as "text (url)"; scripts, styles and navigation dropped), JSON, XML and other text returned as is; images, PDFs and other binary content are refused. ' +
      `Only http:// and https:// URLs on the public internet; redirects are followed (at most ${limits.maxRedirects}). ` +
      `Limits: ${limits.timeoutMs / 1000} s, ${Math.round(limits.maxBytes / 1024 / 1024)} MB downloaded, ${groupDigits(maxChars)} characters returned (the cut is stated). ` +
      'Use web_search to find URLs; use this to read a page, such as documentation or an issue.',
    parameters: z.object({
      url: z.string().min(1).describe('The absolute http:// or https:// URL.'),
    }),
    async execute(args, context) {
      const outcome = await guardedFetch(args.url, {
        signal: context.signal,
        // The user's config may allow private addresses (an intranet wiki, a local docs server).
        policy:
          context.settings.allowPrivateNetwork === true ? { ...options, allowPrivateNetwork: true } : options,
        limits,
        headers: {
          'user-agent': 'Mozilla/5.0 (compatible; Santra)',
          accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5',
        },
        accept: (contentType) => isText(mimeOf(contentType)),
      });
      if (outcome.ok === false) return toolError(outcome.errorType, outcome.message);
      if (outcome.ok === 'rejected') return binary(outcome.url, mimeOf(outcome.contentType));
      return render(outcome.page, args.url, maxChars);
    },
  });
}

function binary(url: string, mime: string): ToolResult {
  return toolError(
    'binary_content',
    `${url} is ${mime === '' ? 'binary data' : mime}, not text; web_fetch returns only text (HTML, plain text, JSON, XML and the like).`,
  );
}

function render(page: FetchedPage, requested: string, maxChars: number): ToolResult {
  const mime = mimeOf(page.contentType);
  if (mime === '' && page.body.subarray(0, 1024).includes(0)) return binary(page.url, '');
  const decoded = decode(page.body, page.contentType);
  const html =
    HTML_TYPES.has(mime) ||
    (mime === '' && /^\s*<(?:!doctype html|html|head|body)\b/i.test(decoded.slice(0, 512)));
  const { title, text } = html ? htmlToText(decoded, page.url) : { title: undefined, text: decoded };
  if (page.status < 200 || page.status > 299) {
    const excerpt = text.trim().slice(0, 2000);
    return toolError(
      'http_error',
      `${page.url} answered HTTP ${page.status} ${page.statusText}.${excerpt === '' ? '' : `\n\n${excerpt}`}`,
      `HTTP ${page.status}`,
    );
  }
  const header = [`URL: ${page.url}${page.url === requested ? '' : ` (redirected from ${requested})`}`];
  if (title !== undefined) header.push(`Title: ${title}`);
  const notes: string[] = [];
  let body = text;
  if (body.length > maxChars) {
    const code = body.charCodeAt(maxChars - 1);
    body = body.slice(0, code >= 0xd800 && code <= 0xdbff ? maxChars - 1 : maxChars);
    notes.push(`[Cut at ${groupDigits(maxChars)} of ${groupDigits(text.length)} characters.]`);
  }
  if (page.truncated)
    notes.push(
      `[The download stopped at ${groupDigits(page.body.length)} bytes; the rest of the page was not read.]`,
    );
  if (body.trim() === '')
    body = html ? '(No readable text: the page may need JavaScript to show its content.)' : '(Empty.)';
  const output = [...header, '', body, ...(notes.length > 0 ? ['', ...notes] : [])].join('\n');
  const size = text.length < 10_000 ? `${text.length} chars` : `${Math.round(text.length / 1000)}k chars`;
  return { output, summary: `${mime === '' ? 'text' : mime}, ${size}${notes.length > 0 ? ', cut' : ''}` };
}

/** The body as text, in the charset the headers (or an HTML meta tag) name; UTF-8 otherwise. */
function decode(body: Uint8Array, contentType: string): string {
  let charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1];
  if (charset === undefined) {
    const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, 4096)).toString('latin1');
    charset = /<meta[^>]+charset\s*=\s*["']?([^"'\s/>;]+)/i.exec(head)?.[1];
  }
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}
