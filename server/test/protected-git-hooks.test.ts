/**
 * Issue 21, item 2, on the file side, through the built server: the directory git actually runs
 * hooks from is protected — the one core.hooksPath names in the repository's configuration, in
 * the global configuration of HOME (~/.gitconfig or $XDG_CONFIG_HOME/git/config, a temp HOME
 * here), however it is reached (a link to it), read again at each decision (a hooks path set
 * mid-session counts at once) — and so are a configuration file the repository includes and a
 * program its configuration names by path. Each is asked after allow_all (or refused under
 * --auto-approve when no one can answer) and stays off disk; a neighbour is written unasked.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
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
const HOOK = '#!/bin/sh\necho pwned\n';
const write = (path: string, content = HOOK) => ({
  toolCalls: [{ name: 'write_file', args: { path, content } }],
});

interface Case {
  name: string;
  /** Prepares the workspace (a repository is already there) and HOME. */
  setUp: (workspace: string, home: string) => void;
  /** Written after allow_all: must be asked, marked protected, and not written. */
  hook: string;
  /** How the approval shows it, when not as written (a link resolved). */
  shown?: string;
  /** Written after allow_all: must not be asked, and written. */
  neighbour: string;
  env?: NodeJS.ProcessEnv;
}

const gitConfig = (workspace: string, home: string, key: string, value: string) =>
  git(home, workspace, 'config', key, value);

const CASES: Case[] = [
  {
    name: 'core.hooksPath in the repository configuration',
    setUp: (ws, home) => gitConfig(ws, home, 'core.hooksPath', '.githooks'),
    hook: '.githooks/pre-commit',
    neighbour: 'src/hooks/pre-commit',
  },
  {
    name: 'core.hooksPath reached through a link to it',
    setUp: (ws, home) => {
      gitConfig(ws, home, 'core.hooksPath', '.githooks');
      mkdirSync(join(ws, '.githooks'));
      symlinkSync('.githooks', join(ws, 'ghk'));
    },
    hook: 'ghk/pre-commit',
    shown: '.githooks/pre-commit',
    neighbour: 'githooks/pre-commit',
  },
  {
    name: 'core.hooksPath in ~/.gitconfig of HOME',
    setUp: (_ws, home) => writeFileSync(join(home, '.gitconfig'), '[core]\n\thooksPath = .shared-hooks\n'),
    hook: '.shared-hooks/pre-commit',
    neighbour: 'shared-hooks/pre-commit',
  },
  {
    name: 'core.hooksPath in $XDG_CONFIG_HOME/git/config',
    setUp: (_ws, home) => {
      mkdirSync(join(home, 'xdg', 'git'), { recursive: true });
      writeFileSync(join(home, 'xdg', 'git', 'config'), '[core]\n\thooksPath = "tools/hooks"\n');
    },
    hook: 'tools/hooks/post-checkout',
    neighbour: 'tools/hooks.md',
    env: { XDG_CONFIG_HOME: 'XDG' },
  },
  {
    name: 'a configuration file the repository includes',
    setUp: (ws, home) => gitConfig(ws, home, 'include.path', '../tools/git.cfg'),
    hook: 'tools/git.cfg',
    neighbour: 'tools/other.cfg',
  },
  {
    name: 'a program the repository configuration names by path (core.fsmonitor)',
    setUp: (ws, home) => gitConfig(ws, home, 'core.fsmonitor', 'tools/fsmonitor.sh'),
    hook: 'tools/fsmonitor.sh',
    neighbour: 'tools/build.sh',
  },
];

async function harnessFor(
  turns: Json[],
  env: NodeJS.ProcessEnv,
  args: string[] = [],
  init: { capabilities: Json } = APPROVER,
) {
  const home = tempDir('santra-hooks-home-');
  homes.push(home);
  const resolved = Object.fromEntries(
    Object.entries(env).map(([key, value]) => [key, value === 'XDG' ? join(home, 'xdg') : value]),
  );
  const h = await start(
    'anthropic',
    turns,
    { HOME: home, GIT_CONFIG_NOSYSTEM: '1', ...resolved },
    undefined,
    {
      ...init,
      args,
    },
  );
  git(home, h.workspace, 'init', '-q', '-b', 'main');
  return { h, home };
}

describe('where git runs hooks from is protected (issue 21)', () => {
  for (const c of CASES) {
    test(`${c.name}: asked after allow_all, not written; its neighbour is written unasked`, async () => {
      const { h, home } = await harnessFor(
        [write('one.txt', '1'), write(c.hook), write(c.neighbour, 'fine'), { text: 'done' }],
        c.env ?? {},
      );
      c.setUp(h.workspace, home);
      const asked: Json[] = [];
      h.client.handle('approve', (params) => {
        asked.push(params);
        return { decision: asked.length === 1 ? 'allow_all' : 'reject' };
      });
      await h.prompt({ text: 'write them' });
      assert.deepEqual(
        asked.map((params) => [params.path, params.protected]),
        [
          ['one.txt', undefined],
          [c.shown ?? c.hook, true],
        ],
      );
      assert.equal(typeof asked[1]?.protectedReason, 'string');
      assert.equal(existsSync(join(h.workspace, c.hook)), false, `${c.hook} was not written`);
      assert.equal(existsSync(join(h.workspace, c.neighbour)), true, `${c.neighbour} was written`);
    });
  }

  test('under --auto-approve with no client to ask, the global hooks path is refused; the rest is written', async () => {
    const { h, home } = await harnessFor(
      [write('.shared-hooks/pre-commit'), write('one.txt', '1'), { text: 'done' }],
      {},
      ['--auto-approve'],
      { capabilities: {} },
    );
    writeFileSync(join(home, '.gitconfig'), '[core]\n\thooksPath = .shared-hooks\n');
    const { phases } = await h.prompt({ text: 'write' });
    const results = phases.filter((phase) => phase.type === 'tool_result');
    assert.match(String(results[0]?.output), /protected location \(the hooks directory git uses/);
    assert.equal(existsSync(join(h.workspace, '.shared-hooks/pre-commit')), false);
    assert.equal(existsSync(join(h.workspace, 'one.txt')), true);
  });

  test('a hooks path set mid-session counts at once: the configuration is read at each decision', async () => {
    const { h } = await harnessFor(
      [
        write('one.txt', '1'),
        { toolCalls: [{ name: 'run_command', args: { command: 'git config core.hooksPath .later' } }] },
        write('.later/pre-commit'),
        { text: 'done' },
      ],
      {},
    );
    const asked: Json[] = [];
    h.client.handle('approve', (params) => {
      asked.push(params);
      // allow_all first; the user also allows the (protected) git config; the hook is rejected.
      return { decision: asked.length === 1 ? 'allow_all' : asked.length === 2 ? 'allow' : 'reject' };
    });
    await h.prompt({ text: 'go' });
    assert.deepEqual(
      asked.map((params) => [params.command ?? params.path, params.protected]),
      [
        ['one.txt', undefined],
        ['git config core.hooksPath .later', true],
        ['.later/pre-commit', true],
      ],
    );
    assert.equal(existsSync(join(h.workspace, '.later/pre-commit')), false);
  });
});
