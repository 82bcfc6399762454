/**
 * Protected locations: writing there can run code later, outside any approval (a git hook on the
 * next commit, a shell start-up file on the next login, direnv's `.envrc` on the next `cd`), or
 * change what Santra itself does (its config, custom agents). A change there is always put to a
 * person — even after `allow_all`, even under an auto-approve flag — and the `approve` request
 * says so, so that no client answers it automatically (protocol §7.3).
 */
import { isInside } from '../workspace/workspace.ts';

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

/**
 * Why a change to this path needs a person, or undefined. `relative` is the path as shown to the
 * user (workspace-relative); `absolute` is where it resolves.
 */
export function protectedReason(relative: string, absolute: string, configDir: string): string | undefined {
  if (isInside(absolute, configDir)) return "Santra's configuration";
  const segments = relative.split(/[\\/]/).map((segment) => segment.toLowerCase());
  for (const segment of segments) {
    const reason = PROTECTED_DIRS[segment];
    if (reason !== undefined) return reason;
  }
  const name = segments.at(-1) ?? '';
  if (STARTUP_FILES.has(name)) return 'a shell start-up file (it runs on the next shell or login)';
  return undefined;
}

/**
 * Why a command that is not read-only needs a person even under allow-all: it names a protected
 * location. A shell line can reach any file in ways no check can see (`cd .g* && …`), so this is
 * a tripwire for the plain cases, not a boundary; docs/security.md says so.
 */
export function protectedCommandReason(command: string, configDir: string): string | undefined {
  const lower = command.toLowerCase();
  for (const [dir, reason] of Object.entries(PROTECTED_DIRS)) {
    if (new RegExp(`(^|[\\s'"=/:])${dir.replace('.', '\\.')}($|[\\s'"/;&|)<>])`).test(lower)) return reason;
  }
  if (/\bgit\b[^;&|]*\s(config|-c)\s/.test(lower) || lower.includes('core.hookspath'))
    return "git's configuration (it can make later git commands run programs)";
  for (const name of STARTUP_FILES)
    if (new RegExp(`(^|[\\s'"=/])${name.replaceAll('.', '\\.')}($|[\\s'";&|)<>])`).test(lower))
      return 'a shell start-up file (it runs on the next shell or login)';
  if (configDir !== '' && command.includes(configDir)) return "Santra's configuration";
  return undefined;
}
