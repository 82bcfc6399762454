/**
 * HTML to readable text for the model: scripts, styles, navigation and other non-content dropped,
 * block elements on their own lines, headings as `#` lines, list items as `-` / `1.`, table cells
 * separated by ` | `, preformatted text kept as is (indent, blank lines), character references
 * decoded (by the `entities` package, as a browser does), and links as `text (url)` when the URL
 * adds something. A forgiving scanner, not a full HTML parser: it never throws and runs in one
 * pass over the input.
 */
import { decodeHTML, decodeHTMLAttribute } from 'entities';

export interface HtmlText {
  title: string | undefined;
  text: string;
}

// Elements whose content is not markup: skipped to their end tag (title is read from there).
const RAW = new Set(['script', 'style', 'textarea', 'title', 'noscript', 'xmp', 'plaintext']);
// Elements dropped with everything inside them.
// (Not head: its end tag is optional, and what it holds is void, raw or title anyway.)
const DROPPED = new Set(['nav', 'template', 'svg', 'math', 'iframe', 'object', 'canvas', 'select']);
// Blocks separated by a blank line; the others in BLOCK by a line break.
const PARAGRAPH = new Set([
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'pre',
  'blockquote',
  'table',
  'figure',
  'ul',
  'ol',
  'dl',
]);
const BLOCK = new Set([
  'div',
  'section',
  'article',
  'main',
  'header',
  'footer',
  'aside',
  'address',
  'details',
  'summary',
  'form',
  'fieldset',
  'legend',
  'figcaption',
  'li',
  'dt',
  'dd',
  'tr',
  'caption',
  'center',
]);

const TOKEN =
  /<!--[\s\S]*?(?:-->|$)|<!\[CDATA\[([\s\S]*?)(?:\]\]>|$)|<[!?][^>]*>?|<(\/?)([A-Za-z][A-Za-z0-9:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g;
const ATTRIBUTE = /([^\s"'=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;

// A line break of preformatted text while the text is built: finish() tidies the white space
// around real line breaks (trailing spaces, runs of blank lines), and must leave these alone.
// NUL is never content: htmlToText replaces the input's NULs first, as an HTML parser does.
const PRE_BREAK = '\0';

/** The page's title and its text. `baseUrl` resolves relative links. */
export function htmlToText(page: string, baseUrl?: string): HtmlText {
  // What an HTML parser does before anything else: CR LF and CR become LF, NUL becomes U+FFFD.
  const html = page.replace(/\r\n?/g, '\n').replaceAll('\0', '\ufffd');
  const writer = new TextWriter(baseUrl);
  let title: string | undefined;
  let dropped: { name: string; depth: number } | undefined;
  let at = 0;
  TOKEN.lastIndex = 0;
  for (let token = TOKEN.exec(html); token !== null; token = TOKEN.exec(html)) {
    if (dropped === undefined && token.index > at) writer.text(html.slice(at, token.index));
    at = TOKEN.lastIndex;
    const [whole, cdata, slash, rawName, attributes = ''] = token;
    if (cdata !== undefined) {
      if (dropped === undefined) writer.text(cdata, true);
      continue;
    }
    if (rawName === undefined || whole.startsWith('<!')) continue;
    const name = rawName.toLowerCase();
    const closing = slash === '/';
    const selfClosing = whole.endsWith('/>');
    if (!closing && !selfClosing && RAW.has(name)) {
      // Raw text runs to its end tag whatever it holds, even inside dropped content.
      const end = endTag(name, html, at);
      if (dropped === undefined) {
        const content = html.slice(at, end.start);
        if (name === 'title') title ??= collapse(decodeHTML(content)).trim() || undefined;
        else if (name === 'textarea' || name === 'xmp' || name === 'plaintext') writer.text(content, true);
      }
      at = TOKEN.lastIndex = end.after;
      continue;
    }
    if (dropped !== undefined) {
      if (name === dropped.name && !selfClosing) dropped.depth += closing ? -1 : 1;
      if (dropped.depth === 0) dropped = undefined;
      continue;
    }
    if (!closing && DROPPED.has(name)) {
      if (!selfClosing) dropped = { name, depth: 1 };
      continue;
    }
    if (closing) writer.close(name);
    else writer.open(name, attributes);
  }
  if (dropped === undefined && at < html.length) writer.text(html.slice(at));
  return { title, text: writer.finish() };
}

const closers = new Map<string, RegExp>();

/** Where the end tag of raw element `name` starts, and the index just after it (the end of `html` when missing). */
function endTag(name: string, html: string, from: number): { start: number; after: number } {
  let closer = closers.get(name);
  if (closer === undefined) closers.set(name, (closer = new RegExp(`</${name}(?=[\\s/>])[^>]*>?`, 'gi')));
  closer.lastIndex = from;
  const match = closer.exec(html);
  return match === null
    ? { start: html.length, after: html.length }
    : { start: match.index, after: closer.lastIndex };
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ');
}

function attribute(attributes: string, wanted: string): string | undefined {
  ATTRIBUTE.lastIndex = 0;
  for (let match = ATTRIBUTE.exec(attributes); match !== null; match = ATTRIBUTE.exec(attributes)) {
    if (match[1]?.toLowerCase() === wanted)
      return decodeHTMLAttribute(match[2] ?? match[3] ?? match[4] ?? '');
  }
  return undefined;
}

/** Builds the text: inline runs with collapsed spaces, and line breaks requested by blocks. */
class TextWriter {
  readonly #base: string | undefined;
  #out: string[] = [];
  /** Line breaks owed before the next text (the largest request wins). */
  #breaks = 0;
  #space = false;
  #lineStart = true;
  #pre = 0;
  #lists: Array<{ ordered: boolean; next: number }> = [];
  #links: Array<{ href: string | undefined; start: number }> = [];
  #cells = 0;
  /** The last thing written was a line prefix (a list marker, `#`, `>`): a block starting now shares its line. */
  #prefixed = false;
  /** Just inside <pre>: a first line break there is not content. */
  #preStart = false;

  constructor(base: string | undefined) {
    this.#base = base;
  }

  text(raw: string, verbatim = false): void {
    let text = decodeHTML(raw);
    if (this.#pre > 0 || verbatim) {
      if (this.#preStart) text = text.replace(/^\n/, '');
      this.#preStart = false;
      if (text !== '') this.#write(text.replaceAll('\n', PRE_BREAK));
      return;
    }
    const collapsed = collapse(text);
    if (collapsed.trim() === '') {
      if (collapsed !== '') this.#space = true;
      return;
    }
    if (collapsed.startsWith(' ')) this.#space = true;
    this.#write(collapsed.trim());
    if (collapsed.endsWith(' ')) this.#space = true;
  }

  open(name: string, attributes: string): void {
    if (PARAGRAPH.has(name) && name !== 'ul' && name !== 'ol') this.#block(2);
    switch (name) {
      case 'br':
        this.#out.push(this.#pre > 0 ? PRE_BREAK : '\n');
        this.#lineStart = true;
        this.#prefixed = false;
        this.#space = false;
        return;
      case 'hr':
        this.#block(2);
        this.#write('---');
        return this.#block(2);
      case 'h1':
      case 'h2':
      case 'h3':
      case 'h4':
      case 'h5':
      case 'h6':
        return this.#write(`${'#'.repeat(Number(name[1]))} `, true);
      case 'ul':
      case 'ol':
        this.#block(this.#lists.length === 0 ? 2 : 1);
        this.#lists.push({ ordered: name === 'ol', next: Number(attribute(attributes, 'start') ?? 1) || 1 });
        return;
      case 'li': {
        this.#block(1);
        const list = this.#lists.at(-1);
        const marker = list?.ordered === true ? `${list.next++}. ` : '- ';
        return this.#write(`${'  '.repeat(Math.max(0, this.#lists.length - 1))}${marker}`, true);
      }
      case 'pre':
        this.#pre++;
        this.#preStart = true;
        return;
      case 'blockquote':
        return this.#write('> ', true);
      case 'tr':
        this.#cells = 0;
        return this.#block(1);
      case 'td':
      case 'th':
        if (this.#cells++ > 0) this.#write(' | ', true);
        return;
      case 'a':
        this.#links.push({ href: attribute(attributes, 'href'), start: this.#out.length });
        return;
      case 'img': {
        const alt = attribute(attributes, 'alt')?.trim();
        if (alt) {
          this.#space = true;
          this.#inline(`[image: ${collapse(alt)}]`);
        }
        return;
      }
      case 'code':
      case 'kbd':
        if (this.#pre === 0) this.#inline('`', true);
        return;
      default:
        if (BLOCK.has(name)) this.#block(1);
    }
  }

  close(name: string): void {
    switch (name) {
      case 'pre': {
        this.#pre = Math.max(0, this.#pre - 1);
        // A line break just before </pre> ends the last line; it is not an empty line after it.
        const last = this.#out.at(-1);
        if (last?.endsWith(PRE_BREAK) === true) this.#out[this.#out.length - 1] = last.slice(0, -1);
        break;
      }
      case 'ul':
      case 'ol':
        this.#lists.pop();
        break;
      case 'a':
        this.#closeLink();
        break;
      case 'code':
      case 'kbd':
        if (this.#pre === 0) this.#out.push('`');
        break;
      default:
        break;
    }
    if (PARAGRAPH.has(name)) this.#block(this.#lists.length > 0 && (name === 'ul' || name === 'ol') ? 1 : 2);
    else if (BLOCK.has(name)) this.#block(1);
  }

  finish(): string {
    return (
      this.#out
        .join('')
        .split('\n')
        .map((line) => line.trimEnd())
        .join('\n')
        .replace(/\n{3,}/g, '\n\n')
        .replaceAll(PRE_BREAK, '\n')
        // Blank lines at the start go, but not the first line's indent: a <pre> may start the page.
        .replace(/^(?:[^\S\n]*\n)+/, '')
        .trimEnd()
    );
  }

  #closeLink(): void {
    const link = this.#links.pop();
    if (link?.href === undefined) return;
    const text = this.#out.slice(link.start).join('').trim();
    const url = this.#resolve(link.href);
    if (url === undefined || text === '' || text === url || text === link.href) return;
    this.#out.push(` (${url})`);
  }

  /** An absolute http(s) or mailto URL worth showing; fragments and script links are not. */
  #resolve(href: string): string | undefined {
    const trimmed = href.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return undefined;
    try {
      const url = new URL(trimmed, this.#base);
      if (url.protocol !== 'http:' && url.protocol !== 'https:' && url.protocol !== 'mailto:')
        return undefined;
      if (this.#base !== undefined && url.href.split('#')[0] === this.#base.split('#')[0]) return undefined;
      return url.href;
    } catch {
      return undefined;
    }
  }

  #block(breaks: number): void {
    if (this.#out.length > 0 && !this.#prefixed) this.#breaks = Math.max(this.#breaks, breaks);
    this.#space = false;
  }

  /** Inline text that keeps a pending space before it (and the one after it, if `glue` is false). */
  #inline(text: string, glue = false): void {
    this.#write(text);
    if (!glue) this.#space = true;
  }

  #write(text: string, prefix = false): void {
    if (this.#breaks > 0) {
      this.#out.push('\n'.repeat(this.#breaks));
      this.#lineStart = true;
    }
    this.#breaks = 0;
    if (this.#space && !this.#lineStart && !prefix) this.#out.push(' ');
    this.#space = false;
    this.#out.push(text);
    this.#lineStart = prefix || text.endsWith('\n') || text.endsWith(PRE_BREAK);
    this.#prefixed = prefix;
  }
}
