/**
 * Paths as the shell and the kernel see them, for the command checks: the names a glob can
 * become, what in a word could be a path, and where a path really leads once every symbolic
 * link on it is followed. Each errs on the side of more: a glob matches loosely, a word yields
 * every part that could be a path, a dangling link is followed to where a write would create
 * its target. Checking more only ever asks more.
 */
import { lstatSync, readlinkSync } from 'node:fs';
import { readdir, realpath } from 'node:fs/promises';
import { basename, dirname, join, parse, resolve, sep } from 'node:path';
import { errorCode } from '../support/errno.ts';

/**
 * The names the shell could put in place of `pattern`, relative to `cwd`; `[pattern]` when it
 * matches nothing (the shell then passes it as it is), undefined past the budget. A superset of
 * the shell's expansion: quoted glob characters, brackets and dot files are matched loosely,
 * which can only check more names.
 */
export async function expandGlob(
  pattern: string,
  cwd: string,
  budget: { left: number },
): Promise<string[] | undefined> {
  const absolute = pattern.startsWith('/');
  let prefixes = [absolute ? '/' : ''];
  const segments = pattern.split('/').slice(absolute ? 1 : 0);
  for (const segment of segments) {
    const join = (prefix: string) => (prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`);
    if (!/[*?[]/.test(segment)) {
      prefixes = prefixes.map((prefix) => join(prefix) + segment);
      continue;
    }
    const matcher = segmentPattern(segment);
    const next: string[] = [];
    for (const prefix of prefixes) {
      const names = await readdir(prefix === '' ? cwd : resolve(cwd, prefix)).catch(() => []);
      for (const name of names) {
        if (!matcher.test(name)) continue;
        if (--budget.left < 0) return undefined;
        next.push(join(prefix) + name);
      }
    }
    prefixes = next;
  }
  return prefixes.length === 0 ? [pattern] : prefixes;
}

/** One path segment of a glob as a regular expression; a bracket expression matches any one character. */
function segmentPattern(segment: string): RegExp {
  let source = '';
  for (let i = 0; i < segment.length; i++) {
    const char = segment.charAt(i);
    if (char === '*') source += '.*';
    else if (char === '?') source += '.';
    else if (char === '[') {
      let end = i + 1;
      if (segment.charAt(end) === '!' || segment.charAt(end) === '^') end++;
      if (segment.charAt(end) === ']') end++;
      const close = segment.indexOf(']', end);
      if (close === -1) source += '\\[';
      else {
        source += '.';
        i = close;
      }
    } else source += char.replace(/[\\^$.*+?()[\]{}|/]/, '\\$&');
  }
  return new RegExp(`^${source}$`, 'su');
}

/**
 * What in a word could be a path: the word, the value of `--flag=value` or `key=value` (dd's
 * `of=file`), and each tail of a short option cluster (`-fpatterns` reads the file `patterns`).
 * Checking too much only asks more.
 */
export function pathCandidates(word: string): string[] {
  const candidates = [word];
  const equals = word.indexOf('=');
  if (word.startsWith('--') || (equals > 0 && !word.startsWith('-'))) {
    if (equals !== -1) candidates.push(word.slice(equals + 1));
  } else if (word.startsWith('-')) {
    for (let i = 2; i < word.length; i++) candidates.push(word.slice(i));
  }
  return candidates.filter((candidate) => candidate !== '' && candidate !== '-' && candidate !== '--');
}

/**
 * The real location of `absolute`: the real path of its longest existing prefix joined with the
 * rest; undefined when it cannot be resolved (a loop, no permission). What a read reaches.
 */
export async function realLocation(absolute: string): Promise<string | undefined> {
  const missing: string[] = [];
  let path = absolute;
  for (;;) {
    try {
      return join(await realpath(path), ...missing);
    } catch (error) {
      const code = errorCode(error);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return undefined;
      const parent = dirname(path);
      if (parent === path) return absolute;
      missing.unshift(basename(path));
      path = parent;
    }
  }
}

// Linux gives up after 40 links on one path; so does this.
const MAX_LINKS = 40;

/**
 * Where a write to `absolute` lands: every symbolic link on the way followed, a dangling one
 * included (`echo x > link` creates the link's target), the missing rest appended as written.
 * A loop gives the path as written. Synchronous: the file gate's check is, and it is a few lstats.
 */
export function followLinks(absolute: string): string {
  const path = resolve(absolute);
  const { root } = parse(path);
  // Components left to walk; `current` is always a real directory, so `..` is its real parent.
  const queue = path.slice(root.length).split(sep);
  let current = root;
  let links = 0;
  while (queue.length > 0) {
    const part = queue.shift() ?? '';
    if (part === '' || part === '.') continue;
    if (part === '..') {
      current = dirname(current);
      continue;
    }
    const next = join(current, part);
    let target: string | undefined;
    try {
      target = lstatSync(next).isSymbolicLink() ? readlinkSync(next) : undefined;
    } catch {
      // Missing: nothing below it can be a link yet.
      return join(next, ...queue);
    }
    if (target === undefined) {
      current = next;
      continue;
    }
    if (++links > MAX_LINKS) return path;
    if (target.startsWith(sep)) current = parse(target).root;
    queue.unshift(...target.split(sep));
  }
  return current;
}
