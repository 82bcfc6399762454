/**
 * Named sessions from the user's side, end to end: the built santra and its real santra-server, a
 * fake Anthropic provider on loopback. In a real terminal (tmux) `/name` names the session; then
 * `santra sessions` lists the name, `santra -p --resume NAME` and `--continue NAME` go on with it
 * (the model gets its history), `santra sessions name` renames it by an id prefix, and `/resume
 * NAME` in the UI replays it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { type FakeProvider, startFakeProvider } from '../../scripts/fake-provider-harness.ts';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { hasTmux, SANTRA, tmuxServer } from './helpers/tmux-ui.ts';

const { tmux, startUi, kill } = tmuxServer('santra-ui-name-test');
const dirs: string[] = [];
const fakes: FakeProvider[] = [];
const KEY = 'sk-ant-fake-key-for-names';

after(async () => {
  kill();
  for (const fake of fakes) await fake.close();
  for (const dir of dirs) await removeTempDir(dir);
});

function env(home: string, url: string): Record<string, string> {
  return {
    HOME: home,
    SANTRA_HOME: join(home, 'santra'),
    ANTHROPIC_API_KEY: KEY,
    ANTHROPIC_BASE_URL: url,
    SANTRA_MODEL: 'anthropic/claude-sonnet-4-5',
    // Memory's extraction after runs is a model call of its own: off, so the scripted turns are the runs'.
    SANTRA_MEMORY_AUTO_EXTRACT: '0',
  };
}

/** Runs the built santra with stdin closed, to its exit. */
async function santra(args: string[], cwd: string, vars: Record<string, string>) {
  const child = spawn(process.execPath, [SANTRA, ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, ...vars },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

/** The user messages of the fake's last request, as text. */
function lastPrompts(fake: FakeProvider): string {
  const body = fake.requests.at(-1)?.body as { messages: Array<{ role: string; content: unknown }> };
  return JSON.stringify(body.messages.filter((m) => m.role === 'user'));
}

// tmux is part of the test environment (.ci/run installs it): without it these tests fail, not skip.
describe('named sessions in the terminal UI and santra -p', () => {
  test('tmux is installed (.ci/run installs it)', () => assert.ok(hasTmux, 'install tmux'));

  test('/name names the session; santra sessions shows it; --resume NAME, --continue NAME and /resume NAME go on with it', async () => {
    const fake = await startFakeProvider('anthropic', [
      { text: 'First answer.' },
      { text: 'Second answer.' },
      { text: 'Third answer.' },
    ]);
    fakes.push(fake);
    const home = tempDir('santra-ui-name-home-');
    const workspace = tempDir('santra-ui-name-ws-');
    dirs.push(home, workspace);
    mkdirSync(join(home, 'santra'), { recursive: true, mode: 0o700 });
    const vars = env(home, fake.url);
    tmux('new-session', '-d', '-s', 'keeper');
    tmux('set-option', '-g', 'remain-on-exit', 'on');

    const ui = startUi('ui', workspace, vars, join(home, 'pane'));
    await ui.waitFor(/claude-sonnet-4-5/);
    ui.line('/name auth-work');
    await ui.waitFor(/Nothing to name yet: a session starts with its first prompt/);
    ui.line('hello, remember the word pelican');
    await ui.waitFor(/First answer\./);
    ui.line('/name auth-work');
    await ui.waitFor(
      /Named this session auth-work: \/resume auth-work or santra --resume auth-work continues it\./,
    );
    ui.line('/exit');
    await ui.exited();

    const listed = await santra(['sessions'], workspace, vars);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^ses_\S+ .* \[auth-work\] hello, remember the word pelican$/m);
    const sessionId = /^(ses_\S+)/m.exec(listed.stdout)?.[1] as string;

    const resumed = await santra(['-p', '--resume', 'auth-work', 'what word?'], workspace, vars);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(resumed.stdout.trim(), 'Second answer.');
    assert.match(lastPrompts(fake), /pelican/, "the model got the named session's history");

    // Renamed by the start of its id; --continue takes the new name.
    const renamed = await santra(['sessions', 'name', sessionId.slice(0, 10), 'birds'], workspace, vars);
    assert.equal(renamed.code, 0, renamed.stderr);
    assert.equal(renamed.stdout, `${sessionId} is named birds: santra -p --resume birds "…" continues it.\n`);
    const continued = await santra(['-p', '--continue', 'birds', 'and again?'], workspace, vars);
    assert.equal(continued.code, 0, continued.stderr);
    assert.equal(continued.stdout.trim(), 'Third answer.');
    assert.match(lastPrompts(fake), /pelican[\s\S]*what word\?[\s\S]*and again\?/);

    const unknown = await santra(['-p', '--resume', 'auth-work', 'x'], workspace, vars);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No session has the id, name or id prefix "auth-work"/);

    // In the UI, /resume NAME replays the session on screen.
    const again = startUi('ui2', workspace, vars, join(home, 'pane2'));
    await again.waitFor(/claude-sonnet-4-5/);
    again.line('/resume birds');
    await again.waitFor(/Resumed "hello, remember the word pelican" \(6 messages\)/);
    assert.match(again.pane(), /Third answer\./);
    again.line('/exit');
    await again.exited();
    for (const output of [listed, resumed, renamed, continued, unknown])
      assert.ok(!output.stdout.includes(KEY) && !output.stderr.includes(KEY));
  });

  test('santra sessions name: a usage error shows how to write it', async () => {
    const workspace = tempDir('santra-ui-name-ws-');
    dirs.push(workspace);
    const run = await santra(['sessions', 'name', 'ses_1'], workspace, { HOME: workspace });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /santra sessions name <session> <name> names a session/);
  });
});
