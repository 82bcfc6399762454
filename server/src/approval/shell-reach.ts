/**
 * A second reading of a shell line, for the protected-location check. shell-words.ts decides
 * whether a line is certainly read-only and gives up on anything unusual; this one must read the
 * lines that run after "allow all" (redirections, here-documents, `cd … &&`, brace lists), so it
 * understands more of POSIX sh and says what it cannot know instead of giving up:
 *
 * - words with quotes removed (`.gi""t`, `'.git'`, `\.git` are all `.git`), brace lists expanded
 *   (`.{git,x}`: bash does, dash does not, so both readings are kept), `~` made HOME;
 * - a word with an expansion (`$x`, `${x}`, `$((…))`) whose value only the running shell knows:
 *   its texts are undefined, and the caller decides whether that position matters;
 * - redirections with their targets, and here-documents with their bodies (a shell reading one
 *   runs it).
 *
 * What runs a command to build a word — `$(…)`, backticks, `<(…)` — or a line it cannot split
 * with certainty (an unbalanced quote, a control character) makes it unreadable: the caller asks.
 * Compound commands are read as their simple commands (reserved words dropped), which checks
 * every word they hold.
 */
import { ACCEPTED } from './shell-words.ts';

export interface ReachWord {
  /** What the word can become (one text, or several for a brace list); undefined when an expansion decides. */
  texts: string[] | undefined;
  /** Has an unquoted glob character (* ? [): the shell may replace it with file names. */
  glob: boolean;
  /** `NAME=…` with the name unquoted: an assignment when it comes before the program. */
  assignment: boolean;
}

export interface ReachCommand {
  /** The words, reserved words (`if`, `do`, `!`, `{`…) dropped. */
  words: ReachWord[];
  redirects: Array<{ operator: string; target: ReachWord }>;
  /** The bodies of its here-documents: the program's input. */
  heredocs: string[];
}

export type ShellReading = { commands: ReachCommand[] } | { unreadable: string };

const RESERVED = new Set([
  '!', '{', '}', 'case', 'coproc', 'do', 'done', 'elif', 'else', 'esac', 'fi', 'for', 'function',
  'if', 'in', 'select', 'then', 'time', 'until', 'while',
]); // prettier-ignore

const REDIRECTIONS = ['<<<', '<<-', '&>>', '<<', '<>', '<&', '>>', '>|', '>&', '&>', '<', '>'];

interface Char {
  c: string;
  quoted: boolean;
}

/** Reads `line`; `home` is what `~` means. */
export function readShell(line: string, home: string | undefined): ShellReading {
  try {
    return { commands: new Reader(line, home).read() };
  } catch (error) {
    if (error instanceof Unreadable) return { unreadable: error.message };
    throw error;
  }
}

class Unreadable extends Error {}

class Reader {
  readonly #line: string;
  readonly #home: string | undefined;
  #i = 0;
  #chars: Char[] = [];
  #unknown = false;
  #started = false;
  #commands: ReachCommand[] = [];
  #current: ReachCommand = { words: [], redirects: [], heredocs: [] };
  #redirect: string | undefined;
  #heredocs: Array<{ delimiter: string; strip: boolean; literal: boolean; command: ReachCommand }> = [];

  constructor(line: string, home: string | undefined) {
    this.#line = line;
    this.#home = home;
  }

  read(): ReachCommand[] {
    const line = this.#line;
    if (!ACCEPTED.test(line))
      throw new Unreadable('the line holds a control or invisible character the shell reads differently');
    for (; this.#i < line.length; this.#i++) {
      const char = line.charAt(this.#i);
      const next = line.charAt(this.#i + 1);
      if (char === ' ' || char === '\t') this.#endWord();
      else if (char === '\n') {
        this.#endCommand();
        this.#readHeredocs();
      } else if ((char === '<' || char === '>') && next === '(')
        throw new Unreadable('a process substitution runs a command');
      else if (char === '<' || char === '>' || (char === '&' && next === '>')) this.#readRedirection();
      else if (';&|()'.includes(char)) {
        this.#endCommand();
        // `&&`, `||`, `;;`, `|&`, `;&`: one operator.
        if (
          (char !== '(' && char !== ')' && next === char) ||
          (next === '&' && (char === '|' || char === ';'))
        )
          this.#i++;
      } else if (char === '#' && !this.#started) {
        while (this.#i + 1 < line.length && line.charAt(this.#i + 1) !== '\n') this.#i++;
      } else if (char === '\\') {
        if (next === '') throw new Unreadable('the line ends with a backslash');
        this.#i++;
        if (next !== '\n') this.#push(next, true);
      } else if (char === "'") {
        const close = line.indexOf("'", this.#i + 1);
        if (close === -1) throw new Unreadable('a quote is not closed');
        for (const c of line.slice(this.#i + 1, close)) this.#push(c, true);
        this.#started = true;
        this.#i = close;
      } else if (char === '"') this.#readDoubleQuoted();
      else if (char === '`') throw new Unreadable('a command substitution (backticks) runs a command');
      else if (char === '$') this.#readDollar(false);
      else this.#push(char, false);
    }
    this.#endCommand();
    if (this.#heredocs.length > 0) throw new Unreadable('a here-document is not closed');
    return this.#commands;
  }

  #push(c: string, quoted: boolean): void {
    this.#chars.push({ c, quoted });
    this.#started = true;
  }

  #endWord(): void {
    if (!this.#started) return;
    const word = makeWord(this.#chars, this.#unknown, this.#home);
    const operator = this.#redirect;
    if (operator === '<<' || operator === '<<-') {
      if (this.#unknown) throw new Unreadable('a here-document delimiter holds an expansion');
      this.#heredocs.push({
        delimiter: this.#chars.map((char) => char.c).join(''),
        strip: operator === '<<-',
        literal: this.#chars.some((char) => char.quoted),
        command: this.#current,
      });
    } else if (operator !== undefined) this.#current.redirects.push({ operator, target: word });
    else if (this.#current.words.length > 0 || !isReserved(word)) this.#current.words.push(word);
    this.#redirect = undefined;
    this.#chars = [];
    this.#unknown = this.#started = false;
  }

  #endCommand(): void {
    this.#endWord();
    if (this.#redirect !== undefined) throw new Unreadable(`the redirection ${this.#redirect} has no target`);
    const command = this.#current;
    if (
      command.words.length > 0 ||
      command.redirects.length > 0 ||
      this.#heredocs.some((h) => h.command === command)
    )
      this.#commands.push(command);
    this.#current = { words: [], redirects: [], heredocs: [] };
  }

  #readRedirection(): void {
    // A word of digits right before it is the descriptor (`2>`), not an argument.
    if (this.#started && !this.#unknown && this.#chars.every((char) => !char.quoted && /\d/.test(char.c))) {
      this.#chars = [];
      this.#started = false;
    }
    this.#endWord();
    const rest = this.#line.slice(this.#i);
    const operator = REDIRECTIONS.find((candidate) => rest.startsWith(candidate)) ?? rest.charAt(0);
    this.#i += operator.length - 1;
    this.#redirect = operator;
  }

  #readHeredocs(): void {
    const line = this.#line;
    for (const heredoc of this.#heredocs) {
      let body = '';
      for (;;) {
        const start = this.#i + 1;
        if (start >= line.length) throw new Unreadable('a here-document is not closed');
        const end = line.indexOf('\n', start) === -1 ? line.length : line.indexOf('\n', start);
        const text = line.slice(start, end);
        this.#i = end;
        if ((heredoc.strip ? text.replace(/^\t+/, '') : text) === heredoc.delimiter) break;
        body += `${text}\n`;
      }
      if (!heredoc.literal && /\$\(|`/.test(body))
        throw new Unreadable('a here-document holds a command substitution');
      heredoc.command.heredocs.push(body);
    }
    this.#heredocs = [];
  }

  #readDoubleQuoted(): void {
    const line = this.#line;
    this.#started = true;
    for (this.#i++; this.#i < line.length; this.#i++) {
      const char = line.charAt(this.#i);
      const next = line.charAt(this.#i + 1);
      if (char === '"') return;
      if (char === '`') throw new Unreadable('a command substitution (backticks) runs a command');
      if (char === '$') this.#readDollar(true);
      else if (char === '\\' && '$`"\\\n'.includes(next) && next !== '') {
        this.#i++;
        if (next !== '\n') this.#push(next, true);
      } else this.#push(char, true);
    }
    throw new Unreadable('a quote is not closed');
  }

  /** `$…` at `#i`: an expansion makes the word unknown; a substitution makes the line unreadable. */
  #readDollar(inDoubleQuotes: boolean): void {
    const line = this.#line;
    const next = line.charAt(this.#i + 1);
    this.#started = true;
    if (next === '(' && line.charAt(this.#i + 2) !== '(')
      throw new Unreadable('a command substitution $(…) runs a command');
    if (next === '(' || next === '{') {
      const open = next;
      const close = open === '(' ? ')' : '}';
      let depth = 0;
      let end = this.#i + 1;
      for (; end < line.length; end++) {
        if (line.charAt(end) === open) depth++;
        else if (line.charAt(end) === close && --depth === 0) break;
      }
      const inner = line.slice(this.#i + 2, end);
      if (end >= line.length) throw new Unreadable('an expansion is not closed');
      if (/\$\(|`|<\(|>\(/.test(inner)) throw new Unreadable('an expansion holds a command substitution');
      this.#unknown = true;
      this.#i = end;
    } else if (/[A-Za-z_]/.test(next)) {
      this.#unknown = true;
      this.#i += /^[A-Za-z_][A-Za-z0-9_]*/.exec(line.slice(this.#i + 1))?.[0].length ?? 1;
    } else if (/[0-9@*#?$!-]/.test(next)) {
      this.#unknown = true;
      this.#i++;
    } else if ((next === "'" || next === '"') && !inDoubleQuotes) {
      // bash's $'…' and $"…": the text depends on escapes or the locale.
      this.#unknown = true;
      const close = next === "'" ? /^'(?:[^'\\]|\\.)*'/s.exec(line.slice(this.#i + 1)) : null;
      if (next === "'" && close === null) throw new Unreadable('a quote is not closed');
      if (close !== null) this.#i += close[0].length;
    } else this.#push('$', inDoubleQuotes);
  }
}

function isReserved(word: ReachWord): boolean {
  return word.texts?.length === 1 && RESERVED.has(word.texts[0] ?? '') && !word.assignment && !word.glob;
}

// Past this many readings of one brace list the word is taken as unknown.
const MAX_BRACE_READINGS = 64;

function makeWord(chars: readonly Char[], unknown: boolean, home: string | undefined): ReachWord {
  const glob = chars.some((char) => !char.quoted && '*?['.includes(char.c));
  const assignment = /^[A-Za-z_][A-Za-z0-9_]*=/.test(
    chars
      .slice(0, chars.findIndex((char) => char.c === '=') + 1)
      .map((char) => (char.quoted ? '\0' : char.c))
      .join(''),
  );
  const braces = expandBraces(chars);
  if (unknown || braces === 'sequence') return { texts: undefined, glob, assignment };
  const readings = [chars, ...(braces ?? [])];
  if (readings.length > MAX_BRACE_READINGS) return { texts: undefined, glob, assignment };
  const texts: string[] = [];
  for (const reading of readings) {
    const text = withTilde(reading, home);
    if (text === undefined) return { texts: undefined, glob, assignment };
    if (!texts.includes(text)) texts.push(text);
  }
  return { texts, glob, assignment };
}

/** `~` and `~/…` unquoted at the start mean HOME; `~user` is not known here. */
function withTilde(chars: readonly Char[], home: string | undefined): string | undefined {
  const text = chars.map((char) => char.c).join('');
  if (chars[0]?.c !== '~' || chars[0].quoted) return text;
  const slash = text.indexOf('/');
  if (slash !== 1 && text !== '~') return undefined;
  return home === undefined ? undefined : home + text.slice(1);
}

/**
 * bash's brace expansion of the first unquoted `{a,b}` (recursively); undefined when there is
 * none; 'sequence' for `{1..9}`, which is not expanded (the word is then unknown).
 */
function expandBraces(chars: readonly Char[]): Char[][] | 'sequence' | undefined {
  for (let open = 0; open < chars.length; open++) {
    if (chars[open]?.c !== '{' || chars[open]?.quoted === true) continue;
    let depth = 0;
    const commas: number[] = [];
    for (let close = open; close < chars.length; close++) {
      const char = chars[close];
      if (char === undefined || char.quoted) continue;
      if (char.c === '{') depth++;
      else if (char.c === ',' && depth === 1) commas.push(close);
      else if (char.c === '}' && --depth === 0) {
        if (commas.length === 0) {
          const inside = chars
            .slice(open + 1, close)
            .map((c) => c.c)
            .join('');
          if (/^[^.]+\.\.[^.]+$/.test(inside)) return 'sequence';
          break;
        }
        const bounds = [open, ...commas, close];
        const readings: Char[][] = [];
        for (let k = 1; k < bounds.length; k++) {
          const part = [
            ...chars.slice(0, open),
            ...chars.slice((bounds[k - 1] ?? open) + 1, bounds[k]),
            ...chars.slice(close + 1),
          ];
          const inner = expandBraces(part);
          if (inner === 'sequence') return inner;
          readings.push(...(inner ?? [part]));
        }
        return readings;
      }
    }
  }
  return undefined;
}
