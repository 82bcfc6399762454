/**
 * Runs scenarios against a server command, each with a fresh context (its own server processes,
 * temp dirs and fake providers), and turns their outcomes into one verdict per requirement.
 *
 * The profile of the run (spec §0) picks the scenarios: `core` runs those that need only the
 * protocol, and reports each requirement of the Santra profile as `needs profile` — never passed,
 * never failed; `santra` runs them all.
 */
import type { Profile, Requirement } from '../spec/requirements.ts';
import { MessageValidator } from '../spec/schema.ts';
import { Timeout, type TranscriptEntry } from '../wire/peer.ts';
import { type Outcome, ScenarioContext, ScenarioStop } from './context.ts';

export interface Scenario {
  name: string;
  /**
   * `santra` when it drives the server through the Santra profile (`ctx.santra`: Santra's agents,
   * tools, environment); otherwise it is a core scenario.
   */
  profile?: Profile;
  /** The requirements it decides; one it stops before deciding fails with the reason. */
  covers: string[];
  run(context: ScenarioContext): Promise<void>;
}

export type Status =
  | 'passed'
  | 'failed'
  | 'not applicable'
  | 'not checkable'
  | 'not checked'
  /** Of the Santra profile, in a run of the core profile: not checked, and not a MISS. */
  | 'needs profile'
  | 'client';

export interface Verdict {
  requirement: Requirement;
  status: Status;
  checks: Outcome[];
}

export interface ScenarioRecord {
  name: string;
  failed: boolean;
  error?: string;
  transcript: { server: number; entries: TranscriptEntry[]; stderr: string }[];
}

export interface RunResult {
  command: string[];
  profile: Profile;
  verdicts: Verdict[];
  scenarios: ScenarioRecord[];
}

const SCENARIO_TIMEOUT_MS = 90_000;

export interface RunOptions {
  command: string[];
  requirements: Requirement[];
  scenarios: Scenario[];
  /** The profile the server is checked against; `core` runs only the core scenarios. */
  profile: Profile;
  /** Only these requirement ids (all when empty). */
  only: Set<string>;
  onScenario?: (record: ScenarioRecord) => void;
}

function describeError(error: unknown): string {
  if (error instanceof ScenarioStop || error instanceof Timeout) return error.message;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

async function runScenario(
  scenario: Scenario,
  options: RunOptions,
  byId: Map<string, Requirement>,
  validator: MessageValidator,
): Promise<{ outcomes: Outcome[]; record: ScenarioRecord }> {
  const context = new ScenarioContext(
    { name: scenario.name, profile: profileOf(scenario) },
    options.command,
    byId,
    validator,
  );
  let error: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    const overtime = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Timeout(`the scenario did not finish within ${SCENARIO_TIMEOUT_MS / 1000} s`)),
        SCENARIO_TIMEOUT_MS,
      );
    });
    await Promise.race([scenario.run(context), overtime]);
  } catch (caught) {
    error = describeError(caught);
  } finally {
    clearTimeout(timer);
  }
  for (const finalize of context.finalizers) finalize();
  const decided = new Set(context.outcomes.map((outcome) => outcome.id));
  for (const id of scenario.covers)
    if (!decided.has(id))
      context.check(id, false, `the scenario stopped before deciding it: ${error ?? 'no check was made'}`);
  const outcomes = context.outcomes.filter((o) => options.only.size === 0 || options.only.has(o.id));
  const failed = outcomes.some((o) => !o.ok && o.notApplicable !== true);
  const record: ScenarioRecord = {
    name: scenario.name,
    failed,
    ...(error === undefined ? {} : { error }),
    transcript: failed
      ? context.servers.map((server, index) => ({
          server: index + 1,
          entries: server.transcript,
          stderr: server.stderr,
        }))
      : [],
  };
  await context.dispose();
  return { outcomes, record };
}

function profileOf(scenario: Scenario): Profile {
  return scenario.profile ?? 'core';
}

/**
 * The spec's *(Santra profile)* markers and the scenarios' profiles must agree: a core scenario
 * that decides a requirement of the profile would let `--profile core` pass it through a check it
 * cannot make, and a requirement only scenarios of the profile decide is not checked in the core.
 */
export function profileMismatches(requirements: Requirement[], scenarios: Scenario[]): string[] {
  const problems: string[] = [];
  for (const requirement of requirements) {
    const deciding = scenarios.filter((s) => s.covers.includes(requirement.id));
    const core = deciding.filter((s) => profileOf(s) === 'core');
    if (requirement.profile === 'santra' && core.length > 0)
      problems.push(
        `${requirement.id} is of the Santra profile in the spec, but the core scenario "${core[0]?.name}" decides it`,
      );
    if (requirement.profile === 'core' && deciding.length > 0 && core.length === 0)
      problems.push(
        `${requirement.id} is decided only by scenarios of the Santra profile ("${deciding[0]?.name}"): mark it *(Santra profile)* in the spec, or check it in a core scenario`,
      );
  }
  return problems;
}

/** Whether a run of `profile` checks `requirement`: the core leaves out those of the Santra profile. */
export function checkedIn(profile: Profile, requirement: Requirement): boolean {
  return profile === 'santra' || requirement.profile === 'core';
}

function statusOf(requirement: Requirement, checks: Outcome[], profile: Profile): Status {
  if (requirement.subject === 'client') return 'client';
  if (!checkedIn(profile, requirement)) return 'needs profile';
  if (checks.some((check) => !check.ok && check.notApplicable !== true)) return 'failed';
  if (checks.some((check) => check.ok)) return 'passed';
  if (checks.length > 0) return 'not applicable';
  return requirement.notCheckable === undefined ? 'not checked' : 'not checkable';
}

export async function runSuite(options: RunOptions): Promise<RunResult> {
  const byId = new Map(options.requirements.map((r) => [r.id, r]));
  for (const scenario of options.scenarios)
    for (const id of scenario.covers)
      if (!byId.has(id))
        throw new Error(`scenario ${scenario.name} covers ${id}, which the spec does not have`);
  const mismatches = profileMismatches(options.requirements, options.scenarios);
  if (mismatches.length > 0) throw new Error(mismatches.join('\n'));
  const validator = new MessageValidator();
  // An id no scenario names is one watched on every message (run/invariants.ts): any scenario may
  // decide it. Named with ids some scenarios cover, it is checked in those scenarios; named alone
  // (only such ids), in all of them. In the core profile, one of the Santra profile selects
  // nothing: it is not checked there.
  const only = new Set(
    [...options.only].filter((id) => {
      const requirement = byId.get(id);
      return requirement === undefined || checkedIn(options.profile, requirement);
    }),
  );
  const named = new Set(options.scenarios.flatMap((s) => s.covers));
  const everywhere = only.size > 0 && [...only].every((id) => !named.has(id));
  const wanted = options.scenarios.filter(
    (s) =>
      (options.profile === 'santra' || profileOf(s) === 'core') &&
      (options.only.size === 0 || everywhere || s.covers.some((id) => only.has(id))),
  );
  const outcomes: Outcome[] = [];
  const scenarios: ScenarioRecord[] = [];
  for (const scenario of wanted) {
    const result = await runScenario(scenario, options, byId, validator);
    outcomes.push(...result.outcomes);
    scenarios.push(result.record);
    options.onScenario?.(result.record);
  }
  const verdicts = options.requirements
    .filter((r) => options.only.size === 0 || options.only.has(r.id))
    .map((requirement) => {
      const checks = outcomes.filter((o) => o.id === requirement.id);
      const status = statusOf(requirement, checks, options.profile);
      // A watcher may have seen one of the Santra profile in a core scenario: the core does not decide it.
      return { requirement, status, checks: status === 'needs profile' ? [] : checks };
    });
  return { command: options.command, profile: options.profile, verdicts, scenarios };
}

/** Whether the run conforms: no mandatory or declared capability-gated requirement failed. */
export function conforms(result: RunResult): boolean {
  return !result.verdicts.some(
    (v) =>
      v.status === 'failed' &&
      (v.requirement.tier === 'mandatory' || v.requirement.tier === 'capability-gated'),
  );
}

/** Requirements of the Santra profile a core run did not check. */
export function needingProfile(result: RunResult): number {
  return result.verdicts.filter((v) => v.status === 'needs profile').length;
}

/** Mandatory requirements the run should have decided and did not (MISS): conformance is then not shown. */
export function unsettled(result: RunResult): number {
  return result.verdicts.filter((v) => v.status === 'not checked' && v.requirement.tier === 'mandatory')
    .length;
}
