/**
 * The suite's reports: text per profile and section (with the wire transcript of failed
 * scenarios), JSON, JUnit XML.
 */
import { PROFILES, type Profile } from '../spec/requirements.ts';
import type { TranscriptEntry } from '../wire/peer.ts';
import { type JunitCase, junitXml } from './junit.ts';
import { conforms, needingProfile, type RunResult, type Status, unsettled, type Verdict } from './runner.ts';

const MARK: Record<Status, string> = {
  passed: 'PASS',
  failed: 'FAIL',
  'not applicable': 'N/A ',
  'not checkable': 'N/C ',
  'not checked': 'MISS',
  'needs profile': 'SKIP',
  client: 'CLNT',
};

const PROFILE_TITLE: Record<Profile, string> = {
  core: 'core: what the suite checks through the protocol alone',
  santra:
    "Santra profile (§0.1.1): checked against a server that offers Santra's agents, tools and environment",
};

const PROFILE_NAME: Record<Profile, string> = { core: 'core', santra: 'Santra profile' };

function tierLabel(verdict: Verdict): string {
  const { tier, capability, profile } = verdict.requirement;
  const label = capability === undefined ? tier : `${tier}: ${capability}`;
  return profile === 'santra' ? `${label}, Santra profile` : label;
}

function reason(verdict: Verdict): string {
  const failed = verdict.checks.filter((c) => !c.ok && c.notApplicable !== true);
  if (failed.length > 0) return failed.map((c) => `[${c.scenario}] ${c.detail}`).join('\n        ');
  if (verdict.status === 'not checkable') return verdict.requirement.notCheckable ?? '';
  if (verdict.status === 'client') return 'binds the client: checked by the client mode';
  if (verdict.status === 'not checked') return 'no scenario decided it';
  if (verdict.status === 'needs profile')
    return 'not checked: needs the Santra profile (§0.1.1; --profile santra against a server that offers it)';
  return `${verdict.checks.length} check(s)`;
}

function countsOf(verdicts: Verdict[]): Record<Status, number> {
  const total: Record<Status, number> = {
    passed: 0,
    failed: 0,
    'not applicable': 0,
    'not checkable': 0,
    'not checked': 0,
    'needs profile': 0,
    client: 0,
  };
  for (const verdict of verdicts) total[verdict.status]++;
  return total;
}

export function counts(result: RunResult): Record<Status, number> {
  return countsOf(result.verdicts);
}

/** The counts of each profile's requirements. */
export function countsByProfile(result: RunResult): Record<Profile, Record<Status, number>> {
  const of = (profile: Profile) => countsOf(result.verdicts.filter((v) => v.requirement.profile === profile));
  return { core: of('core'), santra: of('santra') };
}

function countLine(profile: Profile, total: Record<Status, number>): string {
  const needing =
    total['needs profile'] > 0 ? `, ${total['needs profile']} not checked: need the Santra profile` : '';
  return `${PROFILE_NAME[profile]}: ${total.passed} passed, ${total.failed} failed, ${total['not applicable']} not applicable, ${total['not checkable']} not checkable, ${total['not checked']} not checked${needing}`;
}

/** The last line of the text report: what the run showed. */
function conclusion(result: RunResult): string {
  if (!conforms(result)) return 'DOES NOT CONFORM: a mandatory requirement failed.';
  if (unsettled(result) > 0)
    return `NOT SHOWN: no mandatory requirement failed, but ${unsettled(result)} mandatory requirement(s) were not checked (MISS above).`;
  const needing = needingProfile(result);
  if (needing > 0)
    return `CONFORMS TO THE CORE: no mandatory requirement failed; the ${needing} requirement(s) of the Santra profile were not checked (SKIP above).`;
  return 'CONFORMS: no mandatory requirement failed.';
}

export function formatEntry(entry: TranscriptEntry): string {
  const at = `${(entry.at / 1000).toFixed(3).padStart(7)}s`;
  switch (entry.from) {
    case 'client':
      return `${at} → ${JSON.stringify(entry.message)}`;
    case 'server':
      return `${at} ← ${JSON.stringify(entry.message)}`;
    case 'client-raw':
      return `${at} → (raw) ${entry.bytes}`;
    case 'note':
      return `${at} · ${entry.text}`;
    case 'wire-fault':
      return `${at} ✗ ${entry.text}`;
    default: {
      const exhaustive: never = entry;
      return String(exhaustive);
    }
  }
}

const MAX_LINE = 400;

export function textReport(result: RunResult): string {
  const lines: string[] = [`santra-conformance --profile ${result.profile}: ${result.command.join(' ')}`];
  for (const profile of PROFILES) {
    const verdicts = result.verdicts.filter((v) => v.requirement.profile === profile);
    if (verdicts.length === 0) continue;
    lines.push('', `── ${PROFILE_TITLE[profile]}`);
    let section = '';
    for (const verdict of verdicts) {
      if (verdict.requirement.sectionTitle !== section) {
        section = verdict.requirement.sectionTitle;
        lines.push(`§${section}`);
      }
      const r = verdict.requirement;
      lines.push(
        `  ${MARK[verdict.status]} ${r.id} (${tierLabel(verdict)}, §${r.section}) ${reason(verdict)}`,
      );
    }
  }
  const failed = result.scenarios.filter((s) => s.failed);
  for (const scenario of failed) {
    lines.push(
      '',
      `── transcript of scenario ${scenario.name}${scenario.error ? ` (${scenario.error.split('\n')[0]})` : ''}`,
    );
    for (const server of scenario.transcript) {
      for (const entry of server.entries) {
        const line = formatEntry(entry);
        lines.push(line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line);
      }
      if (server.stderr.trim() !== '')
        lines.push(
          `   stderr of server ${server.server}:`,
          ...server.stderr
            .trimEnd()
            .split('\n')
            .slice(-20)
            .map((l) => `   | ${l}`),
        );
    }
  }
  const byProfile = countsByProfile(result);
  const client = counts(result).client;
  lines.push(
    '',
    ...PROFILES.map((profile) => countLine(profile, byProfile[profile])),
    ...(client > 0 ? [`${client} client requirements (client mode)`] : []),
    conclusion(result),
  );
  return `${lines.join('\n')}\n`;
}

export function jsonReport(result: RunResult): string {
  return `${JSON.stringify(
    {
      command: result.command,
      profile: result.profile,
      conforms: conforms(result) && unsettled(result) === 0,
      counts: counts(result),
      countsByProfile: countsByProfile(result),
      requirements: result.verdicts.map((v) => ({ ...v.requirement, status: v.status, checks: v.checks })),
      scenarios: result.scenarios,
    },
    null,
    2,
  )}\n`;
}

export function junitReport(result: RunResult): string {
  const transcripts = new Map(
    result.scenarios.map((s) => [
      s.name,
      s.transcript.flatMap((server) => server.entries.map(formatEntry)).join('\n'),
    ]),
  );
  return junitXml(
    'santra-conformance',
    result.verdicts.map((verdict): JunitCase => {
      const r = verdict.requirement;
      const testCase = {
        suite: `§${r.sectionTitle}`,
        classname: `santra.${r.area.toLowerCase()}`,
        name: `${r.id} (${tierLabel(verdict)}, §${r.section})`,
      };
      if (verdict.status === 'failed') {
        const scenarios = [...new Set(verdict.checks.filter((c) => !c.ok).map((c) => c.scenario))];
        const body = [
          r.text,
          reason(verdict),
          ...scenarios.map((s) => `transcript of ${s}:\n${transcripts.get(s) ?? ''}`),
        ];
        return {
          ...testCase,
          failure: { message: reason(verdict).split('\n')[0] ?? '', body: body.join('\n\n') },
        };
      }
      if (verdict.status !== 'passed')
        return { ...testCase, skipped: `${verdict.status}: ${reason(verdict)}` };
      return testCase;
    }),
  );
}
