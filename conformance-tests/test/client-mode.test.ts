/**
 * The client mode checked on a client written against the spec alone (src/client/fixtures/
 * fixture-client.ts): as written it passes every requirement the mode checks; each of its faults
 * fails the requirement it breaks, citing that id. Real processes: the driver starts the fixture,
 * which starts the scripted server from SANTRA_SERVER, as santra does.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { runClientSuite, type ScenarioRun } from '../src/client/driver.ts';
import { FAULTS, type Fault } from '../src/client/fixtures/faults.ts';
import { buildReport, type ClientReport, formatText, junitText } from '../src/client/report.ts';
import { invalidServerMessages } from './helpers/server-messages.ts';

const FIXTURE = fileURLToPath(new URL('../src/client/fixtures/fixture-client.ts', import.meta.url));

async function check(
  fault: Fault | undefined,
  scenarios?: string[],
): Promise<{ report: ClientReport; runs: ScenarioRun[] }> {
  const command = [process.execPath, FIXTURE, ...(fault === undefined ? [] : ['--fault', fault])];
  const runs = await runClientSuite({
    command,
    cancel: 'client',
    unattended: true,
    // Short: a faulty fixture waits for what never comes until the scripted server gives up.
    deadlineMs: 4000,
    ...(scenarios === undefined ? {} : { scenarios }),
  });
  return { report: buildReport(command, runs), runs };
}

/** What forward-compat and advertised-phase-type send that no schema knows, on purpose. */
const UNKNOWN_ON_PURPOSE = /santra_hologram|santraFuture|santra\/projectHologram|holograms/;

const statusOf = (report: ClientReport, id: string) => report.requirements.find((r) => r.id === id)?.status;

describe('client mode on the fixture client', () => {
  test('the fixture as written passes every checked requirement in every scenario', async () => {
    const { report, runs } = await check(undefined);
    const failed = report.requirements.filter((r) => r.status === 'fail');
    assert.deepEqual(failed, [], formatText(report));
    assert.equal(report.ok, true);
    assert.ok(runs.every((run) => run.report !== undefined && run.problems.length === 0));
    for (const id of [
      'SANTRA-CLIENT-006',
      'SANTRA-CLIENT-007',
      'SANTRA-CLIENT-008',
      'SANTRA-CLIENT-009',
      'SANTRA-APPROVE-016',
    ])
      assert.equal(statusOf(report, id), 'pass', id);

    // The scripted server's own messages follow the schema, but for what forward-compat and
    // advertised-phase-type make unknown on purpose.
    assert.deepEqual(invalidServerMessages(runs, UNKNOWN_ON_PURPOSE), []);
  });

  const cases: [Fault, string[]][] = [
    ['skip-initialized', ['greeting']],
    ['malformed-approve', ['approve']],
    ['truthy-id', ['approve']],
    ['no-cancel', ['cancel']],
    ['no-shutdown', ['greeting']],
    ['prompt-after-shutdown', ['greeting']],
    ['bad-content-length', ['greeting']],
  ];
  for (const [fault, scenarios] of cases) {
    const id = FAULTS[fault];
    test(`--fault ${fault} fails ${id}`, async () => {
      const { report } = await check(fault, scenarios);
      assert.equal(statusOf(report, id), 'fail', formatText(report));
      assert.equal(report.ok, false);
      const text = formatText(report);
      assert.match(text, new RegExp(`FAIL ${id} `));
      // A failure shows its evidence: the scenario's wire transcript.
      assert.match(text, /wire transcript/);
    });
  }

  test('the failure message says what was wrong', async () => {
    const { report } = await check('malformed-approve', ['approve']);
    const finding = report.requirements.find((r) => r.id === 'SANTRA-CLIENT-006')?.findings[0];
    assert.match(
      finding?.message ?? '',
      /approve 0: result\.decision: must be one of "allow", "allow_all", "reject", "feedback"/,
    );
    // The JUnit report carries the same failure, with the transcript, for CI.
    const junit = junitText(report);
    assert.match(
      junit,
      /<testcase classname="santra\.client" name="SANTRA-CLIENT-006 \(capability-gated: approve, §Client requirements\)"/,
    );
    assert.match(junit, /<failure message="approve 0: result\.decision: must be one of/);
    assert.match(junit, /transcript of approve:/);
    const truthy = await check('truthy-id', ['approve']);
    const lost = truthy.report.requirements.find((r) => r.id === 'SANTRA-MSG-007')?.findings[0];
    assert.match(lost?.message ?? '', /approve 0 was answered with id null/);
  });
});
