/**
 * A reader for git's configuration files, enough to find where git runs code from without
 * running git (the approval gate asks for every decision, and spawning git there would block
 * it): sections and subsections, quoted values and escapes, continuation lines, comments, and
 * `include.path` / `includeIf.<condition>.path` followed. Every condition is taken as true, so a
 * conditional include is read whenever it could apply: reading more can only protect more.
 * A line git would reject is skipped; git refuses to run on such a file anyway.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export interface GitConfigEntry {
  /** As `git config --list` prints it: section and name lower-cased, the subsection as written. */
  key: string;
  value: string;
  /** The file it was read from (an included file, for an entry that came from one). */
  file: string;
}

// A chain of includes deeper than git's own limit (10) is not followed further.
const MAX_INCLUDE_DEPTH = 10;

/**
 * The entries of `file` and of the files it includes, in order; [] when it cannot be read.
 * `files` collects every file git would read, includes too, whether it exists or not.
 */
export function readGitConfig(
  file: string,
  home: string | undefined,
  files: string[] = [],
): GitConfigEntry[] {
  return readAt(file, home, files, 0);
}

function readAt(file: string, home: string | undefined, files: string[], depth: number): GitConfigEntry[] {
  if (depth > MAX_INCLUDE_DEPTH || files.includes(file)) return [];
  // Listed even when missing: creating an included file configures git as much as changing it.
  files.push(file);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const entries: GitConfigEntry[] = [];
  for (const entry of parseGitConfig(text, file)) {
    entries.push(entry);
    if (!/^(?:include|includeif\..*)\.path$/s.test(entry.key)) continue;
    const included = configPath(entry.value, home);
    if (included === undefined) continue;
    // A relative include is relative to the file that names it.
    entries.push(...readAt(resolve(dirname(file), included), home, files, depth + 1));
  }
  return entries;
}

/**
 * A value of git's "pathname" type as git expands it: `~/…` and `~` under HOME; undefined for
 * what cannot be known here (`~user/…`, `%(prefix)/…`, a missing HOME). Relative stays relative.
 */
export function configPath(value: string, home: string | undefined): string | undefined {
  if (value === '') return undefined;
  if (value === '~' || value.startsWith('~/'))
    return home === undefined || home === '' ? undefined : join(home, value.slice(1));
  if (value.startsWith('~') || value.startsWith('%(prefix)/')) return undefined;
  return value;
}

/** Parses the text of one configuration file (no includes). */
export function parseGitConfig(text: string, file: string): GitConfigEntry[] {
  const entries: GitConfigEntry[] = [];
  let section = '';
  let i = 0;
  const skipLine = () => {
    while (i < text.length && text.charAt(i) !== '\n') i++;
  };
  while (i < text.length) {
    const char = text.charAt(i);
    if (/\s/.test(char)) {
      i++;
    } else if (char === '#' || char === ';') {
      skipLine();
    } else if (char === '[') {
      const header = readHeader(text, i + 1);
      if (header === undefined) skipLine();
      else ({ section, end: i } = header);
    } else if (/[A-Za-z]/.test(char)) {
      const name = /^[A-Za-z][A-Za-z0-9-]*/.exec(text.slice(i))?.[0] ?? char;
      i += name.length;
      while (text.charAt(i) === ' ' || text.charAt(i) === '\t') i++;
      let value = '';
      // A name alone is a boolean true.
      if (text.charAt(i) === '=') ({ value, end: i } = readValue(text, i + 1));
      if (section !== '') entries.push({ key: `${section}.${name.toLowerCase()}`, value, file });
    } else {
      skipLine();
    }
  }
  return entries;
}

/** `[section]`, `[section "subsection"]` or the old `[section.subsection]`; the index after `]`. */
function readHeader(text: string, start: number): { section: string; end: number } | undefined {
  const close = /^([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\\n]|\\.)*)")?\s*\]/.exec(text.slice(start));
  if (close === null) return undefined;
  const [whole, name = '', quoted] = close;
  const dot = name.indexOf('.');
  // The old dotted form lower-cases the subsection; the quoted form keeps it as written.
  const section =
    quoted !== undefined
      ? `${name.toLowerCase()}.${quoted.replace(/\\(.)/g, '$1')}`
      : dot === -1
        ? name.toLowerCase()
        : `${name.slice(0, dot).toLowerCase()}.${name.slice(dot + 1).toLowerCase()}`;
  return { section, end: start + whole.length };
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', b: '\b', '"': '"', '\\': '\\' };

/** A value up to the end of its line: quotes removed, escapes and continuations applied, unquoted ends trimmed. */
function readValue(text: string, start: number): { value: string; end: number } {
  let value = '';
  // The length of the value up to its last character that is quoted or not blank.
  let kept = 0;
  let quoted = false;
  let i = start;
  for (; i < text.length; i++) {
    const char = text.charAt(i);
    if (char === '\n' && !quoted) break;
    if (char === '"') {
      quoted = !quoted;
      kept = value.length;
    } else if (char === '\\') {
      const next = text.charAt(++i);
      if (next === '\n') continue;
      value += ESCAPES[next] ?? next;
      kept = value.length;
    } else if ((char === '#' || char === ';') && !quoted) {
      while (i < text.length && text.charAt(i) !== '\n') i++;
      break;
    } else if ((char === ' ' || char === '\t' || char === '\r') && !quoted) {
      // Leading blanks are dropped; inner ones kept; trailing ones trimmed below.
      if (value !== '') value += char;
    } else {
      value += char;
      kept = value.length;
    }
  }
  return { value: value.slice(0, kept), end: i };
}
