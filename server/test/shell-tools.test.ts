/**
 * The interactive shells: the screen model on its own, then the tools over a real PTY (a real
 * python3 REPL), with the approval gate seeing exactly what is typed, and no process left once
 * the run's sessions end.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { join } from 'node:path';
import { probeSandbox } from '../src/sandbox/probe.ts';
import { CommandSandbox } from '../src/sandbox/sandbox.ts';
import { groupAlive } from '../src/tools/commands/run-process.ts';
import { fromControlPictures, keyBytes, onlyNavigation } from '../src/tools/shell-keys.ts';
import { TerminalScreen } from '../src/tools/shell-screen.ts';
import { shellsOf } from '../src/tools/shell-sessions.ts';
import {
  endRunShells,
  shellEndTool,
  shellReadTool,
  shellSendTool,
  shellStartTool,
} from '../src/tools/shell-tools.ts';
import { tempWorkspace, testContext } from './helpers/tool-context.ts';

const start = shellStartTool();
const send = shellSendTool();
const read = shellReadTool();
const end = shellEndTool();

/** The pids of the run's sessions (to check that none outlives it). */
const pidsOf = (runId: string) =>
  shellsOf(runId)
    .ids()
    .map((id) => shellsOf(runId).get(id)?.pid as number);

describe('the terminal screen', () => {
  test('CR overwrites, LF moves down, erase-in-line clears the rest', () => {
    const screen = new TerminalScreen(20, 5);
    screen.write('hello world\rHELLO\nnext\x1b[2Dxt line\x1b[K');
    assert.equal(screen.screen(), 'HELLO world\n     next line');
  });

  test('cursor positioning, erase in display and colours that draw nothing', () => {
    const screen = new TerminalScreen(20, 5);
    screen.write('aaaa\r\nbbbb\r\ncccc');
    screen.write('\x1b[2;3H\x1b[0J\x1b[31mX\x1b[0m');
    assert.equal(screen.screen(), 'aaaa\nbbX');
    assert.deepEqual(screen.cursor, { row: 1, col: 3 });
    screen.write('\x1b[2J\x1b[H\x1b]0;a title\x07top');
    assert.equal(screen.screen(), 'top');
  });

  test('long lines wrap at the last column; lines scrolled off the top are history', () => {
    const screen = new TerminalScreen(10, 3);
    screen.write('0123456789ABC\r\nline2\r\nline3\r\nline4');
    assert.equal(screen.screen(), 'ABC\nline2\nline3\nline4'.split('\n').slice(1).join('\n'));
    assert.equal(screen.history(), '0123456789\nABC\nline2\nline3\nline4');
  });

  test('backspace, delete and insert characters, as line editors redraw', () => {
    const screen = new TerminalScreen(20, 3);
    screen.write('>>> 1+2\b\x1b[K1');
    assert.equal(screen.screen(), '>>> 1+1');
    screen.write('\r\x1b[4C\x1b[1P');
    assert.equal(screen.screen(), '>>> +1');
    screen.write('\x1b[2@');
    assert.equal(screen.screen(), '>>>   +1');
  });

  test('the alternate screen of a full-screen program, and the main screen back after it', () => {
    const screen = new TerminalScreen(20, 4);
    screen.write('$ vim\r\n');
    screen.write('\x1b[?1049h\x1b[Hin vim');
    assert.equal(screen.screen(), 'in vim');
    screen.write('\x1b[?1049l');
    assert.equal(screen.screen(), '$ vim');
  });

  test('a sequence split across writes is still one sequence', () => {
    const screen = new TerminalScreen(20, 3);
    screen.write('ab\x1b[');
    screen.write('1D\x1b');
    screen.write('[KZ');
    assert.equal(screen.screen(), 'aZ');
  });
});

describe('named keys', () => {
  test('Enter, arrows and control keys; an unknown key names the keys there are', () => {
    assert.equal(keyBytes('Enter'), '\r');
    assert.equal(keyBytes('up'), '\x1b[A');
    assert.equal(keyBytes('Ctrl-C'), '\x03');
    assert.equal(keyBytes('ctrl+d'), '\x04');
    const unknown = keyBytes('Hyper');
    assert.ok(typeof unknown !== 'string');
    assert.match(unknown.error, /Unknown key "Hyper"\. Keys: Enter, Tab/);
    assert.equal(onlyNavigation(['Up', 'PageDown']), true);
    assert.equal(onlyNavigation(['Up', 'Enter']), false);
    assert.equal(fromControlPictures('1+1\u240d'), '1+1\r');
  });
});

describe('shell tools over a real PTY', () => {
  test('a python3 REPL: started and typed into after approval, 1+1 reads 2 from the screen, exit() ends it', async () => {
    const root = await tempWorkspace();
    const context = await testContext(root);
    context.runId = 'run_repl';
    try {
      const started = await start.execute({ command: 'python3 -q', waitFor: '>>> ', timeout: 20 }, context);
      assert.equal(started.isError, undefined, started.output);
      assert.match(
        started.output,
        /^\[sh-1: `python3 -q` in \., running; cursor at line 1, column 5\]\n>>>$/m,
      );
      const sum = await send.execute(
        { id: 'sh-1', text: '1+1', keys: ['Enter'], waitFor: '\n>>> ', timeout: 20 },
        context,
      );
      assert.equal(sum.isError, undefined, sum.output);
      assert.match(sum.output, /^>>> 1\+1\n2\n>>>$/m);
      // Reading only: not asked.
      const again = await read.execute({ id: 'sh-1' }, context);
      assert.match(again.output, /^2$/m);
      const exited = await send.execute({ id: 'sh-1', text: 'exit()\n', timeout: 20 }, context);
      assert.match(exited.output, /exited with code 0/);
      assert.deepEqual(
        context.gateRequests.map((request) => ('command' in request ? request.command : request.kind)),
        ['python3 -q', '1+1\r', 'exit()\r'],
        'the gate saw exactly what was started and typed',
      );
      const after = await send.execute({ id: 'sh-1', text: '2+2', keys: ['Enter'] }, context);
      assert.equal(after.errorType, 'exited');
    } finally {
      await endRunShells(context.runId);
    }
  });

  test('a rejected input is never typed; navigation keys alone are not asked', async () => {
    const root = await tempWorkspace();
    const context = await testContext(root);
    context.runId = 'run_reject';
    try {
      await start.execute({ command: 'cat', timeout: 5 }, context);
      context.decisions.push({ allowed: false, reason: 'rejected', message: 'The user rejected this.' });
      const rejected = await send.execute({ id: 'sh-1', text: 'rm -rf data', keys: ['Enter'] }, context);
      assert.equal(rejected.rejected, true);
      const screen = await read.execute({ id: 'sh-1', timeout: 0.5 }, context);
      assert.doesNotMatch(screen.output, /rm -rf/, 'nothing was typed');
      const asked = context.gateRequests.length;
      await send.execute({ id: 'sh-1', keys: ['Up', 'Down'], timeout: 0.5 }, context);
      assert.equal(context.gateRequests.length, asked, 'arrow keys alone were not asked');
      const unknown = await send.execute({ id: 'sh-9', text: 'x' }, context);
      assert.equal(unknown.errorType, 'unknown_session');
      assert.match(unknown.output, /Open sessions: sh-1\./);
    } finally {
      await endRunShells(context.runId);
    }
  });

  test('plan mode refuses starting a session and typing into one', async () => {
    const root = await tempWorkspace();
    const context = await testContext(root);
    context.runId = 'run_plan';
    context.permissionMode = { get: () => 'plan', set: () => {} };
    const refused = await start.execute({ command: 'python3 -q' }, context);
    assert.equal(refused.errorType, 'plan_mode');
    assert.equal(context.gateRequests.length, 0);
  });

  test('sessions end with the run: no process of theirs is left, children included', async () => {
    const root = await tempWorkspace();
    const context = await testContext(root);
    context.runId = 'run_orphans';
    await start.execute({ command: 'sleep 300 & sleep 301', timeout: 0.5 }, context);
    await start.execute({ command: 'python3 -q', waitFor: '>>> ', timeout: 20 }, context);
    const pids = pidsOf(context.runId);
    assert.equal(pids.length, 2);
    for (const pid of pids) assert.equal(await groupAlive(pid), true, 'the sessions run');
    await endRunShells(context.runId);
    for (const pid of pids) assert.equal(await groupAlive(pid), false, `process group ${pid} is gone`);
    assert.deepEqual(shellsOf(context.runId).ids(), []);
    await endRunShells(context.runId);
  });

  test('shell_end stops one session and returns its last screen', async () => {
    const root = await tempWorkspace();
    const context = await testContext(root);
    context.runId = 'run_end';
    try {
      await start.execute({ command: 'echo ready; sleep 300', waitFor: 'ready', timeout: 10 }, context);
      const [pid] = pidsOf(context.runId);
      const ended = await end.execute({ id: 'sh-1' }, context);
      assert.match(ended.output, /ready\nThe session is ended\.$/);
      assert.equal(await groupAlive(pid as number), false);
    } finally {
      await endRunShells(context.runId);
    }
  });
});

const status = await probeSandbox({ env: process.env });
/** CI has bubblewrap: there the sandboxed tests never skip. */
const skip =
  process.platform !== 'linux'
    ? 'Linux only'
    : status.available || process.env.CI !== undefined
      ? false
      : `no sandbox here: ${status.available ? '' : status.problem}`;

describe('Ctrl-C interrupts the program, not the session', () => {
  for (const sandboxed of [false, true]) {
    test(
      `${sandboxed ? 'in the OS sandbox' : 'without a sandbox'}: a sleeping python3 gets KeyboardInterrupt and the REPL goes on`,
      { skip: sandboxed && skip },
      async () => {
        const root = await tempWorkspace();
        const context = await testContext(root);
        context.runId = `run_ctrl_c_${sandboxed}`;
        if (sandboxed)
          context.sandbox = new CommandSandbox({
            settings: { profile: 'workspace-write', allowedDomains: [], autoRun: false },
            scope: {
              workspaceRoot: context.workspace.root,
              allowedDirs: [],
              configDir: join(root, '..', 'no-config'),
              home: undefined,
            },
            env: process.env,
            status,
          });
        try {
          const started = await start.execute(
            { command: 'python3 -q', waitFor: '>>> ', timeout: 20 },
            context,
          );
          assert.equal(started.output.includes('It runs in the OS sandbox (workspace-write)'), sandboxed);
          await send.execute(
            { id: 'sh-1', text: 'import time; time.sleep(60)', keys: ['Enter'], timeout: 0.5 },
            context,
          );
          const interrupted = await send.execute(
            { id: 'sh-1', keys: ['Ctrl-C'], waitFor: 'KeyboardInterrupt', timeout: 20 },
            context,
          );
          assert.equal(interrupted.isError, undefined, interrupted.output);
          assert.match(interrupted.output, /running/);
          const after = await send.execute(
            { id: 'sh-1', text: '2+3', keys: ['Enter'], waitFor: '5', timeout: 20 },
            context,
          );
          assert.match(after.output, /^>>> 2\+3\n5$/m);
          const typed = context.gateRequests.flatMap((request) =>
            'command' in request ? [request.command] : [],
          );
          assert.equal(typed.at(-2), '\x03', 'the gate saw Ctrl-C typed');
        } finally {
          await endRunShells(context.runId);
        }
      },
    );
  }
});
