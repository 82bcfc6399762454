/**
 * Where a saved session's file is, for `santra sessions --path`. The protocol's SessionInfo names
 * no file (a shared store has none), so it is looked up here by the layout docs/configuration.md
 * documents: `<config dir>/sessions/<project folder>/<session id>.jsonl`, the config directory
 * found from the environment as the server finds it (santra starts its server with this
 * environment). The project folder's name is not computed: session ids are unique, so the file is
 * looked for in every project folder, as the server's own file store does when it reads one.
 */
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/**
 * The config directory: `$SANTRA_HOME` if set, else `$XDG_CONFIG_HOME/santra` (an absolute
 * XDG_CONFIG_HOME only, as the XDG spec says), else `~/.config/santra`.
 */
export function configDir(env: NodeJS.ProcessEnv): string {
  const value = (name: string) => {
    const text = env[name]?.trim();
    return text === undefined || text === '' ? undefined : text;
  };
  const santraHome = value('SANTRA_HOME');
  if (santraHome !== undefined) return resolve(santraHome);
  const xdg = value('XDG_CONFIG_HOME');
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, 'santra');
  return join(value('HOME') ?? value('USERPROFILE') ?? homedir(), '.config', 'santra');
}

/** `<config dir>/sessions`, where the server keeps session files unless a shared store is configured. */
export function sessionsDir(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'sessions');
}

/** The file of the session `sessionId` under `dir` (`<config dir>/sessions`); undefined when there is none. */
export function sessionFile(dir: string, sessionId: string): string | undefined {
  // A session id is also a file name (ses_ and letters, digits, dashes): nothing else is looked up.
  if (!/^ses_[A-Za-z0-9-]{1,64}$/.test(sessionId)) return undefined;
  let folders: string[];
  try {
    folders = readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
  } catch {
    return undefined;
  }
  return folders.map((folder) => join(dir, folder, `${sessionId}.jsonl`)).find((path) => existsSync(path));
}
