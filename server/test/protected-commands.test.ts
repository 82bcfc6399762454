/**
 * Issue 21, item 2, on the command side, through the built server: after "allow all", a command
 * that would write where git runs code from is asked (marked protected) and does not run,
 * however the shell line reaches it — quoting, globs, `cd`, a symbolic link, the hooks directory
 * core.hooksPath names in the repository's or the global configuration (a temp HOME), or a git
 * subcommand that configures git to run a program. A harmless neighbour of each still runs
 * unasked, so these tests can fail.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { git } from './helpers/gated-context.ts';
import { suiteHarnesses } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();
const homes: string[] = [];
after(async () => {
  for (const home of homes) await removeTempDir(home);
});

const APPROVER = { capabilities: { approve: true, ask: true } };
const run = (command: string) => ({ toolCalls: [{ name: 'run_command', args: { command } }] });

/** The forms of the issue: each must be asked after allow_all and leave git's code locations alone. */
const PROTECTED: Array<[form: string, command: string]> = [
  ['quoting: empty quotes inside .git', 'cp x .gi""t/hooks/pre-commit'],
  ['quoting: half of .git quoted', 'cp x ".gi"t/hooks/pre-commit'],
  ['quoting: a backslash', 'cp x \\.git/hooks/pre-commit'],
  ['glob: .gi? and h*ks', 'cp x .gi?/h*ks/'],
  ['glob: ?git', 'cp x ?git/hooks/pre-commit'],
  ['cd: cd .g* then a relative path', 'cd .g* && cp ../x hooks/pre-commit'],
  ['cd: cd .gi? then a relative path', 'cd .gi? && cp ../x hooks/pre-commit'],
  ['symlink: a link to .git/hooks', 'cp x hk/pre-commit'],
  ['symlink: a dangling link to a hook', 'echo payload > hookfile'],
  ['core.hooksPath in the repository configuration', 'cp x .githooks/pre-commit'],
  ['core.hooksPath through a link', 'cp x ghk/pre-commit'],
  ['core.hooksPath in the global configuration of HOME', 'cp x sub/.global-hooks/pre-commit'],
  ['git remote add', 'git remote add evil "ext::./x %S"'],
  ['git "config" core.fsmonitor', 'git "config" core.fsmonitor ./x'],
  ["git con''fig core.fsmonitor", "git con''fig core.fsmonitor ./x"],
  ['shell code in sh -c', `sh -c "cp x .g'i't/hooks/pre-commit"`],
  ['eval', "eval cp x .gi''t/hooks/pre-commit"],
  ['a variable in a path', 'd=.gi; cp x ${d}t/hooks/pre-commit'],
];

/** Harmless neighbours: they run unasked after allow_all, and leave this file behind. */
const NEIGHBOURS: Array<[form: string, command: string, creates: string]> = [
  ['cp into src/hooks', 'cp x src/hooks/pre-commit', 'src/hooks/pre-commit'],
  ['cd src then a relative hooks path', 'cd src && cp ../x hooks/other', 'src/hooks/other'],
  ['git config --get', 'git config --get core.hooksPath > got.txt', 'got.txt'],
  ['git remote -v', 'git remote -v > remotes.txt', 'remotes.txt'],
  ['a glob that reaches no hooks', 'cp x sr?/ho*s/', 'src/hooks/x'],
];

/**
 * The workspace: a repository whose configuration sets core.hooksPath to .githooks, a nested
 * repository sub/ under a HOME whose .gitconfig sets it to .global-hooks, links hk → .git/hooks,
 * ghk → .githooks and hookfile → .git/hooks/pre-commit (dangling), src/hooks/, the payload x.
 */
function setUp(workspace: string, home: string): void {
  writeFileSync(join(home, '.gitconfig'), '[core]\n\thooksPath = .global-hooks\n');
  git(home, workspace, 'init', '-q', '-b', 'main');
  git(home, workspace, 'config', 'core.hooksPath', '.githooks');
  mkdirSync(join(workspace, '.githooks'));
  mkdirSync(join(workspace, 'src', 'hooks'), { recursive: true });
  mkdirSync(join(workspace, 'sub', '.global-hooks'), { recursive: true });
  git(home, join(workspace, 'sub'), 'init', '-q', '-b', 'main');
  writeFileSync(join(workspace, 'x'), '#!/bin/sh\necho payload\n', { mode: 0o755 });
  symlinkSync('.git/hooks', join(workspace, 'hk'));
  symlinkSync('.githooks', join(workspace, 'ghk'));
  symlinkSync('.git/hooks/pre-commit', join(workspace, 'hookfile'));
}

/** What git runs code from here, as text: the hooks directories' entries and the configuration files. */
function codeLocations(workspace: string, home: string): string {
  const list = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort().join(',') : '-');
  const read = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '-');
  return [
    list(join(workspace, '.git', 'hooks')),
    list(join(workspace, '.githooks')),
    list(join(workspace, 'sub', '.global-hooks')),
    read(join(workspace, '.git', 'config')),
    read(join(home, '.gitconfig')),
  ].join('\n---\n');
}

/** Runs `command` after allow_all (given on a harmless first command); what was asked. */
async function afterAllowAll(command: string) {
  const home = tempDir('santra-protected-home-');
  homes.push(home);
  const h = await start(
    'anthropic',
    [run('echo one > one.txt'), run(command), run('echo two > two.txt'), { text: 'done' }],
    { HOME: home, GIT_CONFIG_NOSYSTEM: '1' },
    undefined,
    APPROVER,
  );
  setUp(h.workspace, home);
  const before = codeLocations(h.workspace, home);
  const asked: Json[] = [];
  h.client.handle('approve', (params) => {
    asked.push(params);
    return { decision: asked.length === 1 ? 'allow_all' : 'reject' };
  });
  await h.prompt({ text: 'go' });
  assert.equal(existsSync(join(h.workspace, 'two.txt')), true, 'the run went on after it');
  return { asked, workspace: h.workspace, unchanged: codeLocations(h.workspace, home) === before };
}

describe('after allow_all, commands that reach where git runs code are asked (issue 21)', () => {
  for (const [form, command] of PROTECTED) {
    test(`${form}: asked, marked protected, not run`, async () => {
      const { asked, unchanged } = await afterAllowAll(command);
      assert.deepEqual(
        asked.map((params) => [params.command, params.protected]),
        [
          ['echo one > one.txt', undefined],
          [command, true],
        ],
      );
      assert.equal(typeof asked[1]?.protectedReason, 'string');
      assert.ok(unchanged, 'no hook was added and no git configuration changed');
    });
  }

  for (const [form, command, creates] of NEIGHBOURS) {
    test(`a harmless neighbour (${form}) runs unasked`, async () => {
      const { asked, workspace, unchanged } = await afterAllowAll(command);
      assert.deepEqual(
        asked.map((params) => params.command),
        ['echo one > one.txt'],
      );
      assert.equal(existsSync(join(workspace, creates)), true, `${creates} was created`);
      assert.ok(unchanged);
    });
  }
});
