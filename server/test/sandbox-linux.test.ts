/**
 * The OS sandbox on Linux, with real commands under real bubblewrap: the cases of Codex's Linux
 * sandbox suite (codex-rs/linux-sandbox/tests) and what issue 27 adds. Each attack is first shown
 * to work without the sandbox (a control run), so a pass means the sandbox stopped it.
 *
 * bubblewrap is installed by .ci/run; without it (a developer's machine) the suite fails under
 * CI and is skipped elsewhere, saying why.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { probeSandbox } from '../src/sandbox/probe.ts';
import type { SandboxProfile, SandboxSettings } from '../src/sandbox/profile.ts';
import { CommandSandbox } from '../src/sandbox/sandbox.ts';
import { deniedSyscalls } from '../src/sandbox/seccomp.ts';
import { runProcess } from '../src/tools/commands/run-process.ts';
import { tempDir } from '../../scripts/temp-dirs.ts';

const status = await probeSandbox({ env: process.env });
const skip =
  process.platform !== 'linux'
    ? 'Linux only'
    : status.available || process.env.CI !== undefined
      ? false
      : `no sandbox here: ${status.available ? '' : status.problem}`;

const SECRET = 'sk-ant-sandbox-canary-0123456789abcdef';

interface Ran {
  code: number | null;
  out: string;
}

describe('the Linux sandbox (bubblewrap)', { skip }, () => {
  let root: string;
  let workspace: string;
  let configDir: string;
  let home: string;
  const sandboxFor = (settings: Partial<SandboxSettings> = {}) =>
    new CommandSandbox({
      settings: { profile: 'workspace-write', allowedDomains: [], autoRun: false, ...settings },
      scope: { workspaceRoot: workspace, allowedDirs: [], configDir, home },
      env: process.env,
      status,
    });

  /** Runs `command` with /bin/sh in the workspace: inside the sandbox, or (`profile` danger-full-access) outside. */
  async function run(
    command: string,
    profile: SandboxProfile = 'workspace-write',
    sandbox = sandboxFor(),
    cwd = workspace,
  ): Promise<Ran> {
    const wrapped = await sandbox.wrap(
      { file: '/bin/sh', args: ['-c', command], cwd, env: process.env },
      profile,
    );
    const outcome = await runProcess({
      file: wrapped.file,
      args: wrapped.args,
      cwd: wrapped.cwd,
      env: wrapped.env,
      extraInputs: wrapped.extraInputs,
      timeoutMs: 10_000,
      signal: new AbortController().signal,
      outputLimit: 100_000,
    });
    await wrapped.finish();
    return { code: outcome.exitCode, out: `${outcome.stdout.text}${outcome.stderr.text}` };
  }

  before(() => {
    assert.ok(
      status.available,
      `the sandbox must work here (CI installs bubblewrap): ${JSON.stringify(status)}`,
    );
    root = tempDir('santra-sandbox-');
    workspace = join(root, 'ws');
    home = join(root, 'home');
    configDir = join(home, '.config', 'santra');
    mkdirSync(join(workspace, '.git', 'hooks'), { recursive: true });
    writeFileSync(join(workspace, '.git', 'config'), '[core]\n');
    mkdirSync(configDir, { recursive: true });
    writeFileSync(
      join(configDir, 'config.json'),
      JSON.stringify({ providers: { anthropic: { apiKey: SECRET } } }),
    );
  });

  test('the workspace is writable and the rest of the file system is read-only, even for root', async () => {
    const inside = await run('echo ok > made.txt && cat made.txt');
    assert.equal(inside.code, 0, inside.out);
    assert.equal(readFileSync(join(workspace, 'made.txt'), 'utf8'), 'ok\n');

    const target = `/etc/santra-sandbox-${process.pid}`;
    const outside = await run(`echo pwned > ${target}`);
    assert.notEqual(outside.code, 0);
    assert.match(outside.out, /Read-only file system/);
    assert.equal(existsSync(target), false);
  });

  test('a write outside the workspace does not reach the disk (the temp dir is private)', async () => {
    const sibling = join(root, 'outside.txt');
    const written = await run(`echo pwned > ${sibling}; echo private > /tmp/mine && cat /tmp/mine`);
    assert.match(written.out, /private/, 'the private /tmp is writable');
    assert.equal(existsSync(sibling), false, 'nothing written outside the workspace');
    const control = await run(`echo pwned > ${sibling}`, 'danger-full-access');
    assert.equal(control.code, 0);
    assert.equal(readFileSync(sibling, 'utf8'), 'pwned\n', 'the control run could write there');
  });

  test('read-only: nothing in the workspace can be written', async () => {
    const ran = await run('echo x > ro.txt', 'read-only');
    assert.notEqual(ran.code, 0);
    assert.match(ran.out, /Read-only file system/);
    assert.equal(existsSync(join(workspace, 'ro.txt')), false);
  });

  test('.git and the other protected locations stay read-only inside a writable workspace', async () => {
    mkdirSync(join(workspace, '.santra'), { recursive: true });
    mkdirSync(join(workspace, '.agents'), { recursive: true });
    writeFileSync(join(workspace, '.envrc'), '');
    for (const target of [
      '.git/config',
      '.git/hooks/pre-commit',
      '.git/index.lock',
      '.santra/config.json',
      '.agents/evil.json',
      '.envrc',
    ]) {
      const before = existsSync(join(workspace, target))
        ? readFileSync(join(workspace, target), 'utf8')
        : undefined;
      const ran = await run(`echo 'exec evil' > ${target}`);
      assert.notEqual(ran.code, 0, `${target}: ${ran.out}`);
      assert.match(ran.out, /Read-only file system/, target);
      const after = existsSync(join(workspace, target))
        ? readFileSync(join(workspace, target), 'utf8')
        : undefined;
      assert.equal(after, before, `${target} unchanged`);
    }
    const moved = await run('mv .git git-moved');
    assert.notEqual(moved.code, 0, 'the .git directory cannot be moved aside either');
    // A person who allowed a protected write gets exactly that (and nothing else).
    const sandbox = sandboxFor();
    const wrapped = await sandbox.wrap(
      { file: '/bin/sh', args: ['-c', 'echo "[x]" >> .git/config'], cwd: workspace, env: process.env },
      'workspace-write',
      { protectedWritable: true },
    );
    const outcome = await runProcess({
      ...wrapped,
      timeoutMs: 10_000,
      signal: new AbortController().signal,
      outputLimit: 10_000,
    });
    await wrapped.finish();
    assert.equal(outcome.exitCode, 0, outcome.stderr.text);
    assert.match(readFileSync(join(workspace, '.git/config'), 'utf8'), /\[x\]/);
  });

  test('a symbolic link in place of a protected directory does not make it writable', async () => {
    const ws = join(root, 'link-ws');
    mkdirSync(join(ws, 'decoy'), { recursive: true });
    symlinkSync('decoy', join(ws, '.santra'));
    const sandbox = new CommandSandbox({
      settings: { profile: 'workspace-write', allowedDomains: [], autoRun: false },
      scope: { workspaceRoot: ws, allowedDirs: [], configDir, home },
      env: process.env,
      status,
    });
    const ran = await run('echo evil > .santra/config.json', 'workspace-write', sandbox, ws);
    assert.notEqual(ran.code, 0, ran.out);
    assert.equal(existsSync(join(ws, 'decoy', 'config.json')), false, 'the link target was not written');
  });

  test('NoNewPrivs is set, no capability is left, and the keyrings and io_uring are refused', async () => {
    const ran = await run("grep -E '^(NoNewPrivs|CapEff):' /proc/self/status");
    assert.match(ran.out, /NoNewPrivs:\s+1/);
    assert.match(ran.out, /CapEff:\s+0+\n/);
    const keyctl = deniedSyscalls()?.keyctl;
    if (keyctl === undefined) return;
    const probe = `python3 -c 'import ctypes; l = ctypes.CDLL(None, use_errno=True); l.syscall(${keyctl}, 0, 0, 0, 0, 0); print("errno", ctypes.get_errno())'`;
    const inside = await run(probe);
    assert.match(inside.out, /errno 1\b/, `keyctl is refused with EPERM: ${inside.out}`);
    const control = await run(probe, 'danger-full-access');
    assert.doesNotMatch(control.out, /errno 1\b/, 'outside, keyctl is not refused');
  });

  test("the server's environment and Santra's config cannot be read, and the user's processes survive", async () => {
    // A stand-in for the server: a process of the user holding the key in its environment.
    const server = spawn('sleep', ['30'], {
      env: { ...process.env, ANTHROPIC_API_KEY: SECRET },
      stdio: 'ignore',
    });
    after(() => server.kill('SIGKILL'));
    const pid = server.pid ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const attack = `cat /proc/${pid}/environ; cat ${join(configDir, 'config.json')}; grep -a -r ${SECRET} /proc/*/environ 2>/dev/null; kill -9 ${pid}`;
    const control = await run(
      `cat /proc/${pid}/environ; cat ${join(configDir, 'config.json')}`,
      'danger-full-access',
    );
    assert.ok(control.out.includes(SECRET), 'without the sandbox the key can be read');
    const inside = await run(attack);
    assert.ok(!inside.out.includes(SECRET), `the key leaked: ${inside.out}`);
    assert.equal(server.exitCode, null, 'the process the command tried to kill still runs');
    assert.equal(server.signalCode, null);
    const listing = await run(`ls -A ${configDir}`);
    assert.equal(listing.out.trim(), '', "Santra's config directory looks empty");
  });

  test('no network: curl, wget, nc, /dev/tcp and DNS lookups fail, even to this machine', async () => {
    const server = createServer((_request, response) => response.end('reached'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    after(() => server.close());
    const { port } = server.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}/`;
    const control = await run(`curl -s ${url}`, 'danger-full-access');
    assert.equal(control.out, 'reached', 'without the sandbox the server is reached');
    const attempts = [
      `curl -sS -m 3 ${url}`,
      `wget -q -T 3 -O - ${url}`,
      `bash -c 'echo hi > /dev/tcp/127.0.0.1/${port}'`,
      `getent hosts example.com`,
      `python3 -c 'import socket; socket.create_connection(("127.0.0.1", ${port}), 2)'`,
    ];
    if (existsSync('/usr/bin/nc') || existsSync('/bin/nc')) attempts.push(`nc -z -w 2 127.0.0.1 ${port}`);
    for (const attempt of attempts) {
      const ran = await run(attempt);
      assert.notEqual(ran.code, 0, `${attempt} succeeded: ${ran.out}`);
      assert.ok(!ran.out.includes('reached'), attempt);
    }
    const interfaces = await run('cat /proc/net/dev');
    assert.doesNotMatch(interfaces.out, /^\s*(?!lo:)\w+:/m, `only loopback: ${interfaces.out}`);
  });

  test('allowed domains go through the filtering proxy; others are refused and recorded', async () => {
    if (!status.available || status.mechanism !== 'bubblewrap' || status.relay === undefined) {
      assert.fail(`socat is needed for allowed domains (CI installs it): ${JSON.stringify(status)}`);
    }
    // 127.0.0.2: loopback, but not in the sandbox's NO_PROXY, so curl goes through the proxy.
    const target = createServer((_request, response) => response.end('allowed'));
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.2', resolve));
    after(() => target.close());
    const { port } = target.address() as AddressInfo;
    const sandbox = sandboxFor({ allowedDomains: [`127.0.0.2:${port}`] });
    const wrapped = await sandbox.wrap({
      file: '/bin/sh',
      args: [
        '-c',
        `curl -sS -m 5 http://127.0.0.2:${port}/; echo; curl -sS -m 5 -o /dev/null -w '%{http_code}' http://127.0.0.2:${port + 1}/`,
      ],
      cwd: workspace,
      env: process.env,
    });
    const outcome = await runProcess({
      ...wrapped,
      timeoutMs: 10_000,
      signal: new AbortController().signal,
      outputLimit: 10_000,
    });
    const { blocked } = await wrapped.finish();
    assert.match(outcome.stdout.text, /^allowed\n403/, `${outcome.stdout.text} ${outcome.stderr.text}`);
    assert.deepEqual(blocked, [`127.0.0.2:${port + 1}`]);
  });

  test('a command killed with its run leaves nothing running in the sandbox', async () => {
    const controller = new AbortController();
    const sandbox = sandboxFor();
    const wrapped = await sandbox.wrap({
      file: '/bin/sh',
      args: ['-c', 'sleep 30 & sleep 30; touch late'],
      cwd: workspace,
      env: process.env,
    });
    setTimeout(() => controller.abort(), 200);
    const outcome = await runProcess({
      ...wrapped,
      timeoutMs: 10_000,
      signal: controller.signal,
      outputLimit: 1000,
      graceMs: 200,
    });
    await wrapped.finish();
    assert.equal(outcome.ended, 'cancelled');
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(existsSync(join(workspace, 'late')), false);
  });
});
