/**
 * The conformance suite fails deliberately broken servers (test/fixtures/), each with the
 * requirement it breaks named in the report. Runs the built dist/santra-conformance.js against
 * fixtures wrapping the built dist/santra-server.js.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const suite = join(root, 'dist/santra-conformance.js');
const server = join(root, 'dist/santra-server.js');
const fixture = (name: string) => join(root, 'conformance-tests/test/fixtures', name);

interface Report {
  requirements: { id: string; status: string; checks: { ok: boolean; detail: string }[] }[];
}

/** Runs the suite on `command` for `only`; returns the exit status and the JSON report. */
function check(command: string[], only: string[]): { status: number | null; report: Report; stdout: string } {
  const file = join(tmpdir(), `santra-conformance-report-${process.pid}-${Date.now()}.json`);
  const run = spawnSync(
    process.execPath,
    [suite, '--only', only.join(','), '--json', file, '--', ...command],
    {
      encoding: 'utf8',
      cwd: root,
      timeout: 240_000,
    },
  );
  const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
  rmSync(file);
  return { status: run.status, report, stdout: run.stdout };
}

function failed(report: Report): string[] {
  return report.requirements.filter((r) => r.status === 'failed').map((r) => r.id);
}

test('a server that writes without asking fails the approval requirements', () => {
  const { status, report, stdout } = check(
    [process.execPath, fixture('misbehaving-proxy.ts'), 'skip-approval', '--', process.execPath, server],
    ['SANTRA-APPROVE-001', 'SANTRA-APPROVE-007', 'SANTRA-APPROVE-010'],
  );
  assert.equal(status, 1);
  assert.deepEqual(failed(report), ['SANTRA-APPROVE-001', 'SANTRA-APPROVE-007', 'SANTRA-APPROVE-010']);
  assert.match(stdout, /FAIL SANTRA-APPROVE-007 .*reject: .*"status":"ok"/);
  assert.match(stdout, /transcript of scenario approve: allow a new file/);
});

test('a server that writes rejected hunks, or the proposal instead of the person’s version, fails', () => {
  const { status, report, stdout } = check(
    [process.execPath, fixture('misbehaving-proxy.ts'), 'whole-change', '--', process.execPath, server],
    ['SANTRA-APPROVE-022', 'SANTRA-APPROVE-024'],
  );
  assert.equal(status, 1);
  assert.deepEqual(failed(report), ['SANTRA-APPROVE-022', 'SANTRA-APPROVE-024']);
  assert.match(stdout, /FAIL SANTRA-APPROVE-022 .*after allowing the second hunk only, two\.txt holds/);
});

test('a server that sends a phase after the prompt response fails the ordering requirements', () => {
  const { status, report, stdout } = check(
    [process.execPath, fixture('misbehaving-proxy.ts'), 'late-phase', '--', process.execPath, server],
    ['SANTRA-PROMPT-001', 'SANTRA-PHASE-003'],
  );
  assert.equal(status, 1);
  assert.deepEqual(failed(report), ['SANTRA-PROMPT-001']);
  assert.match(
    stdout,
    /FAIL SANTRA-PROMPT-001 .*a complete phase \(seq \d+\) of run run_\w+ after its prompt response/,
  );
});

test('a server that ignores cancellation fails the cancellation requirements', () => {
  const { status, report } = check(
    [process.execPath, fixture('misbehaving-proxy.ts'), 'ignore-cancel', '--', process.execPath, server],
    ['SANTRA-CANCEL-003', 'SANTRA-CANCEL-008'],
  );
  assert.equal(status, 1);
  assert.deepEqual(failed(report), ['SANTRA-CANCEL-003', 'SANTRA-CANCEL-008']);
  const cancel = report.requirements.find((r) => r.id === 'SANTRA-CANCEL-008');
  assert.ok(
    cancel?.checks.some((c) => !c.ok && /did not cancel its approve|did not cancel its ask/.test(c.detail)),
  );
});

test('a server that only does the handshake fails the requirements of runs', () => {
  const { status, report, stdout } = check(
    [process.execPath, fixture('handshake-only.ts')],
    ['SANTRA-LIFE-005', 'SANTRA-LIFE-012', 'SANTRA-PROMPT-003', 'SANTRA-APPROVE-001'],
  );
  assert.equal(status, 1);
  assert.deepEqual(failed(report), ['SANTRA-LIFE-005', 'SANTRA-PROMPT-003', 'SANTRA-APPROVE-001']);
  assert.match(
    stdout,
    /FAIL SANTRA-LIFE-005 .*capabilities\.methods lacks \$\/cancelRequest, prompt, phase, approve, ask/,
  );
  assert.match(stdout, /PASS SANTRA-LIFE-012/);
});

test('a server that refuses shutdown while its request limit is full fails SANTRA-MSG-017', () => {
  const { status, report, stdout } = check(
    [process.execPath, fixture('misbehaving-proxy.ts'), 'busy-shutdown', '--', process.execPath, server],
    ['SANTRA-MSG-016', 'SANTRA-MSG-017'],
  );
  assert.equal(status, 1);
  assert.deepEqual(failed(report), ['SANTRA-MSG-017']);
  assert.match(stdout, /FAIL SANTRA-MSG-017 .*shutdown with \d+ prompts in flight: .*-33003/);
});
