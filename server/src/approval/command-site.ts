/**
 * What the words of a command line cannot show: where its paths lead once the shell has expanded
 * the globs and the kernel has followed the symlinks, which file the program name runs, and what
 * the repository makes git run. The allowlist (command-allowlist.ts) judges the words; this
 * module looks at the file system around them, in the directory the command will run in, and
 * lists every reason the command may not run unasked. read_file's confinement rule applies: a
 * path whose real location is outside the workspace (and its allowed directories) is asked about.
 *
 * It also says whether the line may write a protected location (command-reach.ts), which the
 * gate asks about even after allow-all.
 *
 * run_command hands the inspection to the approval gate with the command, and the policy uses it
 * only for exactly the string inspected. Without one, nothing runs unasked.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { protectedReach } from './command-reach.ts';
import { inspectRepository } from './git-hazards.ts';
import { expandGlob, pathCandidates, realLocation } from './shell-paths.ts';
import { parseCommandLine, type ShellWord } from './shell-words.ts';

export interface CommandSite {
  /** Real path of the directory the command runs in. */
  cwd: string;
  /** The workspace boundary read_file uses: the root and the allowed directories. */
  contains: (absolute: string) => boolean;
  /** The environment the command runs with. */
  env: NodeJS.ProcessEnv;
}

export interface CommandInspection {
  /** The exact line inspected; the policy uses the inspection for this string only. */
  readonly command: string;
  /** Why the command may not run unasked, for the user and the tests; empty when none. */
  readonly findings: readonly string[];
  /**
   * Set by the policy when it allowed the command because every part is on the read-only
   * allowlist; run_command then runs it with git's program-running settings overridden.
   */
  allowedUnasked: boolean;
  /**
   * Why the command needs a person even under allow-all: it may write where git runs code from,
   * a shell start-up file or another protected location, seen through quotes, globs, `cd` and
   * symlinks (command-reach.ts). The gate uses it for exactly this string.
   */
  protection?: string;
}

// A glob in a big tree could take long to expand; past this it is simply asked about.
const MAX_EXPANSIONS = 10_000;

/**
 * Inspects `command` as it would run at `site`: each simple command's program and its arguments
 * after glob expansion, and for git the repository. Contract: never rejects.
 */
export async function inspectCommand(command: string, site: CommandSite): Promise<CommandInspection> {
  const findings: string[] = [];
  const commands = parseCommandLine(command);
  if (commands === undefined) findings.push('the line is not one the allowlist can read with certainty');
  const budget = { left: MAX_EXPANSIONS };
  for (const words of commands ?? []) {
    const [program, ...args] = words;
    if (program === undefined) continue;
    const runs = await programFile(program.value, site);
    if (runs !== undefined && site.contains(runs))
      findings.push(`${program.value} runs ${runs}, a file inside the workspace`);
    for (const word of args) findings.push(...(await argumentFindings(word, site, budget)));
    const name = basename(program.value);
    if (name === 'rg') findings.push(...(await ripgrepConfigFindings(site)));
  }
  if ((commands ?? []).some((words) => basename(words[0]?.value ?? '') === 'git'))
    findings.push(...(await repositoryFindings(site)));
  const protection = await protectedReach(command, site);
  return { command, findings, allowedUnasked: false, ...(protection === undefined ? {} : { protection }) };
}

async function argumentFindings(
  word: ShellWord,
  site: CommandSite,
  budget: { left: number },
): Promise<string[]> {
  const findings: string[] = [];
  let words = [word.value];
  if (word.glob) {
    const expanded = await expandGlob(word.value, site.cwd, budget);
    if (expanded === undefined) return [`${word.value} expands to more than ${MAX_EXPANSIONS} names`];
    words = expanded;
    for (const option of words.filter((name) => name.startsWith('-')))
      findings.push(`${word.value} expands to ${option}, which the program reads as an option`);
  }
  for (const candidate of words.flatMap(pathCandidates)) {
    const real = await realLocation(resolve(site.cwd, candidate));
    if (real === undefined)
      findings.push(`${candidate} cannot be resolved (a symlink loop or no permission)`);
    else if (!site.contains(real)) findings.push(`${candidate} leads to ${real}, outside the workspace`);
  }
  return findings;
}

/** The file `/bin/sh` runs for `program` (by its path, or the first match on PATH), if any. */
async function programFile(program: string, site: CommandSite): Promise<string | undefined> {
  const candidates = program.includes('/')
    ? [resolve(site.cwd, program)]
    : (site.env.PATH ?? '').split(':').map((dir) => resolve(site.cwd, dir === '' ? '.' : dir, program));
  for (const candidate of candidates) {
    const isFile = await stat(candidate).then(
      (info) => info.isFile(),
      () => false,
    );
    const executable = await access(candidate, constants.X_OK).then(
      () => true,
      () => false,
    );
    if (isFile && executable) return (await realLocation(candidate)) ?? candidate;
  }
  return undefined;
}

/** rg reads flags (`--pre` among them) from the file RIPGREP_CONFIG_PATH names, relative to cwd. */
async function ripgrepConfigFindings(site: CommandSite): Promise<string[]> {
  const path = site.env.RIPGREP_CONFIG_PATH;
  if (path === undefined || path === '') return [];
  const real = await realLocation(resolve(site.cwd, path));
  if (real !== undefined && !site.contains(real)) return [];
  return [`RIPGREP_CONFIG_PATH names ${path}, a file in the workspace, whose flags rg would obey`];
}

async function repositoryFindings(site: CommandSite): Promise<string[]> {
  const { topLevel, hazards } = await inspectRepository(site.cwd, site.env, site.contains);
  const findings = hazards.map((hazard) => `git would run a program: ${hazard}`);
  if (topLevel !== undefined && !site.contains(topLevel))
    findings.push(`the repository's work tree ${topLevel} reaches outside the workspace`);
  return findings;
}
