/**
 * The client mode's §7.5 scenario (src/client/editor-scenario.ts) on the fixture client: lending
 * its editor (--lend) it passes SANTRA-FILES-007 and -010; lending nothing, both are not
 * applicable; each editor fault fails the requirement it breaks. Real processes, as in
 * client-mode.test.ts.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { runClientSuite, type ScenarioRun } from '../src/client/driver.ts';
import type { Fault } from '../src/client/fixtures/faults.ts';
import { buildReport, type ClientReport, formatText } from '../src/client/report.ts';
import { invalidServerMessages } from './helpers/server-messages.ts';

const FIXTURE = fileURLToPath(new URL('../src/client/fixtures/fixture-client.ts', import.meta.url));

// The fixture's workspace is where it runs: the scenario's files go there, not into the checkout.
const workspace = tempDir('santra-conformance-editor-');
after(() => removeTempDir(workspace));

async function check(args: string[]): Promise<ClientReport & { runs: ScenarioRun[] }> {
  const command = [process.execPath, FIXTURE, ...args];
  // Long enough for the commands the scenario lets run out and then watches for leftovers.
  const runs = await runClientSuite({
    command,
    cwd: workspace,
    cancel: 'client',
    unattended: true,
    deadlineMs: 20_000,
    scenarios: ['editor'],
  });
  return { ...buildReport(command, runs), runs };
}

const statusOf = (report: ClientReport, id: string) => report.requirements.find((r) => r.id === id)?.status;

describe('client mode: a client that lends its editor (§7.5)', () => {
  test('the fixture lending its editor passes SANTRA-FILES-007 and -010', async () => {
    const report = await check(['--lend']);
    assert.equal(statusOf(report, 'SANTRA-FILES-007'), 'pass', formatText(report));
    assert.equal(statusOf(report, 'SANTRA-FILES-010'), 'pass', formatText(report));
    assert.equal(report.ok, true, formatText(report));
    const requests = report.runs[0]?.report?.transcript.filter(
      (e) => e.from === 'server' && /fs\/writeTextFile|terminal\/run/.test(JSON.stringify(e.message)),
    );
    assert.equal(requests?.length, 5, 'one fs/writeTextFile and four terminal/run requests');
    assert.deepEqual(invalidServerMessages(report.runs), []);
    assert.deepEqual(readdirSync(workspace), [], 'the scenario removed what it put in the workspace');
  });

  test('to a client that lends nothing, SANTRA-FILES-007 and -010 are not applicable', async () => {
    const report = await check([]);
    for (const id of ['SANTRA-FILES-007', 'SANTRA-FILES-010'])
      assert.equal(statusOf(report, id), 'not_applicable', `${id}\n${formatText(report)}`);
    assert.match(
      formatText(report),
      /n\/a {2}SANTRA-FILES-010 .*\n.*editor: n\/a — the client declared no capabilities\.terminal/,
    );
    assert.equal(report.ok, true, formatText(report));
  });

  const cases: [Fault, string, RegExp][] = [
    ['write-elsewhere', 'SANTRA-FILES-007', /the directory held .*target\.txt\.new/],
    [
      'leak-env',
      'SANTRA-FILES-010',
      /SANTRA_CONFORMANCE_SECRET_TOKEN, which unsetEnv named, reached the command/,
    ],
    [
      'shell-only-kill',
      'SANTRA-FILES-010',
      /lived on after its timeout: .*; what the command started lived on after \$\/cancelRequest/,
    ],
  ];
  for (const [fault, id, message] of cases)
    test(`--fault ${fault} fails ${id}, saying what was wrong`, async () => {
      const report = await check(['--fault', fault]);
      assert.equal(statusOf(report, id), 'fail', formatText(report));
      assert.match(formatText(report), message);
      assert.equal(report.ok, false);
    });
});
