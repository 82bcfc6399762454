/**
 * A repository's git configuration must not run a program through any git that runs unasked:
 * each program-running key, set in the repository's own configuration (an unpacked archive
 * carries its .git) and in a bare repository embedded in a real clone, against every git command
 * of the read-only allowlist through run_command with the real gate and policy, and against the
 * git_status and git_diff tools. The payload writes a marker; it must never appear.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { DEFAULT_READ_ONLY } from '../src/approval/command-allowlist.ts';
import { runsProgram, unaskedGitEnvironment } from '../src/approval/git-hazards.ts';
import { gitDiffTool } from '../src/tools/git-diff.ts';
import { gitStatusTool } from '../src/tools/git-status.ts';
import { runCommandTool } from '../src/tools/run-command.ts';
import { commandEnv, gatedContext, git, scratchDir } from './helpers/gated-context.ts';
import { testContext } from './helpers/tool-context.ts';

const runCommand = runCommandTool();

/** The git commands of the default allowlist, each in the form that does the most (log with patches). */
const GIT_COMMANDS = ['git status', 'git diff', 'git log -p', 'git show'];

interface Hostile {
  name: string;
  /** Keys to set; PAYLOAD, HOOKS and INCLUDED are replaced with the lab's paths. */
  config: Array<[string, string]>;
  /** A line for .gitattributes (info/attributes in the embedded repository) that selects the driver. */
  attributes?: string;
}

const P = 'PAYLOAD';
const HOSTILE: Hostile[] = [
  { name: 'core.fsmonitor', config: [['core.fsmonitor', P]] },
  { name: 'core.hooksPath', config: [['core.hooksPath', 'HOOKS']] },
  { name: 'core.pager', config: [['core.pager', P]] },
  { name: 'pager.<cmd>', config: ['status', 'diff', 'log', 'show'].map((cmd) => [`pager.${cmd}`, P]) },
  { name: 'core.editor', config: [['core.editor', P]] },
  { name: 'sequence.editor', config: [['sequence.editor', P]] },
  { name: 'core.sshCommand', config: [['core.sshCommand', P]] },
  { name: 'core.askPass', config: [['core.askPass', P]] },
  { name: 'core.gitProxy', config: [['core.gitProxy', P]] },
  { name: 'core.alternateRefsCommand', config: [['core.alternateRefsCommand', P]] },
  { name: 'diff.external', config: [['diff.external', P]] },
  { name: 'diff.<driver>.command', config: [['diff.evil.command', P]], attributes: '* diff=evil' },
  { name: 'diff.<driver>.textconv', config: [['diff.evil.textconv', P]], attributes: '* diff=evil' },
  { name: 'filter.<driver>.clean', config: [['filter.evil.clean', P]], attributes: '* filter=evil' },
  { name: 'filter.<driver>.smudge', config: [['filter.evil.smudge', P]], attributes: '* filter=evil' },
  { name: 'filter.<driver>.process', config: [['filter.evil.process', P]], attributes: '* filter=evil' },
  { name: 'merge.<driver>.driver', config: [['merge.evil.driver', P]], attributes: '* merge=evil' },
  { name: 'credential.helper', config: [['credential.helper', `!${P}`]] },
  { name: 'credential.<url>.helper', config: [['credential.https://example.com.helper', P]] },
  {
    name: 'gpg.program',
    config: [
      ['gpg.program', P],
      ['log.showSignature', 'true'],
    ],
  },
  {
    name: 'gpg.<format>.program',
    config: [
      ['gpg.format', 'ssh'],
      ['gpg.ssh.program', P],
      ['log.showSignature', 'true'],
    ],
  },
  { name: 'gpg.ssh.defaultKeyCommand', config: [['gpg.ssh.defaultKeyCommand', P]] },
  { name: 'alias.* with !', config: [['alias.st', `!${P}`]] },
  { name: 'remote.<name>.uploadpack', config: [['remote.origin.uploadpack', P]] },
  { name: 'remote.<name>.receivepack', config: [['remote.origin.receivepack', P]] },
  { name: 'remote.<name>.vcs', config: [['remote.origin.vcs', 'evil']] },
  { name: 'url.<base>.insteadOf', config: [[`url.ext::${P}.insteadOf`, 'https://example.com/']] },
  { name: 'protocol.<name>.allow', config: [['protocol.ext.allow', 'always']] },
  { name: 'include.path', config: [['include.path', 'INCLUDED']] },
  { name: 'includeIf.<condition>.path', config: [['includeIf.gitdir:/.path', 'INCLUDED']] },
  { name: 'uploadpack.packObjectsHook', config: [['uploadpack.packObjectsHook', P]] },
  { name: 'submodule.<name>.update', config: [['submodule.x.update', `!${P}`]] },
  { name: 'interactive.diffFilter', config: [['interactive.diffFilter', P]] },
  { name: 'trailer.<token>.command', config: [['trailer.x.command', P]] },
  { name: 'sendemail.sendmailCmd', config: [['sendemail.sendmailCmd', P]] },
  { name: 'imap.tunnel', config: [['imap.tunnel', P]] },
  { name: 'web.browser', config: [['web.browser', P]] },
  { name: 'difftool.<tool>.cmd', config: [['difftool.evil.cmd', P]] },
  { name: 'mergetool.<tool>.cmd', config: [['mergetool.evil.cmd', P]] },
  { name: 'man.<tool>.cmd', config: [['man.evil.cmd', P]] },
  { name: 'browser.<tool>.cmd', config: [['browser.evil.cmd', P]] },
  { name: 'guitool.<name>.cmd', config: [['guitool.evil.cmd', P]] },
  { name: 'init.templateDir', config: [['init.templateDir', 'HOOKS']] },
];

interface Lab {
  dir: string;
  home: string;
  marker: string;
  payload: string;
  hooks: string;
  included: string;
}

async function lab(): Promise<Lab> {
  const dir = await scratchDir(after, 'santra-gitcfg-');
  const home = join(dir, 'home');
  const marker = join(dir, 'MARKER');
  const payload = join(dir, 'payload');
  const hooks = join(dir, 'hooks');
  const included = join(dir, 'included.cfg');
  await mkdir(home);
  await mkdir(hooks);
  await writeFile(payload, `#!/bin/sh\necho "$0 $*" >> '${marker}'\nexit 0\n`);
  await chmod(payload, 0o755);
  for (const hook of ['post-index-change', 'pre-commit', 'post-checkout', 'reference-transaction']) {
    await writeFile(join(hooks, hook), `#!/bin/sh\nexec '${payload}' "$@"\n`);
    await chmod(join(hooks, hook), 0o755);
  }
  await writeFile(included, `[core]\n\tfsmonitor = ${payload}\n`);
  return { dir, home, marker, payload, hooks, included };
}

function value(raw: string, at: Lab): string {
  return raw
    .replaceAll(P, at.payload)
    .replace(/^HOOKS$/, at.hooks)
    .replace(/^INCLUDED$/, at.included);
}

/** A repository with two commits (so show and log -p have patches) and a modified file. */
async function repository(at: Lab, dir: string, attributes: string | undefined): Promise<void> {
  await mkdir(dir, { recursive: true });
  git(at.home, dir, 'init', '-q', '-b', 'main');
  await writeFile(join(dir, 'a.txt'), 'one\n');
  await writeFile(join(dir, 'b.txt'), 'unchanged\n');
  if (attributes !== undefined) await writeFile(join(dir, '.gitattributes'), `${attributes}\n`);
  git(at.home, dir, 'add', '.');
  git(at.home, dir, 'commit', '-q', '-m', 'one');
  await writeFile(join(dir, 'a.txt'), 'two\n');
  git(at.home, dir, 'commit', '-q', '-am', 'two');
  await writeFile(join(dir, 'a.txt'), 'three\n');
}

/** The workspace is a repository whose own .git/config sets the keys (what an unpacked archive brings). */
async function repositoryConfig(at: Lab, hostile: Hostile): Promise<{ root: string; cwd: string }> {
  const root = join(at.dir, 'ws');
  await repository(at, root, hostile.attributes);
  for (const [key, raw] of hostile.config) git(at.home, root, 'config', key, value(raw, at));
  return { root, cwd: root };
}

/**
 * A real clone of a repository that has a bare repository committed in evil/ (HEAD, config,
 * objects/, refs/, info/attributes): git finds it when a command runs in that directory.
 */
async function embeddedBare(at: Lab, hostile: Hostile): Promise<{ root: string; cwd: string }> {
  const origin = join(at.dir, 'origin');
  await repository(at, origin, undefined);
  const evil = join(origin, 'evil');
  for (const dir of ['objects', 'refs', 'info']) await mkdir(join(evil, dir), { recursive: true });
  await writeFile(join(evil, 'HEAD'), 'ref: refs/heads/main\n');
  await writeFile(join(evil, 'objects', '.keep'), '');
  await writeFile(join(evil, 'refs', '.keep'), '');
  await writeFile(join(evil, 'info', 'attributes'), `${hostile.attributes ?? ''}\n`);
  await writeFile(
    join(evil, 'config'),
    '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n',
  );
  for (const [key, raw] of hostile.config)
    git(at.home, origin, 'config', '--file', join(evil, 'config'), key, value(raw, at));
  git(at.home, origin, 'add', '.');
  git(at.home, origin, 'commit', '-q', '-m', 'evil');
  const root = join(at.dir, 'ws');
  git(at.home, at.dir, 'clone', '-q', origin, root);
  assert.ok(existsSync(join(root, 'evil', 'config')), 'the embedded repository survives the clone');
  return { root, cwd: join(root, 'evil') };
}

const SETUPS = [
  { where: 'in the repository configuration', setup: repositoryConfig },
  { where: 'in a bare repository embedded in a clone', setup: embeddedBare },
];

describe('program-running git configuration, through run_command and the git tools', () => {
  test('the commands tried are the git commands of the default allowlist', () => {
    const listed = DEFAULT_READ_ONLY.filter((entry) => entry.startsWith('git '));
    assert.deepEqual(
      GIT_COMMANDS.map((command) => command.split(' ').slice(0, 2).join(' ')),
      listed,
    );
  });

  for (const hostile of HOSTILE) {
    for (const { where, setup } of SETUPS) {
      test(`${hostile.name} ${where}: asked, never run`, async () => {
        const at = await lab();
        const { root, cwd } = await setup(at, hostile);
        const context = await gatedContext(root, commandEnv(at.home));
        for (const command of GIT_COMMANDS) {
          const before = context.asked.length;
          const result = await runCommand.execute({ command, cwd }, context);
          assert.equal(context.asked.length, before + 1, `${command} was not asked about: ${result.output}`);
          const request = context.asked.at(-1);
          assert.equal(request?.kind === 'command' ? request.command : undefined, command);
        }
        // The git tools never ask: they refuse.
        const toolContext = await testContext(cwd, { env: commandEnv(at.home) });
        for (const tool of [gitStatusTool(), gitDiffTool()]) {
          const result = await tool.execute({}, toolContext);
          assert.equal(result.errorType, 'unsafe_repository', `${tool.name}: ${result.output}`);
        }
        assert.equal(existsSync(at.marker), false, 'the payload ran');
      });
    }
  }

  test('a directory inside the embedded bare repository is covered too', async () => {
    const at = await lab();
    const { root, cwd } = await embeddedBare(at, { name: 'fsmonitor', config: [['core.fsmonitor', P]] });
    const context = await gatedContext(root, commandEnv(at.home));
    await runCommand.execute({ command: 'git status', cwd: join(cwd, 'refs') }, context);
    assert.equal(context.asked.length, 1);
    assert.equal(existsSync(at.marker), false);
  });

  test('every key of the list is one runsProgram knows', () => {
    for (const hostile of HOSTILE)
      for (const [key, raw] of hostile.config) {
        if (key === 'log.showSignature' || key === 'gpg.format') continue;
        assert.equal(runsProgram(key.toLowerCase(), raw), true, key);
      }
    assert.equal(runsProgram('alias.lg', 'log --graph'), false);
    assert.equal(runsProgram('core.fsmonitor', 'true'), false);
    assert.equal(runsProgram('user.name', 'x'), false);
    assert.equal(runsProgram('remote.origin.url', 'https://example.com/x'), false);
  });

  test('the user’s own global configuration is theirs: a clean repository runs unasked', async () => {
    const at = await lab();
    await writeFile(join(at.home, '.gitconfig'), `[core]\n\tpager = less\n[alias]\n\tx = !true\n`);
    const root = join(at.dir, 'ws');
    await repository(at, root, undefined);
    const context = await gatedContext(root, commandEnv(at.home));
    const result = await runCommand.execute({ command: 'git diff' }, context);
    assert.deepEqual(context.asked, []);
    assert.match(result.output, /^\+three$/m);
  });
});

describe('the attacks are real, and the environment alone stops those it can', () => {
  /** Runs `command` with /bin/sh in `cwd` as an unprotected run would, or with the unasked environment. */
  function sh(at: Lab, cwd: string, command: string, neutralised: boolean): void {
    const env = commandEnv(at.home);
    try {
      execFileSync('/bin/sh', ['-c', command], {
        cwd,
        env: neutralised ? unaskedGitEnvironment(env) : env,
        stdio: 'ignore',
      });
    } catch {
      // git may fail (a refused bare repository, a broken driver); only the marker matters.
    }
  }

  const cases: Array<{ name: string; command: string; neutralisable: boolean; touch?: boolean }> = [
    { name: 'core.fsmonitor', command: 'git status', neutralisable: true },
    { name: 'core.hooksPath', command: 'git status', neutralisable: true, touch: true },
    { name: 'include.path', command: 'git status', neutralisable: true },
    { name: 'diff.external', command: 'git diff', neutralisable: false },
    { name: 'diff.<driver>.textconv', command: 'git log -p', neutralisable: false },
    { name: 'diff.<driver>.textconv', command: 'git show', neutralisable: false },
    { name: 'filter.<driver>.clean', command: 'git diff', neutralisable: false },
  ];
  for (const { name, command, neutralisable, touch } of cases) {
    test(`${name} in the repository configuration runs a program on ${command}`, async () => {
      const at = await lab();
      const hostile = HOSTILE.find((entry) => entry.name === name);
      assert.ok(hostile);
      const { cwd } = await repositoryConfig(at, hostile);
      if (neutralisable) {
        if (touch === true) sh(at, cwd, 'touch -d 2000-01-01 b.txt', false);
        sh(at, cwd, command, true);
        assert.equal(existsSync(at.marker), false, 'ran despite the unasked environment');
      }
      if (touch === true) sh(at, cwd, 'touch b.txt', false);
      sh(at, cwd, command, false);
      assert.equal(existsSync(at.marker), true, 'the attack did not work, so the test proves nothing');
    });
  }

  test('an embedded bare repository runs its fsmonitor hook on git status, unless safe.bareRepository', async () => {
    const at = await lab();
    const { cwd } = await embeddedBare(at, { name: 'fsmonitor', config: [['core.fsmonitor', P]] });
    sh(at, cwd, 'git status', true);
    assert.equal(existsSync(at.marker), false, 'ran despite the unasked environment');
    sh(at, cwd, 'git status', false);
    assert.equal(existsSync(at.marker), true, 'the attack did not work, so the test proves nothing');
  });

  test('a submodule’s clean filter runs on git status in the superproject: asked, never run', async () => {
    const at = await lab();
    const sub = join(at.dir, 'sub');
    await repository(at, sub, '* filter=evil');
    git(at.home, sub, 'commit', '-q', '-am', 'three');
    const root = join(at.dir, 'ws');
    await repository(at, root, undefined);
    git(at.home, root, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub, 's');
    git(at.home, root, 'commit', '-q', '-m', 'submodule');
    git(at.home, join(root, 's'), 'config', 'filter.evil.clean', at.payload);
    const context = await gatedContext(root, commandEnv(at.home));
    await runCommand.execute({ command: 'git status' }, context);
    assert.equal(context.asked.length, 1, 'git status was not asked about');
    assert.equal(existsSync(at.marker), false);
    // Control: the same status, unprotected, runs the filter (a file with the same size, touched).
    await writeFile(join(root, 's', 'a.txt'), 'THREE\n');
    sh(at, root, 'git status', false);
    assert.equal(existsSync(at.marker), true, 'the attack did not work, so the test proves nothing');
  });
});
