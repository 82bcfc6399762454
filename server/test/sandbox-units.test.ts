/**
 * The sandbox's pure parts: the bubblewrap arguments a plan becomes, the Seatbelt policy, the
 * proxy's allowlist matching and local-address check, and the reading of a failed command's
 * output for what the sandbox blocked. (Real commands under bubblewrap: sandbox-linux.test.ts.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bwrapArgs } from '../src/sandbox/bwrap.ts';
import { findDenials } from '../src/sandbox/denials.ts';
import { isLocalAddress, matches } from '../src/sandbox/proxy.ts';
import { seatbeltPolicy } from '../src/sandbox/seatbelt.ts';
import { seccompProgram } from '../src/sandbox/seccomp.ts';

test('bubblewrap: namespaces, read-only root, the workspace writable, protected and hidden paths after it', () => {
  const args = bwrapArgs(
    {
      profile: 'workspace-write',
      cwd: '/w',
      writable: ['/w'],
      readable: [],
      readOnly: ['/w/.git'],
      hidden: [{ path: '/h/.config/santra', directory: true }],
      hideRoot: true,
      disableUserns: true,
      seccompFd: 3,
    },
    '/bin/sh',
    ['-c', 'true'],
  );
  const at = (...words: string[]) => args.findIndex((_, i) => words.every((word, j) => args[i + j] === word));
  for (const flag of [
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
  ])
    assert.ok(args.includes(flag), flag);
  assert.ok(at('--cap-drop', 'ALL') >= 0);
  assert.ok(
    at('--ro-bind', '/', '/') < at('--bind', '/w', '/w'),
    'the workspace is bound over the read-only root',
  );
  assert.ok(
    at('--bind', '/w', '/w') < at('--ro-bind-try', '/w/.git', '/w/.git'),
    '.git read-only over the workspace',
  );
  assert.ok(
    at('--tmpfs', '/h/.config/santra', '--remount-ro', '/h/.config/santra') >= 0,
    'the config hidden',
  );
  assert.ok(at('--tmpfs', '/root') >= 0);
  assert.ok(at('--proc', '/proc') >= 0 && at('--seccomp', '3') >= 0);
  assert.ok(at('--chdir', '/w', '--', '/bin/sh') >= 0);
  assert.deepEqual(args.slice(-3), ['/bin/sh', '-c', 'true']);
});

test('Seatbelt: writes denied but for the workspace and the temp dir, protected paths and the config denied again', () => {
  const policy = seatbeltPolicy({
    profile: 'workspace-write',
    scope: { workspaceRoot: '/w', allowedDirs: [], configDir: '/Users/u/.config/santra', home: '/Users/u' },
    tempDir: '/tmp/t',
    readOnly: ['/w/.git'],
  });
  const order = [
    '(deny file-write*)',
    '(allow file-write* (subpath "/w") (subpath "/tmp/t")',
    '(deny file-write* (subpath "/w/.git"))',
    '(deny file-read* file-write* (subpath "/Users/u/.config/santra"))',
  ];
  let last = -1;
  for (const rule of order) {
    const index = policy.indexOf(rule);
    assert.ok(index > last, `${rule} after the rules before it:\n${policy}`);
    last = index;
  }
  assert.match(policy, /\(deny network\*\)/);
  assert.doesNotMatch(
    seatbeltPolicy({
      profile: 'read-only',
      scope: { workspaceRoot: '/w', allowedDirs: [], configDir: '/c', home: undefined },
      tempDir: '/tmp/t',
      readOnly: [],
    }),
    /subpath "\/w"/,
  );
});

test('the proxy allowlist: exact hosts, subdomains of a wildcard, ports; local addresses', () => {
  assert.equal(matches('example.com', 'example.com', 443), true);
  assert.equal(matches('example.com', 'evil-example.com', 443), false);
  assert.equal(matches('*.example.com', 'api.example.com', 443), true);
  assert.equal(matches('*.example.com', 'example.com', 443), false);
  assert.equal(matches('*.example.com', 'apiexample.com', 443), false);
  assert.equal(matches('example.com:443', 'example.com', 80), false);
  assert.equal(matches('127.0.0.1:8080', '127.0.0.1', 8080), true);
  for (const local of [
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '::1',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '0.0.0.0',
    '100.64.0.1',
  ])
    assert.equal(isLocalAddress(local), true, local);
  for (const remote of ['93.184.216.34', '2606:2800:220:1::1', '172.32.0.1'])
    assert.equal(isLocalAddress(remote), false, remote);
});

test("a failed command's output: writes and network calls the sandbox stopped, nothing else", () => {
  assert.deepEqual(
    findDenials('sh: 1: cannot create /etc/x: Read-only file system\n', { noNetwork: true, blocked: [] }).map(
      (d) => d.kind,
    ),
    ['write'],
  );
  assert.deepEqual(
    findDenials('curl: (6) Could not resolve host: example.com', { noNetwork: true, blocked: [] }).map(
      (d) => d.kind,
    ),
    ['network'],
  );
  assert.deepEqual(
    findDenials('curl: (6) Could not resolve host: x', { noNetwork: false, blocked: [] }),
    [],
    'with a network, a bad name is the command’s own failure',
  );
  assert.deepEqual(findDenials('error: tests failed', { noNetwork: true, blocked: [] }), []);
  assert.deepEqual(
    findDenials('', { noNetwork: false, blocked: ['evil.com:443'] }).map((d) => d.kind),
    ['network'],
  );
});

test('the seccomp program: whole instructions, ending in allow then deny', () => {
  const program = seccompProgram('x64');
  assert.ok(program !== undefined && program.length % 8 === 0);
  assert.equal(program.readUInt32LE(program.length - 12), 0x7fff0000, 'allow');
  assert.equal(program.readUInt32LE(program.length - 4), 0x00050001, 'EPERM');
  assert.equal(seccompProgram('ia32'), undefined, 'no table: no filter');
});
