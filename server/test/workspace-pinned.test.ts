/**
 * The pinned directory under the file tools, and the temp files of atomic writes: a swap after the
 * check cannot redirect a pinned change, and a writer killed mid-write leaves nothing behind for
 * long (a real child process, killed with SIGKILL).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, type TestContext as NodeTestContext, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { atomicWriteIn, isAtomicWriteTemp } from '../src/workspace/atomic-write.ts';
import { forcePortablePinning, pinDirectory, type PinnedDir } from '../src/workspace/pinned-dir.ts';
import { PathError, Workspace } from '../src/workspace/workspace.ts';
import { run } from './helpers/file-tools.ts';
import { tempWorkspace, testContext } from './helpers/tool-context.ts';

const LINUX = process.platform === 'linux';

async function base(t: NodeTestContext): Promise<{ root: string; outside: string; workspace: Workspace }> {
  const dir = await tempWorkspace('santra-pinned-');
  t.after(() => rm(dir, { recursive: true, force: true }));
  const root = join(dir, 'proj');
  const outside = join(dir, 'outside');
  await mkdir(join(root, 'sub'), { recursive: true });
  await mkdir(outside);
  return { root, outside, workspace: await Workspace.open(root) };
}

async function pin(workspace: Workspace, dir: string): Promise<PinnedDir> {
  const pinned = await pinDirectory(workspace, dir, { create: false, display: 'sub/a.txt' });
  assert.ok(pinned);
  return pinned;
}

describe('a swap after the directory was pinned', () => {
  test(
    'pinned by fd (Linux): the write lands in the checked directory, never through the link',
    { skip: !LINUX },
    async (t) => {
      const { root, outside, workspace } = await base(t);
      const pinned = await pin(workspace, join(root, 'sub'));
      try {
        assert.match(pinned.location, /^\/proc\/self\/fd\/\d+$/);
        await rename(join(root, 'sub'), join(root, 'sub.orig'));
        await symlink(outside, join(root, 'sub'));
        await atomicWriteIn(pinned, 'a.txt', 'inside\n');
        await mkdir(pinned.entry('made'));
      } finally {
        await pinned.close();
      }
      assert.deepEqual(await readdir(outside), []);
      assert.deepEqual((await readdir(join(root, 'sub.orig'))).sort(), ['a.txt', 'made']);
      assert.equal(await readFile(join(root, 'sub.orig', 'a.txt'), 'utf8'), 'inside\n');
    },
  );

  test(
    'pinned by fd (Linux): a directory renamed out of the workspace is refused before the write',
    { skip: !LINUX },
    async (t) => {
      const { root, outside, workspace } = await base(t);
      const pinned = await pin(workspace, join(root, 'sub'));
      try {
        await rename(join(root, 'sub'), join(outside, 'sub'));
        await assert.rejects(atomicWriteIn(pinned, 'a.txt', 'x\n'), (error: unknown) => {
          assert.ok(error instanceof PathError);
          assert.equal(error.kind, 'outside_workspace');
          assert.match(error.message, /^sub \(the directory of sub\/a\.txt\) was moved to .*outside/);
          return true;
        });
      } finally {
        await pinned.close();
      }
      assert.deepEqual(await readdir(join(outside, 'sub')), [], 'neither the file nor its temp file');
    },
  );

  test('portable: the re-check right before the rename refuses the swapped directory', async (t) => {
    forcePortablePinning(true);
    t.after(() => forcePortablePinning(false));
    const { root, outside, workspace } = await base(t);
    const pinned = await pin(workspace, join(root, 'sub'));
    assert.equal(pinned.location, join(root, 'sub'));
    await rename(join(root, 'sub'), join(root, 'sub.orig'));
    await symlink(outside, join(root, 'sub'));
    await assert.rejects(atomicWriteIn(pinned, 'a.txt', 'x\n'), (error: unknown) => {
      assert.ok(error instanceof PathError);
      assert.equal(error.kind, 'outside_workspace');
      assert.match(error.message, /^sub \(on the way to sub\/a\.txt\) is now a symbolic link to /);
      return true;
    });
    assert.deepEqual(await readdir(outside), []);
  });

  test('a workspace root replaced by another directory is refused', async (t) => {
    const { root, workspace } = await base(t);
    await rename(root, `${root}.old`);
    await mkdir(join(root, 'sub'), { recursive: true });
    await assert.rejects(pin(workspace, join(root, 'sub')), /no longer the directory Santra opened/);
  });
});

describe('an allowed directory outside the root', () => {
  test('is pinned from its own top: files are written and moved there, across file systems too', async (t) => {
    const { root } = await base(t);
    // /dev/shm is another file system on most Linux machines: the move then copies and unlinks.
    const elsewhere = await mkdtemp(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'santra-allowed-'));
    t.after(() => rm(elsewhere, { recursive: true, force: true }));
    const context = await testContext(root, { allowedDirs: [elsewhere] });
    await writeFile(join(root, 'mine.txt'), 'mine\n');
    await chmod(join(root, 'mine.txt'), 0o640);
    const written = await run(context, 'write_file', { path: join(elsewhere, 'new/a.txt'), content: 'a\n' });
    assert.equal(written.isError, undefined, written.output);
    const moved = await run(context, 'move_file', { from: 'mine.txt', to: join(elsewhere, 'new/mine.txt') });
    assert.equal(moved.isError, undefined, moved.output);
    assert.equal(await readFile(join(elsewhere, 'new', 'mine.txt'), 'utf8'), 'mine\n');
    assert.equal((await stat(join(elsewhere, 'new', 'mine.txt'))).mode & 0o777, 0o640);
    assert.deepEqual(await readdir(root), ['sub']);
    assert.deepEqual((await readdir(join(elsewhere, 'new'))).sort(), ['a.txt', 'mine.txt']);
  });
});

describe('temp files of atomic writes', () => {
  test('are recognised by name, old and new forms', () => {
    for (const name of [
      '.a.txt.santra-123-0123456789ab.tmp',
      '.santra-9-0123456789ab.tmp',
      '.x.santra-0123456789ab.tmp',
    ])
      assert.equal(isAtomicWriteTemp(name), true, name);
    for (const name of [
      'a.txt',
      '.santra-x.tmp',
      'santra-1-0123456789ab.tmp',
      '.a.santra-1-0123456789ab.tmp.bak',
    ])
      assert.equal(isAtomicWriteTemp(name), false, name);
  });

  test('a writer killed with SIGKILL mid-write leaves none behind once the next write happens there', async (t) => {
    const { root } = await base(t);
    const dir = join(root, 'sub');
    const leftovers = async () => (await readdir(dir)).filter((name) => name.includes('.santra-'));
    const children = new Set<ChildProcess>();
    t.after(() => {
      for (const child of children) child.kill('SIGKILL');
    });
    const context = await testContext(root);
    for (let round = 1; round <= 3; round++) {
      // Kill writers until one leaves its temp file (a kill right after a rename leaves none).
      for (let attempt = 0; attempt < 40 && (await leftovers()).length === 0; attempt++) {
        const child = spawnWriter(root);
        children.add(child);
        const exited = new Promise((resolve) => child.once('exit', resolve));
        while ((await leftovers()).length === 0 && child.exitCode === null) await delay(1);
        child.kill('SIGKILL');
        await exited;
        children.delete(child);
      }
      const stale = await leftovers();
      assert.equal(stale.length, 1, `round ${round}: expected the temp file of the killed writer`);
      assert.ok(stale.every(isAtomicWriteTemp), stale.join(', '));
      const result = await run(context, 'write_file', { path: 'sub/next.txt', content: `${round}\n` });
      assert.equal(result.isError, undefined, result.output);
      assert.deepEqual(await leftovers(), [], `round ${round}`);
    }
  });

  test("a live writer's temp file is kept; an old one without a pid is removed", async (t) => {
    const { root } = await base(t);
    const dir = join(root, 'sub');
    // process.ppid is alive: its temp file may be mid-write.
    const live = `.a.txt.santra-${process.ppid}-0123456789ab.tmp`;
    const legacy = '.a.txt.santra-ba9876543210.tmp';
    const recentLegacy = '.b.txt.santra-ab9876543210.tmp';
    for (const name of [live, legacy, recentLegacy]) await writeFile(join(dir, name), 'partial');
    const old = new Date(Date.now() - 20 * 60 * 1000);
    await utimes(join(dir, legacy), old, old);
    const context = await testContext(root);
    assert.equal(
      (await run(context, 'write_file', { path: 'sub/c.txt', content: 'c\n' })).isError,
      undefined,
    );
    assert.deepEqual((await readdir(dir)).sort(), [live, recentLegacy, 'c.txt'].sort());
  });
});

/** A child process that rewrites sub/big.txt (4 MB) with write_file, over and over, until killed. */
function spawnWriter(root: string): ChildProcess {
  const helpers = (name: string) => pathToFileURL(join(import.meta.dirname, 'helpers', name)).href;
  const script = `
    import { run } from ${JSON.stringify(helpers('file-tools.ts'))};
    import { testContext } from ${JSON.stringify(helpers('tool-context.ts'))};
    const context = await testContext(${JSON.stringify(root)});
    for (let round = 0; ; round++) {
      const result = await run(context, 'write_file', { path: 'sub/big.txt', content: String(round % 10).repeat(4 << 20) });
      if (result.isError) { console.error(result.output); process.exit(1); }
    }
  `;
  return spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
