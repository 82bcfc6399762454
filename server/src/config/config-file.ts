/**
 * Where the config file lives, reading it, and writing it back. The file holds API keys, so its
 * directory is kept at 0700 and the file at 0600 after every write; writes are serialised between
 * processes and go through a symbolic link to the file it names.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, readlink, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { ConfigError } from './config-error.ts';
import { LockError, type LockOptions, withFileLock } from './file-lock.ts';
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
  return (await readConfigSource(file))?.value;
}

/** The file's JSON value and its text (for the line of a problem), undefined when there is no file. */
export async function readConfigSource(file: string): Promise<{ value: unknown; text: string } | undefined> {
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
  if (body.trim() === '') return { value: {}, text: body };
  const parsed = parseJsonc(body);
  if (parsed.ok) return { value: parsed.value, text: body };
  throw new ConfigError(
    file,
    `The config file ${file} is not valid JSON: ${parsed.reason} at line ${parsed.line}, column ${parsed.column}. (Comments and trailing commas are allowed.)`,
  );
}

export interface UpdateOptions {
  /**
   * Runs on the merged settings before anything is written, under the lock: a throw leaves the
   * file as it was and reaches the caller as it is (setup checks that the key can be sent and the
   * model is usable, as a prompt would).
   */
  check?: (merged: SantraConfig, file: string) => void;
  lock?: LockOptions;
}

/**
 * Merges `patch` into the file and writes it atomically (temp file + rename). Objects merge field
 * by field, anything else replaces, and a field set to `undefined` is removed. The merged result
 * is validated (and `check`ed) first, so an invalid file is never written.
 *
 * Read, merge and write happen under a lock file (config/file-lock.ts), so two processes updating
 * the file at once both keep their change. A `config.json` that is a symbolic link (a dotfiles
 * repository) stays one: the file it leads to is replaced, by a temp file in that file's own
 * directory. The directory is created 0700 and the file is 0600 after EVERY write — Node's `mode`
 * option does not change an existing file, so both are chmod-ed explicitly, which also tightens
 * looser permissions left by someone else.
 */
export async function updateConfigFile(
  env: NodeJS.ProcessEnv,
  patch: Partial<SantraConfig>,
  options: UpdateOptions = {},
): Promise<void> {
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
  const target = await linkTarget(file);
  const where = target === file ? file : `${file} (a link to ${target})`;
  const lockFile = join(dirname(target), `.${basename(target)}.lock`);
  try {
    await withFileLock(
      lockFile,
      async () => {
        const current = (await readConfigFile(file)) ?? {};
        // Never replace a file whose top level is not an object: say what is wrong with it instead.
        if (!isPlainObject(current)) validateConfig(current, file);
        const merged = merge(current, patch);
        const settings = validateConfig(merged, file);
        options.check?.(settings, file);
        // The merged value itself is written, in the file's order (the parsed one is the schema's).
        await replaceFile(target, `${JSON.stringify(merged, null, 2)}\n`, where);
      },
      options.lock,
    );
  } catch (error) {
    if (!(error instanceof LockError)) throw error;
    throw new ConfigError(
      file,
      error.fsCode === undefined
        ? `Cannot update the config file ${where}: another process${error.pid === undefined ? '' : ` (pid ${error.pid})`} is updating it and holds its lock ${error.lockFile}. Try again; if no Santra is running, remove ${error.lockFile}.`
        : `Cannot update the config file ${where}: its lock ${error.lockFile} cannot be created: ${describeFsError(error.fsCode)}.`,
    );
  }
}

/** Where `file` leads: itself, or the end of the chain of symbolic links it starts. */
async function linkTarget(file: string): Promise<string> {
  let current = file;
  for (let hops = 0; hops < 40; hops++) {
    let link: string;
    try {
      link = await readlink(current);
    } catch (error) {
      const code = errorCode(error);
      // EINVAL: not a link; ENOENT: nothing there yet (the end of a dangling link, or no file).
      if (code === 'EINVAL' || code === 'ENOENT') return current;
      throw new ConfigError(file, `Cannot read the config file ${file}: ${describeFsError(code)}.`);
    }
    current = resolve(dirname(current), link);
  }
  throw new ConfigError(file, `Cannot write the config file ${file}: its symbolic links form a loop.`);
}

/** Replaces `target` by `text` atomically: a temp file in its directory, mode 0600, renamed onto it. */
async function replaceFile(target: string, text: string, where: string): Promise<void> {
  const temp = join(
    dirname(target),
    `.${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  try {
    await writeFile(temp, text, { mode: 0o600, flag: 'wx' });
    await chmod(temp, 0o600);
    await rename(temp, target);
    await chmod(target, 0o600);
  } catch (error) {
    await rm(temp, { force: true });
    throw new ConfigError(
      target,
      `Cannot write the config file ${where}: ${describeFsError(errorCode(error))}.`,
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
