/**
 * The core and the Santra profile (spec §0): the spec's *(Santra profile)* markers and the
 * scenarios' profiles agree; `--profile core` runs only the core scenarios and reports the
 * profile's requirements as not checked, never as passed or failed; only the profile's module
 * spells Santra's names; and against a server without Santra's agents and tools the core can pass
 * while the Santra profile cannot.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { profileMismatches, type RunResult, runSuite, type Scenario } from '../src/run/runner.ts';
import { SCENARIOS } from '../src/scenarios/index.ts';
import { loadRequirements, type Profile } from '../src/spec/requirements.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const requirements = loadRequirements();
const santra = requirements.filter((r) => r.profile === 'santra').map((r) => r.id);

test('the spec marks exactly the requirements that only scenarios of the Santra profile decide', () => {
  assert.deepEqual(profileMismatches(requirements, SCENARIOS), []);
  assert.equal(santra.length, 83, santra.join(' '));
  for (const id of ['SANTRA-APPROVE-001', 'SANTRA-ASK-004', 'SANTRA-FILES-011', 'SANTRA-PHASE-005'])
    assert.ok(santra.includes(id), id);
  // Their text is protocol, and a core scenario checks them without Santra's tools.
  for (const id of ['SANTRA-SESSION-001', 'SANTRA-SESSION-008', 'SANTRA-PROMPT-004', 'SANTRA-PROMPT-008'])
    assert.ok(!santra.includes(id), id);
});

test('a marker the scenarios contradict is named, either way', () => {
  const check = (): void => undefined;
  const scenarios: Scenario[] = [
    { name: 'a core scenario', covers: ['SANTRA-APPROVE-001'], run: async () => check() },
    {
      name: 'a profile scenario',
      profile: 'santra',
      covers: ['SANTRA-PROMPT-003'],
      run: async () => check(),
    },
  ];
  assert.deepEqual(profileMismatches(requirements, scenarios), [
    'SANTRA-PROMPT-003 is decided only by scenarios of the Santra profile ("a profile scenario"): mark it *(Santra profile)* in the spec, or check it in a core scenario',
    'SANTRA-APPROVE-001 is of the Santra profile in the spec, but the core scenario "a core scenario" decides it',
  ]);
  return assert.rejects(
    runSuite({ command: ['unused'], requirements, scenarios, profile: 'santra', only: new Set() }),
    /SANTRA-APPROVE-001 is of the Santra profile in the spec/,
  );
});

/** Two scenarios that start no server: a core one passing PROMPT-003, one of the profile passing APPROVE-001. */
function pair(ran: string[]): Scenario[] {
  return [
    {
      name: 'core',
      covers: ['SANTRA-PROMPT-003'],
      async run(ctx) {
        ran.push('core');
        ctx.check('SANTRA-PROMPT-003', true, 'a new session');
      },
    },
    {
      name: 'profile',
      profile: 'santra',
      covers: ['SANTRA-APPROVE-001'],
      async run(ctx) {
        ran.push('profile');
        ctx.check('SANTRA-APPROVE-001', true, `asked first, through ${ctx.santra.tools.writeFile}`);
      },
    },
  ];
}

test('--profile core runs only the core scenarios and reports the profile as not checked', async () => {
  const ran: string[] = [];
  const ids = ['SANTRA-PROMPT-003', 'SANTRA-PHASE-005', 'SANTRA-APPROVE-001'];
  const statuses = (result: RunResult) =>
    ids.map((id) => result.verdicts.find((v) => v.requirement.id === id)?.status);
  const run = (profile: Profile, only: string[]) =>
    runSuite({ command: ['unused'], requirements, scenarios: pair(ran), profile, only: new Set(only) });
  assert.deepEqual(statuses(await run('core', [])), ['passed', 'needs profile', 'needs profile']);
  assert.deepEqual(ran, ['core']);
  // Named with --only, a requirement of the profile selects no scenario of a core run either.
  ran.length = 0;
  assert.deepEqual(statuses(await run('core', ids)), ['passed', 'needs profile', 'needs profile']);
  assert.deepEqual(ran, ['core']);
  ran.length = 0;
  assert.deepEqual(statuses(await run('santra', [])), ['passed', 'not checked', 'passed']);
  assert.deepEqual(ran, ['core', 'profile']);
});

test('--only: a requirement checked on every message is checked in the scenarios the others select, or alone in all', async () => {
  const ran: string[] = [];
  const run = (only: string[]) =>
    runSuite({
      command: ['unused'],
      requirements,
      scenarios: pair(ran),
      profile: 'santra',
      only: new Set(only),
    });
  // SANTRA-PHASE-005 is named by no scenario: watched on every message.
  await run(['SANTRA-PHASE-005', 'SANTRA-PROMPT-003']);
  assert.deepEqual(ran, ['core'], 'with a named id: only the scenarios it selects');
  ran.length = 0;
  await run(['SANTRA-PHASE-005']);
  assert.deepEqual(ran, ['core', 'profile'], 'alone: every scenario');
});

test("a core scenario cannot use Santra's agents or tools", async () => {
  const scenario: Scenario = {
    name: 'a core scenario that writes',
    covers: ['SANTRA-PROMPT-003'],
    async run(ctx) {
      await ctx.script(ctx.santra.writeFile({ path: 'a.txt', content: 'a' }));
    },
  };
  const result = await runSuite({
    command: ['unused'],
    requirements,
    scenarios: [scenario],
    profile: 'santra',
    only: new Set(['SANTRA-PROMPT-003']),
  });
  assert.equal(result.verdicts[0]?.status, 'failed');
  assert.match(
    result.scenarios[0]?.error ?? '',
    /scenario "a core scenario that writes" uses Santra's agents or tools but is not declared profile: 'santra'/,
  );
});

test("only the profile's module spells Santra's agents, tools and environment", () => {
  const names = [
    "'executor'",
    "'reader'",
    "'agent_task'",
    "'conformance_reviewer'",
    'SANTRA_HOME',
    'SANTRA_MODEL',
    ...['write_file', 'move_file', 'run_command', 'read_file', 'str_replace', 'ask_user', 'spawn_agent'].map(
      (tool) => `'${tool}'`,
    ),
  ];
  const found: string[] = [];
  for (const folder of ['scenarios', 'run']) {
    const dir = join(root, 'conformance-tests/src', folder);
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'santra-profile.ts')) {
      const text = readFileSync(join(dir, file), 'utf8');
      for (const name of names) if (text.includes(name)) found.push(`${folder}/${file}: ${name}`);
    }
  }
  assert.deepEqual(found, []);
});

interface Report {
  profile: string;
  requirements: { id: string; status: string; checks: { ok: boolean; detail: string }[] }[];
}

/** Runs the built suite with `args` against the real server behind the core-only proxy. */
function againstCoreOnly(args: string[]): { status: number | null; stdout: string; report: Report } {
  const file = join(tmpdir(), `santra-conformance-profile-${process.pid}-${Date.now()}.json`);
  const run = spawnSync(
    process.execPath,
    [
      join(root, 'dist/santra-conformance.js'),
      ...args,
      '--json',
      file,
      '--',
      process.execPath,
      join(root, 'conformance-tests/test/fixtures/core-only-proxy.ts'),
      'without-santra-profile',
      '--',
      process.execPath,
      join(root, 'dist/santra-server.js'),
    ],
    { cwd: root, encoding: 'utf8', timeout: 120_000 },
  );
  const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
  rmSync(file);
  return { status: run.status, stdout: run.stdout, report };
}

test('a server without the Santra profile conforms to the core and fails the profile', () => {
  const only = ['--only', 'SANTRA-PROMPT-003,SANTRA-CANCEL-003,SANTRA-APPROVE-001,SANTRA-ASK-002'];
  const core = againstCoreOnly(['--profile', 'core', ...only]);
  assert.deepEqual(
    core.report.requirements.map((r) => `${r.id} ${r.status}`),
    [
      'SANTRA-CANCEL-003 passed',
      'SANTRA-PROMPT-003 passed',
      'SANTRA-APPROVE-001 needs profile',
      'SANTRA-ASK-002 needs profile',
    ],
    core.stdout,
  );
  assert.equal(core.status, 0, core.stdout);
  assert.match(
    core.stdout,
    /^ {2}SKIP SANTRA-APPROVE-001 \(mandatory, Santra profile, §7\.3\) not checked: needs the Santra profile/m,
  );
  assert.match(
    core.stdout,
    /^CONFORMS TO THE CORE: .*the 2 requirement\(s\) of the Santra profile were not checked/m,
  );

  const all = againstCoreOnly(only);
  assert.equal(all.report.profile, 'santra');
  assert.deepEqual(
    all.report.requirements.filter((r) => r.status !== 'passed').map((r) => `${r.id} ${r.status}`),
    ['SANTRA-APPROVE-001 failed', 'SANTRA-ASK-002 failed'],
    all.stdout,
  );
  assert.equal(all.status, 1);
  assert.match(all.stdout, /FAIL SANTRA-APPROVE-001 .*agent: no agent \\"executor\\"/);
  assert.match(all.stdout, /^DOES NOT CONFORM/m);
});
