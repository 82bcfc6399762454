/**
 * The workspace boundary. Every path a tool touches is resolved here: against the workspace
 * root, with symlinks resolved (the real path of the parent; the final component is not
 * followed, so writing replaces a link rather than its target), and compared with
 * `path.relative`, never a string prefix (`/w/proj-evil` is not inside `/w/proj`). Reads also
 * resolve the final component, so a link pointing out cannot be read through.
 *
 * Resolution is a check at one moment; a change made later (after an approval) re-checks the path
 * when it touches the disk, through `pinned-dir.ts`.
 */
import { realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** path_changed: a directory on the path was swapped for a link (inside) after the path was checked. */
export type PathErrorKind = 'invalid_path' | 'outside_workspace' | 'path_changed';

/** A path a tool may not use. The message is written for the model (and the user) to act on. */
export class PathError extends Error {
  readonly kind: PathErrorKind;

  constructor(kind: PathErrorKind, message: string) {
    super(message);
    this.name = 'PathError';
    this.kind = kind;
  }
}

export interface ResolvedPath {
  /** The absolute path with every directory's symlinks resolved. */
  absolute: string;
  /** How to show it: relative to the root, or absolute when in an extra allowed directory. */
  display: string;
}

// C0 and C1 controls and DEL. Tabs are controls too: no sane file name has one.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** True when `child` is `parent` or inside it, by path.relative (never a string prefix). */
export function isInside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** A directory a path is confined to (the root or an allowed directory) and its identity at open. */
export interface WorkspaceBase {
  path: string;
  /** `dev:ino` when the directory existed at open; a directory found there later must be the same. */
  identity: string | undefined;
}

export class Workspace {
  /** The real path of the workspace root. */
  readonly root: string;
  /** Real paths of the directories outside the root that the user allowed. */
  readonly allowed: readonly string[];
  readonly #bases: readonly WorkspaceBase[];

  private constructor(bases: readonly WorkspaceBase[]) {
    this.#bases = bases;
    this.root = bases[0]?.path ?? '';
    this.allowed = bases.slice(1).map((base) => base.path);
  }

  static async open(root: string, allowedDirs: readonly string[] = []): Promise<Workspace> {
    const allowed = await Promise.all(
      allowedDirs.map((dir) => realpath(resolve(root, dir)).catch(() => resolve(root, dir))),
    );
    const paths = [await realpath(root), ...allowed];
    const identities = await Promise.all(
      paths.map((path) =>
        stat(path).then(
          (info) => `${info.dev}:${info.ino}`,
          () => undefined,
        ),
      ),
    );
    return new Workspace(paths.map((path, index) => ({ path, identity: identities[index] })));
  }

  /** The root or allowed directory that `absolute` is confined to (the root when both hold it). */
  baseOf(absolute: string): WorkspaceBase | undefined {
    return this.#bases.find((base) => isInside(absolute, base.path));
  }

  /** A path to write (or create, delete, move): the parent's symlinks resolved, the final component not followed. */
  async resolveForWrite(input: string): Promise<ResolvedPath> {
    const absolute = await realParent(this.#absolute(input));
    return this.#checked(input, absolute);
  }

  /** A path to read: every symlink resolved, the final one included, so a link cannot lead out. */
  async resolveForRead(input: string): Promise<ResolvedPath> {
    const lexical = await realParent(this.#absolute(input));
    this.#checked(input, lexical);
    const target = await realpath(lexical).catch(() => lexical);
    return this.#checked(input, target);
  }

  /** Where a path stands: the root itself, inside it, inside an allowed directory, or outside. */
  contains(absolute: string): boolean {
    return isInside(absolute, this.root) || this.allowed.some((dir) => isInside(absolute, dir));
  }

  display(absolute: string): string {
    if (!isInside(absolute, this.root)) return absolute;
    return relative(this.root, absolute) || '.';
  }

  #absolute(input: string): string {
    if (input === '')
      throw new PathError('invalid_path', 'The path is empty. Give a path relative to the workspace root.');
    if (CONTROL.test(input)) {
      throw new PathError(
        'invalid_path',
        `The path ${JSON.stringify(input)} contains a control character (or NUL), which Santra never accepts in a path.`,
      );
    }
    return resolve(this.root, input);
  }

  #checked(input: string, absolute: string): ResolvedPath {
    if (this.contains(absolute)) return { absolute, display: this.display(absolute) };
    throw new PathError(
      'outside_workspace',
      `${input} resolves to ${absolute}, outside the workspace ${this.root}. Tools only work inside the workspace` +
        ' (the user can allow more directories with "workspace.allowedDirs" in the config).',
    );
  }
}

/** The real path of `absolute`'s parent directory joined with its final component (not followed). */
async function realParent(absolute: string): Promise<string> {
  const name = basename(absolute);
  let dir = dirname(absolute);
  const missing: string[] = [];
  // Walk up to the nearest directory that exists; the ones below it cannot be links yet.
  for (;;) {
    try {
      const real = await realpath(dir);
      return join(real, ...missing.reverse(), name);
    } catch {
      const parent = dirname(dir);
      if (parent === dir) return absolute;
      missing.push(basename(dir));
      dir = parent;
    }
  }
}
