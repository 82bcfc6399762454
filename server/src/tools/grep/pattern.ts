/**
 * One regex dialect for grep_search, whichever backend runs it. The model writes the subset that
 * PCRE, JavaScript and ripgrep's Rust regex share; this translates it into ripgrep's syntax and
 * into JavaScript RegExps so both backends match the same lines, and refuses what the engines
 * cannot agree on (look-around, backreferences, multi-line matches) with a message to act on.
 *
 * Semantics both sides follow: \d \w \b and their negations are ASCII (JavaScript's meaning;
 * ripgrep is given ranges and `(?-u:\b)`), \s is Unicode White_Space, nothing matches a line break
 * (ripgrep --crlf never matches CR; JavaScript is given classes that exclude CR and LF), case
 * folding is Unicode simple folding, and ^ $ anchor at the ends of each line.
 *
 * Known differences, too rare to pay for: \W \D \S \P{…} inside a [...] class and explicit ranges
 * over CR (e.g. [\x00-\x1f]) can match a lone CR in JavaScript only; in invalid UTF-8, ripgrep
 * matches bytes where JavaScript sees U+FFFD.
 */

/** A compiled grep pattern: the ripgrep form, and the JavaScript forms the built-in searcher uses. */
export interface GrepPattern {
  /** The pattern in ripgrep's syntax (pass `-i` when `caseInsensitive`). */
  rg: string;
  /** Finds candidate lines in a whole file's text (flags `gmu`); each candidate is confirmed with `line`. */
  scan: RegExp;
  /** Decides whether one line, without its line break, matches. */
  line: RegExp;
  /** The pattern has ^ or $, which in `scan` (multiline mode) also hold around a lone CR, U+2028 or U+2029. */
  anchored: boolean;
  caseInsensitive: boolean;
  /** A string every match contains, for skipping files cheaply; undefined when there is none to rely on. */
  literal: string | undefined;
}

export type CompiledPattern = { ok: true; pattern: GrepPattern } | { ok: false; message: string };

// Characters Rust's regex syntax lets (and sometimes needs) a backslash before; anything else escaped is a literal.
const RUST_META = new Set('\\.+*?()|[]{}^$#&-~');
// Characters JavaScript's `u` mode lets a backslash stand before outside a class.
const JS_SYNTAX = new Set('^$\\.*+?()[]{}|/');
const QUANTIFIER = /^\{\d+(?:,\d*)?\}/;
const POSIX: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x09\\x0B\\x0C\\x0E-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x09\\x0B\\x0C\\x0E-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\x0B\\x0C ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};
const WORD = '0-9A-Za-z_';
// Rust's \s (Unicode White_Space) without CR and LF: ripgrep (with --crlf) never matches a line break.
const SPACE = '\\t\\x0B\\x0C \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000';
/** rg outside a class, rg inside one, JavaScript outside, JavaScript inside. Nothing in JavaScript may match CR or LF. */
const SHORTHANDS: Record<string, [string, string, string, string]> = {
  d: ['[0-9]', '0-9', '\\d', '\\d'],
  D: ['[^0-9]', '[^0-9]', '[^0-9\\r\\n]', '\\D'],
  w: [`[${WORD}]`, WORD, '\\w', '\\w'],
  W: [`[^${WORD}]`, `[^${WORD}]`, `[^${WORD}\\r\\n]`, '\\W'],
  s: ['\\s', '\\s', `[${SPACE}]`, SPACE],
  S: ['\\S', '\\S', `[^${SPACE}\\r\\n]`, '\\S'],
};

class PatternError extends Error {}

/**
 * Translates and compiles `source`. Errors name what was wrong and what to write instead.
 */
export function compilePattern(source: string, caseInsensitive: boolean): CompiledPattern {
  try {
    const translated = new Translator(source).run();
    const ci = caseInsensitive || translated.caseInsensitive;
    const flags = ci ? 'iu' : 'u';
    let scan: RegExp;
    let line: RegExp;
    try {
      scan = new RegExp(translated.scan, `gm${flags}`);
      line = new RegExp(translated.js, flags);
    } catch (error) {
      throw new PatternError((error as Error).message.replace(/^Invalid regular expression: /, ''));
    }
    // A literal only helps when it is found byte for byte; case folding would need every spelling.
    const literal =
      translated.literal !== '' && (!ci || !/\p{L}/u.test(translated.literal))
        ? translated.literal
        : undefined;
    return {
      ok: true,
      pattern: { rg: translated.rg, scan, line, anchored: translated.anchored, caseInsensitive: ci, literal },
    };
  } catch (error) {
    if (!(error instanceof PatternError)) throw error;
    return { ok: false, message: `Invalid regular expression ${JSON.stringify(source)}: ${error.message}` };
  }
}

class Translator {
  readonly #source: string;
  #at = 0;
  #rg = '';
  #js = '';
  #depth = 0;
  #alternation = false;
  #anchored = false;
  /** The literal run being built at the top level, and the longest one finished. */
  #run = '';
  #best = '';
  caseInsensitive = false;

  constructor(source: string) {
    this.#source = source;
  }

  run(): {
    rg: string;
    js: string;
    scan: string;
    anchored: boolean;
    literal: string;
    caseInsensitive: boolean;
  } {
    if (this.#source.startsWith('(?i)')) {
      this.caseInsensitive = true;
      this.#at = 4;
    }
    let scan: string | undefined;
    const first = this.#source[this.#at];
    if (first !== undefined && !'()|^$*+?'.includes(first)) {
      this.#atom();
      // Whether a line matches, not where a match ends, is all a scan needs: a leading X+ can be X and
      // a leading X* dropped. A backtracking engine then no longer retries \w+ from every letter of a word.
      const quantifier = /^[*+]\??/.exec(this.#source.slice(this.#at))?.[0];
      if (quantifier !== undefined) {
        const atom = this.#js;
        this.#at += quantifier.length;
        this.#endRun();
        this.#emit(quantifier);
        const restStart = this.#js.length;
        while (this.#at < this.#source.length) this.#atom();
        scan = (quantifier.startsWith('+') ? atom : '') + this.#js.slice(restStart);
      }
    }
    while (this.#at < this.#source.length) this.#atom();
    this.#endRun();
    return {
      rg: this.#rg,
      js: this.#js,
      scan: scan ?? this.#js,
      anchored: this.#anchored,
      literal: this.#alternation ? '' : this.#best,
      caseInsensitive: this.caseInsensitive,
    };
  }

  #emit(rg: string, js = rg): void {
    this.#rg += rg;
    this.#js += js;
  }

  #endRun(): void {
    if (this.#run.length > this.#best.length) this.#best = this.#run;
    this.#run = '';
  }

  /** A literal character outside a class; it joins the required literal unless a quantifier follows. */
  #literal(char: string): void {
    this.#emit(RUST_META.has(char) ? `\\${char}` : char, JS_SYNTAX.has(char) ? `\\${char}` : char);
    if (this.#depth > 0) return;
    const next = this.#source[this.#at];
    if (next === '?' || next === '*' || (next === '{' && QUANTIFIER.test(this.#source.slice(this.#at))))
      this.#endRun();
    else if (next === '+') {
      this.#run += char;
      this.#endRun();
    } else this.#run += char;
  }

  #atom(): void {
    const source = this.#source;
    const char = String.fromCodePoint(source.codePointAt(this.#at) as number);
    this.#at += char.length;
    switch (char) {
      case '\\':
        return this.#escape(false);
      case '[':
        this.#endRun();
        return this.#class();
      case '(':
        this.#endRun();
        return this.#group();
      case ')':
        this.#depth--;
        this.#endRun();
        return this.#emit(')');
      case '|':
        if (this.#depth === 0) this.#alternation = true;
        this.#endRun();
        return this.#emit('|');
      case '*':
      case '+':
      case '?':
        this.#endRun();
        return this.#emit(char);
      case '{': {
        const quantifier = QUANTIFIER.exec(source.slice(this.#at - 1));
        if (quantifier === null) return this.#literal('{');
        this.#at += quantifier[0].length - 1;
        this.#endRun();
        return this.#emit(quantifier[0]);
      }
      case '}':
      case ']':
        return this.#literal(char);
      case '.':
        this.#endRun();
        return this.#emit('.', '[^\\n\\r]');
      case '^':
      case '$':
        this.#endRun();
        this.#anchored = true;
        return this.#emit(char);
      case '\n':
        throw new PatternError(
          'it contains a line break, but each line is matched on its own. Search for one line.',
        );
      default:
        return this.#literal(char);
    }
  }

  #group(): void {
    const rest = this.#source.slice(this.#at);
    this.#depth++;
    if (!rest.startsWith('?')) return this.#emit('(');
    const named = /^\?P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest);
    if (named !== null) {
      this.#at += named[0].length;
      return this.#emit(`(?P<${named[1]}>`, `(?<${named[1]}>`);
    }
    if (/^\?<?[=!]/.test(rest)) {
      throw new PatternError(
        'look-ahead and look-behind ((?=…), (?!…), (?<=…), (?<!…)) are not supported. Match the text itself instead.',
      );
    }
    const group = /^\?(?::|-?i:)/.exec(rest);
    if (group !== null) {
      this.#at += group[0].length;
      return this.#emit(`(${group[0]}`);
    }
    throw new PatternError(
      'the only (?…) groups supported are (?:…), (?<name>…), (?i:…) and a leading (?i); use caseInsensitive for case-insensitive search.',
    );
  }

  /** After a backslash. In a class, `\d`-style escapes become ranges for ripgrep. */
  #escape(inClass: boolean): void {
    const source = this.#source;
    const char = source[this.#at];
    if (char === undefined) throw new PatternError('it ends with a lone backslash.');
    this.#at++;
    const shorthand = SHORTHANDS[char];
    if (shorthand !== undefined) {
      this.#endRun();
      return inClass ? this.#emit(shorthand[1], shorthand[3]) : this.#emit(shorthand[0], shorthand[2]);
    }
    switch (char) {
      case 't':
      case 'f':
      case 'v':
        if (!inClass) this.#endRun();
        return this.#emit(`\\${char}`);
      case 'b':
      case 'B':
        if (inClass) throw new PatternError(`\\${char} is not allowed inside [...].`);
        this.#endRun();
        return this.#emit(`(?-u:\\${char})`, `\\${char}`);
      case 'n':
      case 'r':
        throw new PatternError(
          `it contains \\${char}, but each line is matched on its own, without its line break. Search for one line.`,
        );
      case 'x':
      case 'u':
        return this.#codePoint(char, inClass);
      case 'p':
      case 'P':
        return this.#property(char, inClass);
      case '0':
        return this.#emit('\\x{0}', '\\u{0}');
      default:
        break;
    }
    if (/[1-9]/.test(char) || char === 'k') {
      throw new PatternError('backreferences (\\1, \\k<name>) are not supported.');
    }
    if (/[A-Za-z0-9]/.test(char)) {
      throw new PatternError(
        `\\${char} is not supported. Supported escapes: \\d \\D \\w \\W \\s \\S \\b \\B \\t \\r \\f \\v \\xHH \\x{H…} \\uHHHH \\p{…} and \\ before punctuation.`,
      );
    }
    const literal = String.fromCodePoint(source.codePointAt(this.#at - 1) as number);
    this.#at += literal.length - 1;
    if (!inClass) return this.#literal(literal);
    this.#emit(
      RUST_META.has(literal) ? `\\${literal}` : literal,
      JS_SYNTAX.has(literal) || literal === '-' ? `\\${literal}` : literal,
    );
  }

  #codePoint(kind: string, inClass: boolean): void {
    const rest = this.#source.slice(this.#at);
    const form =
      kind === 'x'
        ? /^(?:\{([0-9A-Fa-f]{1,6})\}|([0-9A-Fa-f]{2}))/
        : /^(?:\{([0-9A-Fa-f]{1,6})\}|([0-9A-Fa-f]{4}))/;
    const match = form.exec(rest);
    if (match === null)
      throw new PatternError(`\\${kind} must be followed by hex digits: \\xHH, \\x{H…}, \\uHHHH or \\u{H…}.`);
    this.#at += match[0].length;
    const value = parseInt(match[1] ?? match[2] ?? '', 16);
    if (value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) {
      throw new PatternError(`\\${kind}${match[0]} is not a Unicode scalar value.`);
    }
    if (value === 0x0a || value === 0x0d) {
      throw new PatternError(
        `\\${kind}${match[0]} is a line break, but each line is matched on its own. Search for one line.`,
      );
    }
    if (!inClass) this.#endRun();
    this.#emit(`\\x{${value.toString(16)}}`, `\\u{${value.toString(16)}}`);
  }

  #property(kind: string, inClass: boolean): void {
    const rest = this.#source.slice(this.#at);
    const match = /^(?:\{([A-Za-z0-9_=]+)\}|([A-Za-z]))/.exec(rest);
    if (match === null)
      throw new PatternError(
        `\\${kind} must be followed by a property name: \\${kind}{L}, \\${kind}{Greek}.`,
      );
    this.#at += match[0].length;
    this.#endRun();
    const name = match[1] ?? match[2] ?? '';
    // JavaScript names scripts only as Script=…; Rust accepts the bare name too.
    const js = validProperty(name) ? name : validProperty(`Script=${name}`) ? `Script=${name}` : undefined;
    if (js === undefined)
      throw new PatternError(`\\${kind}{${name}} is not a Unicode property or script name.`);
    // Outside a class \P{…} must not match a line break in JavaScript either.
    const negatedAlone = kind === 'P' && !inClass;
    this.#emit(`\\${kind}{${name}}`, negatedAlone ? `[^\\p{${js}}\\r\\n]` : `\\${kind}{${js}}`);
  }

  #class(): void {
    const source = this.#source;
    this.#emit('[');
    const negated = source[this.#at] === '^';
    if (negated) {
      this.#at++;
      this.#emit('^');
    }
    let first = true;
    let start = true;
    for (;;) {
      const char = source[this.#at];
      if (char === undefined)
        throw new PatternError('a [ is never closed with ]. Write \\[ for a literal bracket.');
      this.#at++;
      // A negated class must not match a line break in JavaScript either (ripgrep never does).
      if (char === ']' && !first) return this.#emit(']', negated ? '\\r\\n]' : ']');
      first = false;
      const atStart = start;
      start = false;
      if (char === '\\') {
        this.#escape(true);
        continue;
      }
      if (char === '[') {
        const posix = /^:(\^?)([a-z]+):\]/.exec(source.slice(this.#at));
        if (posix === null) {
          this.#emit('\\[');
          continue;
        }
        const range = POSIX[posix[2] ?? ''];
        if (range === undefined || posix[1] === '^')
          throw new PatternError(`[[:${posix[1]}${posix[2]}:]] is not a supported POSIX class.`);
        this.#at += posix[0].length;
        this.#emit(`[:${posix[2]}:]`, range);
        continue;
      }
      const next = source[this.#at];
      if (char === '-') {
        // A range operator only between two members; anywhere else (and before `-`, Rust's set difference) it is literal.
        const literal = atStart || next === ']' || next === '-';
        this.#emit(literal ? '\\-' : '-');
        continue;
      }
      if (char === ']' || char === '^' || char === '&' || char === '~') {
        this.#emit(`\\${char}`, char === '&' || char === '~' ? char : `\\${char}`);
        continue;
      }
      const literal = String.fromCodePoint(source.codePointAt(this.#at - 1) as number);
      this.#at += literal.length - 1;
      this.#emit(literal);
    }
  }
}

function validProperty(name: string): boolean {
  try {
    new RegExp(`\\p{${name}}`, 'u');
    return true;
  } catch {
    return false;
  }
}
