/**
 * Where a shell line can write, on the real file system: the paths of its plan (command-plan.ts)
 * resolved from every directory a `cd` on the line may have led to, with the globs expanded in
 * those directories and every symbolic link followed, then judged as a file tool's path is
 * (protected-paths.ts: a protected name, git's hooks directory however configured, a program
 * git's configuration runs). So `cd .g* && cp x hooks/pre-commit`, `cp x .git/h*ks/` and
 * `cp x link-to-hooks/pre-commit` are all protected, as `cp x .git/hooks/pre-commit` is.
 *
 * The directories a `cd` may lead to only grow: a `cd` in a subshell or after `||` may not
 * happen, so paths are checked from the old directories and the new ones. A `cd` whose target
 * only the running shell knows makes every later relative path unknowable, which is asked about.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { planCommand, type PlanStep } from './command-plan.ts';
import { protectedReason, protectedTextReason } from './protected-paths.ts';
import { expandGlob, followLinks, pathCandidates } from './shell-paths.ts';

export interface ReachSite {
  /** Real path of the directory the command starts in. */
  cwd: string;
  /** The workspace boundary: the root and the allowed directories. */
  contains: (absolute: string) => boolean;
  /** The command's environment: HOME (`~`, a bare `cd`, the user's git configuration). */
  env: NodeJS.ProcessEnv;
}

// Names checked for one line; past this it is asked about (a glob in a big tree).
const MAX_NAMES = 10_000;

/**
 * Why running `command` at `site` needs a person even under allow-all, or undefined.
 * Contract: never rejects.
 */
export async function protectedReach(command: string, site: ReachSite): Promise<string | undefined> {
  try {
    return await reach(command, site);
  } catch (error) {
    // Failing to check is a reason to ask, never to allow.
    return `the protected-location check failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}

async function reach(command: string, site: ReachSite): Promise<string | undefined> {
  const plan = planCommand(command, {
    home: site.env.HOME,
    // Santra's configuration directory is checked on the text by the gate's own rule.
    textReason: (text) => protectedTextReason(text, ''),
  });
  if (plan.reason !== undefined) return plan.reason;
  let cwds: string[] | undefined = [site.cwd];
  const budget = { left: MAX_NAMES };
  for (const step of plan.steps) {
    switch (step.kind) {
      case 'cd':
        cwds = await changeDirectory(step, cwds, budget);
        break;
      case 'path': {
        const reason = await pathReason(step, cwds, site, budget);
        if (reason !== undefined) return reason;
        break;
      }
      default: {
        const exhaustive: never = step;
        throw new Error(`unknown step ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  return undefined;
}

/** The directories the line may be in after this `cd`: the old ones and every one it may reach. */
async function changeDirectory(
  step: Extract<PlanStep, { kind: 'cd' }>,
  cwds: string[] | undefined,
  budget: { left: number },
): Promise<string[] | undefined> {
  const target = step.target;
  if (target === undefined || cwds === undefined) return undefined;
  const reached = new Set(cwds);
  for (const cwd of isAbsolute(target) ? ['/'] : cwds) {
    const names = step.glob ? await expandGlob(target, cwd, budget) : [target];
    if (names === undefined) return undefined;
    for (const name of names) reached.add(followLinks(resolve(cwd, name)));
  }
  return [...reached];
}

async function pathReason(
  step: Extract<PlanStep, { kind: 'path' }>,
  cwds: string[] | undefined,
  site: ReachSite,
  budget: { left: number },
): Promise<string | undefined> {
  if (cwds === undefined && !isAbsolute(step.text))
    return `${step.text} is relative to a directory a cd led to that only the running shell knows`;
  for (const cwd of isAbsolute(step.text) ? ['/'] : (cwds ?? [])) {
    const names = step.glob ? await expandGlob(step.text, cwd, budget) : [step.text];
    if (names === undefined) return `${step.text} expands to more than ${MAX_NAMES} names`;
    for (const name of names) {
      for (const candidate of pathCandidates(name)) {
        if (--budget.left < 0) return `the line names more than ${MAX_NAMES} paths`;
        const absolute = resolve(cwd, candidate);
        const reason = protectedReason(shown(absolute, site.contains), absolute, '', site.env, [site.cwd]);
        if (reason !== undefined) return name === step.text ? reason : `${reason}, reached by ${name}`;
      }
    }
  }
  return undefined;
}

/** How the user sees a path: relative to the workspace root (found from the boundary), else absolute. */
function shown(absolute: string, contains: (absolute: string) => boolean): string {
  if (!contains(absolute)) return absolute;
  let root = absolute;
  while (resolve(root, '..') !== root && contains(resolve(root, '..'))) root = resolve(root, '..');
  return relative(root, absolute) || '.';
}
