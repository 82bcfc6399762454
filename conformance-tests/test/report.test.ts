/**
 * The verdict line and the exit code say only what the run showed: a mandatory requirement no
 * scenario decided (MISS) is not a pass, and no "CONFORMS" is printed over it; a run of the core
 * profile says it showed the core, and groups the Santra profile's requirements apart.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadRequirements } from '../src/spec/requirements.ts';
import { jsonReport, textReport } from '../src/run/report.ts';
import { conforms, type RunResult, type Status, unsettled } from '../src/run/runner.ts';
import type { Profile } from '../src/spec/requirements.ts';

const requirements = loadRequirements();
const mandatory = requirements.filter(
  (r) => r.tier === 'mandatory' && r.subject === 'server' && r.profile === 'core',
);

function result(statuses: Status[], profile: Profile = 'santra'): RunResult {
  return {
    command: ['server'],
    profile,
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

test('a run of the core groups the Santra profile apart and says it showed the core', () => {
  const approve = requirements.find((r) => r.id === 'SANTRA-APPROVE-001');
  assert.ok(approve);
  const core = result(['passed'], 'core');
  core.verdicts.push({ requirement: approve, status: 'needs profile', checks: [] });
  const text = textReport(core);
  assert.equal(conforms(core), true);
  assert.equal(unsettled(core), 0, 'a requirement of the profile is not a MISS');
  assert.match(text, /^santra-conformance --profile core: server$/m);
  assert.ok(text.indexOf('── core') < text.indexOf('── Santra profile'), text);
  assert.match(
    text,
    /^ {2}SKIP SANTRA-APPROVE-001 \(mandatory, Santra profile, §7\.3\) not checked: needs the Santra profile/m,
  );
  assert.match(text, /^Santra profile: 0 passed, 0 failed, .*, 1 not checked: need the Santra profile$/m);
  assert.match(
    text,
    /^CONFORMS TO THE CORE: no mandatory requirement failed; the 1 requirement\(s\) of the Santra profile were not checked/m,
  );
  const json = JSON.parse(jsonReport(core)) as {
    profile: string;
    conforms: boolean;
    countsByProfile: Record<Profile, Record<Status, number>>;
    requirements: { id: string; profile: string; status: string }[];
  };
  assert.equal(json.profile, 'core');
  assert.equal(json.conforms, true);
  assert.equal(json.countsByProfile.santra['needs profile'], 1);
  assert.equal(json.countsByProfile.core.passed, 1);
  assert.deepEqual(json.requirements[1], {
    ...json.requirements[1],
    id: 'SANTRA-APPROVE-001',
    profile: 'santra',
  });
});
