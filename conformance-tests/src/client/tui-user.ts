/**
 * The user of Santra's interactive UI in the client mode: it runs the UI in a tmux session of its
 * own (a real terminal) and acts as a person would — sends a prompt, answers an approval with `y`,
 * picks the second option of a question or types "notes.md", presses Esc when the scripted server
 * cues "cancel", and quits with Ctrl+C twice once the run has ended. Run it under
 * `santra-conformance client --cancel client -- node tui-user.ts node dist/santra.js`: the UI
 * inherits SANTRA_SERVER and the scenario's variables through the environment written into the
 * tmux command. Exits with the UI's exit code.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const command = process.argv.slice(2);
if (command.length === 0) {
  process.stderr.write('tui-user: give the UI command, e.g. node tui-user.ts node dist/santra.js\n');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'santra-conformance-tui-'));
// The tmux server's socket lives in our temp directory, so nothing of it outlives this run.
const socket = join(dir, 'tmux.sock');
const codeFile = join(dir, 'exit-code');
const cueFile = process.env.SANTRA_CONFORMANCE_CUE;
const deadline = Date.now() + Number(process.env.SANTRA_CONFORMANCE_DEADLINE_MS ?? 30000);
/** The UI ignores keys for a moment after an overlay appears, so a stray key cannot answer it. */
const OVERLAY_GUARD_MS = 400;

const tmux = (...args: string[]) =>
  execFileSync('tmux', ['-S', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pane = () => tmux('capture-pane', '-p', '-t', 'ui', '-S', '-200');
const exited = () => existsSync(codeFile) && readFileSync(codeFile, 'utf8').endsWith('\n');
// remain-on-exit keeps the pane after the UI exits; the exit code file says that it did.
const cued = (name: string) =>
  cueFile !== undefined && existsSync(cueFile) && readFileSync(cueFile, 'utf8').split('\n').includes(name);

/** The variables the UI and the server it starts need, written into the tmux command. */
function environment(): string[] {
  const passed = Object.entries(process.env).filter(
    ([name]) =>
      ['HOME', 'PATH', 'SANTRA_HOME', 'SANTRA_SERVER', 'NO_COLOR'].includes(name) ||
      name.startsWith('XDG_') ||
      name.startsWith('SANTRA_CONFORMANCE_'),
  );
  return [...passed.map(([name, value]) => `${name}=${quote(value ?? '')}`), 'TERM=xterm-256color'];
}

async function waitFor(pattern: RegExp, what: string): Promise<void> {
  while (!pattern.test(pane())) {
    if (exited()) throw new Error(`the UI exited while waiting for ${what}:\n${pane()}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${pane()}`);
    await pause(100);
  }
}

/** Plays the user until the run has ended: answers what the UI puts up, cancels when cued. */
async function actUntilTheRunEnds(): Promise<void> {
  let cancelled = false;
  while (Date.now() < deadline && !exited()) {
    const screen = pane();
    if (/── (done|cancelled|error|interrupted)|santra-server refused/.test(screen)) return;
    if (/Approval · /.test(screen)) {
      await pause(OVERLAY_GUARD_MS);
      tmux('send-keys', '-t', 'ui', 'y');
      await pause(300);
    } else if (/Enter: answer/.test(screen)) {
      await pause(OVERLAY_GUARD_MS);
      if (/Other: /.test(screen)) tmux('send-keys', '-t', 'ui', '2');
      else tmux('send-keys', '-t', 'ui', '-l', 'notes.md');
      if (!/Other: /.test(screen)) tmux('send-keys', '-t', 'ui', 'Enter');
      await pause(300);
    } else if (!cancelled && cued('cancel')) {
      cancelled = true;
      tmux('send-keys', '-t', 'ui', 'Escape');
    }
    await pause(100);
  }
}

async function main(): Promise<number> {
  const line = ['env', ...environment(), ...command.map(quote)].join(' ');
  // A session that outlives the UI's, and a pane that stays after it exits: the screen it left is
  // the evidence of why it exited.
  tmux('new-session', '-d', '-s', 'keeper');
  tmux('set-option', '-g', 'remain-on-exit', 'on');
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
    process.cwd(),
    `${line}; echo $? > ${quote(codeFile)}`,
  );
  try {
    await waitFor(/Ask santra, or \/help/, 'the composer');
    tmux('send-keys', '-t', 'ui', '-l', 'hello');
    await pause(150);
    tmux('send-keys', '-t', 'ui', 'Enter');
    await actUntilTheRunEnds();
  } catch (error) {
    process.stderr.write(`tui-user: ${(error as Error).message}\n`);
  }
  if (exited()) process.stderr.write(`tui-user: the UI exited; its screen:\n${pane()}\n`);
  // Ctrl+C twice quits (the first one asks for the second).
  for (let i = 0; i < 2 && !exited(); i++) {
    tmux('send-keys', '-t', 'ui', 'C-c');
    await pause(300);
  }
  while (!exited() && Date.now() < deadline + 5000) await pause(100);
  return exited() ? Number(readFileSync(codeFile, 'utf8')) : 1;
}

const code = await main().finally(() => {
  spawnSync('tmux', ['-S', socket, 'kill-server']);
  rmSync(dir, { recursive: true, force: true });
});
process.exit(code);
