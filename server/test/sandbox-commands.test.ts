/**
 * run_command in the OS sandbox: what the user and the model are told when the sandbox stops a
 * command, the re-run outside it that a person can allow (and only a person), `sandbox.autoRun`,
 * and the whole server under --auto-approve (issue 27's "done when"): an approved command writes
 * in the workspace but cannot read the key from the server's environment or the config, write
 * outside, or reach the network. And without bubblewrap (a PATH without it), Santra still works,
 * says so once, and asks as before.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { FakeTurn } from '../../conformance-tests/src/fake-providers/index.ts';
import { probeSandbox } from '../src/sandbox/probe.ts';
import type { SandboxSettings } from '../src/sandbox/profile.ts';
import { CommandSandbox } from '../src/sandbox/sandbox.ts';
import { runCommandTool } from '../src/tools/run-command.ts';
import { tempDir } from '../../scripts/temp-dirs.ts';
import { CANARY_KEY, suiteHarnesses } from './helpers/run.ts';
import { testContext } from './helpers/tool-context.ts';
import { type Json, WireClient } from './helpers/wire.ts';

const status = await probeSandbox({ env: process.env });
const skip =
  process.platform !== 'linux'
    ? 'Linux only'
    : status.available || process.env.CI !== undefined
      ? false
      : `no sandbox here: ${status.available ? '' : status.problem}`;

async function sandboxedContext(settings: Partial<SandboxSettings> = {}) {
  const root = tempDir('santra-sbx-ws-');
  const context = await testContext(root);
  context.sandbox = new CommandSandbox({
    settings: { profile: 'workspace-write', allowedDomains: [], autoRun: false, ...settings },
    scope: {
      workspaceRoot: context.workspace.root,
      allowedDirs: [],
      configDir: join(root, '..', 'no-config'),
      home: undefined,
    },
    env: process.env,
    status,
  });
  return { root, context };
}

describe('run_command in the sandbox', { skip }, () => {
  const tool = runCommandTool();

  test('a write the sandbox stops is escalated; allowed by the user, it runs again outside', async () => {
    const { root, context } = await sandboxedContext({ profile: 'read-only' });
    const result = await tool.execute({ command: 'echo hi > out.txt' }, context);
    assert.equal(result.isError, undefined, result.output);
    assert.equal(readFileSync(join(root, 'out.txt'), 'utf8'), 'hi\n');
    assert.deepEqual(
      context.gateRequests.map((request) => request.kind),
      ['command', 'escalate'],
    );
    const asked = context.gateRequests[0] as { sandbox?: string };
    assert.equal(asked.sandbox, 'read-only', 'the first request says how it will run');
    const escalation = context.gateRequests[1] as { reason: string };
    assert.match(escalation.reason, /sandbox blocked a write/);
    assert.match(escalation.reason, /Read-only file system/);
    assert.match(result.output, /The user allowed running it again outside the sandbox/);
  });

  test('refused, the model reads the sandboxed run and what the sandbox blocked', async () => {
    const { root, context } = await sandboxedContext({ profile: 'read-only' });
    context.decisions.push({ allowed: true }, { allowed: false, reason: 'rejected', message: 'no' });
    const result = await tool.execute({ command: 'echo hi > out.txt' }, context);
    assert.equal(result.isError, true);
    assert.equal(result.errorType, 'sandbox_denied');
    assert.match(result.output, /Read-only file system/);
    assert.match(result.output, /did not allow running it outside the sandbox/);
    assert.equal(existsSync(join(root, 'out.txt')), false);
  });

  test('a network call is reported as the sandbox blocking it; a plain failure is not escalated', async () => {
    const { context } = await sandboxedContext();
    context.decisions.push(
      { allowed: true },
      { allowed: false, reason: 'unavailable', message: 'nobody to ask' },
    );
    const blocked = await tool.execute(
      { command: 'getent hosts example.com || echo "Could not resolve host: example.com" >&2; exit 6' },
      context,
    );
    assert.equal(blocked.errorType, 'sandbox_denied', blocked.output);
    assert.match(blocked.output, /sandbox blocked a network connection/);
    const plain = await tool.execute({ command: 'echo nope >&2; exit 3' }, context);
    assert.equal(plain.errorType, 'nonzero_exit');
    assert.equal(context.gateRequests.filter((request) => request.kind === 'escalate').length, 1);
  });

  test('a command cancelled while the sandbox starts leaves nothing running', async () => {
    // The sandboxed command is a session of its own until bubblewrap's die-with-parent holds: a
    // cancel in that window once left it running (run-process.ts kills what left the group).
    const { context } = await sandboxedContext({ autoRun: true });
    const seconds = `${61 + Math.floor(Math.random() * 1000)}.${process.pid}`;
    for (let round = 0; round < 8; round++) {
      const controller = new AbortController();
      context.signal = controller.signal;
      const ran = tool.execute({ command: `sleep ${seconds}` }, context);
      // Into the start-up, a little later each round: the cancel lands at different moments of it.
      await new Promise((resolve) => setTimeout(resolve, round * 4));
      controller.abort();
      const result = await ran;
      assert.match(result.output, /cancel/i, result.output);
    }
    const deadline = performance.now() + 3_000;
    while (sleeping(seconds) > 0 && performance.now() < deadline)
      await new Promise((resolve) => setImmediate(resolve));
    assert.equal(sleeping(seconds), 0, 'a cancelled sandboxed command is still running');
  });
});

/** Live processes running `sleep <seconds>` (the unique argument of one test). */
function sleeping(seconds: string): number {
  let count = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
      if (cmdline[0]?.endsWith('sleep') === true && cmdline[1] === seconds && state !== 'Z') count++;
    } catch {
      // gone meanwhile
    }
  }
  return count;
}

describe('the server under --auto-approve, sandboxed', { skip }, () => {
  const start = suiteHarnesses();
  const command = (id: string, line: string): FakeTurn => ({
    toolCalls: [{ id, name: 'run_command', args: { command: line } }],
  });

  test('an approved command writes in the workspace, but cannot read the key, write outside or reach the network', async () => {
    const outside = join(tempDir('santra-sbx-outside-'), 'pwned.txt');
    const server = createServer((_request, response) => response.end('reached'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    after(() => server.close());
    const { port } = server.address() as AddressInfo;
    const h = await start(
      'anthropic',
      [
        command('c1', 'echo made > made.txt && cat made.txt'),
        command(
          'c2',
          'grep -a -r -h sk-canary /proc/*/environ; cat "$SANTRA_HOME/config.json" "$HOME/santra/config.json"; true',
        ),
        command('c3', `echo pwned > ${outside}; echo pwned > /etc/santra-pwned-${port}; true`),
        command('c4', `curl -sS -m 3 http://127.0.0.1:${port}/; true`),
        { text: 'done' },
      ],
      {},
      { providers: { anthropic: { apiKey: CANARY_KEY } } },
      { args: ['--auto-approve'] },
    );
    const { phases } = await h.prompt({ text: 'go', agent: 'tester' });
    const outputs = phases
      .filter((phase) => phase.type === 'tool_result')
      .map((phase) => JSON.stringify(phase));
    assert.equal(outputs.length, 4, JSON.stringify(phases));
    assert.equal(readFileSync(join(h.workspace, 'made.txt'), 'utf8'), 'made\n');
    const modelSaw = JSON.stringify(h.fake.requests.at(-1)?.body);
    assert.ok(!modelSaw.includes(CANARY_KEY), 'the key never reached a command');
    assert.equal(existsSync(outside), false, 'nothing written outside the workspace');
    assert.equal(existsSync(`/etc/santra-pwned-${port}`), false);
    assert.ok(!modelSaw.includes('reached'), 'the network was not reached');
    assert.match(modelSaw, /Read-only file system/);
  });
});

describe('without bubblewrap', () => {
  const start = suiteHarnesses();

  test('initialize says why and how to fix it; commands are asked and run as before, the notice given once', async () => {
    // A PATH without bwrap (commands start /bin/sh by its path; echo is built in).
    const bin = tempDir('santra-nobwrap-');
    const probe = new WireClient([], { PATH: bin });
    after(() => probe.child.kill('SIGKILL'));
    const initialized = await probe.initialize(tempDir('santra-nobwrap-ws-'));
    const sandbox = ((initialized.result as Json).capabilities as Json).sandbox as Json;
    assert.equal(sandbox.available, false);
    assert.equal(sandbox.profile, 'danger-full-access');
    assert.match(String(sandbox.problem), /bubblewrap/);
    assert.match(String(sandbox.fix), /apt install bubblewrap/);
    const h = await start(
      'anthropic',
      [
        { toolCalls: [{ id: 'c1', name: 'run_command', args: { command: 'echo one > one.txt' } }] },
        { toolCalls: [{ id: 'c2', name: 'run_command', args: { command: 'echo two > two.txt' } }] },
        { text: 'done' },
      ],
      { PATH: bin },
      undefined,
      { capabilities: { approve: true } },
    );
    const asked: Json[] = [];
    h.client.handle('approve', (params) => {
      asked.push(params);
      return { decision: 'allow' };
    });
    const { phases } = await h.prompt({ text: 'go', agent: 'tester' });
    assert.equal(asked.length, 2, 'each command is asked');
    assert.equal(asked[0]?.sandbox, 'danger-full-access');
    assert.equal(readFileSync(join(h.workspace, 'two.txt'), 'utf8'), 'two\n');
    const notices = phases.filter(
      (phase) => phase.type === 'status' && /without an OS sandbox/.test(String(phase.text)),
    );
    assert.equal(notices.length, 1, 'said once');
  });
});
