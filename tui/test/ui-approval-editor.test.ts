/**
 * Approvals that edit (§7.3.2) in the terminal UI, end to end in a real terminal (tmux): the built
 * santra and its real santra-server, a fake Anthropic provider on 127.0.0.1 whose orchestrator
 * hands the change to an executor. A two-hunk change with one hunk toggled off writes only the
 * other; `e` with $EDITOR set to a small script opens the proposal, and what the script saved is
 * what is written, after an editor that failed left the overlay as it was. The screen after the
 * editor is whole: one overlay, one composer, and keys typed after it reach the composer.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  type FakeProvider,
  type FakeTurn,
  type RecordedRequest,
  startFakeProvider,
  toolNames,
} from '../../scripts/fake-provider-harness.ts';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { hasTmux, onPaneOutput, quote, SANTRA, tmuxServer } from './helpers/tmux-ui.ts';

const { tmux, kill } = tmuxServer('santra-ui-approval-test');
const cleanups: (() => Promise<void>)[] = [];
/** How long a wait on the pane may take here: a run goes through the swarm and an editor. */
const WAIT_MS = 30_000;

after(async () => {
  kill();
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Twelve lines: a change of the first and the last is two hunks (three lines of context each). */
const TWELVE = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`);
const PROPOSED = ['LINE 1', ...TWELVE.slice(1, 11), 'LINE 12'];
const text = (lines: readonly string[]) => `${lines.join('\n')}\n`;

const isOrchestrator = (request: RecordedRequest) => toolNames(request).includes('spawn_agent');

const WRITE_APP: FakeTurn = {
  toolCalls: [{ id: 'w1', name: 'write_file', args: { path: 'app.txt', content: text(PROPOSED) } }],
};

/** The orchestrator hands the task to an executor, which makes the tool call `work`; both then end. */
function turns(work: FakeTurn): FakeTurn[] {
  return [
    {
      match: isOrchestrator,
      toolCalls: [
        { id: 's1', name: 'spawn_agent', args: { agentId: 'executor', task: 'Capitalise app.txt' } },
      ],
    },
    { ...work, match: (request) => !isOrchestrator(request) },
    { match: (request) => !isOrchestrator(request), text: 'Done.' },
    { match: isOrchestrator, text: 'The executor is done.' },
  ];
}

/** The last message of a request the model got (a tool's result comes back in it), as JSON text. */
const lastMessage = (request: RecordedRequest | undefined) =>
  JSON.stringify((request?.body.messages as unknown[] | undefined)?.at(-1));

/** A workspace with app.txt, a home, the fake provider, and santra running in a tmux window. */
async function startUi(session: string, env: Record<string, string> = {}, work = WRITE_APP) {
  const fake: FakeProvider = await startFakeProvider('anthropic', turns(work));
  const home = tempDir('santra-ui-approval-home-');
  const workspace = tempDir('santra-ui-approval-ws-');
  cleanups.push(async () => {
    await fake.close();
    await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
  });
  mkdirSync(join(home, 'santra'), { recursive: true, mode: 0o700 });
  writeFileSync(join(workspace, 'app.txt'), text(TWELVE));
  const files = { code: join(home, 'exit-code'), pane: join(home, 'pane') };
  const command = [
    'env',
    '-u',
    'VISUAL',
    `HOME=${quote(home)}`,
    `TMPDIR=${quote(home)}`,
    `SANTRA_HOME=${quote(join(home, 'santra'))}`,
    'ANTHROPIC_API_KEY=sk-ant-fake-key',
    `ANTHROPIC_BASE_URL=${quote(fake.url)}`,
    'SANTRA_MODEL=anthropic/claude-sonnet-4-5',
    'TERM=xterm-256color',
    ...Object.entries(env).map(([name, value]) => `${name}=${quote(value)}`),
    quote(process.execPath),
    quote(SANTRA),
  ].join(' ');
  if (!hasSession('keeper')) {
    tmux('new-session', '-d', '-s', 'keeper');
    tmux('set-option', '-g', 'remain-on-exit', 'on');
  }
  tmux(
    'new-session',
    '-d',
    '-s',
    session,
    '-x',
    '120',
    '-y',
    '40',
    '-c',
    workspace,
    `${command}; echo $? > ${quote(files.code)}`,
  );
  writeFileSync(files.pane, '');
  tmux('pipe-pane', '-t', session, `cat >> ${quote(files.pane)}`);
  /** The visible screen, or with `history` the scrollback too. */
  const pane = (history = false) =>
    tmux('capture-pane', '-p', '-t', session, ...(history ? ['-S', '-300'] : []));
  const count = (pattern: RegExp, history = false) =>
    pane(history).match(new RegExp(pattern.source, 'gm'))?.length ?? 0;
  return {
    fake,
    home,
    workspace,
    pane,
    count,
    type: (...keys: string[]) => tmux('send-keys', '-t', session, ...keys),
    /** Waits until `pattern` is on the screen, looking each time the pane prints. */
    waitFor: (pattern: RegExp, history = false) =>
      onPaneOutput(
        files.pane,
        () => count(pattern, history) > 0,
        () => `waited for ${pattern}; pane:\n${pane(true)}`,
        WAIT_MS,
      ),
    /**
     * Presses `key` until `pattern` is on the screen. Keys in the first moments of an overlay are
     * dropped on purpose (they were typed for what was there before), and nothing on the screen
     * says when that ends: a key whose effect is idempotent is pressed again until it shows.
     */
    pressUntil: async (key: string, pattern: RegExp, times = 1) => {
      for (let tries = 1; ; tries++) {
        tmux('send-keys', '-t', session, key);
        try {
          return await onPaneOutput(
            files.pane,
            () => count(pattern, true) >= times,
            () => `${pattern}`,
            1000,
          );
        } catch (error) {
          if (tries === 30)
            throw new Error(`pressed ${key} ${tries} times for ${pattern}; pane:\n${pane(true)}`, {
              cause: error,
            });
        }
      }
    },
    /** Waits until the model was asked `n` times (the last request carries what was applied). */
    waitForRequests: (n: number) =>
      onPaneOutput(
        files.pane,
        () => fake.requests.length >= n,
        () => `waited for ${n} requests; pane:\n${pane(true)}`,
        WAIT_MS,
      ),
    exited: () =>
      onPaneOutput(
        files.pane,
        () => existsSync(files.code) && readFileSync(files.code, 'utf8').endsWith('\n'),
        () => `santra did not exit; pane:\n${pane(true)}`,
        WAIT_MS,
      ),
  };
}

function hasSession(name: string): boolean {
  try {
    tmux('has-session', '-t', name);
    return true;
  } catch {
    return false;
  }
}

// tmux is part of the test environment (.ci/run installs it): without it these tests fail, not skip.
describe('approvals that edit in the terminal UI', () => {
  test('tmux is installed (.ci/run installs it)', () => assert.ok(hasTmux, 'install tmux'));

  test('a two-hunk change with the second hunk toggled off writes only the first; the transcript says so', async () => {
    const ui = await startUi('hunks');
    await ui.waitFor(/Ask santra/);
    ui.type('-l', 'Capitalise the first and last lines of app.txt');
    ui.type('Enter');
    await ui.waitFor(/› \[x\] hunk 1\/2/);
    // The overlay is drawn in more than one write: its last rows may come a moment later.
    await ui.waitFor(/\[x\] hunk 2\/2/);
    await ui.waitFor(/\[Space\] apply or not {2}\[e\] edit {2}\[p\] whole diff/);
    await ui.pressUntil('Down', /› \[x\] hunk 2\/2/);
    ui.type('Space');
    await ui.waitFor(/› \[ \] hunk 2\/2/);
    await ui.waitFor(/\[y\] allow 1 of 2 hunks/);
    ui.type('y');
    await ui.waitFor(/app\.txt \(\d+ lines, 1 of 2 hunks\)/, true);
    await ui.waitFor(/The executor is done\./, true);
    assert.equal(readFileSync(join(ui.workspace, 'app.txt'), 'utf8'), text(['LINE 1', ...TWELVE.slice(1)]));
    // The executor's next request says which hunk was applied and which was not, with its text.
    const told = lastMessage(ui.fake.requests[2]);
    assert.match(told, /LINE 12/);
    assert.match(told, /not applied|rejected/i);
    ui.type('-l', '/exit');
    ui.type('Enter');
    await ui.exited();
  });

  test('e opens the proposal in $EDITOR; a failing editor answers nothing, the saved version is written', async () => {
    const home = tempDir('santra-ui-approval-editor-');
    cleanups.push(() => removeTempDir(home));
    // The first run fails (exit 3); the second appends a line to the proposal it was given and
    // keeps a copy of what it was given, so the test sees what the editor opened.
    const editor = join(home, 'editor.sh');
    const seen = join(home, 'seen.txt');
    writeFileSync(
      editor,
      [
        '#!/bin/sh',
        `if [ ! -e ${quote(join(home, 'failed-once'))} ]; then : > ${quote(join(home, 'failed-once'))}; exit 3; fi`,
        `cp "$1" ${quote(seen)}`,
        `printf 'edited by the user\\n' >> "$1"`,
      ].join('\n'),
    );
    chmodSync(editor, 0o755);
    const ui = await startUi('editor', { EDITOR: editor });
    await ui.waitFor(/Ask santra/);
    ui.type('-l', 'Capitalise the first and last lines of app.txt');
    ui.type('Enter');
    await ui.waitFor(/› \[x\] hunk 1\/2/);
    // Past the overlay's first moments (see pressUntil), then e.
    await ui.pressUntil('Down', /› \[x\] hunk 2\/2/);
    ui.type('e');
    await ui.waitFor(/exited with 3: nothing was answered/);
    // Back in the overlay, as it was: nothing answered, nothing written.
    await ui.waitFor(/› \[x\] hunk 2\/2/);
    assert.equal(ui.count(/Approval · executor-1 · write_file/), 1);
    assert.equal(readFileSync(join(ui.workspace, 'app.txt'), 'utf8'), text(TWELVE));
    assert.equal(ui.fake.requests.length, 2);
    ui.type('e');
    await ui.waitFor(/app\.txt \(\d+ lines, edited by the user\)/, true);
    await ui.waitFor(/The executor is done\./, true);
    // The editor got the whole proposal; what it saved is what was written.
    assert.equal(readFileSync(seen, 'utf8'), text(PROPOSED));
    assert.equal(
      readFileSync(join(ui.workspace, 'app.txt'), 'utf8'),
      `${text(PROPOSED)}edited by the user\n`,
    );
    // The model is told the person's changes as a diff from its proposal.
    assert.match(lastMessage(ui.fake.requests[2]), /\+edited by the user/);
    // The screen after the editor is whole: no overlay left, one composer and one status bar, and
    // keys typed now reach the composer.
    const screen = ui.pane();
    assert.doesNotMatch(screen, /hunk 1\/2|Approval ·/);
    assert.equal(ui.count(/Ask santra, or \/help/), 1, screen);
    ui.type('-l', 'typed after the editor');
    await ui.waitFor(/typed after the editor/);
    assert.equal(ui.count(/typed after the editor/), 1);
    ui.type('C-u');
    ui.type('-l', '/exit');
    ui.type('Enter');
    await ui.exited();
    // The editor's temporary copy is gone.
    assert.deepEqual(spawnSync('find', [ui.home, '-name', 'santra-edit-*']).stdout.toString(), '');
  });

  test('e on a command: the edited command line is asked again as shown, and only it runs', async () => {
    const home = tempDir('santra-ui-approval-command-');
    cleanups.push(() => removeTempDir(home));
    const editor = join(home, 'editor.sh');
    writeFileSync(editor, `#!/bin/sh\nprintf 'echo edited > out.txt\\n' > "$1"\n`);
    chmodSync(editor, 0o755);
    const run: FakeTurn = {
      toolCalls: [{ id: 'c1', name: 'run_command', args: { command: 'echo proposed > out.txt' } }],
    };
    const ui = await startUi('command', { EDITOR: editor }, run);
    await ui.waitFor(/Ask santra/);
    ui.type('-l', 'Write out.txt with a command');
    ui.type('Enter');
    await ui.waitFor(/\$ echo proposed > out\.txt/);
    await ui.waitFor(/\[e\] edit/);
    // Past the overlay's first moments: p prints the command above (a second copy on the screen).
    await ui.pressUntil('p', /\$ echo proposed > out\.txt/, 2);
    ui.type('e');
    // The edited command is a new command: asked again, showing the person's version.
    await ui.waitFor(/\$ echo edited > out\.txt/);
    await ui.pressUntil('p', /\$ echo edited > out\.txt/, 2);
    ui.type('y');
    await ui.waitFor(/The executor is done\./, true);
    assert.equal(readFileSync(join(ui.workspace, 'out.txt'), 'utf8'), 'edited\n');
    // The model is told what ran: the person's command.
    assert.match(lastMessage(ui.fake.requests[2]), /echo edited > out\.txt/);
    ui.type('-l', '/exit');
    ui.type('Enter');
    await ui.exited();
  });
});
