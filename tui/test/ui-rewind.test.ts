/**
 * Rewinding from the user's side, end to end: the built santra and its real santra-server, a fake
 * Anthropic provider on loopback, a real terminal (tmux). Esc Esc on the empty composer lists the
 * earlier prompts; the one picked comes back in the composer, and what is sent next goes to a
 * model that no longer sees that prompt or what came after it. `/rewind fork` keeps the session.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { type FakeProvider, startFakeProvider } from '../../scripts/fake-provider-harness.ts';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { hasTmux, tmuxServer } from './helpers/tmux-ui.ts';

const { tmux, startUi, kill } = tmuxServer('santra-ui-rewind-test');
const dirs: string[] = [];
const fakes: FakeProvider[] = [];
const KEY = 'sk-ant-fake-key-for-rewind';

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
