/**
 * `santra -p` never answers a protected approval for the user: not after `a` (allow all), not
 * under --approve-all. The built client, the built server, a fake provider; the `a` case in a real
 * terminal (tmux).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  type FakeProvider,
  type FakeTurn,
  startFakeProvider,
} from '../../conformance-tests/src/fake-providers/index.ts';
import { runSantra, SANTRA_BIN as SANTRA, santraEnv } from './helpers/run.ts';

const socket = `santra-protected-${process.pid}`;
const tmux = (...args: string[]) =>
  execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;
const fakes: FakeProvider[] = [];
const dirs: string[] = [];
after(async () => {
  for (const fake of fakes) await fake.close();
  try {
    tmux('kill-server');
  } catch {
    // No tmux server was started.
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const write = (path: string, content: string): FakeTurn => ({
  toolCalls: [{ name: 'write_file', args: { path, content } }],
});
const HOOK = '#!/bin/sh\necho pwned\n';
const TURNS = [
  write('one.txt', '1'),
  write('.git/hooks/post-checkout', HOOK),
  write('two.txt', '2'),
  { text: 'all done' },
];

/** A workspace with a `.git` directory and a generalist agent, and a home of its own. */
async function setUp() {
  const fake = await startFakeProvider('anthropic', TURNS);
  fakes.push(fake);
  const root = mkdtempSync(join(tmpdir(), 'santra-protected-'));
  dirs.push(root);
  const workspace = join(root, 'ws');
  mkdirSync(join(workspace, '.git/hooks'), { recursive: true });
  mkdirSync(join(workspace, '.agents'));
  writeFileSync(
    join(workspace, '.agents/writer.json'),
    JSON.stringify({
      id: 'writer',
      name: 'Writer',
      description: 'Writes files.',
      systemPrompt: 'You write files.',
      toolNames: ['write_file', 'task_completed'],
    }),
  );
  const env = { ...santraEnv(join(root, 'home'), fake.url), NO_COLOR: '1' };
  return { fake, root, workspace, env };
}

describe('santra -p and protected locations', () => {
  test('--approve-all without a terminal: other writes are allowed, the hook is rejected', async () => {
    const { workspace, env } = await setUp();
    const { code, stdout, stderr } = await runSantra(
      ['-p', 'write the files', '--agent', 'writer', '--approve-all', '--cwd', workspace],
      { cwd: workspace, env },
    );
    assert.equal(code, 0, stderr);
    assert.match(stdout, /all done/);
    assert.equal(readFileSync(join(workspace, 'one.txt'), 'utf8'), '1');
    assert.equal(readFileSync(join(workspace, 'two.txt'), 'utf8'), '2');
    assert.equal(existsSync(join(workspace, '.git/hooks/post-checkout')), false, 'the hook was not written');
    assert.match(
      stderr,
      /rejected create \.git\/hooks\/post-checkout .*protected location \(git's internals/,
    );
  });

  test('after [a] on a terminal the hook is still asked, marked protected; [n] keeps it off disk', async () => {
    const { root, workspace, env } = await setUp();
    const name = 'a';
    const done = join(root, 'exit-code');
    const command = [
      'env',
      '-i',
      ...Object.entries(env).map(([key, value]) => `${key}=${quote(value ?? '')}`),
      quote(process.execPath),
      quote(SANTRA),
      '-p',
      quote('write the files'),
      '--agent',
      'writer',
      '--cwd',
      quote(workspace),
    ].join(' ');
    tmux('new-session', '-d', '-s', 'keeper');
    tmux('set-option', '-g', 'remain-on-exit', 'on');
    tmux(
      'new-session',
      '-d',
      '-s',
      name,
      '-x',
      '150',
      '-y',
      '50',
      `${command} > /dev/null; echo $? > ${quote(done)}`,
    );
    const pane = () => tmux('capture-pane', '-p', '-t', name, '-S', '-200');
    const waitFor = async (pattern: RegExp, count = 1) => {
      const deadline = Date.now() + 20_000;
      while ((pane().match(new RegExp(pattern, 'g'))?.length ?? 0) < count) {
        if (Date.now() > deadline) assert.fail(`timed out waiting for ${pattern}; pane:\n${pane()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    await waitFor(/Allow\?/);
    assert.match(pane(), /create one\.txt/);
    tmux('send-keys', '-t', name, 'a');
    await waitFor(/Allow\?/, 2);
    assert.match(pane(), /protected location — git's internals/);
    assert.match(pane(), /create \.git\/hooks\/post-checkout/);
    tmux('send-keys', '-t', name, 'n');
    const deadline = Date.now() + 20_000;
    while (!existsSync(done)) {
      if (Date.now() > deadline) assert.fail(`santra did not finish; pane:\n${pane()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(readFileSync(done, 'utf8').trim(), '0', pane());
    assert.equal(
      (pane().match(/Allow\?/g) ?? []).length,
      2,
      'two.txt was not asked: the server remembers allow-all',
    );
    assert.equal(existsSync(join(workspace, '.git/hooks/post-checkout')), false);
    assert.equal(readFileSync(join(workspace, 'two.txt'), 'utf8'), '2');
  });
});
