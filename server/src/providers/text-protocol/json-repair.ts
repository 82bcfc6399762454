/**
 * Lenient JSON for tool-call arguments written by models without native tool calling.
 *
 * Strict `JSON.parse` runs first, so well-formed input costs nothing extra and is never altered.
 * Only when it fails does a forgiving recursive-descent parser read the text, accepting the
 * mistakes small models make most: trailing commas, single-quoted strings and keys, unquoted
 * keys, unescaped double quotes inside strings (a second pass, which takes a quote as closing
 * only before , } ] : or the end), raw newlines and tabs inside strings, unknown
 * escapes such as `\d` (kept literally), Python's True/False/None, `//` and `/* *\/` comments,
 * a Markdown code fence around the value, and text after the value.
 *
 * It never closes an unterminated string, object or array: a truncated value must stay an
 * error, because the caller relies on that to refuse running a call that was cut off.
 */

export type RepairResult = { ok: true; value: unknown; repaired: boolean } | { ok: false; message: string };

/** Deeper nesting is refused rather than risking the stack; tool arguments are never this deep. */
const MAX_DEPTH = 256;
const EXPECTED =
  'Expected strict JSON such as {"path": "src/a.ts", "limit": 10}: keys and strings in double quotes, ' +
  '\\" for a quote inside a string, commas between items, no trailing commas.';

/**
 * Parses `text` as JSON, repairing common model mistakes when strict parsing fails.
 * `repaired` is true when the strict parse failed and a repair was needed.
 * Contract: never throws; a failure's `message` names the position and the expected form.
 */
export function parseLenientJson(text: string): RepairResult {
  try {
    return { ok: true, value: JSON.parse(text) as unknown, repaired: false };
  } catch {
    // Fall through to the lenient reader.
  }
  const { start, end } = unfence(text);
  // Quotes are read the JSON way first; only if that fails is an unescaped quote guessed at.
  // The first pass's error is the one reported: it points where a JSON reader stumbles.
  const standard = read(text, start, end, false);
  if (standard.ok) return standard;
  const guessed = read(text, start, end, true);
  return guessed.ok ? guessed : standard;
}

function read(text: string, start: number, end: number, guessQuotes: boolean): RepairResult {
  try {
    return {
      ok: true,
      value: new LenientReader(text, start, end, guessQuotes).readDocument(),
      repaired: true,
    };
  } catch (error) {
    if (error instanceof JsonSyntaxError) {
      return { ok: false, message: `${error.problem} ${locate(text, error.position)}. ${EXPECTED}` };
    }
    return { ok: false, message: `could not be read as JSON (${String(error)}). ${EXPECTED}` };
  }
}

class JsonSyntaxError extends Error {
  readonly problem: string;
  readonly position: number;

  constructor(problem: string, position: number) {
    super(problem);
    this.problem = problem;
    this.position = position;
  }
}

/** The range inside an optional ```lang … ``` fence, with surrounding whitespace excluded. */
function unfence(text: string): { start: number; end: number } {
  let start = text.search(/\S/);
  if (start === -1) return { start: text.length, end: text.length };
  let end = text.trimEnd().length;
  if (text.startsWith('```', start)) {
    const opening = /^```[\w+-]*[ \t]*\r?\n?/.exec(text.slice(start));
    start += opening?.[0].length ?? 3;
    if (end - start >= 3 && text.endsWith('```', end)) end -= 3;
  }
  return { start, end };
}

function locate(text: string, position: number): string {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  const excerpt = text.slice(Math.max(0, position - 20), position + 20);
  return `at line ${line}, column ${column} (near ${JSON.stringify(excerpt)})`;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '"': '"',
  "'": "'",
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};
const NUMBER = /[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/y;
const WORD = /[A-Za-z_$][\w$-]*/y;
const WORDS: Record<string, unknown> = {
  true: true,
  false: false,
  null: null,
  True: true,
  False: false,
  None: null,
};

class LenientReader {
  readonly #text: string;
  readonly #end: number;
  readonly #guessQuotes: boolean;
  #pos: number;
  #depth = 0;

  constructor(text: string, start: number, end: number, guessQuotes: boolean) {
    this.#text = text;
    this.#pos = start;
    this.#end = end;
    this.#guessQuotes = guessQuotes;
  }

  /** One value; anything after it (prose, a stray brace) is ignored. */
  readDocument(): unknown {
    this.#skipSpace();
    if (this.#pos >= this.#end)
      throw new JsonSyntaxError('the text is empty; expected a JSON value', this.#pos);
    return this.#readValue();
  }

  #readValue(): unknown {
    this.#skipSpace();
    const c = this.#peek();
    if (c === '{') return this.#nested(() => this.#readObject());
    if (c === '[') return this.#nested(() => this.#readArray());
    if (c === '"' || c === "'") return this.#readString();
    if (c === undefined) throw this.#error('the JSON ended where a value was expected');
    if (/[\d+.-]/.test(c)) return this.#readNumber();
    const start = this.#pos;
    const word = this.#match(WORD);
    if (word !== undefined && Object.hasOwn(WORDS, word)) return WORDS[word];
    const found = word === undefined ? JSON.stringify(c) : `bare word ${JSON.stringify(word)}`;
    throw new JsonSyntaxError(
      `unexpected ${found} where a value was expected (strings need double quotes)`,
      start,
    );
  }

  #nested<T>(read: () => T): T {
    if (++this.#depth > MAX_DEPTH) throw this.#error(`nesting deeper than ${MAX_DEPTH} levels`);
    const value = read();
    this.#depth--;
    return value;
  }

  #readObject(): Record<string, unknown> {
    this.#pos++;
    const entries: [string, unknown][] = [];
    for (;;) {
      this.#skipSpace();
      const c = this.#peek();
      if (c === '}') break;
      if (c === undefined) throw this.#error('the JSON ended inside an object (a "}" is missing)');
      const key = c === '"' || c === "'" ? this.#readString() : this.#match(WORD);
      if (key === undefined)
        throw this.#error(`expected a key in double quotes but found ${JSON.stringify(c)}`);
      this.#skipSpace();
      if (this.#peek() !== ':') throw this.#error(`expected ":" after the key ${JSON.stringify(key)}`);
      this.#pos++;
      // fromEntries defines own properties, so a "__proto__" key cannot reach the prototype.
      entries.push([key, this.#readValue()]);
      this.#skipSpace();
      const next = this.#peek();
      if (next === ',') this.#pos++;
      else if (next === '}') break;
      else if (next === undefined) throw this.#error('the JSON ended inside an object (a "}" is missing)');
      else throw this.#error(`expected "," or "}" after the value of ${JSON.stringify(key)}`);
    }
    this.#pos++;
    return Object.fromEntries(entries);
  }

  #readArray(): unknown[] {
    this.#pos++;
    const items: unknown[] = [];
    for (;;) {
      this.#skipSpace();
      const c = this.#peek();
      if (c === ']') break;
      if (c === undefined) throw this.#error('the JSON ended inside an array (a "]" is missing)');
      items.push(this.#readValue());
      this.#skipSpace();
      const next = this.#peek();
      if (next === ',') this.#pos++;
      else if (next === ']') break;
      else if (next === undefined) throw this.#error('the JSON ended inside an array (a "]" is missing)');
      else throw this.#error(`expected "," or "]" after item ${items.length} of an array`);
    }
    this.#pos++;
    return items;
  }

  #readString(): string {
    const text = this.#text;
    const quote = text[this.#pos];
    const opening = this.#pos++;
    let value = '';
    while (this.#pos < this.#end) {
      const c = text[this.#pos++];
      if (c === quote) {
        if (!this.#guessQuotes || this.#closesString()) return value;
        value += c; // an unescaped quote inside the string
      } else if (c === '\\') {
        value += this.#readEscape();
      } else {
        value += c;
      }
    }
    throw new JsonSyntaxError('unterminated string (its closing quote is missing)', opening);
  }

  /** The heuristic for unescaped quotes: a quote ends the string only before , } ] : or the end. */
  #closesString(): boolean {
    const text = this.#text;
    let i = this.#pos;
    while (i < this.#end && /\s/.test(text[i] ?? '')) i++;
    return i >= this.#end || ',}]:'.includes(text[i] ?? '');
  }

  #readEscape(): string {
    const text = this.#text;
    const c = text[this.#pos];
    if (c === undefined || this.#pos >= this.#end) {
      throw this.#error('unterminated string (it ends with a backslash)');
    }
    this.#pos++;
    const simple = SIMPLE_ESCAPES[c];
    if (simple !== undefined) return simple;
    if (c === 'u' && /^[\da-fA-F]{4}$/.test(text.slice(this.#pos, this.#pos + 4))) {
      this.#pos += 4;
      return String.fromCharCode(parseInt(text.slice(this.#pos - 4, this.#pos), 16));
    }
    // `\d` in a regex or a Windows path: the model meant the backslash literally.
    return `\\${c}`;
  }

  #readNumber(): number {
    const start = this.#pos;
    const digits = this.#match(NUMBER);
    if (digits === undefined) throw new JsonSyntaxError('malformed number', start);
    return Number(digits);
  }

  #skipSpace(): void {
    const text = this.#text;
    while (this.#pos < this.#end) {
      const c = text[this.#pos];
      if (c === ' ' || c === '\n' || c === '\r' || c === '\t') {
        this.#pos++;
      } else if (c === '/' && text[this.#pos + 1] === '/') {
        const newline = text.indexOf('\n', this.#pos);
        this.#pos = newline === -1 || newline > this.#end ? this.#end : newline + 1;
      } else if (c === '/' && text[this.#pos + 1] === '*') {
        const close = text.indexOf('*/', this.#pos + 2);
        if (close === -1 || close + 2 > this.#end) throw this.#error('unterminated /* comment');
        this.#pos = close + 2;
      } else {
        return;
      }
    }
  }

  #peek(): string | undefined {
    return this.#pos < this.#end ? this.#text[this.#pos] : undefined;
  }

  #match(pattern: RegExp): string | undefined {
    pattern.lastIndex = this.#pos;
    const found = pattern.exec(this.#text);
    if (found === null || this.#pos + found[0].length > this.#end) return undefined;
    this.#pos += found[0].length;
    return found[0];
  }

  #error(problem: string): JsonSyntaxError {
    return new JsonSyntaxError(problem, this.#pos);
  }
}
