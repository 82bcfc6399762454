/**
 * Rewinding from the user's side, end to end: the built santra and its real santra-server, a fake
 * Anthropic provider on loopback, a real terminal (tmux). Esc Esc on the empty composer lists the
 * earlier prompts; the one picked comes back in the composer, and what is sent next goes to a
 * model that no longer sees that prompt or what came after it. `/rewind fork` keeps the session.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type FakeProvider, startFakeProvider } from '../../scripts/fake-provider-harness.ts';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';

const SANTRA = fileURLToPath(new URL('../../dist/santra.js', import.meta.url));
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const socket = `santra-ui-rewind-test-${process.pid}`;
const tmux = (...args: string[]) =>
  execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;
const dirs: string[] = [];
const fakes: FakeProvider[] = [];
const KEY = 'sk-ant-fake-key-for-rewind';

after(async () => {
  if (hasTmux) spawnSync('tmux', ['-L', socket, 'kill-server']);
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
  };
}

function startUi(session: string, workspace: string, vars: Record<string, string>, log: string) {
  const command = [
    'env',
    ...Object.entries({ ...vars, TERM: 'xterm-256color' }).map(([k, v]) => `${k}=${quote(v)}`),
    quote(process.execPath),
    quote(SANTRA),
  ].join(' ');
  tmux(
    'new-session',
    '-d',
    '-s',
    session,
    '-x',
    '140',
    '-y',
    '45',
    '-c',
    workspace,
    `${command}; echo $? > ${quote(`${log}.code`)}`,
  );
  writeFileSync(log, '');
  tmux('pipe-pane', '-t', session, `cat >> ${quote(log)}`);
  const pane = () => tmux('capture-pane', '-p', '-t', session, '-S', '-300');
  return {
    pane,
    type: (...keys: string[]) => tmux('send-keys', '-t', session, ...keys),
    /** Sends a line as typed text, then Enter. */
    line: (text: string) => {
      tmux('send-keys', '-t', session, '-l', text);
      tmux('send-keys', '-t', session, 'Enter');
    },
    waitFor: (pattern: RegExp) =>
      onPaneOutput(
        log,
        () => pattern.test(pane()),
        () => `waited for ${pattern}; pane:\n${pane()}`,
      ),
    exited: () =>
      onPaneOutput(
        log,
        () => existsSync(`${log}.code`) && readFileSync(`${log}.code`, 'utf8').endsWith('\n'),
        () => `santra did not exit; pane:\n${pane()}`,
      ),
  };
}

/** Waits until `done()` holds, looking at once, each time the pane prints and every 100 ms; fails after 20 s. */
function onPaneOutput(log: string, done: () => boolean, describe: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    let over = false;
    const watcher = watch(log);
    const end = (error?: Error) => {
      if (over) return;
      over = true;
      clearTimeout(deadline);
      clearInterval(again);
      watcher.close();
      if (error === undefined) resolve();
      else reject(error);
    };
    const look = () => {
      if (!over && done()) end();
    };
    const deadline = setTimeout(() => end(new Error(`timed out after 20000 ms; ${describe()}`)), 20_000);
    const again = setInterval(look, 100);
    watcher.on('change', look).on('error', (error) => end(error));
    look();
  });
}

/** The messages of the fake's last request, as JSON text. */
function lastPrompts(fake: FakeProvider): string {
  const body = fake.requests.at(-1)?.body as { messages: Array<{ role: string; content: unknown }> };
  return JSON.stringify(body.messages);
}

// tmux is part of the test environment (.ci/run installs it): without it these tests fail, not skip.
describe('rewinding in the terminal UI', () => {
  test('tmux is installed (.ci/run installs it)', () => assert.ok(hasTmux, 'install tmux'));

  test('Esc Esc lists the earlier prompts; the one picked comes back in the composer, and the model no longer sees it', async () => {
    const fake = await startFakeProvider('anthropic', [
      { text: 'First answer.' },
      { text: 'Second answer.' },
      { text: 'Edited answer.' },
    ]);
    fakes.push(fake);
    const home = tempDir('santra-ui-rewind-home-');
    const workspace = tempDir('santra-ui-rewind-ws-');
    dirs.push(home, workspace);
    mkdirSync(join(home, 'santra'), { recursive: true, mode: 0o700 });
    tmux('new-session', '-d', '-s', 'keeper');
    tmux('set-option', '-g', 'remain-on-exit', 'on');

    const ui = startUi('ui', workspace, env(home, fake.url), join(home, 'pane'));
    await ui.waitFor(/claude-sonnet-4-5/);
    ui.line('first question alpha');
    await ui.waitFor(/First answer\./);
    ui.line('second question beta');
    await ui.waitFor(/Second answer\./);

    ui.type('Escape');
    ui.type('Escape');
    await ui.waitFor(/Go back to just before which prompt\?/);
    assert.match(ui.pane(), /second question beta[\s\S]*first question alpha/, 'newest first');
    ui.type('Enter');
    await ui.waitFor(/Rewound to just before "second question beta"/);
    await ui.waitFor(/│ › second question beta/);

    tmux('send-keys', '-t', 'ui', '-l', ' edited');
    ui.type('Enter');
    await ui.waitFor(/Edited answer\./);
    const sent = lastPrompts(fake);
    assert.match(sent, /first question alpha[\s\S]*First answer\.[\s\S]*second question beta edited/);
    assert.doesNotMatch(sent, /Second answer/, 'what came after the prompt is gone');
    assert.equal(sent.split('second question beta').length, 2, 'the old prompt is not sent besides the edit');

    // Esc Esc on a composer with text does nothing: the text stays, no list.
    tmux('send-keys', '-t', 'ui', '-l', 'draft');
    ui.type('Escape');
    ui.type('Escape');
    // Keys are read in order: once the X is drawn, both Escs were handled.
    tmux('send-keys', '-t', 'ui', '-l', 'X');
    await ui.waitFor(/│ › draftX/);
    assert.doesNotMatch(ui.pane().split('Edited answer.').at(-1) ?? '', /Go back to just before/);
    ui.type('C-u');
    ui.line('/exit');
    await ui.exited();
    assert.ok(!readFileSync(join(home, 'pane'), 'utf8').includes(KEY));
  });
});
