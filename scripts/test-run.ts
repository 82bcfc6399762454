/**
 * `npm test` after check and build: `node --test` with the arguments given, then a check that the
 * run left no `santra-*` temp entries behind (every test removes what it creates; see
 * scripts/temp-dirs.ts). Exits with node --test's code, or 1 when something was left behind.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tempLeftovers } from './check-temp-leftovers.ts';

// The tests get a temp folder of their own (TMPDIR, which os.tmpdir() and the programs they start
// honour), so another run on the same machine can neither count as theirs nor hide theirs.
const own = mkdtempSync(join(tmpdir(), 'test-run-'));
// Others may pass through it (not list it): the PostgreSQL tests run their server as the postgres
// user, on a data directory inside it (server/test/helpers/stores.ts).
chmodSync(own, 0o711);
const started = Date.now();
const tests = spawn(process.execPath, ['--test', ...process.argv.slice(2)], {
  stdio: 'inherit',
  // Memory's extraction after runs is a model call of its own, which no scripted fake expects: off
  // for every program a test starts with this environment (the memory tests turn it on).
  env: { ...process.env, TMPDIR: own, SANTRA_MEMORY_AUTO_EXTRACT: '0' },
});
const [code, signal] = (await once(tests, 'exit')) as [number | null, NodeJS.Signals | null];

const leftovers = await tempLeftovers(started, own);
rmSync(own, { recursive: true, force: true });
if (leftovers.length > 0) {
  console.error(
    `\nThe tests left ${leftovers.length} temp entries behind; each test must remove what it creates:`,
  );
  for (const path of leftovers) console.error(`  ${path}`);
}
if (code !== 0) {
  if (signal !== null) console.error(`node --test was ended by ${signal}`);
  process.exitCode = code ?? 1;
} else if (leftovers.length > 0) {
  process.exitCode = 1;
}
