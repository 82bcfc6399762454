/**
 * A command runs unasked only when what it reads stays in the workspace, by read_file's rule
 * (symlinks resolved), after the shell expanded its globs, and when the line checked is the line
 * run. Through run_command with the real gate and policy; the fake user rejects, so whatever ran
 * ran unasked.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { inspectCommand } from '../src/approval/command-site.ts';
import { readFileTool } from '../src/tools/read-file.ts';
import { runCommandTool } from '../src/tools/run-command.ts';
import { Workspace } from '../src/workspace/workspace.ts';
import { commandEnv, gatedContext, git, scratchDir } from './helpers/gated-context.ts';

const runCommand = runCommandTool();
const SECRET = 'secret-outside-7d1e';

/** A workspace with links that lead out (to a file and a directory) and one that stays in. */
async function workspace() {
  const dir = await scratchDir(after, 'santra-confine-');
  const home = join(dir, 'home');
  const outside = join(dir, 'outside');
  const root = join(dir, 'ws');
  await mkdir(home);
  await mkdir(outside);
  await mkdir(join(root, 'sub'), { recursive: true });
  await writeFile(join(outside, 'secret.txt'), `${SECRET}\n`);
  await writeFile(join(root, 'readme.txt'), 'inside\n');
  await symlink(join(outside, 'secret.txt'), join(root, 'link'));
  await symlink(outside, join(root, 'dirlink'));
  await symlink(join(root, 'readme.txt'), join(root, 'sub', 'inlink'));
  await symlink(join(outside, 'secret.txt'), join(root, 'sub', 'deeplink'));
  return { dir, home, outside, root, context: await gatedContext(root, commandEnv(home)) };
}

describe('paths that lead out of the workspace are asked about', () => {
  const leaving = [
    'cat link',
    'head link',
    'tail -n 1 link',
    'wc -l link',
    'grep secret link',
    'ls dirlink',
    'ls dirlink/',
    'cat dirlink/secret.txt',
    'cat *',
    'head -n 5 *',
    'ls *',
    'cat sub/*',
    'grep -r secret dirlink',
    'grep -rn secret .  &&  cat sub/deeplink',
    'find dirlink/',
    'find -L . -name secret.txt',
    'grep -R secret .',
    'ls -L sub',
    'rg --follow secret',
    'git diff --no-index link readme.txt',
    'grep -flink readme.txt',
    'cat /etc/hostname',
    'cat ../outside/secret.txt',
  ];
  for (const command of leaving) {
    test(JSON.stringify(command), async () => {
      const { context } = await workspace();
      const result = await runCommand.execute({ command }, context);
      assert.equal(context.asked.length, 1, `ran unasked: ${result.output}`);
      assert.doesNotMatch(result.output, new RegExp(SECRET));
    });
  }

  test('read_file refuses the same link: the rule is the same', async () => {
    const { context } = await workspace();
    const result = await readFileTool().execute({ path: 'link' }, context);
    assert.equal(result.errorType, 'outside_workspace');
  });

  test('a link that stays inside, and plain reads, run unasked', async () => {
    const { context } = await workspace();
    for (const command of [
      'cat sub/inlink',
      'cat readme.txt',
      'ls -la',
      'ls sub',
      'grep -rn inside .',
      'wc -l *.txt',
    ]) {
      const result = await runCommand.execute({ command }, context);
      assert.equal(result.summary, 'exit 0', `${command}: ${result.output}`);
    }
    assert.deepEqual(context.asked, []);
  });

  test('an extra allowed directory counts as inside, as for read_file', async () => {
    const { root, outside, home } = await workspace();
    const allowed = await gatedContext(root, commandEnv(home));
    allowed.workspace = await Workspace.open(root, [outside]);
    const result = await runCommand.execute({ command: 'cat link' }, allowed);
    assert.deepEqual(allowed.asked, []);
    assert.match(result.output, new RegExp(SECRET));
  });
});

describe('the line checked is the line run', () => {
  for (const command of ['ls\r', 'ls\r\n', ' ls\r', 'ls\u00a0', '\uFEFFls', 'ls\u2028']) {
    test(`${JSON.stringify(command)} is asked about`, async () => {
      const { context } = await workspace();
      await runCommand.execute({ command }, context);
      // Asked (the request shows control characters visibly), so nothing ran unasked.
      assert.equal(context.asked.length, 1);
    });
  }

  test('spaces around an allowlisted command are the same command', async () => {
    const { context } = await workspace();
    const result = await runCommand.execute({ command: '  ls  ' }, context);
    assert.deepEqual(context.asked, []);
    assert.equal(result.summary, 'exit 0');
  });
});

describe('globs and programs the workspace controls', () => {
  test('a glob that expands to an option is asked about', async () => {
    const { root, context } = await workspace();
    await writeFile(join(root, 'sub', '-L'), '');
    await writeFile(join(root, 'sub', '--files0-from=list'), '');
    for (const command of ['ls *', 'wc -l *', 'cat ?L'])
      await runCommand.execute({ command, cwd: 'sub' }, context);
    assert.equal(context.asked.length, 3);
    // Relative to the workspace root the same globs expand to sub/-L: a path, not an option.
    const result = await runCommand.execute({ command: 'ls sub/-*' }, context);
    assert.equal(context.asked.length, 3, result.output);
  });

  test('a program found in the workspace through PATH is asked about, and does not run', async () => {
    const { dir, root, home } = await workspace();
    const marker = join(dir, 'MARKER');
    await mkdir(join(root, 'bin'));
    await writeFile(join(root, 'bin', 'ls'), `#!/bin/sh\ntouch '${marker}'\n`);
    await chmod(join(root, 'bin', 'ls'), 0o755);
    for (const path of [
      `${join(root, 'bin')}:${process.env.PATH}`,
      `bin:${process.env.PATH}`,
      `:${process.env.PATH}`,
    ]) {
      const context = await gatedContext(root, commandEnv(home, { PATH: path }));
      const cwd = path.startsWith(':') ? 'bin' : '.';
      await runCommand.execute({ command: 'ls', cwd }, context);
      assert.equal(context.asked.length, 1, path);
    }
    assert.equal(existsSync(marker), false);
  });

  test('RIPGREP_CONFIG_PATH naming a file in the workspace is asked about', async () => {
    const { root, home } = await workspace();
    await writeFile(join(root, '.ripgreprc'), '--pre=./evil\n');
    const context = await gatedContext(root, commandEnv(home, { RIPGREP_CONFIG_PATH: '.ripgreprc' }));
    await runCommand.execute({ command: 'rg foo' }, context);
    assert.equal(context.asked.length, 1);
  });

  test('git in a workspace that is only part of a repository is asked about', async () => {
    const { dir, home } = await workspace();
    const repo = join(dir, 'repo');
    await mkdir(join(repo, 'pkg'), { recursive: true });
    await writeFile(join(repo, 'outside.txt'), `${SECRET}\n`);
    await writeFile(join(repo, 'pkg', 'x.txt'), 'x\n');
    git(home, repo, 'init', '-q');
    git(home, repo, 'add', '.');
    git(home, repo, 'commit', '-q', '-m', 'x');
    const context = await gatedContext(join(repo, 'pkg'), commandEnv(home));
    await runCommand.execute({ command: 'git log -p' }, context);
    assert.equal(context.asked.length, 1);
  });

  test('the inspection names its reasons', async () => {
    const { root, context } = await workspace();
    const site = {
      cwd: root,
      contains: (p: string) => context.workspace.contains(p),
      env: context.commandEnv,
    };
    const inspection = await inspectCommand('cat link readme.txt', site);
    assert.equal(inspection.findings.length, 1);
    assert.match(
      inspection.findings[0] ?? '',
      /^link leads to .*outside\/secret\.txt, outside the workspace$/,
    );
    assert.deepEqual((await inspectCommand('cat readme.txt', site)).findings, []);
  });
});
