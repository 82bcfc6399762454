/**
 * Ignore files as ripgrep reads them, for the built-in searcher: `.rgignore`, `.ignore` and
 * `.gitignore` in every directory walked and in every parent of the search root (the .gitignore
 * files only up to the nearest directory holding `.git`; the others to `/`). A path is decided by
 * the deepest matching rule of the first kind that matches, in that order of kinds, as ripgrep's
 * `ignore` crate does. Rules are matched against the entry's own path; directories that match are
 * not entered, so their contents are never asked about.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';

const KINDS = ['.rgignore', '.ignore', '.gitignore'] as const;
type Kind = (typeof KINDS)[number];

/** One ignore file's rules, and what to put before an entry's path (relative to the search root) to match them. */
interface Matcher {
  readonly rules: Ignore;
  readonly prepend: string;
}

/** The ignore rules in force for one directory and everything below it that adds none of its own. */
export interface IgnoreLevel {
  readonly parent: IgnoreLevel | undefined;
  /** Characters dropped from an entry's path before matching: the directory's own path and its slash. */
  readonly cut: number;
  readonly matchers: ReadonlyMap<Kind, Matcher>;
  /** The directory holds `.git`: .gitignore files above it do not apply. */
  readonly hasGit: boolean;
}

/** True when a directory holding these names needs a level of its own. */
export function addsRules(names: ReadonlySet<string>): boolean {
  return names.has('.git') || KINDS.some((kind) => names.has(kind));
}

/**
 * The levels of the search root (absolute) and its parents. Entries below the root are then
 * named by their path relative to it, with `/` separators.
 */
export function rootLevel(root: string): IgnoreLevel {
  const chain: string[] = [];
  for (let dir = root; ; dir = dirname(dir)) {
    chain.push(dir);
    if (dirname(dir) === dir) break;
  }
  let level: IgnoreLevel | undefined;
  for (const dir of chain.reverse()) {
    const rel = relative(dir, root).split(sep).join('/');
    const matchers = new Map<Kind, Matcher>();
    for (const kind of KINDS) {
      const text = readRules(join(dir, kind));
      if (text === undefined) continue;
      const prepend = rel === '' ? '' : `${rel}/`;
      const rules = ignore({ allowRelativePaths: true }).add(text);
      // The search starts inside a directory these rules ignore (someone asked for node_modules/x):
      // like ripgrep, match its contents against the rules themselves, not against the ignored parent.
      if (prepend !== '' && rules.test(prepend).ignored) {
        matchers.set(kind, {
          rules: ignore({ allowRelativePaths: true }).add(rebase(text, rel)),
          prepend: '',
        });
      } else matchers.set(kind, { rules, prepend });
    }
    const hasGit = existsSync(join(dir, '.git'));
    if (matchers.size > 0 || hasGit || dir === root) level = { parent: level, cut: 0, matchers, hasGit };
  }
  return level as IgnoreLevel;
}

/** The level for the directory `dir` (absolute; `rel` below the search root), given the names it holds. */
export function childLevel(
  parent: IgnoreLevel,
  dir: string,
  rel: string,
  names: ReadonlySet<string>,
): IgnoreLevel {
  const matchers = new Map<Kind, Matcher>();
  for (const kind of KINDS) {
    if (!names.has(kind)) continue;
    const text = readRules(join(dir, kind));
    if (text !== undefined)
      matchers.set(kind, { rules: ignore({ allowRelativePaths: true }).add(text), prepend: '' });
  }
  return { parent, cut: rel.length + 1, matchers, hasGit: names.has('.git') };
}

/** Whether the entry `rel` (relative to the search root, `/`-separated) is ignored. */
export function isIgnored(level: IgnoreLevel, rel: string, isDir: boolean): boolean {
  for (const kind of KINDS) {
    let sawGit = false;
    for (let at: IgnoreLevel | undefined = level; at !== undefined; at = at.parent) {
      if (kind === '.gitignore' && sawGit) break;
      const matcher = at.matchers.get(kind);
      if (matcher !== undefined) {
        const local = matcher.prepend + rel.slice(at.cut);
        const result = matcher.rules.test(isDir ? `${local}/` : local);
        if (result.ignored) return true;
        if (result.unignored) return false;
      }
      sawGit ||= at.hasGit;
    }
  }
  return false;
}

function readRules(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Rules of a parent directory re-anchored at the search root `rel` below it: rules without a
 * slash (they match a name anywhere) and `**` rules stay; anchored rules under `rel` lose that
 * prefix; other anchored rules cannot match below `rel` and are dropped.
 */
function rebase(text: string, rel: string): string {
  const kept: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trimEnd();
    if (line === '' || line.startsWith('#')) continue;
    const negated = line.startsWith('!');
    const body = negated ? line.slice(1) : line;
    const core = body.endsWith('/') ? body.slice(0, -1) : body;
    if (!core.includes('/') || core.startsWith('**/')) {
      kept.push(line);
      continue;
    }
    const anchored = core.startsWith('/') ? body.slice(1) : body;
    if (anchored.startsWith(`${rel}/`)) kept.push(`${negated ? '!' : ''}/${anchored.slice(rel.length + 1)}`);
  }
  return kept.join('\n');
}
