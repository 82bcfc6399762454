/**
 * The entry points: the build's (scripts/build.js, run by npm install and npm run build) and the
 * three programs'. An old Node gets one sentence from each (what it needs, what it found, how to
 * get it) and a failing exit code, never a stack trace; a build leaves the bins executable.
 *
 * The old Node is the first of $SANTRA_OLD_NODE, /usr/bin/node, /usr/local/bin/node older than
 * package.json's engines range, else node@20 from the npm registry through npx.
 */
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import packageJson from '../../package.json' with { type: 'json' };
import { nodeVersionOk, type NodeProcess } from '../node-version.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const range = packageJson.engines.node;
const PROGRAMS = ['santra', 'santra-server', 'santra-conformance'];
const windows = process.platform === 'win32';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'santra-entry-points-'));
  dirs.push(dir);
  return dir;
}

/** Whether Node `version` (e.g. 20.20.2) is older than the engines range (>=MAJOR.MINOR[.PATCH]). */
function olderThanRange(version: string): boolean {
  const wanted = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range);
  assert.ok(wanted, `package.json engines.node is ${range}`);
  const found = version.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const difference = (found[i] ?? 0) - Number(wanted[i + 1] ?? 0);
    if (difference !== 0) return difference < 0;
  }
  return false;
}

/** An installed Node older than the engines range, with its version. */
function findOldNode(): { node: string; version: string } {
  const candidates = [process.env.SANTRA_OLD_NODE, '/usr/bin/node', '/usr/local/bin/node'];
  for (const node of candidates) {
    if (node === undefined || node === '' || !existsSync(node)) continue;
    const probe = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    const version = probe.stdout?.trim() ?? '';
    if (probe.status === 0 && olderThanRange(version)) return { node, version };
  }
  const npx = spawnSync(
    'npx',
    ['-y', '-p', 'node@20', '--', 'node', '-p', 'process.execPath + " " + process.versions.node'],
    {
      encoding: 'utf8',
      shell: windows,
      timeout: 240_000,
    },
  );
  const [node, version] = (npx.stdout ?? '').trim().split(' ');
  assert.ok(
    npx.status === 0 && node !== undefined && version !== undefined && olderThanRange(version),
    `no Node older than ${range} found (SANTRA_OLD_NODE, /usr/bin/node, npx -p node@20): ${npx.stderr}`,
  );
  return { node, version };
}

/** Asserts the one-line refusal: range, found version, how to get a Node; no stack trace. */
function assertRefused(result: SpawnSyncReturns<string>, program: string, version: string): void {
  const what = `${program} under Node ${version}`;
  assert.ok(result.status !== null && result.status !== 0, `${what} exits non-zero, not ${result.status}`);
  assert.equal(result.stdout, '', `${what} writes nothing to stdout`);
  assert.match(result.stderr, /^[^\n]+\n$/, `${what} writes one line to stderr: ${result.stderr}`);
  assert.ok(result.stderr.includes(`Node.js ${range}`), `${what} names the range ${range}: ${result.stderr}`);
  assert.ok(result.stderr.includes(`Node.js v${version}`), `${what} names v${version}: ${result.stderr}`);
  assert.match(
    result.stderr,
    /Install Node \d+ from https:\/\/nodejs\.org or with your version manager \(nvm install \d+\)/,
  );
  assert.doesNotMatch(result.stderr, /Error|\n\s+at |node:internal/, `${what}: no stack trace`);
}

describe('entry points', () => {
  let out = '';
  before(() => {
    // A build of our own (dist/ belongs to the tests running beside this one), over bins that an
    // older build left without the exec bit, under a umask that would withhold it too.
    out = tempDir();
    for (const program of PROGRAMS) writeFileSync(join(out, `${program}.js`), '', { mode: 0o644 });
    const umask = process.umask(0o077);
    try {
      const build = spawnSync(process.execPath, ['scripts/build.js', '--outdir', out], {
        cwd: root,
        encoding: 'utf8',
      });
      assert.equal(build.status, 0, `the build failed: ${build.stderr}`);
    } finally {
      process.umask(umask);
    }
  });

  test('a build leaves the three bins executable (0o755), and they run with this Node', () => {
    for (const program of PROGRAMS) {
      const bin = join(out, `${program}.js`);
      if (!windows) assert.equal(statSync(bin).mode & 0o777, 0o755, `${bin} is 0o755`);
      const version = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8' });
      assert.equal(version.status, 0, version.stderr);
      assert.match(version.stdout, new RegExp(`^${program} ${packageJson.version}\\b`));
    }
    if (windows) return;
    // As npm link runs it: the file itself, through its #! line, with this Node first on PATH.
    const PATH = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`;
    const santra = spawnSync(join(out, 'santra.js'), ['--version'], {
      encoding: 'utf8',
      env: { ...process.env, PATH },
    });
    assert.equal(santra.status, 0, santra.stderr);
    assert.match(santra.stdout, /^santra \d+\.\d+\.\d+ \(protocol \d+\.\d+\.\d+\)\n$/);
  });

  test('an old Node gets one sentence from each bin and from the build, and a failing exit code', () => {
    const { node, version } = findOldNode();
    for (const program of PROGRAMS) {
      const result = spawnSync(node, [join(out, `${program}.js`), '--version'], { encoding: 'utf8' });
      assertRefused(result, program, version);
    }
    const untouched = join(tempDir(), 'dist');
    const build = spawnSync(node, ['scripts/build.js', '--outdir', untouched], {
      cwd: root,
      encoding: 'utf8',
    });
    assertRefused(build, 'the build (scripts/build.js)', version);
    assert.equal(existsSync(untouched), false, 'the build did not start');
    // npm start after an install that failed on that Node: the same sentence, no stack trace.
    assertRefused(
      spawnSync(node, ['scripts/start.js', '--version'], { cwd: root, encoding: 'utf8' }),
      'npm start',
      version,
    );
  });

  test('npm start before a build says to build, in one sentence; after it, it runs santra', () => {
    // A copy of the repository's start script and what it reads, with no dist/ beside it.
    const repo = tempDir();
    for (const file of ['package.json', 'scripts/start.js', 'scripts/node-version.js']) {
      const target = join(repo, file);
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(join(root, file), target);
    }
    const unbuilt = spawnSync(process.execPath, [join(repo, 'scripts/start.js'), '--version'], {
      encoding: 'utf8',
    });
    assert.equal(unbuilt.status, 1);
    assert.equal(unbuilt.stdout, '');
    assert.match(
      unbuilt.stderr,
      /^santra is not built yet \(.*dist\/santra\.js is missing\): run npm install \(or npm run build\)[^\n]*\n$/,
    );
    assert.doesNotMatch(unbuilt.stderr, /Error|\n\s+at /);
    const built = spawnSync(process.execPath, ['scripts/start.js', '--version'], {
      cwd: root,
      encoding: 'utf8',
    });
    assert.equal(built.status, 0, built.stderr);
    assert.match(built.stdout, /^santra \d+\.\d+\.\d+ \(protocol/);
  });

  test('the check compares major, minor and patch against the engines range', () => {
    const lines: string[] = [];
    const run = (node: string, engines = range) => {
      const proc: NodeProcess = {
        versions: { node },
        version: `v${node}`,
        execPath: '/opt/node/bin/node',
        stderr: { write: (text: string) => lines.push(text) },
      };
      return { ok: nodeVersionOk(proc, 'santra', engines), exitCode: proc.exitCode };
    };
    assert.deepEqual(run('22.18.0', '>=22.18'), { ok: true, exitCode: undefined });
    assert.deepEqual(run('24.0.0', '>=22.18'), { ok: true, exitCode: undefined });
    assert.deepEqual(run('22.17.9', '>=22.18'), { ok: false, exitCode: 1 });
    assert.deepEqual(run('20.20.2', '>=22.18'), { ok: false, exitCode: 1 });
    assert.deepEqual(run('22.18.0', '>=22.18.1'), { ok: false, exitCode: 1 });
    assert.deepEqual(run('22.18.1', '>=22.18.1'), { ok: true, exitCode: undefined });
    assert.equal(lines.length, 3);
    assert.equal(
      lines[0],
      'santra needs Node.js >=22.18, but this is Node.js v22.17.9 (/opt/node/bin/node). Install Node 24 from https://nodejs.org or with your version manager (nvm install 24), then try again.\n',
    );
    // A range the check cannot read is not judged; the build refuses to write one into the bins.
    assert.deepEqual(run('0.0.0', '^22.18.0'), { ok: true, exitCode: undefined });
  });
});
