/**
 * Santra's own server passes its conformance suite: the built dist/santra-conformance.js against
 * `node dist/santra-server.js`. Every mandatory and capability-gated requirement of the spec that
 * binds the server passes, and each is decided by at least one check (only those the spec marks
 * "not checkable" are not). With `--profile core` (spec §0), the core passes on its own, without
 * Santra's environment variables, and the Santra profile's requirements are not checked.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { removeTempDir, tempDir } from '../temp-dirs.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

interface ReportedRequirement {
  id: string;
  tier: string;
  subject: string;
  profile: string;
  status: string;
  notCheckable?: string;
  checks: { ok: boolean; detail: string; scenario: string }[];
}

test('santra-server passes every server requirement of the conformance suite', async () => {
  const dir = tempDir('santra-conformance-report-');
  try {
    const json = join(dir, 'report.json');
    const junit = join(dir, 'report.xml');
    const run = spawnSync(
      process.execPath,
      [
        join(root, 'dist/santra-conformance.js'),
        '--json',
        json,
        '--junit',
        junit,
        '--',
        process.execPath,
        join(root, 'dist/santra-server.js'),
      ],
      { cwd: root, encoding: 'utf8', timeout: 600_000 },
    );
    const report = JSON.parse(readFileSync(json, 'utf8')) as {
      conforms: boolean;
      requirements: ReportedRequirement[];
    };
    const server = report.requirements.filter((r) => r.subject === 'server');
    const failed = server
      .filter((r) => r.status === 'failed')
      .map(
        (r) =>
          `${r.id}: ${r.checks
            .filter((c) => !c.ok)
            .map((c) => c.detail)
            .join('; ')}`,
      );
    assert.deepEqual(failed, [], run.stdout);
    const undecided = server
      .filter((r) => r.status !== 'passed' && r.notCheckable === undefined)
      .map((r) => `${r.id} (${r.status})`);
    assert.deepEqual(undecided, [], 'every checkable requirement is decided by a check');
    assert.ok(server.length > 100, `${server.length} server requirements`);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(report.conforms, true);
    assert.match(run.stdout, /^CONFORMS: no mandatory requirement failed\./m);
    assert.ok(
      run.stdout.indexOf('\n── core') < run.stdout.indexOf('\n── Santra profile'),
      'grouped by profile',
    );
    const xml = readFileSync(junit, 'utf8');
    assert.match(xml, /<testcase classname="santra\.prompt" name="SANTRA-PROMPT-001 \(mandatory, §7\.1\)">/);
  } finally {
    await removeTempDir(dir);
  }
});

test('santra-server conforms to the core with --profile core, the Santra profile not checked', async () => {
  const dir = tempDir('santra-conformance-report-');
  try {
    const json = join(dir, 'report.json');
    const run = spawnSync(
      process.execPath,
      [
        join(root, 'dist/santra-conformance.js'),
        '--profile',
        'core',
        '--json',
        json,
        '--',
        process.execPath,
        join(root, 'dist/santra-server.js'),
      ],
      { cwd: root, encoding: 'utf8', timeout: 600_000 },
    );
    const report = JSON.parse(readFileSync(json, 'utf8')) as {
      profile: string;
      conforms: boolean;
      requirements: ReportedRequirement[];
    };
    const server = report.requirements.filter((r) => r.subject === 'server');
    const core = server.filter((r) => r.profile === 'core');
    const undecided = core
      .filter((r) => r.status !== 'passed' && r.notCheckable === undefined)
      .map((r) => `${r.id} (${r.status}: ${r.checks.map((c) => c.detail).join('; ')})`);
    assert.deepEqual(undecided, [], run.stdout);
    const profile = server.filter((r) => r.profile === 'santra');
    assert.ok(profile.length > 0);
    assert.deepEqual(
      profile.filter((r) => r.status !== 'needs profile' || r.checks.length > 0).map((r) => r.id),
      [],
      'the Santra profile is neither passed nor failed by the core',
    );
    assert.equal(run.status, 0, run.stderr);
    assert.equal(report.profile, 'core');
    assert.equal(report.conforms, true);
    assert.match(
      run.stdout,
      new RegExp(
        `^CONFORMS TO THE CORE: no mandatory requirement failed; the ${profile.length} requirement\\(s\\) of the Santra profile were not checked`,
        'm',
      ),
    );
    // Only the core scenarios ran.
    assert.doesNotMatch(run.stderr, /^(ok|FAIL) +(approve|ask|files):/m);
    assert.match(run.stderr, /^ok +prompt: a chat, continued in its session$/m);
  } finally {
    await removeTempDir(dir);
  }
});
