/**
 * The per-requirement report of a client run, in text and JSON: each requirement with its tier and
 * the findings of every scenario, and for each failing scenario its wire transcript. A requirement
 * fails when any scenario fails it, passes when one passes it and none fails it, and is not
 * applicable otherwise.
 */
import type { ScenarioRun } from './driver.ts';
import type { Status } from './findings.ts';
import type { Requirement } from '../spec/requirements.ts';
import { type ClientRequirement, clientRequirements, uncheckedClientRequirements } from './requirements.ts';
import { describeEntry } from './wire.ts';
import { type JunitCase, junitXml } from '../run/junit.ts';

export interface RequirementResult extends ClientRequirement {
  status: Status;
  findings: { scenario: string; status: Status; message: string }[];
}

export interface ClientReport {
  command: string[];
  /** The client's `clientInfo` and capabilities, from its first `initialize`. */
  client: unknown;
  capabilities: unknown;
  requirements: RequirementResult[];
  /** Client requirements of the spec that cannot be seen on the wire, left to review. */
  notChecked: Pick<Requirement, 'id' | 'tier' | 'section' | 'text'>[];
  scenarios: {
    scenario: string;
    exitCode: number | null;
    ending: string | undefined;
    problems: string[];
    failed: boolean;
    transcript: string[];
    clientOutput: string;
  }[];
  summary: {
    passed: number;
    failed: number;
    mandatoryFailed: number;
    notApplicable: number;
    runProblems: number;
  };
  /** False when a mandatory or applicable capability-gated requirement failed, or a scenario could not run. */
  ok: boolean;
}

export function buildReport(command: string[], runs: ScenarioRun[]): ClientReport {
  const checked = clientRequirements();
  const requirements = checked.map((requirement): RequirementResult => {
    const findings = runs.flatMap((run) =>
      (run.report?.findings ?? [])
        .filter((f) => f.requirement === requirement.id)
        .map((f) => ({ scenario: run.scenario, status: f.status, message: f.message })),
    );
    const status: Status = findings.some((f) => f.status === 'fail')
      ? 'fail'
      : findings.some((f) => f.status === 'pass')
        ? 'pass'
        : 'not_applicable';
    return { ...requirement, status, findings };
  });
  const failedIn = (run: ScenarioRun) =>
    run.problems.length > 0 ||
    (run.report?.findings ?? []).some(
      (f) => f.status === 'fail' && checked.find((r) => r.id === f.requirement)?.tier !== 'advisory',
    );
  const first = runs.find((run) => run.report?.client !== null && run.report?.client !== undefined)?.report;
  const mandatoryFailed = requirements.filter((r) => r.status === 'fail' && r.tier !== 'advisory').length;
  const runProblems = runs.filter((run) => run.problems.length > 0).length;
  return {
    command,
    client: first?.client ?? null,
    capabilities: first?.capabilities ?? null,
    requirements,
    notChecked: uncheckedClientRequirements().map(({ id, tier, section, text }) => ({
      id,
      tier,
      section,
      text,
    })),
    scenarios: runs.map((run) => ({
      scenario: run.scenario,
      exitCode: run.exitCode,
      ending: run.report?.ending,
      problems: run.problems,
      failed: failedIn(run),
      transcript: (run.report?.transcript ?? []).map(describeEntry),
      clientOutput: run.output,
    })),
    summary: {
      passed: requirements.filter((r) => r.status === 'pass').length,
      failed: requirements.filter((r) => r.status === 'fail').length,
      mandatoryFailed,
      notApplicable: requirements.filter((r) => r.status === 'not_applicable').length,
      runProblems,
    },
    ok: mandatoryFailed === 0 && runProblems === 0,
  };
}

const LABEL: Record<Status, string> = { pass: 'PASS', fail: 'FAIL', not_applicable: 'n/a ' };

export function formatText(report: ClientReport): string {
  const lines = [`Santra client conformance: ${report.command.join(' ')}`];
  lines.push(
    `client: ${JSON.stringify(report.client)}, capabilities ${JSON.stringify(report.capabilities)}`,
    '',
  );
  for (const r of report.requirements) {
    lines.push(
      `${LABEL[r.status]} ${r.id} [${r.tier}${r.capability === undefined ? '' : `: ${r.capability}`}] (§${r.section}) ${r.text}`,
    );
    for (const f of r.findings.filter((f) => f.status !== 'not_applicable' || r.status === 'not_applicable'))
      lines.push(`       ${f.scenario}: ${f.status === 'not_applicable' ? 'n/a' : f.status} — ${f.message}`);
  }
  if (report.notChecked.length > 0)
    lines.push('', `not checked (not visible on the wire): ${report.notChecked.map((r) => r.id).join(', ')}`);
  for (const s of report.scenarios.filter((s) => s.failed)) {
    lines.push(
      '',
      `── scenario ${s.scenario}: client exit code ${s.exitCode}, connection ended by ${s.ending ?? 'nothing (no report)'}`,
    );
    lines.push(...s.problems.map((p) => `   problem: ${p}`));
    lines.push('   wire transcript (→ client to server, ← server to client, · note):');
    lines.push(...s.transcript.map((line) => `   ${line}`));
    if (s.clientOutput.trim() !== '')
      lines.push(
        '   client output (tail):',
        ...s.clientOutput
          .trimEnd()
          .split('\n')
          .map((l) => `   | ${l}`),
      );
  }
  const { passed, failed, mandatoryFailed, notApplicable, runProblems } = report.summary;
  lines.push(
    '',
    `${passed} passed, ${failed} failed (${mandatoryFailed} mandatory or capability-gated), ${notApplicable} not applicable${runProblems > 0 ? `, ${runProblems} scenario(s) could not run` : ''}: ${report.ok ? 'CONFORMS' : 'DOES NOT CONFORM'}`,
  );
  return `${lines.join('\n')}\n`;
}

/** The report as JUnit XML for CI: a test suite per section, a test case per requirement. */
export function junitText(report: ClientReport): string {
  const transcripts = new Map(report.scenarios.map((s) => [s.scenario, s.transcript.join('\n')]));
  return junitXml(
    'santra-conformance client',
    report.requirements.map((r): JunitCase => {
      const testCase = {
        suite: `§${r.section}`,
        classname: 'santra.client',
        name: `${r.id} (${r.tier}${r.capability === undefined ? '' : `: ${r.capability}`}, §${r.section})`,
      };
      if (r.status === 'fail') {
        const failed = r.findings.filter((f) => f.status === 'fail');
        const body = [
          r.text,
          ...failed.map((f) => `${f.scenario}: ${f.message}`),
          ...[...new Set(failed.map((f) => f.scenario))].map(
            (scenario) => `transcript of ${scenario}:\n${transcripts.get(scenario) ?? ''}`,
          ),
        ];
        return { ...testCase, failure: { message: failed[0]?.message ?? 'failed', body: body.join('\n\n') } };
      }
      if (r.status === 'not_applicable')
        return { ...testCase, skipped: 'not applicable: no scenario exercised it' };
      return testCase;
    }),
  );
}
