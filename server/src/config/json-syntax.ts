/**
 * Finds where and why a text is not JSON. V8's own messages quote the surrounding input (which in
 * a config file may be an API key) and sometimes give no position, so this scanner walks the text
 * itself and reports a position and a reason that never contain the file's content.
 */

export interface JsonSyntaxProblem {
  /** What is wrong, without quoting the input. */
  reason: string;
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units. */
  column: number;
}

class Stop extends Error {
  readonly offset: number;
  readonly reason: string;

  constructor(offset: number, reason: string) {
    super(reason);
    this.offset = offset;
    this.reason = reason;
  }
}

/** The first syntax error in `text`, or undefined when it is valid JSON. */
export function findJsonSyntaxError(text: string): JsonSyntaxProblem | undefined {
  try {
    new Scanner(text).document();
    return undefined;
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    const before = text.slice(0, error.offset);
    const line = before.split('\n').length;
    const column = error.offset - before.lastIndexOf('\n');
    return { reason: error.reason, line, column };
  }
}

/** Characters safe to name in a message: structure, never content. */
const NAMEABLE = new Set(['{', '}', '[', ']', ':', ',', "'"]);

class Scanner {
  #at = 0;
  readonly #text: string;

  constructor(text: string) {
    this.#text = text;
  }

  document(): void {
    this.#value();
    this.#space();
    if (this.#at < this.#text.length) this.#fail('unexpected text after the end of the JSON value');
  }

  #fail(reason: string): never {
    throw new Stop(this.#at, reason);
  }

  #unexpected(expected: string): never {
    const char = this.#text[this.#at];
    if (char === undefined) this.#fail(`unexpected end of file, expected ${expected}`);
    this.#fail(`unexpected ${NAMEABLE.has(char) ? `'${char}'` : 'character'}, expected ${expected}`);
  }

  #space(): void {
    for (;;) {
      const char = this.#text[this.#at];
      if (char === ' ' || char === '\t' || char === '\n' || char === '\r') this.#at++;
      else if (char === '/' && /[/*]/.test(this.#text[this.#at + 1] ?? '')) {
        this.#fail('comments are not allowed in JSON');
      } else return;
    }
  }

  #value(): void {
    this.#space();
    const char = this.#text[this.#at];
    if (char === '{') this.#object();
    else if (char === '[') this.#array();
    else if (char === '"') this.#string();
    else if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) this.#number();
    else if (!this.#literal('true') && !this.#literal('false') && !this.#literal('null')) {
      this.#unexpected('a value (a string in double quotes, number, object, array, true, false or null)');
    }
  }

  #object(): void {
    this.#at++;
    this.#space();
    if (this.#text[this.#at] === '}') {
      this.#at++;
      return;
    }
    for (;;) {
      this.#space();
      if (this.#text[this.#at] !== '"') this.#unexpected('a property name in double quotes');
      this.#string();
      this.#space();
      if (this.#text[this.#at] !== ':') this.#unexpected("':' after the property name");
      this.#at++;
      this.#value();
      this.#space();
      const char = this.#text[this.#at];
      if (char === '}') {
        this.#at++;
        return;
      }
      if (char !== ',') this.#unexpected("',' or '}' after the property value");
      this.#at++;
      this.#space();
      if (this.#text[this.#at] === '}') this.#fail('trailing comma before }');
    }
  }

  #array(): void {
    this.#at++;
    this.#space();
    if (this.#text[this.#at] === ']') {
      this.#at++;
      return;
    }
    for (;;) {
      this.#value();
      this.#space();
      const char = this.#text[this.#at];
      if (char === ']') {
        this.#at++;
        return;
      }
      if (char !== ',') this.#unexpected("',' or ']' after the array element");
      this.#at++;
      this.#space();
      if (this.#text[this.#at] === ']') this.#fail('trailing comma before ]');
    }
  }

  #string(): void {
    const start = this.#at;
    this.#at++;
    for (;;) {
      const char = this.#text[this.#at];
      if (char === undefined || char === '\n') {
        this.#at = start;
        this.#fail('unterminated string');
      }
      if (char === '"') {
        this.#at++;
        return;
      }
      if (char === '\\') {
        const escape = this.#text[this.#at + 1] ?? '';
        if (escape === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(this.#text.slice(this.#at + 2, this.#at + 6))) {
            this.#fail('invalid \\u escape in a string (expected 4 hex digits)');
          }
          this.#at += 6;
        } else if ('"\\/bfnrt'.includes(escape) && escape !== '') {
          this.#at += 2;
        } else {
          this.#fail('invalid escape in a string');
        }
      } else if (char < ' ') {
        this.#fail('control character in a string (write it as an escape such as \\t)');
      } else {
        this.#at++;
      }
    }
  }

  #number(): void {
    const pattern = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    pattern.lastIndex = this.#at;
    if (pattern.exec(this.#text) === null) this.#fail('invalid number');
    this.#at = pattern.lastIndex;
  }

  #literal(word: string): boolean {
    if (!this.#text.startsWith(word, this.#at)) return false;
    this.#at += word.length;
    return true;
  }
}
