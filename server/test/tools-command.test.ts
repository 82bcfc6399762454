import assert from 'node:assert/strict';
import { access, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { runCommandTool } from '../src/tools/run-command.ts';
import { tempWorkspace, testContext } from './helpers/tool-context.ts';

/** The gate requests, without the inspection run_command attaches to a command. */
const commandsAsked = (context: { gateRequests: ReadonlyArray<Record<string, unknown>> }) =>
  context.gateRequests.map(({ inspection: _inspection, ...request }) => request);

const tool = runCommandTool();

/** True when `pid` no longer runs: gone, or a zombie nobody reaped (PID 1 in containers often does not). */
async function isDead(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

async function waitForFile(path: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const text = await readFile(path, 'utf8').catch(() => '');
    if (text.endsWith('\n')) return text;
    await delay(50);
  }
  assert.fail(`${path} never appeared`);
}

describe('run_command', () => {
  test('runs in the workspace root after the gate allowed it, with stdout and exit 0', async () => {
    const root = await tempWorkspace();
    const context = await testContext(root);
    const result = await tool.execute({ command: 'echo hello; pwd' }, context);
    assert.equal(result.summary, 'exit 0');
    assert.equal(result.isError, undefined);
    assert.match(result.output, /^Exit code 0 after [\d.]+ s\./);
    assert.match(result.output, new RegExp(`<stdout>\nhello\n${root}\n</stdout>`));
    assert.doesNotMatch(result.output, /<stderr>/);
    assert.deepEqual(commandsAsked(context), [{ kind: 'command', command: 'echo hello; pwd', cwd: root }]);
  });

  test('a non-zero exit is an error result that still carries stdout and stderr', async () => {
    const root = await tempWorkspace();
    const result = await tool.execute({ command: 'echo out; echo err >&2; exit 3' }, await testContext(root));
    assert.equal(result.summary, 'exit 3');
    assert.equal(result.isError, true);
    assert.equal(result.errorType, 'nonzero_exit');
    assert.match(result.output, /^Exit code 3/);
    assert.match(result.output, /<stdout>\nout\n<\/stdout>/);
    assert.match(result.output, /<stderr>\nerr\n<\/stderr>/);
  });

  test('says so when there is no output', async () => {
    const result = await tool.execute({ command: 'true' }, await testContext(await tempWorkspace()));
    assert.match(result.output, /\(no output\)$/);
  });

  test('stdin is empty: cat without arguments ends at once', async () => {
    const result = await tool.execute(
      { command: 'cat; echo done' },
      await testContext(await tempWorkspace()),
    );
    assert.equal(result.summary, 'exit 0');
    assert.match(result.output, /<stdout>\ndone\n/);
  });

  test('reports a command killed by a signal', async () => {
    const result = await tool.execute({ command: 'kill -9 $$' }, await testContext(await tempWorkspace()));
    assert.equal(result.summary, 'killed (SIGKILL)');
    assert.equal(result.errorType, 'signal');
  });

  test('runs in a cwd inside the workspace, and passes its absolute path to the gate', async () => {
    const root = await tempWorkspace();
    await mkdir(join(root, 'sub', 'dir'), { recursive: true });
    const context = await testContext(root);
    const result = await tool.execute({ command: 'pwd', cwd: 'sub/dir' }, context);
    assert.match(result.output, new RegExp(`in sub/dir\\.\n<stdout>\n${join(root, 'sub', 'dir')}\n`));
    assert.deepEqual(commandsAsked(context), [
      { kind: 'command', command: 'pwd', cwd: join(root, 'sub', 'dir') },
    ]);
  });

  test('refuses a cwd outside the workspace before asking the gate, and runs nothing', async () => {
    const parent = await tempWorkspace();
    const root = join(parent, 'proj');
    const evil = join(parent, 'proj-evil');
    await mkdir(root);
    await mkdir(evil);
    await symlink(evil, join(root, 'link-out'));
    await writeFile(join(root, 'file.txt'), 'x');
    const cases: Array<[string, string]> = [
      ['..', 'outside_workspace'],
      ['../proj-evil', 'outside_workspace'],
      [evil, 'outside_workspace'],
      ['/', 'outside_workspace'],
      ['link-out', 'outside_workspace'],
      ['sub/../../proj-evil', 'outside_workspace'],
      ['missing', 'not_found'],
      ['file.txt', 'not_a_directory'],
      ['a\u0000b', 'invalid_path'],
      ['', 'invalid_path'],
    ];
    for (const [cwd, errorType] of cases) {
      const context = await testContext(root);
      const result = await tool.execute({ command: 'touch marker', cwd }, context);
      assert.equal(result.errorType, errorType, `cwd ${JSON.stringify(cwd)}: ${result.output}`);
      assert.equal(result.isError, true);
      assert.deepEqual(context.gateRequests, [], `cwd ${JSON.stringify(cwd)} reached the gate`);
    }
    assert.equal(await exists(join(evil, 'marker')), false);
    assert.equal(await exists(join(parent, 'marker')), false);
  });

  test('runs nothing when the gate refuses', async () => {
    const root = await tempWorkspace();
    const marker = join(root, 'marker');
    for (const [reason, rejected] of [
      ['rejected', true],
      ['feedback', true],
      ['denied', false],
      ['unavailable', false],
    ] as const) {
      const context = await testContext(root);
      context.decisions.push({ allowed: false, reason, message: `not allowed (${reason})` });
      const result = await tool.execute({ command: `touch ${marker}` }, context);
      assert.equal(result.isError, true);
      assert.equal(result.errorType, reason);
      assert.equal(result.rejected, rejected);
      assert.equal(result.output, `not allowed (${reason})`);
      assert.equal(context.gateRequests.length, 1);
    }
    assert.equal(await exists(marker), false);
  });

  test('a cancelled run neither asks nor runs', async () => {
    const root = await tempWorkspace();
    const context = await testContext(root);
    context.abort();
    const result = await tool.execute({ command: `touch ${join(root, 'marker')}` }, context);
    assert.equal(result.errorType, 'cancelled');
    assert.deepEqual(context.gateRequests, []);
    assert.equal(await exists(join(root, 'marker')), false);
  });

  test('a run cancelled during approval does not start the command', async () => {
    const root = await tempWorkspace();
    const context = await testContext(root);
    context.beforeDecision = () => context.abort();
    const result = await tool.execute({ command: `touch ${join(root, 'marker')}` }, context);
    assert.equal(result.errorType, 'cancelled');
    assert.equal(await exists(join(root, 'marker')), false);
  });

  test('runs with context.commandEnv only', async () => {
    const root = await tempWorkspace();
    const context = await testContext(root, {
      env: { PATH: process.env.PATH, SANTRA_TEST_MARK: 'from-context' },
    });
    const result = await tool.execute({ command: 'env' }, context);
    assert.match(result.output, /^SANTRA_TEST_MARK=from-context$/m);
    assert.doesNotMatch(result.output, /^HOME=/m);
  });
});

describe('run_command timeouts and cancellation', () => {
  test('a timeout kills the whole process group: no grandchild survives', async () => {
    const root = await tempWorkspace();
    const context = await testContext(root);
    const result = await tool.execute({ command: 'sleep 100 & echo $!; echo $$; wait', timeout: 1 }, context);
    assert.equal(result.summary, 'timed out');
    assert.equal(result.errorType, 'timeout');
    assert.match(result.output, /^Timed out after 1 s/);
    const [grandchild, shell] = /<stdout>\n(\d+)\n(\d+)\n/.exec(result.output)?.slice(1).map(Number) ?? [];
    assert.ok(grandchild !== undefined && shell !== undefined, result.output);
    assert.equal(await isDead(grandchild), true, `sleep ${grandchild} survived`);
    assert.equal(await isDead(shell), true, `sh ${shell} survived`);
  });

  test('processes that ignore SIGTERM are killed with SIGKILL after the grace period', async () => {
    const root = await tempWorkspace();
    const context = await testContext(root);
    const result = await tool.execute(
      { command: 'trap "" TERM; sleep 100 & echo $!; wait', timeout: 0.5 },
      context,
    );
    assert.equal(result.summary, 'timed out');
    const grandchild = Number(/<stdout>\n(\d+)\n/.exec(result.output)?.[1]);
    assert.ok(grandchild > 0, result.output);
    assert.equal(await isDead(grandchild), true, `sleep ${grandchild} survived SIGKILL`);
  });

  test('cancellation kills the whole process group', async () => {
    const root = await tempWorkspace();
    const context = await testContext(root);
    const pidFile = join(root, 'pid.txt');
    const running = tool.execute({ command: `sleep 100 & echo $! > ${pidFile}; wait`, timeout: 60 }, context);
    const grandchild = Number((await waitForFile(pidFile)).trim());
    context.abort();
    const result = await running;
    assert.equal(result.summary, 'cancelled');
    assert.equal(result.errorType, 'cancelled');
    assert.match(result.output, /^Cancelled after/);
    assert.equal(await isDead(grandchild), true, `sleep ${grandchild} survived`);
  });

  test('background processes left behind when the command exits are stopped', async () => {
    const root = await tempWorkspace();
    const result = await tool.execute(
      { command: 'sleep 100 >/dev/null 2>&1 & echo $!' },
      await testContext(root),
    );
    assert.equal(result.summary, 'exit 0');
    assert.match(result.output, /left running in the background were stopped/);
    const grandchild = Number(/<stdout>\n(\d+)\n/.exec(result.output)?.[1]);
    assert.ok(grandchild > 0, result.output);
    assert.equal(await isDead(grandchild), true);
  });

  test('a background process that keeps the output pipe open is stopped too', async () => {
    const root = await tempWorkspace();
    const result = await tool.execute({ command: 'sleep 100 & echo $!' }, await testContext(root));
    assert.equal(result.summary, 'exit 0');
    const grandchild = Number(/<stdout>\n(\d+)\n/.exec(result.output)?.[1]);
    assert.equal(await isDead(grandchild), true);
  });

  test('a process that leaves the group and holds the output does not make the call hang', async () => {
    const root = await tempWorkspace();
    // The command waits until the escaped process has its own session, so the test does not race it.
    const command =
      "setsid sh -c 'echo $$ > escaped.pid; exec sleep 30' & while [ ! -s escaped.pid ]; do sleep 0.05; done; cat escaped.pid";
    const result = await tool.execute({ command }, await testContext(root));
    const escaped = Number(/<stdout>\n(\d+)\n/.exec(result.output)?.[1]);
    try {
      assert.equal(result.summary, 'exit 0');
      assert.match(result.output, /detached from the command still holds its output/);
    } finally {
      if (escaped > 0) process.kill(escaped, 'SIGKILL');
    }
  });

  test('a timeout above the maximum is reduced to it, and the result says so', async () => {
    const root = await tempWorkspace();
    const context = await testContext(root, { settings: { maxCommandTimeoutMs: 2_000 } });
    const result = await tool.execute({ command: 'echo ok', timeout: 100 }, context);
    assert.equal(result.summary, 'exit 0');
    assert.match(result.output, /The timeout of 100 s was reduced to the maximum, 2 s\./);
  });

  test('the default timeout comes from the settings', async () => {
    const root = await tempWorkspace();
    const context = await testContext(root, { settings: { commandTimeoutMs: 500 } });
    const result = await tool.execute({ command: 'sleep 30' }, context);
    assert.equal(result.summary, 'timed out');
    assert.match(result.output, /^Timed out after 0.5 s/);
  });
});

describe('run_command output limit', () => {
  test('several MB of output are cut to the limit, keeping the head and the tail', async () => {
    const root = await tempWorkspace();
    const limit = 30_000;
    const context = await testContext(root, { settings: { commandOutputLimit: limit } });
    // 5 MB of numbered lines: the first and the last line tell the head and tail apart.
    const command = 'yes "line of output padding padding padding" | head -n 100000 | nl -ba; echo LAST-LINE';
    const result = await tool.execute({ command }, context);
    assert.equal(result.summary, 'exit 0');
    const stdout = /<stdout>\n([\s\S]*)<\/stdout>/.exec(result.output)?.[1] ?? '';
    assert.ok(Buffer.byteLength(stdout) <= limit + 100, `kept ${Buffer.byteLength(stdout)} bytes`);
    assert.ok(Buffer.byteLength(stdout) >= limit * 0.9, `kept only ${Buffer.byteLength(stdout)} bytes`);
    assert.match(stdout, /^\s+1\tline of output/);
    assert.match(stdout, /LAST-LINE\n$/);
    const cut = Number(/\[… (\d+) bytes of output cut …\]/.exec(stdout)?.[1]);
    assert.ok(cut > 4_000_000, `cut ${cut}`);
  });

  test('stdout and stderr share the limit', async () => {
    const root = await tempWorkspace();
    const limit = 10_000;
    const context = await testContext(root, { settings: { commandOutputLimit: limit } });
    const result = await tool.execute(
      { command: 'yes out | head -c 200000; yes err | head -c 200000 >&2' },
      context,
    );
    const stdout = /<stdout>\n([\s\S]*)<\/stdout>/.exec(result.output)?.[1] ?? '';
    const stderr = /<stderr>\n([\s\S]*)<\/stderr>/.exec(result.output)?.[1] ?? '';
    assert.ok(stdout.length + stderr.length <= limit + 200, `${stdout.length} + ${stderr.length}`);
    assert.ok(stdout.length > limit / 3 && stderr.length > limit / 3, `${stdout.length} / ${stderr.length}`);
  });

  test('a short stderr is kept whole beside a long stdout', async () => {
    const root = await tempWorkspace();
    const context = await testContext(root, { settings: { commandOutputLimit: 10_000 } });
    const result = await tool.execute(
      { command: 'yes out | head -c 500000; echo "the error" >&2; exit 1' },
      context,
    );
    assert.match(result.output, /<stderr>\nthe error\n<\/stderr>/);
  });
});
