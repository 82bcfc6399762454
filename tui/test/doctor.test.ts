/**
 * `santra doctor`'s report: what it prints and its exit status for each thing the server can say
 * of its sandbox (the server's probe is tested in server/test/sandbox-*.test.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { doctorReport } from '../src/print/doctor.ts';
import { sandboxStatusText } from '../src/ui/sandbox-text.ts';

test('a working sandbox: yes, the mechanism, the profile, the network; exit 0', () => {
  const report = doctorReport({
    available: true,
    mechanism: 'bubblewrap',
    profile: 'workspace-write',
    autoRun: false,
    allowedDomains: ['registry.npmjs.org'],
  });
  assert.equal(report.ok, true);
  assert.match(report.text, /^Sandbox: yes, bubblewrap/);
  assert.match(report.text, /Network: only registry\.npmjs\.org/);
  assert.match(
    sandboxStatusText(report.json as never),
    /bubblewrap, workspace-write, network to registry\.npmjs\.org/,
  );
});

test('no sandbox: why, the fix, and that commands are asked; exit 1', () => {
  const report = doctorReport({
    available: false,
    profile: 'danger-full-access',
    autoRun: false,
    allowedDomains: [],
    problem: 'AppArmor restricts unprivileged user namespaces here.',
    fix: 'write /etc/apparmor.d/bwrap',
  });
  assert.equal(report.ok, false);
  assert.match(report.text, /Sandbox: no — AppArmor/);
  assert.match(report.text, /Fix: write \/etc\/apparmor\.d\/bwrap/);
  assert.match(report.text, /each one is asked/);
  assert.equal(doctorReport(undefined).ok, false, 'a server too old to say is no sandbox');
});
