/**
 * `santra-conformance [--profile core|santra] -- <server command…>`: checks a server against the
 * requirements of the protocol spec (protocol-spec/README.md §0), and exits 1 when a mandatory one
 * fails.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import packageJson from '../../package.json' with { type: 'json' };
import { jsonReport, junitReport, textReport } from './run/report.ts';
import { checkedIn, conforms, runSuite, unsettled } from './run/runner.ts';
import { SCENARIOS } from './scenarios/index.ts';
import { loadRequirements, PROFILES, type Requirement } from './spec/requirements.ts';

const USAGE = `Usage: santra-conformance [options] -- <server command…>

Checks a server of the Santra protocol against every requirement of the spec
(protocol-spec/README.md): a fresh server process per scenario, fake model providers on
127.0.0.1, every message validated against the JSON Schema. The environment a server under test
must honour is in the spec, §0.1.

Options:
  --profile core|santra
                      core: only what the protocol alone lets the suite check, for any
                      implementation; the requirements of the Santra profile are reported as
                      not checked (SKIP). santra (the default): also the scenarios that drive
                      Santra's agents, tools and environment (spec §0.1.1)
  --list              print the requirements (id, tier, section, text) the profile checks and exit
  --only ID[,ID…]     check only these requirements (repeatable); one checked on every message
                      is checked in the scenarios the others select, or alone in all of them
  --report text|json  the report on stdout (default text)
  --json FILE         also write the JSON report to FILE
  --junit FILE        also write a JUnit XML report to FILE
  -h, --help          this help
  -v, --version       the version

Exit status: 0 when every mandatory requirement the profile checks passed, 1 when one failed or
was not checked, 2 on bad usage.
`;

function usageError(message: string): never {
  process.stderr.write(`santra-conformance: ${message}\n\n${USAGE}`);
  process.exit(2);
}

function listing(requirements: Requirement[]): string {
  return requirements
    .map((r) => {
      const profile = r.profile === 'santra' ? ', Santra profile' : '';
      const tier = `${r.subject === 'client' ? 'client: ' : ''}${r.tier}${r.capability ? `: ${r.capability}` : ''}${profile}`;
      const note = r.notCheckable === undefined ? '' : ` [not checkable: ${r.notCheckable}]`;
      return `${r.id}\t${tier}\t§${r.section}\t${r.text}${note}`;
    })
    .join('\n');
}

async function main(argv: string[]): Promise<number> {
  const dash = argv.indexOf('--');
  const own = dash === -1 ? argv : argv.slice(0, dash);
  const command = dash === -1 ? [] : argv.slice(dash + 1);
  let values;
  try {
    values = parseArgs({
      args: own,
      options: {
        profile: { type: 'string', default: 'santra' },
        list: { type: 'boolean', default: false },
        only: { type: 'string', multiple: true, default: [] },
        report: { type: 'string', default: 'text' },
        json: { type: 'string' },
        junit: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
        version: { type: 'boolean', short: 'v', default: false },
      },
    }).values;
  } catch (error) {
    usageError((error as Error).message);
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (values.version) {
    process.stdout.write(`santra-conformance ${packageJson.version}\n`);
    return 0;
  }
  const profile = PROFILES.find((known) => known === values.profile);
  if (profile === undefined)
    usageError(`--profile must be ${PROFILES.join(' or ')}, not ${JSON.stringify(values.profile)}`);
  const requirements = loadRequirements();
  const only = new Set(
    values.only
      .flatMap((v) => v.split(','))
      .map((v) => v.trim())
      .filter((v) => v !== ''),
  );
  const unknown = [...only].filter((id) => !requirements.some((r) => r.id === id));
  if (unknown.length > 0)
    usageError(`--only names ${unknown.join(', ')}, which the spec does not have (see --list)`);
  if (values.list) {
    const listed = requirements.filter((r) => (only.size === 0 || only.has(r.id)) && checkedIn(profile, r));
    process.stdout.write(`${listing(listed)}\n`);
    return 0;
  }
  if (values.report !== 'text' && values.report !== 'json')
    usageError(`--report must be text or json, not ${JSON.stringify(values.report)}`);
  if (command.length === 0) usageError('no server command: give it after --, e.g. -- santra-server');
  const result = await runSuite({
    command,
    requirements,
    scenarios: SCENARIOS,
    profile,
    only,
    onScenario: (record) => process.stderr.write(`${record.failed ? 'FAIL' : 'ok  '} ${record.name}\n`),
  });
  process.stdout.write(values.report === 'json' ? jsonReport(result) : textReport(result));
  if (values.json !== undefined) writeFileSync(values.json, jsonReport(result));
  if (values.junit !== undefined) writeFileSync(values.junit, junitReport(result));
  // A mandatory requirement left unchecked (MISS) shows nothing either way: not a pass.
  return conforms(result) && unsettled(result) === 0 ? 0 : 1;
}

const argv = process.argv.slice(2);
// `santra-conformance client …` checks a client against a scripted server (client/cli.ts).
process.exitCode =
  argv[0] === 'client'
    ? await (await import('./client/cli.ts')).runClientMode(argv.slice(1))
    : await main(argv);
