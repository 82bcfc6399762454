/**
 * `npm test` after check and build: `node --test` with the arguments given, then a check that the
 * run left no `santra-*` temp entries behind (every test removes what it creates; see
 * scripts/temp-dirs.ts). Exits with node --test's code, or 1 when something was left behind.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { tempLeftovers } from './check-temp-leftovers.ts';

const started = Date.now();
const tests = spawn(process.execPath, ['--test', ...process.argv.slice(2)], { stdio: 'inherit' });
const [code, signal] = (await once(tests, 'exit')) as [number | null, NodeJS.Signals | null];

const leftovers = await tempLeftovers(started);
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
