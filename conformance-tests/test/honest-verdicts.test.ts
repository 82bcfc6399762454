/**
 * The suite reports only what it saw, checked in seconds against small fake servers
 * (test/fixtures/) rather than the real runtime: a requirement no check exercised is not passed,
 * one whose every check was not applicable is not passed, a server that refuses `shutdown` at its
 * request limit fails SANTRA-MSG-017, and a failure says what the server did rather than what it
 * should have done.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runSuite, type Verdict } from '../src/run/runner.ts';
import { SCENARIOS } from '../src/scenarios/index.ts';
import { loadRequirements } from '../src/spec/requirements.ts';

const fixtures = fileURLToPath(new URL('fixtures/', import.meta.url));
const requirements = loadRequirements();

/** The verdicts of the scenario named `name` against the fixture server `fixture args…`. */
async function verdictsOf(name: string, fixture: string, ...args: string[]): Promise<Map<string, Verdict>> {
  const scenario = SCENARIOS.find((s) => s.name.startsWith(name));
  assert.ok(scenario, `no scenario named ${name}`);
  const result = await runSuite({
    command: [process.execPath, join(fixtures, fixture), ...args],
    requirements,
    scenarios: [scenario],
    // The default profile: a requirement of the Santra profile that nothing exercised is not checked too.
    profile: 'santra',
    only: new Set(),
  });
  return new Map(result.verdicts.map((v) => [v.requirement.id, v]));
}

function status(verdicts: Map<string, Verdict>, id: string): string {
  const verdict = verdicts.get(id);
  return `${verdict?.status}: ${JSON.stringify(verdict?.checks.map((c) => c.detail))}`;
}

test('a server that never ran a prompt passes none of the requirements watched on runs', async () => {
  const verdicts = await verdictsOf('lifecycle: handshake', 'handshake-only.ts');
  for (const id of [
    'SANTRA-PROMPT-001',
    'SANTRA-PROMPT-002',
    'SANTRA-PHASE-001',
    'SANTRA-PHASE-004',
    'SANTRA-PHASE-005',
    'SANTRA-SESSION-002',
  ])
    assert.match(status(verdicts, id), /^not checked: \[\]$/, id);
  // What the handshake did show is decided.
  assert.match(status(verdicts, 'SANTRA-LIFE-012'), /^passed/);
  assert.match(status(verdicts, 'SANTRA-FRAME-015'), /^passed/);
});

test('a requirement whose every check was not applicable is not applicable, not passed', async () => {
  // The server declares no session/* method, and the scenario stops at its first prompt.
  const verdicts = await verdictsOf('sessions: list, a killed server', 'handshake-only.ts');
  for (const id of ['SANTRA-SESSION-005', 'SANTRA-SESSION-010', 'SANTRA-SESSION-013']) {
    assert.match(status(verdicts, id), /^not applicable: /, id);
    assert.ok(
      verdicts.get(id)?.checks.every((c) => c.notApplicable === true && !c.ok),
      id,
    );
  }
  // A mandatory requirement the scenario could not reach fails, saying why.
  assert.match(
    status(verdicts, 'SANTRA-SESSION-009'),
    /^failed: .*the scenario stopped before deciding it: prompt failed: .*not implemented/,
  );
});

test('a prompt answered without a single phase fails SANTRA-PROMPT-001, saying so', async () => {
  const verdicts = await verdictsOf('prompt: a chat', 'handshake-only.ts', 'answer-prompt');
  assert.match(
    status(verdicts, 'SANTRA-PROMPT-001'),
    /^failed: .*run run_0 was answered without a single phase, root complete included/,
  );
});

test('a server that answers each prompt after its complete phase passes SANTRA-PROMPT-001', async () => {
  // The control for the test above: the same watcher, a run in order.
  const verdicts = await verdictsOf('messages: more requests than maxConcurrentRequests', 'busy-server.ts');
  assert.match(status(verdicts, 'SANTRA-PROMPT-001'), /^passed/);
});

test('at its request limit a server refuses requests but not notifications or shutdown', async () => {
  const verdicts = await verdictsOf('messages: more requests than maxConcurrentRequests', 'busy-server.ts');
  for (const id of ['SANTRA-MSG-016', 'SANTRA-MSG-017', 'SANTRA-MSG-018'])
    assert.match(status(verdicts, id), /^passed/, id);
});

test('a server that refuses shutdown while its request limit is full fails SANTRA-MSG-017 with its answer', async () => {
  const verdicts = await verdictsOf(
    'messages: more requests than maxConcurrentRequests',
    'busy-server.ts',
    'refuse-busy-shutdown',
  );
  // The detail is the answer the server gave, not the rule it broke.
  assert.match(
    status(verdicts, 'SANTRA-MSG-017'),
    /^failed: \["shutdown with 4 prompts in flight: \{\\"code\\":-33003,\\"message\\":\\"Server busy\\"/,
  );
  assert.match(status(verdicts, 'SANTRA-MSG-016'), /^passed/);
});
