import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { commandTools } from '../src/tools/groups/commands.ts';
import { gitDiffTool } from '../src/tools/git-diff.ts';
import { gitStatusTool } from '../src/tools/git-status.ts';
import { tempWorkspace, testContext } from './helpers/tool-context.ts';

const status = gitStatusTool();
const diff = gitDiffTool();

/** Runs git for the test's own setup, never reading the real home's or the system's config. */
function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], {
    cwd,
    env: { PATH: process.env.PATH, HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    encoding: 'utf8',
  });
}

/** A repository with one commit of a.txt and b.txt. */
async function repository(): Promise<string> {
  const root = await tempWorkspace('santra-git-');
  git(root, 'init', '-q', '-b', 'main');
  await writeFile(join(root, 'a.txt'), 'one\ntwo\nthree\n');
  await writeFile(join(root, 'b.txt'), 'bee\n');
  git(root, 'add', '.');
  git(root, 'commit', '-q', '-m', 'initial');
  return root;
}

/** A context whose git cannot find a repository above `ceiling` (default: the root's parent). */
async function contextFor(root: string, settings = {}, ceiling = dirname(root)) {
  return testContext(root, {
    env: { PATH: process.env.PATH, HOME: root, GIT_CEILING_DIRECTORIES: ceiling },
    settings,
  });
}

describe('git_status', () => {
  test('a clean repository', async () => {
    const root = await repository();
    const result = await status.execute({}, await contextFor(root));
    assert.equal(result.summary, 'clean');
    assert.equal(
      result.output,
      'On branch main (no upstream).\nNothing to commit: the working tree is clean.',
    );
  });

  test('staged, unstaged, renamed and untracked files, asking no one', async () => {
    const root = await repository();
    await writeFile(join(root, 'a.txt'), 'one\nTWO\nthree\n');
    await writeFile(join(root, 'c.txt'), 'new\n');
    await writeFile(join(root, 'd e.txt'), 'untracked, with a space\n');
    await writeFile(join(root, 'quote".txt'), 'untracked, with a quote\n');
    await mkdir(join(root, 'newdir'));
    await writeFile(join(root, 'newdir', 'f.txt'), 'untracked directory\n');
    git(root, 'add', 'c.txt');
    git(root, 'mv', 'b.txt', 'renamed.txt');
    const context = await contextFor(root);
    const result = await status.execute({}, context);
    assert.equal(result.summary, '2 staged, 1 modified, 3 untracked');
    assert.equal(
      result.output,
      [
        'On branch main (no upstream).',
        'Staged for commit (2):',
        '  added: c.txt',
        '  renamed: b.txt -> renamed.txt',
        'Not staged (1):',
        '  modified: a.txt',
        'Untracked (3):',
        '  d e.txt',
        '  newdir/',
        '  quote".txt',
      ].join('\n'),
    );
    assert.deepEqual(context.gateRequests, []);
  });

  test('a conflict is listed as one', async () => {
    const root = await repository();
    git(root, 'checkout', '-q', '-b', 'other');
    await writeFile(join(root, 'a.txt'), 'other\n');
    git(root, 'commit', '-q', '-am', 'other');
    git(root, 'checkout', '-q', 'main');
    await writeFile(join(root, 'a.txt'), 'main\n');
    git(root, 'commit', '-q', '-am', 'main');
    assert.throws(() => git(root, 'merge', '-q', 'other'));
    const result = await status.execute({}, await contextFor(root));
    assert.match(result.output, /Conflicts, to resolve \(1\):\n {2}both modified: a\.txt/);
    assert.match(result.summary, /^1 conflicts/);
  });

  test('a repository without commits', async () => {
    const root = await tempWorkspace('santra-git-');
    git(root, 'init', '-q', '-b', 'trunk');
    const result = await status.execute({}, await contextFor(root));
    assert.match(result.output, /^On branch trunk \(no commits yet\)\./);
  });

  test('a workspace in a subdirectory sees only its part, with paths relative to it', async () => {
    const repo = await repository();
    await mkdir(join(repo, 'pkg'));
    await writeFile(join(repo, 'pkg', 'x.txt'), 'x\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'pkg');
    await writeFile(join(repo, 'pkg', 'x.txt'), 'changed\n');
    await writeFile(join(repo, 'a.txt'), 'changed outside the workspace\n');
    const context = await contextFor(join(repo, 'pkg'), {}, dirname(repo));
    const statusResult = await status.execute({}, context);
    assert.match(statusResult.output, /Not staged \(1\):\n {2}modified: x\.txt$/);
    assert.doesNotMatch(statusResult.output, /a\.txt/);
    const diffResult = await diff.execute({}, context);
    assert.match(diffResult.output, /^diff --git a\/x\.txt b\/x\.txt$/m);
    assert.doesNotMatch(diffResult.output, /a\.txt/);
  });

  test('outside a repository: a clear error', async () => {
    const root = await tempWorkspace('santra-nogit-');
    const result = await status.execute({}, await contextFor(root));
    assert.equal(result.isError, true);
    assert.equal(result.errorType, 'not_a_repository');
    assert.match(result.output, /is not inside a git repository/);
  });
});

describe('git_diff', () => {
  test('unstaged changes by default, staged ones with staged: true', async () => {
    const root = await repository();
    await writeFile(join(root, 'a.txt'), 'one\nTWO\nthree\n');
    await writeFile(join(root, 'c.txt'), 'new\n');
    git(root, 'add', 'c.txt');
    const context = await contextFor(root);

    const unstaged = await diff.execute({}, context);
    assert.equal(unstaged.summary, '1 file, +1 -1');
    assert.match(
      unstaged.output,
      /^1 file changed, 1 insertion\(\+\), 1 deletion\(-\)\n\ndiff --git a\/a\.txt b\/a\.txt\n/,
    );
    assert.match(unstaged.output, /^-two\n\+TWO$/m);
    assert.doesNotMatch(unstaged.output, /c\.txt/);

    const staged = await diff.execute({ staged: true }, context);
    assert.equal(staged.summary, '1 file, +1 -0');
    assert.match(staged.output, /^diff --git a\/c\.txt b\/c\.txt$/m);
    assert.match(staged.output, /^\+new$/m);
    assert.doesNotMatch(staged.output, /a\.txt/);
    assert.deepEqual(context.gateRequests, []);
  });

  test('only the given path', async () => {
    const root = await repository();
    await writeFile(join(root, 'a.txt'), 'changed\n');
    await writeFile(join(root, 'b.txt'), 'changed\n');
    const result = await diff.execute({ path: 'b.txt' }, await contextFor(root));
    assert.match(result.output, /^diff --git a\/b\.txt b\/b\.txt$/m);
    assert.doesNotMatch(result.output, /a\.txt/);
  });

  test('says so when there is nothing to show', async () => {
    const root = await repository();
    const context = await contextFor(root);
    const unstaged = await diff.execute({}, context);
    assert.equal(unstaged.summary, 'no changes');
    assert.match(unstaged.output, /^No unstaged changes: the working tree matches the index\./);
    const staged = await diff.execute({ staged: true, path: 'a.txt' }, context);
    assert.equal(staged.output, 'No staged changes in a.txt: the index matches HEAD.');
  });

  test('a long diff is cut to the output limit', async () => {
    const root = await repository();
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i}\n`).join('');
    await writeFile(join(root, 'a.txt'), lines);
    const result = await diff.execute({}, await contextFor(root, { commandOutputLimit: 5_000 }));
    assert.ok(Buffer.byteLength(result.output) < 5_200, `${Buffer.byteLength(result.output)} bytes`);
    assert.match(result.output, /\[… \d+ bytes of output cut …\]/);
    assert.match(result.output, /^\+line 19999$/m);
    assert.equal(result.summary, '1 file, +20000 -3');
  });

  test('refuses a path outside the workspace without running git', async () => {
    const parent = await tempWorkspace();
    const root = join(parent, 'proj');
    await mkdir(root);
    git(root, 'init', '-q');
    for (const [path, errorType] of [
      ['../x', 'outside_workspace'],
      ['/etc/passwd', 'outside_workspace'],
      [join(parent, 'proj-evil'), 'outside_workspace'],
      ['a\u0000b', 'invalid_path'],
    ] as const) {
      const result = await diff.execute({ path }, await contextFor(root));
      assert.equal(result.errorType, errorType, path);
    }
  });

  test('outside a repository: a clear error', async () => {
    const root = await tempWorkspace('santra-nogit-');
    const result = await diff.execute({}, await contextFor(root));
    assert.equal(result.errorType, 'not_a_repository');
  });

  test('refuses, without running it, an external diff driver configured in the repository', async () => {
    const root = await repository();
    const marker = join(root, 'ran');
    git(root, 'config', 'diff.external', `touch ${marker}; true`);
    await writeFile(join(root, 'a.txt'), 'changed\n');
    const result = await diff.execute({}, await contextFor(root));
    assert.equal(result.errorType, 'unsafe_repository');
    assert.match(result.output, /diff\.external is set in .*\.git\/config \(local configuration/);
    assert.match(result.output, /use run_command, which asks them first/);
    assert.equal(existsSync(marker), false);
  });

  test('git_status refuses, without running it, an fsmonitor hook configured in the repository', async () => {
    const root = await repository();
    const marker = join(root, 'ran');
    git(root, 'config', 'core.fsmonitor', `touch ${marker}; true`);
    await writeFile(join(root, 'a.txt'), 'changed\n');
    const result = await status.execute({}, await contextFor(root));
    assert.equal(result.errorType, 'unsafe_repository');
    assert.match(result.output, /core\.fsmonitor is set in/);
    assert.equal(existsSync(marker), false);
  });

  test('a boolean core.fsmonitor (the daemon built into git, not a hook) is not refused', async () => {
    const root = await repository();
    git(root, 'config', 'core.fsmonitor', 'false');
    await writeFile(join(root, 'a.txt'), 'changed\n');
    const result = await status.execute({}, await contextFor(root));
    assert.match(result.output, /modified: a\.txt/);
  });
});

describe('commandTools', () => {
  test('lists run_command, git_status and git_diff with their kinds', () => {
    assert.deepEqual(
      commandTools().map((tool) => [tool.name, tool.kind]),
      [
        ['run_command', 'execute'],
        ['git_status', 'read'],
        ['git_diff', 'read'],
      ],
    );
  });
});
