/**
 * What a repository can make git run. A repository is not the user's choice of code: its
 * `.git/config` (from an unpacked archive), an embedded bare repository committed inside a clone,
 * or a submodule's configuration can name an fsmonitor hook, a diff driver, a clean filter…, and
 * then a mere `git status` or `git diff` runs it. So every git that runs without asking gets two
 * defences:
 *
 * - `inspectRepository` reads the effective configuration (includes followed) of the repository
 *   and of each populated submodule, and reports every key that runs a program when it was set
 *   anywhere but in the user's own system or global configuration, and every repository found
 *   as a bare directory. The caller then asks (run_command) or refuses (git_status, git_diff).
 * - `unaskedGitEnvironment` overrides what can be overridden through the environment, which also
 *   reaches every git a shell line starts and git passes on to submodules: no fsmonitor, no
 *   hooks, no pager, no credential helper or askpass, no ext:: transport, and no bare repository
 *   found by walking into it (`safe.bareRepository=explicit`). Diff drivers and filters cannot
 *   be switched off by name from outside, which is why the inspection exists.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Settings for every git run unasked, as `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` (command-line scope, which wins). */
const OVERRIDES: ReadonlyArray<readonly [string, string]> = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.pager', 'cat'],
  ['safe.bareRepository', 'explicit'],
  // The empty value resets the list of helpers.
  ['credential.helper', ''],
  ['protocol.ext.allow', 'never'],
  ['log.showSignature', 'false'],
];

/**
 * `env` for a command that runs without asking: the overrides above appended to any
 * `GIT_CONFIG_COUNT` list already there, the pager and askpass programs replaced (an empty
 * `GIT_ASKPASS` also disables `core.askPass` and `SSH_ASKPASS`), no prompts, no index writes.
 */
export function unaskedGitEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const existing = Number.parseInt(env.GIT_CONFIG_COUNT ?? '', 10);
  const first = Number.isSafeInteger(existing) && existing > 0 ? existing : 0;
  const result: NodeJS.ProcessEnv = {
    ...env,
    GIT_CONFIG_COUNT: String(first + OVERRIDES.length),
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
  };
  OVERRIDES.forEach(([key, value], index) => {
    result[`GIT_CONFIG_KEY_${first + index}`] = key;
    result[`GIT_CONFIG_VALUE_${first + index}`] = value;
  });
  return result;
}

/**
 * Keys that make git run a program (or reach one: a remote helper, a transport), from the
 * git-config documentation. Matched on the key as `git config --list` prints it: section and
 * name lower-cased, the subsection (a driver, tool or URL name) as written.
 */
const PROGRAM_KEYS: readonly RegExp[] = [
  /^core\.(?:hookspath|pager|editor|askpass|sshcommand|gitproxy|alternaterefscommand)$/,
  /^sequence\.editor$/,
  /^(?:pager|difftool|mergetool|browser|man|guitool)\./,
  /^diff\.external$/,
  /^diff\..+\.(?:command|textconv)$/,
  /^merge\..+\.driver$/,
  /^filter\..+\.(?:clean|smudge|process)$/,
  /^credential\.(?:.+\.)?helper$/,
  /^gpg\.(?:.+\.)?program$/,
  /^gpg\.ssh\.defaultkeycommand$/,
  /^(?:include|includeif\..+)\.path$/,
  /^remote\..+\.(?:uploadpack|receivepack|vcs)$/,
  /^url\..+\.(?:insteadof|pushinsteadof)$/,
  /^protocol\.(?:.+\.)?allow$/,
  /^uploadpack\.packobjectshook$/,
  /^submodule\..+\.update$/,
  /^interactive\.difffilter$/,
  /^trailer\..+\.(?:command|cmd)$/,
  /^sendemail\.(?:.+\.)?(?:smtpserver|sendmailcmd|tocmd|cccmd|headercmd)$/,
  /^imap\.tunnel$/,
  /^(?:web|help|instaweb)\.browser$/,
  /^instaweb\.(?:httpd|modulepath)$/,
  /^init\.templatedir$/,
];

// core.fsmonitor names a hook unless it is a boolean (true starts git's own daemon).
const BOOLEAN = /^(?:true|false|yes|no|on|off|1|0|)$/i;

/** True when `key` (as `git config --list` prints it) set to `value` makes git run a program. */
export function runsProgram(key: string, value: string): boolean {
  const name = key.toLowerCase();
  if (name === 'core.fsmonitor') return !BOOLEAN.test(value.trim());
  // An alias runs a program only with `!`; git never lets an alias replace a built-in command.
  if (name.startsWith('alias.')) return value.trimStart().startsWith('!');
  return PROGRAM_KEYS.some((pattern) => pattern.test(name));
}

// The user's own configuration; everything else (local, worktree, and what they include) is the repository's.
const TRUSTED_SCOPES = new Set(['system', 'global', 'command']);

export interface RepositoryInspection {
  /** The work tree's top level (real path) when `cwd` is in a repository with one. */
  topLevel: string | undefined;
  /** Why git may not run here without asking, in words the user can check; empty when nothing was found. */
  hazards: string[];
}

const MAX_DEPTH = 4;

/**
 * Inspects the repository git would find from `cwd`, and every populated submodule of it (git
 * status runs git in each), with `env` made safe by `unaskedGitEnvironment`. `contains` says
 * whether a submodule's work tree stays where it may; the caller judges the top level.
 * Contract: never rejects; a repository that cannot be read is itself a hazard.
 */
export async function inspectRepository(
  cwd: string,
  env: NodeJS.ProcessEnv,
  contains: (absolute: string) => boolean,
): Promise<RepositoryInspection> {
  const safeEnv = { ...unaskedGitEnvironment(env), LC_ALL: 'C' };
  return inspectAt(cwd, safeEnv, contains, 0);
}

async function inspectAt(
  cwd: string,
  env: NodeJS.ProcessEnv,
  contains: (absolute: string) => boolean,
  depth: number,
): Promise<RepositoryInspection> {
  const where = await git(cwd, env, ['rev-parse', '--show-toplevel']);
  if (where.missing) return { topLevel: undefined, hazards: [] };
  if (where.code !== 0) {
    if (/not a git repository/i.test(where.stderr)) return { topLevel: undefined, hazards: [] };
    if (/cannot use bare repository/i.test(where.stderr))
      return {
        topLevel: undefined,
        hazards: [
          `${cwd} is a bare git repository (one committed inside another runs its own configuration)`,
        ],
      };
    return {
      topLevel: undefined,
      hazards: [`git cannot read the repository at ${cwd}: ${firstLine(where.stderr)}`],
    };
  }
  const topLevel = where.stdout.trim();
  const hazards: string[] = [];
  if (topLevel === '')
    return { topLevel: undefined, hazards: [`${cwd} is a git directory without a work tree`] };

  const config = await git(cwd, env, ['config', '--list', '--show-scope', '--show-origin', '-z']);
  if (config.code !== 0)
    hazards.push(`git cannot list the configuration of ${topLevel}: ${firstLine(config.stderr)}`);
  for (const entry of configEntries(config.stdout)) {
    if (TRUSTED_SCOPES.has(entry.scope) || !runsProgram(entry.key, entry.value)) continue;
    hazards.push(`${entry.key} is set in ${entry.origin} (${entry.scope} configuration of ${topLevel})`);
  }

  // git status runs git in every populated submodule, with that submodule's configuration.
  const index = await git(topLevel, env, ['ls-files', '--stage', '-z']);
  if (index.code !== 0) hazards.push(`git cannot list the index of ${topLevel}: ${firstLine(index.stderr)}`);
  for (const record of index.stdout.split('\0')) {
    if (!record.startsWith('160000 ')) continue;
    const path = record.slice(record.indexOf('\t') + 1);
    const submodule = join(topLevel, path);
    if (!existsSync(join(submodule, '.git'))) continue;
    if (depth >= MAX_DEPTH) {
      hazards.push(`submodules nest deeper than ${MAX_DEPTH} levels under ${topLevel}`);
      break;
    }
    const inner = await inspectAt(submodule, env, contains, depth + 1);
    hazards.push(...inner.hazards);
    if (inner.topLevel !== undefined && !contains(inner.topLevel))
      hazards.push(`the submodule ${path} has its work tree at ${inner.topLevel}, outside the workspace`);
  }
  return { topLevel, hazards };
}

interface ConfigEntry {
  scope: string;
  origin: string;
  key: string;
  value: string;
}

/** Parses `git config --list --show-scope --show-origin -z`: scope NUL origin NUL key LF value NUL. */
function configEntries(raw: string): ConfigEntry[] {
  const fields = raw.split('\0');
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const [scope = '', origin = '', pair = ''] = fields.slice(i, i + 3);
    const newline = pair.indexOf('\n');
    const key = newline === -1 ? pair : pair.slice(0, newline);
    const value = newline === -1 ? '' : pair.slice(newline + 1);
    entries.push({ scope, origin: origin.replace(/^file:/, ''), key, value });
  }
  return entries;
}

interface GitRun {
  code: number;
  stdout: string;
  stderr: string;
  /** git is not installed: nothing it could run, and the command will fail the same way. */
  missing: boolean;
}

const INSPECT_TIMEOUT_MS = 10_000;
const MAX_BUFFER = 64 * 1024 * 1024;

function git(cwd: string, env: NodeJS.ProcessEnv, args: readonly string[]): Promise<GitRun> {
  return new Promise((done) => {
    execFile(
      'git',
      args,
      { cwd, env, encoding: 'utf8', timeout: INSPECT_TIMEOUT_MS, maxBuffer: MAX_BUFFER },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        const missing = error !== null && error.code === 'ENOENT';
        done({ code, stdout, stderr: stderr || (error?.message ?? ''), missing });
      },
    );
  });
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}
