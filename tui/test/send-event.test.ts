/**
 * `santra send` end to end: the built santra and its real santra-server, a fake Anthropic provider
 * on loopback, the TUI in a real terminal (tmux). An event sent to the TUI's idle session shows as
 * a card and is read with the next message; one sent while its run waits for an approval is read by
 * the run's next model call; one for a session nobody runs is saved with it. Usage errors say how.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { type FakeProvider, startFakeProvider } from '../../scripts/fake-provider-harness.ts';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { hasTmux, SANTRA, tmuxServer } from './helpers/tmux-ui.ts';

const { tmux, startUi, kill } = tmuxServer('santra-send-test');
const dirs: string[] = [];
const fakes: FakeProvider[] = [];
const KEY = 'sk-ant-fake-key-for-send';

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

/** Runs the built santra with `stdin` (or none), to its exit. */
async function santra(args: string[], cwd: string, vars: Record<string, string>, stdin?: string) {
  const child = spawn(process.execPath, [SANTRA, ...args], {
    cwd,
    stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, ...vars },
  });
  if (stdin !== undefined) child.stdin?.end(stdin);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

/** The messages of the fake's last request, as JSON text. */
function lastSent(fake: FakeProvider): string {
  return JSON.stringify((fake.requests.at(-1)?.body as { messages: unknown[] }).messages);
}

function setupDirs(fake: FakeProvider) {
  const home = tempDir('santra-send-home-');
  const workspace = tempDir('santra-send-ws-');
  dirs.push(home, workspace);
  mkdirSync(join(home, 'santra'), { recursive: true, mode: 0o700 });
  return { home, workspace, vars: env(home, fake.url) };
}

// tmux is part of the test environment (.ci/run installs it): without it these tests fail, not skip.
describe('santra send', () => {
  test('tmux is installed (.ci/run installs it)', () => assert.ok(hasTmux, 'install tmux'));

  test('to the TUI’s idle session, then to its busy one, then to a session nobody runs', async () => {
    const fake = await startFakeProvider('anthropic', [
      { text: 'First answer.' },
      { text: 'Read the event.' },
      { text: ['Once upon a time ', 'there was ', 'a build'], fault: { kind: 'stall', afterEvents: 5 } },
      { text: 'Saw the deploy.' },
      { text: 'Saw the nightly failure.' },
    ]);
    fakes.push(fake);
    const { home, workspace, vars } = setupDirs(fake);
    tmux('new-session', '-d', '-s', 'keeper');
    tmux('set-option', '-g', 'remain-on-exit', 'on');

    const ui = startUi('ui', workspace, vars, join(home, 'pane'));
    await ui.waitFor(/claude-sonnet-4-5/);
    ui.line('hello there');
    await ui.waitFor(/First answer\./);

    // Idle: a card in the UI; the next message's request carries it, framed as untrusted.
    const idle = await santra(['send', '--source', 'ci', 'Build 41 failed: test_login'], workspace, vars);
    assert.equal(idle.code, 0, idle.stderr);
    assert.match(idle.stdout, /^sent evt_\S+ to ses_\S+: handed to the server running the session\n$/);
    await ui.waitFor(/✉ event from ci/);
    await ui.waitFor(/│ Build 41 failed: test_login/);
    ui.line('what failed?');
    await ui.waitFor(/Read the event\./);
    assert.match(
      lastSent(fake),
      /<external-event[^>]*source=\\"ci\\"[\s\S]*Build 41 failed[\s\S]*untrusted data[\s\S]*what failed\?/,
    );

    // Busy: the run streams, then stalls; the event is queued for it. Stopped with Esc, the run
    // leaves the event in the conversation, and the next message's request carries it.
    ui.line('tell me a story');
    await ui.waitFor(/Once upon a time/);
    const busy = await santra(['send', '--source', 'deploy', '-'], workspace, vars, 'Deploy 7 finished\n');
    assert.equal(busy.code, 0, busy.stderr);
    await ui.waitFor(/✉ event from deploy \(the model reads it at its next turn/);
    ui.type('Escape');
    await ui.waitFor(/cancelled/);
    ui.line('and the deploy?');
    await ui.waitFor(/Saw the deploy\./);
    assert.match(lastSent(fake), /Deploy 7 finished[\s\S]*and the deploy\?/);
    ui.line('/exit');
    await ui.exited();

    // Nobody runs it: saved with the session, read by the next prompt.
    const saved = await santra(['send', 'Nightly run failed'], workspace, vars);
    assert.equal(saved.code, 0, saved.stderr);
    assert.match(saved.stdout, /the next prompt reads it/);
    const next = await santra(['-p', '--continue', 'anything new?'], workspace, vars);
    assert.equal(next.code, 0, next.stderr);
    assert.match(lastSent(fake), /Nightly run failed/);
    for (const output of [idle, busy, saved, next])
      assert.ok(!output.stdout.includes(KEY) && !output.stderr.includes(KEY));
  });

  test('with events.startTurns, a turn an event starts is shown as a run; a message waits for it; Esc stops it', async () => {
    const fake = await startFakeProvider('anthropic', [
      { text: 'First answer.' },
      // The event's turn takes a while to start answering: the user types meanwhile.
      { text: 'Looked at build 52: a flaky test.', firstByteDelayMs: 1500 },
      { text: 'Your question, after the event.' },
      { text: ['Checking ', 'the deploy '], fault: { kind: 'stall', afterEvents: 5 } },
      { text: 'Still here.' },
    ]);
    fakes.push(fake);
    const { home, workspace, vars } = setupDirs(fake);
    writeFileSync(join(home, 'santra', 'config.json'), JSON.stringify({ events: { startTurns: true } }));
    tmux('new-session', '-d', '-s', 'keeper2');
    tmux('set-option', '-g', 'remain-on-exit', 'on');

    const ui = startUi('ui2', workspace, vars, join(home, 'pane'));
    await ui.waitFor(/claude-sonnet-4-5/);
    ui.line('hello there');
    await ui.waitFor(/First answer\./);
    await ui.waitFor(/── done/);

    const sent = await santra(['send', '--source', 'ci', 'Build 52 failed: test_retry'], workspace, vars);
    assert.equal(sent.code, 0, sent.stderr);
    await ui.waitFor(/✉ event from ci/);
    // The turn it started: routed by what the event says, and running (a message waits for it).
    await ui.waitFor(/an event from ci/);
    ui.line('and the flaky test?');
    await ui.waitFor(/⏳ queued: and the flaky test\?/);
    await ui.waitFor(/Looked at build 52: a flaky test\./);
    // Its own done line, then the message that waited runs, after the event's answer.
    await ui.waitFor(/Your question, after the event\./);
    const screen = ui.pane();
    assert.ok(
      screen.indexOf('Looked at build 52') < screen.indexOf('Your question, after the event'),
      'the message ran after the event’s turn',
    );
    assert.ok((screen.match(/── done/g) ?? []).length >= 3, screen);
    assert.doesNotMatch(screen, /SessionBusy|already running a prompt/);
    assert.match(lastSent(fake), /Build 52 failed[\s\S]*and the flaky test\?/);

    // A second event's turn stalls; Esc stops it though no prompt of the UI's runs it.
    const second = await santra(['send', '--source', 'deploy', 'Deploy 8 is slow'], workspace, vars);
    assert.equal(second.code, 0, second.stderr);
    await ui.waitFor(/Checking the deploy/);
    ui.type('Escape');
    await ui.waitFor(/── cancelled/);
    ui.line('still there?');
    await ui.waitFor(/Still here\./);
    ui.line('/exit');
    await ui.exited();
  });

  test('usage errors say how to write it; an unknown session is refused', async () => {
    const fake = await startFakeProvider('anthropic', []);
    fakes.push(fake);
    const { workspace, vars } = setupDirs(fake);
    const none = await santra(['send'], workspace, vars);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /santra send needs the event's text: santra send \[--session ID\|NAME\]/);
    const empty = await santra(['send', '   '], workspace, vars);
    assert.equal(empty.code, 2);
    const noSession = await santra(['send', 'hello'], workspace, vars);
    assert.equal(noSession.code, 1);
    assert.match(noSession.stderr, /this project has no session yet/);
    const unknown = await santra(['send', '--session', 'no-such-name', 'hello'], workspace, vars);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no-such-name/);
  });
});
