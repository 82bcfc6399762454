/**
 * The verdict line and the exit code say only what the run showed: a mandatory requirement no
 * scenario decided (MISS) is not a pass, and no "CONFORMS" is printed over it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadRequirements } from '../src/spec/requirements.ts';
import { jsonReport, textReport } from '../src/run/report.ts';
import { conforms, type RunResult, type Status, unsettled } from '../src/run/runner.ts';

const requirements = loadRequirements();
const mandatory = requirements.filter((r) => r.tier === 'mandatory' && r.subject === 'server');

function result(statuses: Status[]): RunResult {
  return {
    command: ['server'],
    scenarios: [],
    verdicts: statuses.map((status, index) => ({
      requirement: mandatory[index] ?? (mandatory[0] as (typeof mandatory)[number]),
      status,
      checks: [],
    })),
  };
}

test('a mandatory requirement not checked is not shown as conforming', () => {
  const missed = result(['passed', 'not checked']);
  assert.equal(conforms(missed), true, 'nothing failed');
  assert.equal(unsettled(missed), 1);
  assert.match(
    textReport(missed),
    /NOT SHOWN: no mandatory requirement failed, but 1 mandatory requirement\(s\) were not checked/,
  );
  assert.doesNotMatch(textReport(missed), /^CONFORMS/m);
  assert.equal((JSON.parse(jsonReport(missed)) as { conforms: boolean }).conforms, false);
});

test('all decided and passed: CONFORMS; a failure: DOES NOT CONFORM', () => {
  assert.match(textReport(result(['passed', 'passed'])), /^CONFORMS: no mandatory requirement failed\.$/m);
  assert.match(textReport(result(['passed', 'failed'])), /^DOES NOT CONFORM/m);
});
