import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const bin = fileURLToPath(new URL('../../dist/santra.js', import.meta.url));
const run = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });

test('santra prints its version and help, and refuses unknown options', () => {
  const version = run('--version');
  assert.equal(version.status, 0);
  assert.match(version.stdout, /^santra \d+\.\d+\.\d+ \(protocol \d+\.\d+\.\d+\)\n$/);
  const help = run();
  assert.equal(help.status, 0);
  assert.match(help.stdout, /Usage: santra \[options\]/);
  assert.match(help.stdout, /santra-server/);
  const bad = run('--frobnicate');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /Unknown option '--frobnicate'/);
});
