/**
 * `santra skills`, `santra memory` and the terminal UI's `/skills` and `/memory`, end to end: the
 * built santra and its real santra-server, real skill folders and memory files, and a real
 * terminal (tmux) for the UI. No model is called: the provider's URL is a closed port.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { parseKnowledgeArgs } from '../src/print/knowledge-command.ts';
import { hasTmux, onPaneOutput, quote, SANTRA, tmuxServer } from './helpers/tmux-ui.ts';

const { tmux, kill } = tmuxServer('santra-skills-memory-test');
const dirs: string[] = [];

after(async () => {
  kill();
  for (const dir of dirs) await removeTempDir(dir);
});

/** A home and a workspace with a good skill, a broken one, and a user skill. */
function setUp() {
  const home = tempDir('santra-skills-home-');
  const workspace = tempDir('santra-skills-ws-');
  dirs.push(home, workspace);
  const skill = (root: string, name: string, text: string) => {
    mkdirSync(join(root, name), { recursive: true });
    writeFileSync(join(root, name, 'SKILL.md'), text);
  };
  skill(
    join(workspace, '.santra/skills'),
    'pdf-forms',
    '---\nname: pdf-forms\ndescription: Fills PDF forms.\n---\nSteps.\n',
  );
  skill(join(workspace, '.claude/skills'), 'broken', '---\nname: "broken\n---\n');
  skill(
    join(home, 'santra/skills'),
    'my-style',
    '---\nname: my-style\ndescription: How I like code.\n---\nShort.\n',
  );
  return { home, workspace };
}

async function santra(args: string[], home: string, workspace: string) {
  const child = spawn(process.execPath, [SANTRA, ...args, '--cwd', workspace], {
    cwd: workspace,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, NO_COLOR: '1', HOME: home, SANTRA_HOME: join(home, 'santra') },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

describe('santra skills and santra memory', () => {
  test('the arguments: what each command takes, and what is refused', () => {
    assert.deepEqual(parseKnowledgeArgs('memory', ['add', 'tests', 'run', 'fast'], '/w'), {
      what: 'memory',
      action: 'add',
      text: 'tests run fast',
      scope: 'project',
      json: false,
      cwd: '/w',
      cwdGiven: false,
    });
    assert.equal((parseKnowledgeArgs('memory', ['edit', '--user'], '/w') as { scope: string }).scope, 'user');
    assert.match((parseKnowledgeArgs('memory', ['add'], '/w') as { error: string }).error, /needs the fact/);
    assert.match(
      (parseKnowledgeArgs('memory', ['frob'], '/w') as { error: string }).error,
      /no command "frob"/,
    );
    assert.match(
      (parseKnowledgeArgs('skills', ['x'], '/w') as { error: string }).error,
      /takes no arguments/,
    );
  });

  test('santra skills lists skills and names the broken file (exit 1); --json is the protocol result', async () => {
    const { home, workspace } = setUp();
    const text = await santra(['skills'], home, workspace);
    assert.equal(text.code, 1, text.stderr);
    assert.match(text.stdout, /^pdf-forms\s+project\s+Fills PDF forms\./m);
    assert.match(text.stdout, /^my-style\s+user\s+How I like code\./m);
    assert.match(text.stdout, /skipped \.claude\/skills\/broken\/SKILL\.md: .*not closed/);
    const json = await santra(['skills', '--json'], home, workspace);
    const result = JSON.parse(json.stdout) as { skills: Array<{ name: string }>; problems: unknown[] };
    assert.deepEqual(
      result.skills.map((s) => s.name),
      ['my-style', 'pdf-forms'],
    );
    assert.equal(result.problems.length, 1);
  });

  test('santra memory add redacts a key; show and path say where the files are', async () => {
    const { home, workspace } = setUp();
    const added = await santra(
      ['memory', 'add', 'Deploys use the key AKIAIOSFODNN7EXAMPLE and make deploy'],
      home,
      workspace,
    );
    assert.equal(added.code, 0, added.stderr);
    assert.match(
      added.stdout,
      /Remembered in .*\.santra\/memory\.md: Deploys use the key \[redacted\] and make deploy/,
    );
    const file = readFileSync(join(workspace, '.santra/memory.md'), 'utf8');
    assert.ok(!file.includes('AKIAIOSFODNN7EXAMPLE'));
    const shown = await santra(['memory'], home, workspace);
    assert.match(shown.stdout, /Project memory: .*\.santra\/memory\.md \(1 entry\)/);
    assert.match(shown.stdout, /Your memory: .*santra\/memory\.md \(not created yet\)/);
    const path = await santra(['memory', 'path'], home, workspace);
    assert.match(path.stdout, /^project\t.*\.santra\/memory\.md$/m);
    assert.match(path.stdout, /^user\t.*\/santra\/memory\.md$/m);
    const bad = await santra(['memory', 'frob'], home, workspace);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /santra memory has no command "frob"/);
  });
});

function startUi(home: string, workspace: string) {
  const files = { code: join(home, 'exit-code'), pane: join(home, 'pane') };
  const command = [
    'env',
    `HOME=${quote(home)}`,
    `SANTRA_HOME=${quote(join(home, 'santra'))}`,
    'ANTHROPIC_API_KEY=sk-ant-fake-key',
    'SANTRA_MODEL=anthropic/claude-sonnet-4-5',
    // Nothing listens on port 9: no model is called by this test.
    'ANTHROPIC_BASE_URL=http://127.0.0.1:9',
    'TERM=xterm-256color',
    quote(process.execPath),
    quote(SANTRA),
  ].join(' ');
  tmux('new-session', '-d', '-s', 'keeper');
  tmux('set-option', '-g', 'remain-on-exit', 'on');
  tmux(
    'new-session',
    '-d',
    '-s',
    'ui',
    '-x',
    '140',
    '-y',
    '45',
    '-c',
    workspace,
    `${command}; echo $? > ${quote(files.code)}`,
  );
  writeFileSync(files.pane, '');
  tmux('pipe-pane', '-t', 'ui', `cat >> ${quote(files.pane)}`);
  const pane = () => tmux('capture-pane', '-p', '-t', 'ui', '-S', '-300');
  return {
    pane,
    type: (...keys: string[]) => tmux('send-keys', '-t', 'ui', ...keys),
    waitFor: (pattern: RegExp) =>
      onPaneOutput(
        files.pane,
        () => pattern.test(pane()),
        () => `waited for ${pattern}; pane:\n${pane()}`,
      ),
    exited: () =>
      onPaneOutput(
        files.pane,
        () => existsSync(files.code) && readFileSync(files.code, 'utf8').endsWith('\n'),
        () => `santra did not exit; pane:\n${pane()}`,
      ),
  };
}

// tmux is part of the test environment (.ci/run installs it): without it these tests fail, not skip.
describe('/skills and /memory in the terminal UI', () => {
  test('tmux is installed (.ci/run installs it)', () => assert.ok(hasTmux, 'install tmux'));

  test('/skills lists the skills and the broken file; /memory add remembers (redacted) and /memory shows it', async () => {
    const { home, workspace } = setUp();
    const ui = startUi(home, workspace);
    await ui.waitFor(/Ask santra/);
    ui.type('-l', '/skills');
    ui.type('Enter');
    await ui.waitFor(/^pdf-forms\s+project\s+Fills PDF forms\./m);
    assert.match(ui.pane(), /skipped \.claude\/skills\/broken\/SKILL\.md/);
    ui.type('-l', '/memory add the CI key is AKIAIOSFODNN7EXAMPLE on ubuntu-24.04');
    ui.type('Enter');
    await ui.waitFor(/Remembered in .*memory\.md: the CI key is \[redacted\] on ubuntu-24\.04/);
    ui.type('-l', '/memory');
    ui.type('Enter');
    await ui.waitFor(/Project memory: .*\(1 entry\)/);
    assert.ok(!ui.pane().includes('AKIAIOSFODNN7EXAMPLE is'), 'the key is not shown back');
    assert.ok(!readFileSync(join(workspace, '.santra/memory.md'), 'utf8').includes('AKIAIOSFODNN7EXAMPLE'));
    ui.type('-l', '/exit');
    ui.type('Enter');
    await ui.exited();
  });
});
