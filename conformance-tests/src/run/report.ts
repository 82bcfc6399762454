/** The suite's reports: text per section (with the wire transcript of failed scenarios), JSON, JUnit XML. */
import type { TranscriptEntry } from '../wire/peer.ts';
import { type JunitCase, junitXml } from './junit.ts';
import { conforms, type RunResult, type Status, unsettled, type Verdict } from './runner.ts';

const MARK: Record<Status, string> = {
  passed: 'PASS',
  failed: 'FAIL',
  'not applicable': 'N/A ',
  'not checkable': 'N/C ',
  'not checked': 'MISS',
  client: 'CLNT',
};

function tierLabel(verdict: Verdict): string {
  const { tier, capability } = verdict.requirement;
  return capability === undefined ? tier : `${tier}: ${capability}`;
}

function reason(verdict: Verdict): string {
  const failed = verdict.checks.filter((c) => !c.ok && c.notApplicable !== true);
  if (failed.length > 0) return failed.map((c) => `[${c.scenario}] ${c.detail}`).join('\n        ');
  if (verdict.status === 'not checkable') return verdict.requirement.notCheckable ?? '';
  if (verdict.status === 'client') return 'binds the client: checked by the client mode';
  if (verdict.status === 'not checked') return 'no scenario decided it';
  return `${verdict.checks.length} check(s)`;
}

export function counts(result: RunResult): Record<Status, number> {
  const total: Record<Status, number> = {
    passed: 0,
    failed: 0,
    'not applicable': 0,
    'not checkable': 0,
    'not checked': 0,
    client: 0,
  };
  for (const verdict of result.verdicts) total[verdict.status]++;
  return total;
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
  const lines: string[] = [`santra-conformance: ${result.command.join(' ')}`, ''];
  let section = '';
  for (const verdict of result.verdicts) {
    if (verdict.requirement.sectionTitle !== section) {
      section = verdict.requirement.sectionTitle;
      lines.push(`§${section}`);
    }
    const r = verdict.requirement;
    lines.push(`  ${MARK[verdict.status]} ${r.id} (${tierLabel(verdict)}, §${r.section}) ${reason(verdict)}`);
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
  const total = counts(result);
  lines.push(
    '',
    `${total.passed} passed, ${total.failed} failed, ${total['not applicable']} not applicable, ${total['not checkable']} not checkable, ${total['not checked']} not checked, ${total.client} client requirements (client mode)`,
    !conforms(result)
      ? 'DOES NOT CONFORM: a mandatory requirement failed.'
      : unsettled(result) > 0
        ? `NOT SHOWN: no mandatory requirement failed, but ${unsettled(result)} mandatory requirement(s) were not checked (MISS above).`
        : 'CONFORMS: no mandatory requirement failed.',
  );
  return `${lines.join('\n')}\n`;
}

export function jsonReport(result: RunResult): string {
  return `${JSON.stringify(
    {
      command: result.command,
      conforms: conforms(result) && unsettled(result) === 0,
      counts: counts(result),
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
