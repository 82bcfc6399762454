/**
 * A deliberately small POSIX sh tokenizer for deciding whether a command line may run without
 * asking. It understands words, quotes, backslashes and the list operators, and nothing else:
 * whatever could make the shell run or read something other than what the words say — expansions,
 * substitutions, redirections, subshells, groups, comments, assignments, compound commands,
 * characters a reader could mistake for others — makes it give up. Giving up is always safe:
 * the command is then simply asked about.
 */

/** One word of a simple command, quotes removed. */
export interface ShellWord {
  value: string;
  /** Has an unquoted glob character (* ? [), so the shell may replace it with file names. */
  glob: boolean;
  /** Looks like NAME=value with the name unquoted: an assignment when it comes first. */
  assignment: boolean;
}

// Printable ASCII, tab and newline; beyond ASCII only letters, marks, digits, punctuation and
// symbols. Everything else — controls, CR, NUL, non-ASCII spaces, zero-width and bidi format
// characters — is refused, so the line cannot look different from what the shell runs.
export const ACCEPTED = /^[\t\n\x20-\x7e\p{L}\p{M}\p{N}\p{P}\p{S}]*$/u;

// Unquoted, these start an expansion, a substitution, a redirection, a subshell or a group.
const REFUSED_UNQUOTED = new Set(['$', '`', '<', '>', '(', ')', '{', '}']);

// Reserved words start compound commands (or negate, time, define functions).
const RESERVED = new Set([
  '!', '{', '}', '[[', ']]', 'case', 'coproc', 'do', 'done', 'elif', 'else', 'esac', 'fi', 'for',
  'function', 'if', 'in', 'select', 'then', 'time', 'until', 'while',
]); // prettier-ignore

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The simple commands of a line, split at `&&`, `||`, `;`, `|`, `&` and newlines, each as its
 * words; undefined when the line holds anything this tokenizer does not understand with
 * certainty (see the module comment), or is malformed (unbalanced quotes, a trailing backslash,
 * an operator without a command).
 */
export function parseCommandLine(line: string): ShellWord[][] | undefined {
  if (!ACCEPTED.test(line)) return undefined;
  const commands: ShellWord[][] = [];
  let words: ShellWord[] = [];
  let value = '';
  let started = false;
  let glob = false;
  let quoted = false;
  let assignment = false;
  // The last operator needs a command after it (`ls &&` is incomplete).
  let pending = false;

  const endWord = () => {
    if (started) words.push({ value, glob, assignment });
    value = '';
    started = glob = quoted = assignment = false;
  };
  /** Ends the current simple command at an operator; false when there is no command before it. */
  const endCommand = (operator: string): boolean => {
    endWord();
    if (words.length === 0) {
      // Blank lines, and a newline after && || |, are fine; an operator with nothing before it is not.
      return operator === '\n';
    }
    commands.push(words);
    words = [];
    pending = operator === '&&' || operator === '||' || operator === '|';
    return true;
  };

  for (let i = 0; i < line.length; i++) {
    const char = line.charAt(i);
    const next = line.charAt(i + 1);
    if (char === ' ' || char === '\t') {
      endWord();
    } else if (char === '\n' || char === ';' || char === '&' || char === '|') {
      let operator = char;
      if ((char === '&' || char === '|') && next === char) operator = char + char;
      else if (char === ';' && next === ';') return undefined;
      else if (char === '&' && next === '>') return undefined;
      else if (char === '|' && next === '&') return undefined;
      i += operator.length - 1;
      if (!endCommand(operator)) return undefined;
    } else if (char === '\\') {
      if (i + 1 >= line.length) return undefined;
      i++;
      // A backslash-newline joins lines; any other escaped character is literal.
      if (next !== '\n') {
        value += next;
        started = quoted = true;
      }
    } else if (char === "'") {
      const close = line.indexOf("'", i + 1);
      if (close === -1) return undefined;
      value += line.slice(i + 1, close);
      started = quoted = true;
      i = close;
    } else if (char === '"') {
      const end = readDoubleQuoted(line, i + 1);
      if (end === undefined) return undefined;
      value += end.text;
      started = quoted = true;
      i = end.close;
    } else if (REFUSED_UNQUOTED.has(char)) {
      return undefined;
    } else if ((char === '#' || char === '~') && !started) {
      // A comment, or a tilde expansion to a home directory.
      return undefined;
    } else {
      if (char === '*' || char === '?' || char === '[') glob = true;
      if (char === '=' && !quoted && !assignment && NAME.test(value)) assignment = true;
      value += char;
      started = true;
    }
  }
  endWord();
  if (words.length > 0) commands.push(words);
  else if (pending) return undefined;

  for (const command of commands) {
    const [first] = command;
    if (first === undefined || first.assignment || first.glob || RESERVED.has(first.value)) return undefined;
  }
  return commands;
}

/** The text of a double-quoted string starting at `start`, and the index of its closing quote. */
function readDoubleQuoted(line: string, start: number): { text: string; close: number } | undefined {
  let text = '';
  for (let i = start; i < line.length; i++) {
    const char = line.charAt(i);
    if (char === '"') return { text, close: i };
    // Parameter expansion, command substitution: the value is not known until the shell runs.
    if (char === '$' || char === '`') return undefined;
    if (char === '\\') {
      const next = line.charAt(i + 1);
      if (next === '') return undefined;
      // Inside double quotes a backslash escapes only these; before anything else it is literal.
      if (next === '$' || next === '`' || next === '"' || next === '\\') {
        text += next;
        i++;
        continue;
      }
      if (next === '\n') {
        i++;
        continue;
      }
    }
    text += char;
  }
  return undefined;
}
