/**
 * The rules behind protected commands and git's code locations, in-process: the words a shell
 * makes of a line (shell-reach.ts), the plan of what it may write (command-plan.ts), git
 * subcommands that make git run code (git-commands.ts), git's configuration files as git reads
 * them (git-config-file.ts), and where a path really leads (shell-paths.ts). The end-to-end
 * proofs through the built server are protected-commands.test.ts and protected-git-hooks.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { protectedReach } from '../src/approval/command-reach.ts';
import { gitCommandReason } from '../src/approval/git-commands.ts';
import { parseGitConfig, readGitConfig } from '../src/approval/git-config-file.ts';
import { protectedCommandReason, protectedReason } from '../src/approval/protected-paths.ts';
import { readShell } from '../src/approval/shell-reach.ts';
import { followLinks } from '../src/approval/shell-paths.ts';
import { git } from './helpers/gated-context.ts';

const lab = realpathSync(mkdtempSync(join(tmpdir(), 'santra-protected-words-')));
after(() => rmSync(lab, { recursive: true, force: true }));

const words = (line: string) => {
  const reading = readShell(line, '/home/u');
  if ('unreadable' in reading) return reading.unreadable;
  return reading.commands.map((command) => [
    command.words.map((word) => word.texts?.join('|') ?? '?'),
    command.redirects.map((redirect) => `${redirect.operator}${redirect.target.texts?.join('|') ?? '?'}`),
  ]);
};

describe('the words a shell makes of a line', () => {
  test('quotes and backslashes are removed, brace lists and ~ expanded, both readings of braces kept', () => {
    assert.deepEqual(words(`cp x .gi""t/'hooks'/\\pre-commit`), [[['cp', 'x', '.git/hooks/pre-commit'], []]]);
    assert.deepEqual(words('cp x .{git,y}/h'), [[['cp', 'x', '.{git,y}/h|.git/h|.y/h'], []]]);
    assert.deepEqual(words('cat ~/.bashrc'), [[['cat', '/home/u/.bashrc'], []]]);
  });

  test('redirections keep their targets, descriptors are not words, operators split commands', () => {
    assert.deepEqual(words('npm test 2>&1 | tail -5 && echo x >> "o u t"'), [
      [['npm', 'test'], ['>&1']],
      [['tail', '-5'], []],
      [['echo', 'x'], ['>>o u t']],
    ]);
  });

  test('an expansion makes a word unknown; a substitution or an unbalanced quote makes the line unreadable', () => {
    assert.deepEqual(words('cp x $d/hooks ${e}'), [[['cp', 'x', '?', '?'], []]]);
    for (const line of ['cp x "$(echo .git)"', 'cp x `echo .git`', 'cat <(ls)', 'cp x .gi"t', 'ls\r'])
      assert.equal(typeof words(line), 'string', line);
  });

  test('reserved words are dropped, so the commands of a loop are read; here-documents are bodies', () => {
    assert.deepEqual(words('if true; then cp a b; fi'), [
      [['true'], []],
      [['cp', 'a', 'b'], []],
    ]);
    const reading = readShell("bash <<'EOF'\ngit config a b\nEOF", undefined);
    assert.ok(!('unreadable' in reading));
    assert.deepEqual(reading.commands[0]?.heredocs, ['git config a b\n']);
  });
});

describe('git subcommands that make git run code', () => {
  const reason = (line: string) => gitCommandReason(line.split(' '));
  test('configuration, remotes, submodules, program options: protected, however git is reached', () => {
    for (const line of [
      'git config core.fsmonitor ./x',
      'git config --add alias.x !sh',
      'git config --unset core.pager',
      'git -c core.fsmonitor=./x status',
      'git -ccore.pager=x log',
      'git --config-env=core.pager=X log',
      'git -C sub config a.b c',
      '/usr/bin/git config a.b c',
      'git-config a.b c',
      'git remote add evil ext::sh',
      'git remote -v add evil ext::sh',
      'git remote set-url origin ext::sh',
      'git submodule update --init',
      'git filter-branch --tree-filter x',
      'git update-index --fsmonitor',
      'git clone --template=t url',
      'git clone -c core.hooksPath=h url',
      'git fetch --upload-pack=x origin',
      'git fetch --upload=x origin',
      'git push --receive-pack=x',
      'git rebase -x make main',
      'git grep -O./x foo',
    ])
      assert.ok(reason(line) !== undefined, line);
  });

  test('reads stay unasked', () => {
    for (const line of [
      'git config --get core.hooksPath',
      'git config user.name',
      'git config -l',
      'git config --global --list',
      'git remote',
      'git remote -v',
      'git remote get-url origin',
      'git submodule status',
      'git commit -c HEAD',
      'git status',
      'git log --oneline',
    ])
      assert.equal(reason(line), undefined, line);
  });
});

describe("git's configuration files, as git reads them", () => {
  test('sections, subsections, quotes, escapes, comments and continuations', () => {
    const text = [
      '[core] hooksPath = "my hooks" ; comment',
      '[Core]',
      '\tFSMonitor = a\\',
      'b # more',
      '[diff "Evil"]',
      '\ttextconv = "x\\"y"',
      '[remote.Origin]',
      '\turl',
    ].join('\n');
    assert.deepEqual(
      parseGitConfig(text, 'f').map((entry) => [entry.key, entry.value]),
      [
        ['core.hookspath', 'my hooks'],
        ['core.fsmonitor', 'ab'],
        ['diff.Evil.textconv', 'x"y'],
        ['remote.origin.url', ''],
      ],
    );
  });

  test('include.path and includeIf are followed (every condition), relative to the including file; missing files listed', () => {
    const dir = join(lab, 'config');
    mkdirSync(join(dir, 'sub'), { recursive: true });
    writeFileSync(
      join(dir, 'main'),
      '[include]\n\tpath = sub/a\n[includeIf "gitdir:/nowhere/"]\n\tpath = ~/b\n',
    );
    writeFileSync(join(dir, 'sub', 'a'), '[core]\n\thooksPath = h\n[include]\n\tpath = missing\n');
    const files: string[] = [];
    const entries = readGitConfig(join(dir, 'main'), '/home/nobody', files);
    assert.ok(
      entries.some((entry) => entry.key === 'core.hookspath' && entry.file === join(dir, 'sub', 'a')),
    );
    assert.deepEqual(files, [
      join(dir, 'main'),
      join(dir, 'sub', 'a'),
      join(dir, 'sub', 'missing'),
      '/home/nobody/b',
    ]);
  });
});

describe('where a path leads, and what is protected there', () => {
  const ws = join(lab, 'ws');
  const home = join(lab, 'home');
  mkdirSync(join(ws, 'sub'), { recursive: true });
  mkdirSync(home, { recursive: true });
  git(home, ws, 'init', '-q');
  git(home, ws, 'config', 'core.hooksPath', 'tools/hooks');
  git(home, join(ws, 'sub'), 'init', '-q');
  writeFileSync(join(home, '.gitconfig'), '[core]\n\thooksPath = ~/global-hooks\n');
  symlinkSync('.git/hooks/pre-commit', join(ws, 'dangling'));
  // Lexically tricky/ is ws/hooks; the kernel takes `..` after the link: ws/.git/hooks.
  symlinkSync('.git/objects', join(ws, 'obj'));
  symlinkSync('obj/../hooks', join(ws, 'tricky'));
  const env = { HOME: home };
  const at = (path: string) => protectedReason(path, join(ws, path), join(home, 'santra'), env);

  test('links are followed as the kernel does, a dangling one and `..` after a link included', () => {
    assert.equal(followLinks(join(ws, 'dangling')), join(ws, '.git', 'hooks', 'pre-commit'));
    assert.equal(followLinks(join(ws, 'tricky', 'pre-commit')), join(ws, '.git', 'hooks', 'pre-commit'));
  });

  test('the configured hooks directory, its parent, the global one, a dangling link: protected', () => {
    for (const path of ['tools/hooks/pre-commit', 'tools', 'dangling', 'tricky/pre-commit', '.git/config'])
      assert.ok(at(path) !== undefined, path);
    assert.ok(protectedReason(join(home, 'global-hooks', 'x'), join(home, 'global-hooks', 'x'), '', env));
    assert.ok(protectedReason(join(home, '.gitconfig'), join(home, '.gitconfig'), '', env));
    // sub/ is a repository of its own: the outer one's relative hooks path is not its.
    for (const path of [
      '.',
      'sub',
      'sub/tools/hooks/x',
      'src/hooks/pre-commit',
      'tools/hooks.md',
      'toolsx/hooks/x',
    ])
      assert.equal(at(path), undefined, path);
  });

  test('the words alone: protected names, git subcommands, code the check cannot read', () => {
    for (const command of [
      'cp x .gi""t/hooks/pre-commit',
      'sh -c "cp x .g\'i\'t/hooks/p"',
      'eval cp x .gi"\'\'"t/hooks/p',
      'timeout 5 git con""fig a.b c',
      'echo git config a b | sh',
      'ls | xargs rm',
      'find . -exec cp x {} \\;',
      'cp x $D/hooks',
      'GIT_CONFIG_GLOBAL=x git status',
    ])
      assert.ok(protectedCommandReason(command, '/cfg', env) !== undefined, command);
    for (const command of [
      'npm test 2>&1 | tail',
      'echo "exit $?"',
      'ls | xargs grep x',
      'git commit -m fix',
    ])
      assert.equal(protectedCommandReason(command, '/cfg', env), undefined, command);
  });

  test('on the file system: cd, globs and links into the configured hooks directory', async () => {
    mkdirSync(join(ws, 'tools', 'hooks'), { recursive: true });
    symlinkSync('tools', join(ws, 'tl'));
    const site = { cwd: ws, contains: (path: string) => path.startsWith(ws), env };
    for (const command of [
      'cd tools && cp x hooks/p',
      'cp x too?s/h*s/',
      'cp x tl/hooks/p',
      'cd - && cp x y',
    ])
      assert.ok((await protectedReach(command, site)) !== undefined, command);
    for (const command of ['cd tools && cp x y', 'cp x src/hooks/p', 'mkdir -p src/{a,b}'])
      assert.equal(await protectedReach(command, site), undefined, command);
  });
});
