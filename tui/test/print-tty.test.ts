/**
 * `santra -p` in a real terminal (tmux): approvals and questions are asked on the TTY and answered
 * with keystrokes. stdout goes to a file, so the pane shows only what santra asks on stderr. A wait
 * looks at the pane each time it prints (tmux pipes its output to a file the test watches).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { tempDir } from '../../scripts/temp-dirs.ts';
import { FAKE_SERVER, SANTRA_BIN } from './helpers/print-run.ts';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const socket = `santra-print-test-${process.pid}`;
// -f /dev/null: no user configuration (and no reading of the home directory).
const tmux = (...args: string[]) =>
  execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;
let sessions = 0;
/** What the shell prints once santra has exited: all santra wrote is on the pane before it. */
const EXITED = '--- santra exited ---';

after(() => {
  if (hasTmux) spawnSync('tmux', ['-L', socket, 'kill-server']);
});

/**
 * Starts santra in a fresh tmux session; returns a handle to read the pane and type into it.
 * `answerOnPane`: stdout stays on the terminal too (else it goes to a file); `noInput`: stdin is
 * /dev/null, so approvals are rejected without asking.
 */
function startInTerminal(
  scenario: string,
  args: string[] = [],
  { answerOnPane = false, noInput = false }: { answerOnPane?: boolean; noInput?: boolean } = {},
) {
  const dir = tempDir('santra-tty-');
  const name = `s${++sessions}`;
  const files = {
    stdout: join(dir, 'stdout'),
    code: join(dir, 'code'),
    log: join(dir, 'fake.log'),
    pane: join(dir, 'pane'),
  };
  const command = [
    'env',
    `SANTRA_SERVER=${quote(FAKE_SERVER)}`,
    `FAKE_SCENARIO=${scenario}`,
    `FAKE_LOG=${quote(files.log)}`,
    'NO_COLOR=1',
    quote(process.execPath),
    quote(SANTRA_BIN),
    '-p',
    quote('edit the file'),
    '--cwd',
    quote(dir),
    ...args,
  ].join(' ');
  if (sessions === 1) {
    // A server that keeps finished panes, so a test can still read what santra left on the screen.
    tmux('new-session', '-d', '-s', 'keeper');
    tmux('set-option', '-g', 'remain-on-exit', 'on');
  }
  tmux(
    'new-session',
    '-d',
    '-s',
    name,
    '-x',
    '150',
    '-y',
    '50',
    `${command}${noInput ? ' < /dev/null' : ''}${answerOnPane ? '' : ` > ${quote(files.stdout)}`}; echo $? > ${quote(files.code)}; echo ${quote(EXITED)}`,
  );
  // What the pane prints is copied to a file too: its changes are the news that the pane changed.
  // Whatever it printed before the pipe was there is on the pane for the first look.
  writeFileSync(files.pane, '');
  tmux('pipe-pane', '-t', name, `cat >> ${quote(files.pane)}`);
  const pane = () => tmux('capture-pane', '-p', '-t', name, '-S', '-100');
  const waitForPane = (pattern: RegExp, count = 1) =>
    onPaneOutput(
      files.pane,
      () => (pane().match(new RegExp(pattern, 'g'))?.length ?? 0) >= count,
      () => `waited for ${count} × ${pattern}; pane:\n${pane()}`,
    );
  return {
    pane,
    type: (...keys: string[]) => tmux('send-keys', '-t', name, ...keys),
    waitForPane,
    finished: async () => {
      await waitForPane(new RegExp(EXITED));
      const stdout = existsSync(files.stdout) ? readFileSync(files.stdout, 'utf8') : '';
      return { code: Number(readFileSync(files.code, 'utf8')), stdout };
    },
  };
}

/**
 * Waits until `done()` holds, looking when the wait starts and each time the pane prints (`log`
 * changes); fails after `timeoutMs` with `describe()`.
 */
function onPaneOutput(
  log: string,
  done: () => boolean,
  describe: () => string,
  timeoutMs = 20_000,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let over = false;
    const watcher = watch(log);
    const end = (error?: Error) => {
      if (over) return;
      over = true;
      clearTimeout(deadline);
      watcher.close();
      if (error === undefined) resolve();
      else reject(error);
    };
    const look = () => {
      if (!over && done()) end();
    };
    const deadline = setTimeout(
      () => end(new Error(`timed out after ${timeoutMs} ms; ${describe()}`)),
      timeoutMs,
    );
    watcher.on('change', look).on('error', (error) => end(error));
    look();
  });
}

// tmux is part of the test environment (.ci/run installs it): without it these tests fail, not skip.
describe('santra -p on a terminal', () => {
  test('tmux is installed (.ci/run installs it)', () => assert.ok(hasTmux, 'install tmux'));
  test('shows the diff and asks; [a] allows all, so the command is not asked about', async () => {
    const term = startInTerminal('approve');
    await term.waitForPane(/Allow\? \[y\] yes {2}\[a\] allow all {2}\[n\] no {2}\[f\] no, with feedback/);
    const pane = term.pane();
    assert.match(pane, /wants to modify src\/greet\.ts \(\+1 −1; root, str_replace\)/);
    assert.match(pane, /-old line\n\+new line/);
    // One key answers: no Enter.
    term.type('a');
    const { code, stdout } = await term.finished();
    assert.equal(code, 0);
    assert.equal(stdout, 'file_change: allow_all\ncommand: allowed under allow_all, not asked\n');
    assert.equal(term.pane().match(/Allow\?/g)?.length, 1);
  });

  test('[f] asks for feedback, which reaches the server; [n] rejects the command', async () => {
    const term = startInTerminal('approve');
    await term.waitForPane(/Allow\?/);
    term.type('f');
    await term.waitForPane(/Feedback for the agent:/);
    term.type('use tabs, not spaces', 'Enter');
    await term.waitForPane(/\$ npm test\n {2}in \/tmp/);
    await term.waitForPane(/Allow\?/, 2);
    term.type('n');
    const { code, stdout } = await term.finished();
    assert.equal(code, 0);
    assert.equal(stdout, 'file_change: feedback (use tabs, not spaces)\ncommand: reject\n');
  });

  test('stdout and stderr on one terminal: a line on stderr never continues the unfinished answer line', async () => {
    // --verbose: the server's log comes through too.
    const term = startInTerminal('text-then-approve', ['--verbose'], { answerOnPane: true, noInput: true });
    const { code } = await term.finished();
    assert.equal(code, 0);
    const pane = term.pane();
    assert.match(pane, /^Let me look\.\nfake-server: a log line$/m);
    assert.match(
      pane,
      /^ Now the change\.\nsantra: rejected modify src\/greet\.ts \(\+1 −1\): stdin is not a terminal/m,
    );
    assert.match(pane, /^ It was: reject\.\nsantra: 10 in, 5 out tokens/m);
  });

  test('an ask shows numbered options; a number picks one', async () => {
    const term = startInTerminal('ask');
    await term.waitForPane(/Which colour\?\n {2}1\) Red\n {2}2\) Blue\nAnswer \(1-2, or type an answer\):/);
    term.type('2', 'Enter');
    const { code, stdout } = await term.finished();
    assert.equal(code, 0);
    assert.equal(stdout, 'answer: blue\n');
  });

  test('a secret answer is not echoed', async () => {
    const term = startInTerminal('ask-secret');
    await term.waitForPane(/API key\?\n\(the answer is not echoed\)\nAnswer:/);
    term.type('sk-hidden-123', 'Enter');
    const { code, stdout } = await term.finished();
    assert.equal(code, 0);
    assert.equal(stdout, 'secret: sk-hidden-123\n');
    assert.doesNotMatch(term.pane(), /sk-hidden/);
  });

  test('a question the server withdraws disappears and is answered RequestCancelled', async () => {
    const term = startInTerminal('approve-withdrawn');
    await term.waitForPane(/Allow\?/);
    const { code, stdout } = await term.finished();
    assert.equal(code, 0);
    assert.equal(stdout, 'withdrawn approve answered: error -32800\n');
    assert.match(term.pane(), /the question was withdrawn/);
  });

  test('Ctrl-C at a question withdraws it, cancels the run, and exits 130', async () => {
    const term = startInTerminal('approve');
    await term.waitForPane(/Allow\?/);
    term.type('C-c');
    const { code, stdout } = await term.finished();
    assert.equal(code, 130);
    // The fake server ignores the cancel and asks again; santra no longer asks anything.
    assert.match(
      stdout,
      /^file_change: error approve was cancelled\ncommand: error approve was cancelled\n$/,
    );
    assert.equal(term.pane().match(/Allow\?/g)?.length, 1);
    assert.match(term.pane(), /cancelling the run/);
  });
});
