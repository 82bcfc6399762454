/**
 * Protected locations: writing there can run code later, outside any approval (a git hook on the
 * next commit, a shell start-up file on the next login, direnv's `.envrc` on the next `cd`), or
 * change what Santra itself does (its config, custom agents). A change there is always put to a
 * person — even after `allow_all`, even under an auto-approve flag — and the `approve` request
 * says so, so that no client answers it automatically (protocol §7.3).
 *
 * A location counts however it is reached: by name, through a symbolic link (a dangling one
 * included), or because git's configuration makes it a place git runs code from
 * (git-code-locations.ts: `core.hooksPath`, a program named by path, an included file). For
 * commands, the words the shell will produce are checked, not the text (command-plan.ts and,
 * with the file system, command-reach.ts).
 */
import { isAbsolute, relative as relativePath, sep } from 'node:path';
import { isInside } from '../workspace/workspace.ts';
import { planCommand } from './command-plan.ts';
import { gitCodeReason } from './git-code-locations.ts';
import { followLinks } from './shell-paths.ts';

/** Directories whose contents run code or steer Santra, matched as a path segment anywhere. */
const PROTECTED_DIRS: Record<string, string> = {
  '.git': "git's internals (hooks and config run programs on later git commands)",
  '.husky': 'git hooks installed by husky (they run on later git commands)',
  '.santra': "Santra's project settings",
  '.agents': "Santra's custom agent definitions",
};

/** Files a shell, direnv or a login runs by themselves. */
const STARTUP_FILES = new Set([
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.zlogout',
  '.kshrc',
  '.cshrc',
  '.tcshrc',
  '.envrc',
  'config.fish',
]);

const STARTUP = 'a shell start-up file (it runs on the next shell or login)';

/**
 * The names that are protected wherever they appear: directories, then start-up files. The OS
 * sandbox mounts the ones it finds in a writable directory read-only (sandbox/bwrap.ts).
 */
export function protectedNames(): { dirs: readonly string[]; files: readonly string[] } {
  return { dirs: Object.keys(PROTECTED_DIRS), files: [...STARTUP_FILES] };
}
const SANTRA_CONFIG = "Santra's configuration";

/**
 * Why a change to this path needs a person, or undefined. `relative` is the path as shown to the
 * user (workspace-relative, or absolute outside the workspace); `absolute` is where it resolves.
 * `env` gives HOME and git's variables, for the user's git configuration; `around`, more places
 * whose repositories count (a command's directory).
 */
export function protectedReason(
  relative: string,
  absolute: string,
  configDir: string,
  env: NodeJS.ProcessEnv = process.env,
  around: readonly string[] = [],
): string | undefined {
  const named = (shown: string, path: string) =>
    configDir !== '' && isInside(path, configDir) ? SANTRA_CONFIG : nameReason(shown);
  const reason = named(relative, absolute);
  if (reason !== undefined) return reason;
  // Where a write really lands: through a link, the last one too (`echo x > link` writes its target).
  const real = followLinks(absolute);
  if (real !== absolute) {
    const root = rootOf(relative, absolute);
    const shown = root !== undefined && isInside(real, root) ? relativePath(root, real) : real;
    const through = named(shown, real);
    if (through !== undefined) return through;
  }
  return gitCodeReason(absolute, env, around);
}

/** The reason for a path by its segments (protected directories) and its name (start-up files). */
function nameReason(shown: string): string | undefined {
  const segments = shown.split(/[\\/]/).map((segment) => segment.toLowerCase());
  for (const segment of segments) {
    const reason = PROTECTED_DIRS[segment];
    if (reason !== undefined) return reason;
  }
  return STARTUP_FILES.has(segments.at(-1) ?? '') ? STARTUP : undefined;
}

/** The workspace root, from a path and its workspace-relative form; undefined outside it. */
function rootOf(relative: string, absolute: string): string | undefined {
  if (isAbsolute(relative)) return undefined;
  if (relative === '.') return absolute;
  return absolute.endsWith(`${sep}${relative}`) ? absolute.slice(0, -(relative.length + 1)) : undefined;
}

/**
 * Why a word of a command that may write names a protected location by its text: a protected
 * directory or start-up file anywhere in it (`.git/hooks`, `--file=.bashrc`, a script's
 * `'.git/config'`) or Santra's configuration directory. A tripwire for
 * programs that take paths inside code (`node -e`); command-reach.ts checks where paths lead.
 */
export function protectedTextReason(text: string, configDir: string): string | undefined {
  const lower = text.toLowerCase();
  for (const [dir, reason] of Object.entries(PROTECTED_DIRS)) {
    if (new RegExp(`(^|[\\s'"=/:])${dir.replace('.', '\\.')}($|[\\s'"/;&|)<>])`).test(lower)) return reason;
  }
  for (const name of STARTUP_FILES)
    if (new RegExp(`(^|[\\s'"=/])${name.replaceAll('.', '\\.')}($|[\\s'";&|)<>])`).test(lower))
      return STARTUP;
  if (configDir !== '' && text.includes(configDir)) return SANTRA_CONFIG;
  return undefined;
}

/**
 * Why a command that is not read-only needs a person even under allow-all, from its words alone
 * (quotes removed, brace lists and `~` expanded; shell code in `sh -c`/`eval` read too): a word
 * that names a protected location, a git command that makes git run code, or a line the check
 * cannot read. run_command's inspection adds what the file system shows (command-reach.ts).
 */
export function protectedCommandReason(
  command: string,
  configDir: string,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  return planCommand(command, { home: env.HOME, textReason: (text) => protectedTextReason(text, configDir) })
    .reason;
}
