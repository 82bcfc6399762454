/**
 * Where git runs code from, for a path: the hooks directory of every repository around it — the
 * one `core.hooksPath` names (in the repository's configuration, a file it includes, or the
 * user's global or system configuration), else `hooks/` in the git directory — the template
 * directory `init.templateDir` names (a new repository gets its hooks), a program file that a
 * program-running key names by path (`core.fsmonitor = tools/fsmonitor.sh`), and the
 * configuration files themselves. Writing any of these makes a later git command run code that
 * nobody approved, so they are protected locations (protected-paths.ts).
 *
 * Read from the files each time a decision is made, so a configuration changed mid-session
 * counts at once. Relative paths are resolved as git resolves them: a hooks path or a program
 * against the work tree's top level (where git runs hooks), an include against the including file.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { isInside } from '../workspace/workspace.ts';
import { configPath, type GitConfigEntry, readGitConfig } from './git-config-file.ts';
import { runsProgram } from './git-hazards.ts';
import { followLinks } from './shell-paths.ts';

export type GitCodeKind = 'hooks' | 'templates' | 'program' | 'config';

export interface GitCodeLocation {
  /** Absolute path of the directory (hooks, templates) or file (program, config). */
  path: string;
  kind: GitCodeKind;
  /** Named by the configuration (not git's default), so its parents are guarded too. */
  configured: boolean;
  /** For the user: what it is and where that was set. */
  reason: string;
}

interface Repository {
  /** The directory holding `.git`, where git runs hooks. */
  workTree: string;
  gitDir: string;
  commonDir: string;
}

// Where names differ only in case are the same file, so are the paths compared.
const CASE_INSENSITIVE = process.platform === 'darwin' || process.platform === 'win32';
const fold = (path: string) => (CASE_INSENSITIVE ? path.toLowerCase() : path);

/**
 * Why writing `path` makes git run code later, or undefined. `env` gives HOME and git's
 * variables; the repositories counted are those around `path` and around each of `around` (the
 * directory a command runs in: its repository's hooks may be anywhere, a `.git` file or an
 * absolute `core.hooksPath` pointing out of the work tree).
 */
export function gitCodeReason(
  path: string,
  env: NodeJS.ProcessEnv,
  around: readonly string[] = [],
): string | undefined {
  const candidates = unique([resolve(path), followLinks(path)].map(fold));
  const repositories = unique(
    [...candidates, ...around].flatMap(repositoriesAround),
    (repo) => repo.workTree,
  );
  for (const location of gitCodeLocations(repositories, env)) {
    const places = unique([location.path, followLinks(location.path)].map(fold));
    for (const candidate of candidates) {
      for (const place of places) {
        const directory = location.kind === 'hooks' || location.kind === 'templates';
        if (directory ? isInside(candidate, place) : candidate === place) return location.reason;
        // Replacing a parent replaces what is inside (`rm -rf tools; mv evil tools`); the work
        // tree itself and what holds it are exempt, or every `prettier --write .` would ask.
        if (
          location.configured &&
          isInside(place, candidate) &&
          !repositories.some((repo) => isInside(fold(repo.workTree), candidate))
        )
          return `it holds ${location.reason}`;
      }
    }
  }
  return undefined;
}

/** Every repository whose work tree holds `path`, nearest first (a nested one and the one around it). */
function repositoriesAround(path: string): Repository[] {
  const found: Repository[] = [];
  for (let dir = path; ; dir = dirname(dir)) {
    const repository = repositoryAt(dir);
    if (repository !== undefined) found.push(repository);
    if (dirname(dir) === dir) return found;
  }
}

/** The repository whose `.git` (a directory, or a file naming one) is in `dir`. */
function repositoryAt(dir: string): Repository | undefined {
  const dotGit = join(dir, '.git');
  let gitDir = dotGit;
  try {
    if (statSync(dotGit).isFile()) {
      const named = /^gitdir:\s*(.*?)\s*$/m.exec(readFileSync(dotGit, 'utf8'))?.[1];
      if (named === undefined || named === '') return undefined;
      gitDir = resolve(dir, named);
    }
  } catch {
    return undefined;
  }
  // A linked work tree keeps its hooks and configuration in the main repository's git directory.
  let commonDir = gitDir;
  try {
    commonDir = resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim());
  } catch {
    // Not a linked work tree.
  }
  return { workTree: dir, gitDir, commonDir };
}

/** The locations for these repositories, from their configuration and the user's. */
function gitCodeLocations(repositories: readonly Repository[], env: NodeJS.ProcessEnv): GitCodeLocation[] {
  const home = env.HOME;
  const locations: GitCodeLocation[] = [];
  const everyWorkTree = repositories.map((repo) => repo.workTree);
  const add = (entries: GitConfigEntry[], bases: readonly string[], files: string[], scope: string) => {
    for (const file of files)
      locations.push({
        path: file,
        kind: 'config',
        configured: false,
        reason: `a git configuration file (${scope}: ${file}); it can make later git commands run programs`,
      });
    for (const entry of entries) locations.push(...entryLocations(entry, bases, home));
  };
  for (const repo of repositories) {
    locations.push({
      path: join(repo.commonDir, 'hooks'),
      kind: 'hooks',
      configured: false,
      reason: "git's hooks directory (its hooks run on later git commands)",
    });
    const files: string[] = [];
    const entries = [join(repo.commonDir, 'config'), join(repo.gitDir, 'config.worktree')].flatMap((file) =>
      readGitConfig(file, home, files),
    );
    // core.worktree moves the top level, where hooks run and relative paths start.
    const moved = entries
      .filter((entry) => entry.key === 'core.worktree' && entry.value !== '')
      .map((entry) => resolve(repo.gitDir, entry.value));
    add(entries, [repo.workTree, ...moved], files, 'the repository');
  }
  for (const [scope, file] of userConfigFiles(env)) {
    const files: string[] = [];
    const entries = readGitConfig(file, home, files);
    // A relative hooks path in the user's configuration applies to every repository.
    add(entries, everyWorkTree, files, scope);
  }
  const count = Number.parseInt(env.GIT_CONFIG_COUNT ?? '', 10);
  for (let i = 0; Number.isSafeInteger(count) && i < Math.min(count, 1000); i++) {
    const key = env[`GIT_CONFIG_KEY_${i}`]?.toLowerCase() ?? '';
    const entry = { key, value: env[`GIT_CONFIG_VALUE_${i}`] ?? '', file: `GIT_CONFIG_KEY_${i}` };
    locations.push(...entryLocations(entry, everyWorkTree, home));
  }
  return locations;
}

/** The user's global and system configuration files, as git finds them. */
function userConfigFiles(env: NodeJS.ProcessEnv): Array<[scope: string, file: string]> {
  const files: Array<[string, string]> = [];
  const home = env.HOME ?? '';
  const xdg = env.XDG_CONFIG_HOME;
  if (env.GIT_CONFIG_GLOBAL !== undefined) files.push(['global', env.GIT_CONFIG_GLOBAL]);
  else {
    const base = xdg !== undefined && isAbsolute(xdg) ? xdg : home === '' ? undefined : join(home, '.config');
    if (base !== undefined) files.push(['global', join(base, 'git', 'config')]);
    if (home !== '') files.push(['global', join(home, '.gitconfig')]);
  }
  const noSystem = env.GIT_CONFIG_NOSYSTEM;
  if (noSystem === undefined || !/^(?:1|true|yes|on)$/i.test(noSystem))
    files.push(['system', env.GIT_CONFIG_SYSTEM ?? '/etc/gitconfig']);
  // Missing files count too: creating ~/.gitconfig configures git as much as changing it.
  return files.filter(([, file]) => file !== '');
}

/** What one configuration entry makes git run code from, resolved against each of `bases`. */
function entryLocations(
  entry: GitConfigEntry,
  bases: readonly string[],
  home: string | undefined,
): GitCodeLocation[] {
  const where = `${CANONICAL[entry.key] ?? entry.key} in ${entry.file}`;
  const at = (value: string | undefined): string[] => {
    if (value === undefined) return [];
    return isAbsolute(value) ? [value] : bases.map((base) => resolve(base, value));
  };
  const place = (kind: GitCodeKind, value: string | undefined, reason: string) =>
    at(value).map((path) => ({ path, kind, configured: true, reason }));
  switch (entry.key) {
    case 'core.hookspath':
      return place(
        'hooks',
        configPath(entry.value, home),
        `the hooks directory git uses (${where}); its hooks run on later git commands`,
      );
    case 'init.templatedir':
      return place(
        'templates',
        configPath(entry.value, home),
        `git's template directory (${where}); new repositories get its hooks`,
      );
    default: {
      if (!runsProgram(entry.key, entry.value) || NOT_A_PROGRAM.test(entry.key)) return [];
      const program = firstWord(entry.value.replace(/^\s*!/, ''));
      // A bare name is looked up on PATH, outside anything a tool writes.
      if (!program.includes('/')) return [];
      return place('program', configPath(program, home), `a program git runs (${where})`);
    }
  }
}

// How the documentation spells the keys the reasons name most.
const CANONICAL: Record<string, string> = {
  'core.hookspath': 'core.hooksPath',
  'init.templatedir': 'init.templateDir',
  'core.fsmonitor': 'core.fsmonitor',
};

// Program-running keys whose value is not a program's path: a URL, a protocol policy, a helper's
// name, an include (followed by the reader).
const NOT_A_PROGRAM = /^(?:url\.|protocol\.|remote\..+\.vcs$|include\.|includeif\.)/s;

/** The first word of a command line as sh would split it, quotes removed (roughly: enough for a path). */
function firstWord(command: string): string {
  const match = /^\s*(?:'([^']*)'|"((?:[^"\\]|\\.)*)"|((?:[^\s\\'"]|\\.)+))/.exec(command);
  return match?.[1] ?? match?.[2]?.replace(/\\(.)/g, '$1') ?? match?.[3]?.replace(/\\(.)/g, '$1') ?? '';
}

function unique<T>(items: readonly T[], key: (item: T) => unknown = (item) => item): T[] {
  const seen = new Set<unknown>();
  return items.filter((item) => {
    const id = key(item);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
