/**
 * The interactive UI end to end, in a real terminal: the built `santra` (dist/) in tmux, its real
 * santra-server, and a fake Anthropic provider on 127.0.0.1 scripting the model. Keys go in with
 * send-keys, the screen comes back with capture-pane (scrollback included).
 *
 * It lives in scripts/test, not tui/test: it runs the whole program with the fake providers of the
 * conformance suite, which tui/ may not import (scripts/dependency-rules.ts).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  type FakeProvider,
  type FakeTurn,
  type RecordedRequest,
  startFakeProvider,
} from '../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../temp-dirs.ts';

const SANTRA = fileURLToPath(new URL('../../dist/santra.js', import.meta.url));
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const socket = `santra-tui-test-${process.pid}`;
const tmux = (...args: string[]) =>
  execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;
const cleanups: (() => Promise<void>)[] = [];

after(async () => {
  if (hasTmux) spawnSync('tmux', ['-L', socket, 'kill-server']);
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const systemText = (request: RecordedRequest) =>
  ((request.body.system ?? []) as Array<{ text: string }>).map((block) => block.text).join('\n');
const as = (role: string) => (request: RecordedRequest) =>
  systemText(request).includes(`You are the ${role}`);
const call = (id: string, name: string, args: unknown) => ({ toolCalls: [{ id, name, args }] });

/**
 * santra in a fresh tmux session of 120x40, in a temp workspace with a temp HOME — or, with
 * `again`, in the HOME and workspace of an earlier one (which has exited), as a restart.
 */
async function startSantra(
  turns: FakeTurn[],
  again?: { home: string; workspace: string },
  options: { withoutKey?: boolean; config?: string; args?: string[] } = {},
) {
  const fake: FakeProvider = await startFakeProvider('anthropic', turns);
  const home = again?.home ?? tempDir('santra-tui-home-');
  if (options.config !== undefined) {
    mkdirSync(join(home, 'santra'), { recursive: true, mode: 0o700 });
    writeFileSync(join(home, 'santra', 'config.json'), options.config, { mode: 0o600 });
  }
  const workspace = again?.workspace ?? tempDir('santra-tui-ws-');
  const files = { code: join(home, again === undefined ? 'exit-code' : `exit-code-again-${++restarts}`) };
  const command = [
    'env',
    ...(options.withoutKey === true
      ? ['-u', 'ANTHROPIC_API_KEY', '-u', 'OPENAI_API_KEY', '-u', 'SANTRA_MODEL']
      : []),
    `HOME=${quote(home)}`,
    `SANTRA_HOME=${quote(join(home, 'santra'))}`,
    ...(options.withoutKey === true
      ? []
      : ['ANTHROPIC_API_KEY=sk-ant-fake-key', 'SANTRA_MODEL=anthropic/claude-sonnet-4-5']),
    `ANTHROPIC_BASE_URL=${quote(fake.url)}`,
    'TERM=xterm-256color',
    quote(process.execPath),
    quote(SANTRA),
    ...(options.args ?? []).map(quote),
  ].join(' ');
  const exists = (name: string) => spawnSync('tmux', ['-L', socket, 'has-session', '-t', name]).status === 0;
  if (!exists('keeper')) {
    tmux('new-session', '-d', '-s', 'keeper');
    tmux('set-option', '-g', 'remain-on-exit', 'on');
  }
  if (exists('ui')) tmux('kill-session', '-t', 'ui');
  tmux(
    'new-session',
    '-d',
    '-s',
    'ui',
    '-x',
    '120',
    '-y',
    '40',
    '-c',
    workspace,
    `${command}; echo $? > ${quote(files.code)}`,
  );
  cleanups.push(async () => {
    await fake.close();
    if (again === undefined) await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
  });
  const pane = () => tmux('capture-pane', '-p', '-t', 'ui', '-S', '-300');
  const exited = () =>
    existsSync(files.code)
      ? `santra exited with ${readFileSync(files.code, 'utf8').trim()}`
      : 'santra is running';
  const waitFor = (pattern: RegExp, count = 1, timeoutMs?: number) =>
    poll(
      () => (pane().match(new RegExp(pattern.source, 'g'))?.length ?? 0) >= count,
      () => `waiting for ${pattern} (x${count}; ${exited()}); pane:\n${pane()}`,
      timeoutMs,
    );
  return {
    fake,
    home,
    workspace,
    pane,
    waitFor,
    type: (...keys: string[]) => tmux('send-keys', '-t', 'ui', ...keys),
    /** Types a line and sends it (the text first, then Enter, as a person would). */
    say: async (text: string) => {
      tmux('send-keys', '-t', 'ui', '-l', text);
      await pause(150);
      tmux('send-keys', '-t', 'ui', 'Enter');
    },
    exitCode: async () => {
      await poll(
        () => existsSync(files.code) && readFileSync(files.code, 'utf8').endsWith('\n'),
        () => `santra did not exit; pane:\n${pane()}`,
      );
      return Number(readFileSync(files.code, 'utf8'));
    },
  };
}

/** Restarts so far, so each writes its exit code to a file of its own. */
let restarts = 0;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function poll(done: () => boolean, describe: () => string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out ${describe()}`);
    await pause(100);
  }
}

// tmux is part of the test environment (.ci/run installs it): without it this fails, not skips.
describe('santra, the interactive UI, in tmux', () => {
  test('tmux is installed and santra is built', () => {
    assert.ok(hasTmux, 'install tmux');
    assert.ok(existsSync(SANTRA), 'run npm run build first');
  });

  test('a greeting streams; a file change shows its diff and y writes it; Esc stops a slow stream and the next prompt works; the recorded session replays', async () => {
    const term = await startSantra([
      { text: 'Hello! **How** can I help?' },
      {
        match: as('orchestrator'),
        ...call('o1', 'spawn_agent', { agentId: 'executor', task: 'Create hello.txt' }),
      },
      {
        match: as('executor'),
        ...call('e1', 'write_file', { path: 'hello.txt', content: 'Hello, world\n' }),
      },
      { match: as('executor'), ...call('e2', 'task_completed', { result: 'hello.txt written' }) },
      {
        match: as('orchestrator'),
        ...call('o2', 'task_completed', { result: 'Created hello.txt for you.' }),
      },
      { text: 'Once upon a time ', generate: { tokens: 3000, tokensPerSecond: 40 } },
      { text: 'Back again.' },
    ]);
    // The first start of a fresh build on a busy machine (CI runs two test files at once) can be
    // slow: this waits for the first frame, not for a speed (bench:tui measures that).
    await term.waitFor(/Ask santra, or \/help/, 1, 60_000);
    await term.waitFor(/sonnet-4-5 · new session/);

    await term.say('hello');
    await term.waitFor(/Hello! How can I help\?/);
    await term.waitFor(/── done/);

    await term.say('Create hello.txt with a greeting');
    await term.waitFor(/Approval · executor-\d+ · write_file/);
    const overlay = term.pane();
    if (process.env.SHOW_PANES === '1') console.log(overlay);
    assert.match(overlay, /create hello\.txt {2}\+1 −0/);
    assert.match(overlay, /1 \+ Hello, world/);
    assert.match(overlay, /\[y\] allow {2}\[a\] allow all {2}\[r\/n\] reject {2}\[f\] feedback/);
    assert.match(overlay, /▸ Executor: Create hello\.txt/);
    assert.equal(existsSync(join(term.workspace, 'hello.txt')), false);
    await pause(300); // past the early-keypress guard
    term.type('y');
    await term.waitFor(/Created hello\.txt for you\./);
    await term.waitFor(/── done/, 2);
    assert.equal(readFileSync(join(term.workspace, 'hello.txt'), 'utf8'), 'Hello, world\n');
    assert.match(term.pane(), /✓ write_file hello\.txt/);

    await term.say('Tell me a long story');
    await term.waitFor(/tok20 /);
    term.type('Escape');
    await term.waitFor(/── cancelled/);
    await term.say('are you there?');
    await term.waitFor(/Back again\./);
    await term.waitFor(/── done/, 3);
    // Streaming must not have redrawn the transcript: each answer is in the scrollback once.
    const pane = term.pane();
    if (process.env.SHOW_PANES === '1') console.log(pane);
    assert.equal(pane.match(/Hello! How can I help\?/g)?.length, 1, pane);
    assert.equal(pane.match(/Created hello\.txt for you\./g)?.length, 1, pane);

    term.type('C-c');
    await term.waitFor(/Press Ctrl\+C again to exit/);
    term.type('C-c');
    assert.equal(await term.exitCode(), 0);
    // On the way out, how to come back.
    assert.match(term.pane(), /Resume this session: santra --resume ses_\S+/);

    // The session just recorded, played in the replay viewer: no server, no key, no provider.
    const sessions = join(term.home, 'santra', 'sessions');
    const [file] = (readdirSync(sessions, { recursive: true }) as string[]).filter((name) =>
      /ses_[^/]*\.jsonl$/.test(name),
    );
    assert.ok(file !== undefined, `no session file under ${sessions}`);
    const replay = await replayIn(join(sessions, file));
    await replay.waitFor(/▶ replay 1x · \d+\/\d+ · run 1 of 4/);
    replay.type('Space');
    await replay.waitFor(/⏸ paused 1x/);
    replay.type('+');
    await replay.waitFor(/⏸ paused 2x/);
    replay.type('Space');
    replay.type('End');
    await replay.waitFor(/■ end of the recording · (\d+)\/\1 · run 4 of 4/);
    const played = replay.pane();
    if (process.env.SHOW_PANES === '1') console.log(played);
    assert.match(played, /› hello\n[\s\S]*Hello! How can I help\?[\s\S]*› Create hello\.txt with a greeting/);
    assert.match(played, /✓ write_file hello\.txt[\s\S]*Created hello\.txt for you\./);
    assert.match(played, /── cancelled[\s\S]*› are you there\?[\s\S]*Back again\./);
    assert.equal(played.match(/Hello! How can I help\?/g)?.length, 1, played);
    replay.type('q');
    assert.equal(await replay.exitCode(), 0);

    // Restarted in the same project: /resume shows the earlier runs, then the session goes on.
    const sessionId = /(ses_[^/]*)\.jsonl$/.exec(file)?.[1] ?? '';
    const restarted = await startSantra([{ text: 'Still here.' }], term);
    await restarted.waitFor(/Ask santra, or \/help/);
    await restarted.say(`/resume ${sessionId}`);
    await restarted.waitFor(/Resumed "hello"/);
    const resumed = restarted.pane();
    if (process.env.SHOW_PANES === '1') console.log(resumed);
    assert.match(
      resumed,
      /Earlier in this session:[\s\S]*› hello\n[\s\S]*Hello! How can I help\?[\s\S]*› are you there\?[\s\S]*Back again\.[\s\S]*Resumed "hello"/,
    );
    await restarted.say('still there?');
    await restarted.waitFor(/Still here\./);
    const [request] = restarted.fake.requests;
    assert.ok(JSON.stringify(request?.body).includes('Back again.'), 'the model gets the whole history');
    restarted.type('C-c');
    restarted.type('C-c');
    assert.equal(await restarted.exitCode(), 0);

    // `santra --continue` goes on with the latest session of the project at start.
    const continued = await startSantra([{ text: 'Continued.' }], term, { args: ['--continue'] });
    await continued.waitFor(/Resumed "hello"/);
    await continued.say('and now?');
    await continued.waitFor(/Continued\./);
    assert.ok(JSON.stringify(continued.fake.requests[0]?.body).includes('Still here.'), 'the whole history');
    continued.type('C-c');
    continued.type('C-c');
    assert.equal(await continued.exitCode(), 0);
  });

  test('typed before the UI is up: each line ended with Enter is sent, in order; the rest waits in the composer', async () => {
    const term = await startSantra([{ text: 'First answer.' }, { text: 'Second answer.' }]);
    // At once, as someone who starts santra and types straight away: the keys reach the
    // terminal before santra reads it (cooked mode, or raw before the UI listens).
    tmux('send-keys', '-t', 'ui', '-l', 'hello there');
    tmux('send-keys', '-t', 'ui', 'Enter');
    tmux('send-keys', '-t', 'ui', '-l', 'and again');
    tmux('send-keys', '-t', 'ui', 'Enter');
    tmux('send-keys', '-t', 'ui', '-l', 'a draft');
    await term.waitFor(/Second answer\./, 1, 60_000);
    await term.waitFor(/── done/, 2);
    const pane = term.pane();
    if (process.env.SHOW_PANES === '1') console.log(pane);
    assert.match(pane, /› hello there\n[\s\S]*First answer\.[\s\S]*› and again\n[\s\S]*Second answer\./);
    assert.match(pane, /│ › a draft +│/);
    assert.equal(term.fake.requests.length, 2);
    term.type('C-c');
    term.type('C-c');
    assert.equal(await term.exitCode(), 0);
  });

  test('a typo in the config file: the UI says where and what, keeps working, and answers once it is fixed', async () => {
    const broken = '{\n  // my settings\n  "agent": { "maxTurns": 5 }\n}\n';
    const ui = await startSantra([{ text: 'Answered after the fix.' }], undefined, { config: broken });
    // Whitespace may be a line break: the pane wraps at 120 columns, wherever the path ends.
    await ui.waitFor(
      /agent\.maxTurns\s+\(line\s+3\):\s+unknown\s+field,\s+did\s+you\s+mean\s+"maxTurnsPerRun"\?/,
    );
    await ui.waitFor(/Ask santra/);
    assert.doesNotMatch(ui.pane(), /not running|server stopped|failed/i);
    await ui.say('/sessions');
    await ui.waitFor(/No saved session/);
    await ui.say('hello');
    await ui.waitFor(/Fix the file and try again/);
    assert.equal(ui.fake.requests.length, 0, 'nothing was sent to the model with a broken config');
    writeFileSync(join(ui.home, 'santra', 'config.json'), '{ "agent": { "maxTurnsPerRun": 5 } }\n');
    await ui.say('hello again');
    await ui.waitFor(/Answered after the fix\./);
  });

  test('resized while an answer streams: the scrollback holds the answer once, re-flowed, with no stale frame', async () => {
    const opening = [1, 2, 3]
      .map((n) => `Paragraph ${n}: lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod.`)
      .join(' ');
    const ui = await startSantra([{ text: opening, generate: { tokens: 300, tokensPerSecond: 60 } }]);
    await ui.waitFor(/Ask santra/);
    await ui.say('Write a long paragraph');
    await ui.waitFor(/tok20 /);
    tmux('resize-window', '-t', 'ui', '-x', '60', '-y', '40');
    await pause(1000);
    tmux('resize-window', '-t', 'ui', '-x', '100', '-y', '40');
    await ui.waitFor(/── done/);
    await pause(500);
    const scrollback = tmux('capture-pane', '-p', '-J', '-t', 'ui', '-S', '-');
    const count = (pattern: RegExp) => scrollback.match(new RegExp(pattern.source, 'g'))?.length ?? 0;
    assert.equal(count(/Paragraph 1:/), 1, `the answer's start once:\n${scrollback}`);
    assert.equal(count(/Write a long paragraph/), 1, 'the prompt once');
    assert.equal(count(/╭/), 1, 'one composer box, not a torn copy');
    assert.equal(count(/Working…|tok\d+ …|\(\d+s\)/), 0, 'no stale spinner line');
    // Every token once, in order, and the lines wrapped at the new width.
    const tokens = scrollback.match(/tok\d+/g) ?? [];
    assert.deepEqual(
      tokens,
      Array.from({ length: 300 }, (_, i) => `tok${i + 1}`),
    );
    const wide = tmux('capture-pane', '-p', '-t', 'ui', '-S', '-').split('\n');
    assert.ok(
      wide.some((line) => line.length > 60 && /tok\d+/.test(line)),
      'the answer fills the wider terminal',
    );
  });

  test('first run without a key: the setup asks provider, key (masked) and model, saves them 0600, and the chat works', async () => {
    const key = 'sk-ant-typed-at-setup-0123456789';
    const term = await startSantra([{ text: 'Hi, set up and ready.' }], undefined, { withoutKey: true });
    await term.waitFor(/Welcome to santra/, 1, 60_000);
    await term.waitFor(/› anthropic/);
    term.type('Enter');
    await term.waitFor(/API key for anthropic/);
    tmux('send-keys', '-t', 'ui', '-l', key);
    await term.waitFor(/Key: •{32}/);
    assert.ok(!term.pane().includes(key), 'the key is never shown');
    term.type('Enter');
    await term.waitFor(/Model \(anthropic\)/);
    term.type('Enter');
    // The line wraps where the temp path is long: its start is enough; the file is checked below.
    await term.waitFor(/Saved anthropic\/[\w.-]+ and its key to /);
    await term.waitFor(/Ask santra, or \/help/);
    const config = join(term.home, 'santra', 'config.json');
    assert.equal(statSync(config).mode & 0o777, 0o600);
    assert.equal(
      (JSON.parse(readFileSync(config, 'utf8')) as { providers: { anthropic: { apiKey: string } } }).providers
        .anthropic.apiKey,
      key,
    );
    await term.say('hello');
    await term.waitFor(/Hi, set up and ready\./);
    const headers = term.fake.requests[0]?.headers ?? {};
    assert.ok(
      [headers['x-api-key'], headers.authorization].some((value) => value?.includes(key)),
      'the new server uses the saved key',
    );
    term.type('C-c');
    term.type('C-c');
    assert.equal(await term.exitCode(), 0);
  });
});

/** The replay viewer on a recording, in a tmux session of its own, with an empty HOME and no key. */
async function replayIn(file: string) {
  const home = tempDir('santra-tui-replay-home-');
  const code = join(home, 'exit-code');
  cleanups.push(() => removeTempDir(home));
  const command = [
    'env',
    '-i',
    `HOME=${quote(home)}`,
    'TERM=xterm-256color',
    quote(process.execPath),
    quote(SANTRA),
    'replay',
    quote(file),
  ];
  tmux(
    'new-session',
    '-d',
    '-s',
    'replay',
    '-x',
    '120',
    '-y',
    '40',
    `${command.join(' ')}; echo $? > ${quote(code)}`,
  );
  const pane = () => tmux('capture-pane', '-p', '-t', 'replay', '-S', '-300');
  return {
    pane,
    type: (...keys: string[]) => tmux('send-keys', '-t', 'replay', ...keys),
    waitFor: (pattern: RegExp) =>
      poll(
        () => pattern.test(pane()),
        () => `waiting for ${pattern}; pane:\n${pane()}`,
      ),
    exitCode: async () => {
      await poll(
        () => existsSync(code) && readFileSync(code, 'utf8').endsWith('\n'),
        () => `the replay did not exit; pane:\n${pane()}`,
      );
      return Number(readFileSync(code, 'utf8'));
    },
  };
}
