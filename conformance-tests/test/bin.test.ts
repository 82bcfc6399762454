import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const bin = fileURLToPath(new URL('../../dist/santra-conformance.js', import.meta.url));

test('santra-conformance says it checked nothing rather than passing', () => {
  const run = spawnSync(process.execPath, [bin, 'santra-server'], { encoding: 'utf8' });
  assert.equal(run.status, 2);
  assert.match(run.stderr, /not part of this build yet; no server was checked/);
});
