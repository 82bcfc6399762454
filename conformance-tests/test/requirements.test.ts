import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadRequirements, parseRequirements } from '../src/spec/requirements.ts';

test('the spec gives every requirement a unique id, a tier and a section', () => {
  const requirements = loadRequirements();
  assert.ok(requirements.length > 100);
  for (const r of requirements) {
    assert.match(r.id, /^SANTRA-[A-Z]+-\d{3}$/);
    // A numbered section, or the unnumbered "Client requirements" of the client mode.
    if (r.area === 'CLIENT') assert.equal(r.section, 'Client requirements', r.id);
    else assert.match(r.section, /^\d+(\.\d+)?$/, r.id);
    assert.match(r.text, /\b(MUST|SHOULD|MAY)\b/, `${r.id} states no requirement: ${r.text}`);
  }
  const gated = requirements.find((r) => r.id === 'SANTRA-SESSION-005');
  assert.deepEqual(
    [gated?.tier, gated?.capability, gated?.section],
    ['capability-gated', 'session/list', '10.2'],
  );
});

test('a requirement item is parsed with its continuation lines, tier and not-checkable reason', () => {
  const [first, second] = parseRequirements(
    [
      '## 3. Lifecycle',
      '',
      '3.6. Exit codes.',
      '',
      '- **[SANTRA-LIFE-016]** *(mandatory)* The server MUST exit with code 2 on invalid',
      '  arguments. *Not checkable: the suite cannot know them.*',
      '- **[SANTRA-LIFE-017]** *(client: advisory)* A client SHOULD log it.',
      '',
      '```',
      '- **[SANTRA-LIFE-099]** *(mandatory)* Inside a code block: not a requirement.',
      '```',
    ].join('\n'),
  );
  assert.deepEqual(first, {
    id: 'SANTRA-LIFE-016',
    area: 'LIFE',
    tier: 'mandatory',
    subject: 'server',
    profile: 'core',
    section: '3.6',
    sectionTitle: '3. Lifecycle',
    text: 'The server MUST exit with code 2 on invalid arguments.',
    notCheckable: 'the suite cannot know them.',
  });
  assert.deepEqual([second?.subject, second?.tier], ['client', 'advisory']);
});

test('a repeated id or an unknown tier is refused with the id', () => {
  assert.throws(
    () =>
      parseRequirements(
        '- **[SANTRA-X-001]** *(mandatory)* A MUST.\n- **[SANTRA-X-001]** *(mandatory)* B MUST.',
      ),
    /SANTRA-X-001 appears twice/,
  );
  assert.throws(
    () => parseRequirements('- **[SANTRA-X-002]** *(sometimes)* A MUST.'),
    /SANTRA-X-002: unknown tier "sometimes"/,
  );
});

test('*(Santra profile)* after the tier puts a requirement in the profile; another marker is refused', () => {
  const [gated, plain] = parseRequirements(
    [
      '- **[SANTRA-X-001]** *(capability-gated: `fs/readTextFile`)* *(Santra profile)* The server MUST',
      '  read it.',
      '- **[SANTRA-X-002]** *(mandatory)* *Emphasis* in the text MUST stay text.',
    ].join('\n'),
  );
  assert.deepEqual(
    [gated?.profile, gated?.capability, gated?.text],
    ['santra', 'fs/readTextFile', 'The server MUST read it.'],
  );
  assert.deepEqual([plain?.profile, plain?.text], ['core', '*Emphasis* in the text MUST stay text.']);
  assert.throws(
    () => parseRequirements('- **[SANTRA-X-003]** *(mandatory)* *(santra)* A MUST.'),
    /SANTRA-X-003: unknown marker "\*\(santra\)\*" after the tier; the only one is \*\(Santra profile\)\*/,
  );
  assert.throws(
    () => parseRequirements('- **[SANTRA-X-004]** *(client: mandatory)* *(Santra profile)* A MUST.'),
    /SANTRA-X-004: binds the client, which has no Santra profile/,
  );
});

test('the requirements the spec puts in the Santra profile all bind the server', () => {
  const santra = loadRequirements().filter((r) => r.profile === 'santra');
  assert.ok(santra.length > 0);
  assert.ok(santra.every((r) => r.subject === 'server'));
});
