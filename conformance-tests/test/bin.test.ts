import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { loadRequirements } from '../src/spec/requirements.ts';

const bin = fileURLToPath(new URL('../../dist/santra-conformance.js', import.meta.url));
const run = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });

test('santra-conformance without a server command says how to give one', () => {
  const result = run();
  assert.equal(result.status, 2);
  assert.match(result.stderr, /no server command: give it after --, e\.g\. -- santra-server/);
});

test('santra-conformance --list prints every requirement of the spec with its tier and section', () => {
  const result = run('--list');
  assert.equal(result.status, 0);
  const lines = result.stdout.trim().split('\n');
  assert.equal(lines.length, loadRequirements().length);
  assert.ok(
    lines.includes(lines.find((l) => l.startsWith('SANTRA-PROMPT-001\tmandatory\t§7.1\t')) ?? ''),
    result.stdout,
  );
  assert.match(result.stdout, /^SANTRA-MODEL-001\tcapability-gated: model\/list\t§8\.1\t/m);
});

test('santra-conformance --only refuses an id the spec does not have', () => {
  const result = run('--only', 'SANTRA-NOPE-999', '--', 'santra-server');
  assert.equal(result.status, 2);
  assert.match(result.stderr, /--only names SANTRA-NOPE-999, which the spec does not have \(see --list\)/);
});

test('santra-conformance --help names the options', () => {
  const result = run('--help');
  assert.equal(result.status, 0);
  for (const option of ['--profile', '--list', '--only', '--report', '--json', '--junit'])
    assert.ok(result.stdout.includes(option), option);
});

test('santra-conformance --list marks the Santra profile, and --profile core leaves it out', () => {
  const all = run('--list');
  assert.match(all.stdout, /^SANTRA-APPROVE-001\tmandatory, Santra profile\t§7\.3\t/m);
  const core = run('--list', '--profile', 'core');
  assert.equal(core.status, 0);
  const ids = core.stdout
    .trim()
    .split('\n')
    .map((line) => line.split('\t')[0]);
  assert.deepEqual(
    ids,
    loadRequirements()
      .filter((r) => r.profile === 'core')
      .map((r) => r.id),
  );
  assert.ok(ids.includes('SANTRA-PROMPT-001') && !ids.includes('SANTRA-APPROVE-001'));
});

test('santra-conformance --profile refuses a profile the spec does not have', () => {
  const result = run('--profile', 'ollama', '--', 'santra-server');
  assert.equal(result.status, 2);
  assert.match(result.stderr, /--profile must be core or santra, not "ollama"/);
});
