/**
 * A directory swapped for a symbolic link while a change waits for approval (the user looking at
 * the diff) must not send the change outside the workspace: every changing tool re-checks the
 * path at the moment it writes, deletes or moves, and refuses a link swapped in on the way.
 */
import assert from 'node:assert/strict';
import { link, mkdir, readdir, readFile, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, type TestContext as NodeTestContext, test } from 'node:test';
import { forcePortablePinning } from '../src/workspace/pinned-dir.ts';
import { run } from './helpers/file-tools.ts';
import { type TestContext, tempWorkspace, testContext } from './helpers/tool-context.ts';

/** Path → content (or link target) of everything under `dir`. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const absolute = join(entry.parentPath, entry.name);
    if (entry.isSymbolicLink()) result[absolute] = `link:${await readlink(absolute)}`;
    else if (entry.isFile()) result[absolute] = await readFile(absolute, 'utf8');
    else result[absolute] = 'dir';
  }
  return result;
}

interface Setup {
  root: string;
  outside: string;
  context: TestContext;
}

/**
 * proj/ (the workspace) with sub/a.txt and mine.txt, and outside/ next to it holding an a.txt
 * with the same content, so a write that lands there passes every content check.
 */
async function setup(t: NodeTestContext): Promise<Setup> {
  const base = await tempWorkspace('santra-swap-');
  t.after(() => rm(base, { recursive: true, force: true }));
  const root = join(base, 'proj');
  const outside = join(base, 'outside');
  await mkdir(join(root, 'sub'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(root, 'sub', 'a.txt'), 'alpha\nbeta\n');
  await writeFile(join(root, 'mine.txt'), 'mine\n');
  await writeFile(join(outside, 'a.txt'), 'alpha\nbeta\n');
  return { root, outside, context: await testContext(root) };
}

/** While the user looks at the diff, `dir` (in the workspace) becomes a link to `outside`. */
function swapOnApproval({ root, outside, context }: Setup, dir: string): void {
  let swapped = false;
  context.beforeDecision = async () => {
    if (swapped) return;
    swapped = true;
    const absolute = join(root, dir);
    await rename(absolute, `${absolute}.orig`).catch(() => {});
    await symlink(outside, absolute);
  };
}

/** Right after the workspace resolves a path (once), sub becomes a link to `outside`. */
function swapAfterResolving({ root, outside, context }: Setup): void {
  const { workspace } = context;
  let swapped = false;
  const swap = async <T>(resolved: T): Promise<T> => {
    if (!swapped) {
      swapped = true;
      await rename(join(root, 'sub'), join(root, 'sub.orig'));
      await symlink(outside, join(root, 'sub'));
    }
    return resolved;
  };
  const forRead = workspace.resolveForRead.bind(workspace);
  const forWrite = workspace.resolveForWrite.bind(workspace);
  workspace.resolveForRead = async (input) => swap(await forRead(input));
  workspace.resolveForWrite = async (input) => swap(await forWrite(input));
}

const attacks: Array<{ label: string; swap: string; tool: string; args: Record<string, unknown> }> = [
  {
    label: 'write_file of a new file',
    swap: 'sub',
    tool: 'write_file',
    args: { path: 'sub/new.txt', content: 'x\n' },
  },
  {
    label: 'write_file over an existing file',
    swap: 'sub',
    tool: 'write_file',
    args: { path: 'sub/a.txt', content: 'alpha\nbeta\n(pwned)\n' },
  },
  {
    label: 'str_replace',
    swap: 'sub',
    tool: 'str_replace',
    args: { path: 'sub/a.txt', oldStr: 'beta', newStr: 'pwned' },
  },
  {
    label: 'multi_edit',
    swap: 'sub',
    tool: 'multi_edit',
    args: { path: 'sub/a.txt', edits: [{ oldStr: 'beta', newStr: 'pwned' }] },
  },
  { label: 'delete_file', swap: 'sub', tool: 'delete_file', args: { path: 'sub/a.txt' } },
  {
    label: 'move_file (destination)',
    swap: 'sub',
    tool: 'move_file',
    args: { from: 'mine.txt', to: 'sub/mine.txt' },
  },
  {
    label: 'move_file (destination in a new directory)',
    swap: 'sub',
    tool: 'move_file',
    args: { from: 'mine.txt', to: 'sub/new/mine.txt' },
  },
  {
    label: 'a nested new path under an existing directory',
    swap: 'sub',
    tool: 'write_file',
    args: { path: 'sub/deep/er/new.txt', content: 'x\n' },
  },
  {
    label: 'a nested new path whose first new directory appears as a link',
    swap: 'fresh',
    tool: 'write_file',
    args: { path: 'fresh/deep/new.txt', content: 'x\n' },
  },
];

for (const mode of ['pinned', 'portable'] as const) {
  describe(`a directory swapped for a link to outside during approval (${mode})`, () => {
    test.before(() => forcePortablePinning(mode === 'portable'));
    test.after(() => forcePortablePinning(false));

    for (const attack of attacks) {
      test(`${attack.label}: nothing lands outside, the error names the path and why`, async (t) => {
        const state = await setup(t);
        const before = await snapshot(state.outside);
        swapOnApproval(state, attack.swap);
        const result = await run(state.context, attack.tool, attack.args);
        assert.equal(result.isError, true, result.output);
        assert.equal(result.errorType, 'outside_workspace', result.output);
        assert.match(result.output, new RegExp(`\\b${attack.swap}\\b.*symbolic link.*outside the workspace`));
        assert.match(result.output, /[Nn]othing was (written|deleted|moved|changed)/);
        assert.deepEqual(await snapshot(state.outside), before);
        // The server keeps working: the next change (the link is gone again) goes through.
        await rm(join(state.root, attack.swap));
        const next = await run(state.context, 'write_file', { path: 'after.txt', content: 'ok\n' });
        assert.equal(next.isError, undefined, next.output);
        assert.equal(await readFile(join(state.root, 'after.txt'), 'utf8'), 'ok\n');
      });
    }

    test('move_file (source): an outside entry of the same file is never moved in', async (t) => {
      const state = await setup(t);
      // The attacker's outside a.txt is the very file (a hard link), so identity checks alone pass.
      await rm(join(state.outside, 'a.txt'));
      await link(join(state.root, 'sub', 'a.txt'), join(state.outside, 'a.txt'));
      const before = await snapshot(state.outside);
      swapOnApproval(state, 'sub');
      const result = await run(state.context, 'move_file', { from: 'sub/a.txt', to: 'taken.txt' });
      assert.equal(result.errorType, 'outside_workspace', result.output);
      assert.match(result.output, /\bsub\b.*symbolic link.*outside the workspace/);
      assert.deepEqual(await snapshot(state.outside), before);
      assert.deepEqual(await readdir(state.root), ['mine.txt', 'sub', 'sub.orig']);
    });

    test('read_file: a directory swapped right after the path was resolved is not read through', async (t) => {
      const state = await setup(t);
      await writeFile(join(state.outside, 'a.txt'), 'SECRET outside\n');
      swapAfterResolving(state);
      const result = await run(state.context, 'read_file', { path: 'sub/a.txt' });
      assert.equal(result.errorType, 'outside_workspace', result.output);
      assert.match(result.output, /\bsub\b.*symbolic link.*outside the workspace/);
      assert.ok(!result.output.includes('SECRET'), result.output);
    });

    test('an edit: outside content never reaches the diff shown for approval', async (t) => {
      const state = await setup(t);
      await writeFile(join(state.outside, 'a.txt'), 'alpha\nbeta\nSECRET outside\n');
      swapAfterResolving(state);
      const result = await run(state.context, 'str_replace', {
        path: 'sub/a.txt',
        oldStr: 'beta',
        newStr: 'x',
      });
      assert.equal(result.errorType, 'outside_workspace', result.output);
      assert.ok(!JSON.stringify(state.context.gateRequests).includes('SECRET'));
      assert.ok(!result.output.includes('SECRET'), result.output);
      assert.equal(await readFile(join(state.outside, 'a.txt'), 'utf8'), 'alpha\nbeta\nSECRET outside\n');
    });

    test('a directory swapped for a link inside the workspace is refused as changed, not followed', async (t) => {
      const state = await setup(t);
      await mkdir(join(state.root, 'other'));
      let swapped = false;
      state.context.beforeDecision = async () => {
        if (swapped) return;
        swapped = true;
        await rename(join(state.root, 'sub'), join(state.root, 'sub.orig'));
        await symlink(join(state.root, 'other'), join(state.root, 'sub'));
      };
      const result = await run(state.context, 'write_file', { path: 'sub/new.txt', content: 'x\n' });
      assert.equal(result.errorType, 'path_changed', result.output);
      assert.match(result.output, /\bsub\b.*symbolic link/);
      assert.deepEqual(await readdir(join(state.root, 'other')), []);
    });

    test('a directory renamed away during approval: nothing is written in its place or in it', async (t) => {
      const state = await setup(t);
      state.context.beforeDecision = () => rename(join(state.root, 'sub'), join(state.outside, 'sub'));
      const result = await run(state.context, 'str_replace', {
        path: 'sub/a.txt',
        oldStr: 'beta',
        newStr: 'x',
      });
      assert.equal(result.isError, true, result.output);
      assert.equal(await readFile(join(state.outside, 'sub', 'a.txt'), 'utf8'), 'alpha\nbeta\n');
    });
  });
}
