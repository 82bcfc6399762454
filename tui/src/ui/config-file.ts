/**
 * The first-run setup's write of the config file: the provider's key and the default model, merged
 * into what the file already holds. Where the file lives follows docs/configuration.md
 * ($SANTRA_HOME, else $XDG_CONFIG_HOME/santra, else ~/.config/santra); the directory is kept at
 * 0700 and the file at 0600 after every write, written atomically (temp file and rename). Comments
 * in an existing file are not kept, as the docs say. The server reads the file when it starts, so
 * the caller starts a new one afterwards.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { parse, type ParseError } from 'jsonc-parser';

export interface SetupChoice {
  provider: string;
  /** Empty: no key (a local endpoint such as Ollama needs none). */
  apiKey: string;
  /** `provider/model`. */
  model: string;
}

function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** The config file's path (it may not exist yet). */
export function configFilePath(env: NodeJS.ProcessEnv): string {
  const santraHome = envValue(env, 'SANTRA_HOME');
  if (santraHome !== undefined) return join(resolve(santraHome), 'config.json');
  const xdg = envValue(env, 'XDG_CONFIG_HOME');
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, 'santra', 'config.json');
  const home = envValue(env, 'HOME') ?? homedir();
  return join(home, '.config', 'santra', 'config.json');
}

/** Writes the setup's choice into the config file; returns its path. Rejects with a readable Error. */
export async function writeSetup(env: NodeJS.ProcessEnv, choice: SetupChoice): Promise<string> {
  const file = configFilePath(env);
  const dir = join(file, '..');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const current = await readCurrent(file);
  const providers = isObject(current.providers) ? current.providers : {};
  const known = providers[choice.provider];
  const provider = isObject(known) ? known : {};
  const merged = {
    ...current,
    model: choice.model,
    providers: {
      ...providers,
      [choice.provider]: choice.apiKey === '' ? provider : { ...provider, apiKey: choice.apiKey },
    },
  };
  const temp = join(dir, `.config.json.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temp, `${JSON.stringify(merged, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    await chmod(temp, 0o600);
    await rename(temp, file);
    await chmod(file, 0o600);
  } catch (error) {
    await rm(temp, { force: true });
    throw new Error(
      `Cannot write the config file ${file}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  return file;
}

async function readCurrent(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  const errors: ParseError[] = [];
  const value: unknown = parse(text.replace(/^\uFEFF/, ''), errors, { allowTrailingComma: true });
  if (text.trim() === '') return {};
  if (errors.length > 0 || !isObject(value)) {
    throw new Error(
      `The config file ${file} is not a valid JSON object; fix or remove it, then run santra again`,
    );
  }
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
