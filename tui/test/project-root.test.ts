/** The workspace is the project the user is in: the nearest directory with .git, else where they are. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { findWorkplace, promptCwd } from '../src/client/project-root.ts';

const top = realpathSync(mkdtempSync(join(tmpdir(), 'santra-root-')));
after(() => rmSync(top, { recursive: true, force: true }));

test('from a subdirectory of a repository, the root is the repository and the start is kept', () => {
  const repo = join(top, 'repo');
  mkdirSync(join(repo, '.git'), { recursive: true });
  mkdirSync(join(repo, 'src/deep'), { recursive: true });
  const place = findWorkplace(join(repo, 'src/deep'), false);
  assert.deepEqual(place, { root: repo, start: join(repo, 'src/deep') });
  assert.equal(promptCwd(place), join('src', 'deep'));
  assert.equal(promptCwd(findWorkplace(repo, false)), undefined);
});

test('a .git file (worktree, submodule) marks a root too; the nearest one wins', () => {
  const outer = join(top, 'outer');
  const inner = join(outer, 'vendor/lib');
  mkdirSync(join(outer, '.git'), { recursive: true });
  mkdirSync(join(inner, 'src'), { recursive: true });
  writeFileSync(join(inner, '.git'), 'gitdir: ../../.git/modules/lib\n');
  assert.equal(findWorkplace(join(inner, 'src'), false).root, inner);
});

test('outside any repository the start directory is the root; --cwd is the root outright', () => {
  const plain = join(top, 'plain/sub');
  mkdirSync(plain, { recursive: true });
  assert.deepEqual(findWorkplace(plain, false), { root: plain, start: plain });
  const repo = join(top, 'repo');
  assert.deepEqual(findWorkplace(join(repo, 'src'), true), {
    root: join(repo, 'src'),
    start: join(repo, 'src'),
  });
});
