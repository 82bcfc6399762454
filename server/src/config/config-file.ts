/**
 * Where the config file lives, reading it, and writing it back. The file holds API keys, so its
 * directory is kept at 0700 and the file at 0600 after every write.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { ConfigError } from './config-error.ts';
import { parseJsonc } from './jsonc.ts';
import { errorCode } from '../support/errno.ts';
import { type SantraConfig, validateConfig } from './schema.ts';

const FILE_NAME = 'config.json';

/** An environment variable's value, with blank treated as unset. */
export function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The config directory: `$SANTRA_HOME` if set, else `$XDG_CONFIG_HOME/santra` (an absolute
 * XDG_CONFIG_HOME only, as the XDG spec says), else `$HOME/.config/santra`.
 */
export function configDir(env: NodeJS.ProcessEnv): string {
  const santraHome = envValue(env, 'SANTRA_HOME');
  if (santraHome !== undefined) return resolve(santraHome);
  const xdg = envValue(env, 'XDG_CONFIG_HOME');
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, 'santra');
  // The os fallback only serves an environment without HOME; tests always pass one.
  const home = envValue(env, 'HOME') ?? envValue(env, 'USERPROFILE') ?? homedir();
  return join(home, '.config', 'santra');
}

/** The config file's path (it may not exist). */
export function configFile(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), FILE_NAME);
}

/** The file's JSON value, undefined when there is no file; a ConfigError when it cannot be read or parsed. */
export async function readConfigFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new ConfigError(file, `Cannot read the config file ${file}: ${describeFsError(code)}.`);
  }
  const body = text.replace(/^\uFEFF/, '');
  // An empty file (say, from `touch`) means "no settings", like a missing one.
  if (body.trim() === '') return {};
  const parsed = parseJsonc(body);
  if (parsed.ok) return parsed.value;
  throw new ConfigError(
    file,
    `The config file ${file} is not valid JSON: ${parsed.reason} at line ${parsed.line}, column ${parsed.column}. (Comments and trailing commas are allowed.)`,
  );
}

/**
 * Merges `patch` into the file and writes it atomically (temp file + rename). Objects merge field
 * by field, anything else replaces, and a field set to `undefined` is removed. The merged result
 * is validated first, so an invalid file is never written. The directory is created 0700 and the
 * file is 0600 after EVERY write — Node's `mode` option does not change an existing file, so both
 * are chmod-ed explicitly, which also tightens looser permissions left by someone else.
 */
export async function updateConfigFile(env: NodeJS.ProcessEnv, patch: Partial<SantraConfig>): Promise<void> {
  const dir = configDir(env);
  const file = join(dir, FILE_NAME);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
  } catch (error) {
    throw new ConfigError(
      file,
      `Cannot create the config directory ${dir}: ${describeFsError(errorCode(error))}.`,
    );
  }
  const current = (await readConfigFile(file)) ?? {};
  // Never replace a file whose top level is not an object: say what is wrong with it instead.
  if (!isPlainObject(current)) validateConfig(current, file);
  const merged = merge(current, patch);
  validateConfig(merged, file);
  const temp = join(dir, `.${FILE_NAME}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temp, `${JSON.stringify(merged, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    await chmod(temp, 0o600);
    await rename(temp, file);
    await chmod(file, 0o600);
  } catch (error) {
    await rm(temp, { force: true });
    throw new ConfigError(
      file,
      `Cannot write the config file ${file}: ${describeFsError(errorCode(error))}.`,
    );
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function merge(base: unknown, patch: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(patch)) return patch;
  const result: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) delete result[key];
    else result[key] = merge(result[key], value);
  }
  return result;
}

function describeFsError(code: string | undefined): string {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return `permission denied (${code}); fix its permissions or set SANTRA_HOME to another directory`;
    case 'EISDIR':
      return 'it is a directory; remove it or set SANTRA_HOME to another directory';
    case 'EROFS':
      return 'the file system is read-only; set SANTRA_HOME to a writable directory';
    case undefined:
      return 'unknown error';
    default:
      return `error ${code}`;
  }
}
