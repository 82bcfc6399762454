/**
 * The §7.5 scenarios (src/scenarios/files.ts) fail servers that mishandle the editor a client
 * lends them (test/fixtures/editor-proxy.ts), each with the requirement it breaks named in the
 * report. Runs the built dist/santra-conformance.js against the proxy wrapping the built
 * dist/santra-server.js, which itself passes them all (scripts/test/conformance-santra.test.ts).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const suite = join(root, 'dist/santra-conformance.js');
const server = join(root, 'dist/santra-server.js');
const proxy = join(root, 'conformance-tests/test/fixtures/editor-proxy.ts');

const FILES = ['001', '002', '003', '004', '005', '006', '008', '009', '011'].map((n) => `SANTRA-FILES-${n}`);

interface Report {
  requirements: { id: string; status: string }[];
}

/** Runs the suite's §7.5 checks on the proxy in `mode`; the exit status, the failed ids and the text report. */
async function check(mode: string): Promise<{ status: number | null; failed: string[]; stdout: string }> {
  const dir = tempDir('santra-conformance-files-');
  try {
    const file = join(dir, 'report.json');
    const run = spawnSync(
      process.execPath,
      [
        suite,
        '--only',
        FILES.join(','),
        '--json',
        file,
        '--',
        process.execPath,
        proxy,
        mode,
        '--',
        process.execPath,
        server,
      ],
      { encoding: 'utf8', cwd: root, timeout: 240_000 },
    );
    const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
    const failed = report.requirements.filter((r) => r.status === 'failed').map((r) => r.id);
    return { status: run.status, failed, stdout: run.stdout };
  } finally {
    await removeTempDir(dir);
  }
}

test('a server that ignores the editor the client lends fails the §7.5 requirements', async () => {
  const { status, failed, stdout } = await check('ignore-editor');
  assert.equal(status, 1);
  assert.deepEqual(
    failed,
    FILES.filter((id) => id !== 'SANTRA-FILES-003'),
    stdout,
  );
  assert.match(stdout, /FAIL SANTRA-FILES-001 .*fs\/readTextFile paths \[\]/);
  assert.match(stdout, /FAIL SANTRA-FILES-011 .*after-error\.txt created by the server/);
});

test('a server that reads the disk where the client holds other text fails SANTRA-FILES-002 and -004', async () => {
  const { status, failed, stdout } = await check('disk-reads');
  assert.equal(status, 1);
  assert.ok(failed.includes('SANTRA-FILES-002') && failed.includes('SANTRA-FILES-004'), stdout);
  assert.ok(!failed.includes('SANTRA-FILES-001') && !failed.includes('SANTRA-FILES-003'), stdout);
  assert.match(
    stdout,
    /FAIL SANTRA-FILES-002 .*the model was sent the client's text: false, the disk's: true/,
  );
  assert.match(stdout, /transcript of scenario files: reads through the client's buffers/);
});

test('a server that leaks a key to the terminal and runs a failed command itself fails -009 and -011', async () => {
  const { status, failed, stdout } = await check('leaky-terminal');
  assert.equal(status, 1);
  assert.deepEqual(failed, ['SANTRA-FILES-009', 'SANTRA-FILES-011'], stdout);
  assert.match(stdout, /FAIL SANTRA-FILES-009 .*the server was started with ANTHROPIC_API_KEY/);
  assert.match(
    stdout,
    /FAIL SANTRA-FILES-011 .*after an error answer to terminal\/run: .*after-error\.txt created by the server/,
  );
});

test("a server whose terminal/run env and unsetEnv differ from its own commands' environment fails -009", async () => {
  const { status, failed, stdout } = await check('undeclared-env');
  assert.equal(status, 1);
  assert.deepEqual(failed, ['SANTRA-FILES-009'], stdout);
  assert.match(stdout, /EDITOR is set for the server's own commands but not in env/);
  assert.match(stdout, /SANTRA_HOME is kept from the server's own commands but not in unsetEnv/);
  assert.match(stdout, /env sets PAGER, which the server's own commands do not get/);
});
