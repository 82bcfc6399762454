/**
 * Walking a directory the way a developer sees it: `.gitignore` rules applied (those above the
 * directory and the nested ones met on the way, deeper files overriding shallower ones, as git
 * does), `.git` always skipped, symbolic links listed but never followed, directories first.
 */
import type { Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { isInside, type Workspace } from '../../workspace/workspace.ts';
import { isAtomicWriteTemp } from '../../workspace/atomic-write.ts';

/** The rules of one ignore file, which apply to paths relative to `dir`. */
export interface IgnoreLayer {
  dir: string;
  matcher: Ignore;
}

export type EntryType = 'file' | 'dir' | 'symlink' | 'other';

export interface WalkEntry {
  absolute: string;
  /** Relative to the directory the walk started in, `/`-separated. */
  relative: string;
  name: string;
  type: EntryType;
  depth: number;
}

export interface WalkOptions {
  recursive: boolean;
  /** The layers that apply above the start directory (see `ancestorLayers`). */
  layers: readonly IgnoreLayer[];
  signal: AbortSignal;
  /** Called for each entry a .gitignore hides (an ignored directory counts once). */
  onIgnored?: () => void;
}

// Git matches case-insensitively where the file system does (core.ignorecase).
const IGNORE_CASE = process.platform === 'darwin' || process.platform === 'win32';

async function readLayer(dir: string, file: string): Promise<IgnoreLayer | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined || text.trim() === '') return undefined;
  return { dir, matcher: ignore({ ignorecase: IGNORE_CASE }).add(text) };
}

/**
 * The ignore layers that apply to the entries of `dir`, excluding dir's own .gitignore (the walk
 * reads that): the root's `.git/info/exclude` and every .gitignore from the workspace root (or
 * the allowed directory holding `dir`) down to dir's parent.
 */
export async function ancestorLayers(workspace: Workspace, dir: string): Promise<IgnoreLayer[]> {
  const base = [workspace.root, ...workspace.allowed].find((candidate) => isInside(dir, candidate));
  if (base === undefined) return [];
  // Not above the root: a home directory kept in git often ignores `*`, which would hide every workspace under it.
  const top = base;
  const layers: IgnoreLayer[] = [];
  const exclude = await readLayer(top, join(top, '.git', 'info', 'exclude'));
  if (exclude !== undefined) layers.push(exclude);
  const above: string[] = [];
  for (let current = dirname(dir); isInside(current, top); current = dirname(current)) {
    above.unshift(current);
    if (current === top) break;
  }
  for (const current of above) {
    const layer = await readLayer(current, join(current, '.gitignore'));
    if (layer !== undefined) layers.push(layer);
  }
  return layers;
}

/** True when the deepest layer with an opinion on `absolute` ignores it. */
export function isIgnored(layers: readonly IgnoreLayer[], absolute: string, isDirectory: boolean): boolean {
  for (let index = layers.length - 1; index >= 0; index--) {
    const layer = layers[index];
    if (layer === undefined) continue;
    const path = relative(layer.dir, absolute).split(sep).join('/');
    if (path === '' || path === '..' || path.startsWith('../')) continue;
    try {
      const result = layer.matcher.test(isDirectory ? `${path}/` : path);
      if (result.ignored) return true;
      if (result.unignored) return false;
    } catch {
      // A name the matcher cannot parse is simply not matched by it.
    }
  }
  return false;
}

/** The entries under `start`, depth first, each directory's subdirectories before its files. */
export async function* walk(start: string, options: WalkOptions): AsyncGenerator<WalkEntry> {
  yield* visit(start, '', 0, options.layers, options);
}

function typeOf(dirent: Dirent): EntryType {
  if (dirent.isDirectory()) return 'dir';
  if (dirent.isFile()) return 'file';
  return dirent.isSymbolicLink() ? 'symlink' : 'other';
}

async function* visit(
  dir: string,
  prefix: string,
  depth: number,
  layers: readonly IgnoreLayer[],
  options: WalkOptions,
): AsyncGenerator<WalkEntry> {
  if (options.signal.aborted) return;
  let dirents: Dirent[];
  try {
    dirents = await readdir(dir, { withFileTypes: true });
  } catch {
    return; // Unreadable (permissions) or gone meanwhile: nothing to list there.
  }
  const own = await readLayer(dir, join(dir, '.gitignore'));
  const active = own === undefined ? layers : [...layers, own];
  const entries: WalkEntry[] = [];
  for (const dirent of dirents) {
    // .git is never listed; neither are the temp files of writes in progress (or interrupted).
    if (dirent.name === '.git' || isAtomicWriteTemp(dirent.name)) continue;
    const type = typeOf(dirent);
    const absolute = join(dir, dirent.name);
    if (isIgnored(active, absolute, type === 'dir')) {
      options.onIgnored?.();
      continue;
    }
    entries.push({
      absolute,
      relative: prefix === '' ? dirent.name : `${prefix}/${dirent.name}`,
      name: dirent.name,
      type,
      depth,
    });
  }
  entries.sort(compareEntries);
  for (const entry of entries) {
    yield entry;
    if (options.recursive && entry.type === 'dir')
      yield* visit(entry.absolute, entry.relative, depth + 1, active, options);
  }
}

function compareEntries(a: WalkEntry, b: WalkEntry): number {
  if ((a.type === 'dir') !== (b.type === 'dir')) return a.type === 'dir' ? -1 : 1;
  const x = a.name.toLowerCase();
  const y = b.name.toLowerCase();
  if (x !== y) return x < y ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
