/**
 * A job on a git repository, without a queue: the job schema's `repo` (which URLs and refs are
 * taken, and the messages for those that are not), and the checkouts repo-workspace.ts makes with
 * real git from a real repository in a temp dir (file://).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { tempDir } from '../../scripts/temp-dirs.ts';
import { parseJob, redactText } from '../src/fleet/job.ts';
import { checkoutKey, defaultWorkdir, prepareCheckout, removeCheckout } from '../src/fleet/repo-workspace.ts';

function problem(data: unknown): string {
  const parsed = parseJob(data);
  assert.ok('error' in parsed, `accepted: ${JSON.stringify(data)}`);
  return parsed.error;
}

describe('the job schema: repo', () => {
  test('a job on a repository and a ref is taken, over each allowed transport', () => {
    for (const url of [
      'https://github.com/acme/app.git',
      'http://git.internal/app',
      'ssh://git@github.com/acme/app.git',
      'git@github.com:acme/app.git',
      'file:///srv/git/app.git',
    ]) {
      const parsed = parseJob({ prompt: 'x', repo: { url, ref: 'main' } });
      assert.ok(!('error' in parsed), `${url}: ${JSON.stringify(parsed)}`);
      assert.deepEqual(parsed.repo, { url, ref: 'main' });
    }
    const kept = parseJob({ prompt: 'x', repo: { url: 'file:///a', ref: 'v1.2.0' }, keepWorkspace: true });
    assert.ok(!('error' in kept) && kept.keepWorkspace === true);
  });

  test('exactly one of cwd and repo, each error naming the field and the fix', () => {
    assert.match(problem({ prompt: 'x' }), /"cwd": the job needs its workspace: "cwd" .* or "repo"/);
    assert.match(
      problem({ prompt: 'x', cwd: '/srv/app', repo: { url: 'file:///a', ref: 'main' } }),
      /"repo": give "cwd" or "repo", not both/,
    );
    assert.match(problem({ prompt: 'x', repo: 'https://x/a.git' }), /"repo": expected "repo": \{"url"/);
    assert.match(
      problem({ prompt: 'x', repo: { url: 'file:///a' } }),
      /"repo.ref": expected "ref": the branch/,
    );
    assert.match(
      problem({ prompt: 'x', repo: { url: 'file:///a', ref: 'main', branch: 'x' } }),
      /unknown field "branch"/,
    );
    assert.match(
      problem({ prompt: 'x', cwd: '/srv/app', keepWorkspace: true }),
      /"keepWorkspace": is for "repo" jobs/,
    );
  });

  test('transports other than https, http, ssh and file are refused, ext:: first of all', () => {
    assert.match(
      problem({ prompt: 'x', repo: { url: 'ext::sh -c touch% /tmp/pwned', ref: 'main' } }),
      /"repo.url": the ext:: transport is refused/,
    );
    assert.match(
      problem({ prompt: 'x', repo: { url: 'fd::3', ref: 'main' } }),
      /the fd:: transport is refused/,
    );
    assert.match(
      problem({ prompt: 'x', repo: { url: 'git://host/app', ref: 'main' } }),
      /the git:\/\/ transport is refused; give an https:\/\//,
    );
    assert.match(
      problem({ prompt: 'x', repo: { url: '/srv/git/app', ref: 'main' } }),
      /a repository on the worker's disk is a file:\/\/ URL: "file:\/\/\/srv\/git\/app"/,
    );
    assert.match(
      problem({ prompt: 'x', repo: { url: '--upload-pack=x', ref: 'main' } }),
      /must not begin with "-"/,
    );
    assert.match(problem({ prompt: 'x', repo: { url: 'file://host/a', ref: 'main' } }), /absolute path/);
  });

  test('a ref that is an option or not a ref name is refused', () => {
    assert.match(
      problem({ prompt: 'x', repo: { url: 'file:///a', ref: '--output=x' } }),
      /"repo.ref": must not begin/,
    );
    assert.match(
      problem({ prompt: 'x', repo: { url: 'file:///a', ref: 'a..b' } }),
      /not a valid git ref name/,
    );
    assert.match(
      problem({ prompt: 'x', repo: { url: 'file:///a', ref: 'main feature' } }),
      /not a valid git ref/,
    );
  });

  test('credentials in a URL never reach an error message', () => {
    const error = problem({ prompt: 'x', repo: { url: 'https://bot:s3cret-token@/acme', ref: 'main' } });
    assert.doesNotMatch(error, /s3cret/);
    assert.equal(redactText('fatal: https://bot:s3cret@host/x failed'), 'fatal: https://***@host/x failed');
    assert.equal(redactText('https://ghp_TOKEN@github.com/a'), 'https://***@github.com/a');
    assert.equal(redactText('ssh://git@github.com/a'), 'ssh://git@github.com/a', 'an ssh user is no secret');
  });
});

/** git with no configuration of the user's: the test's own HOME, no system file. */
function git(cwd: string, home: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1', XDG_CONFIG_HOME: join(home, '.config') },
  }).trim();
}

/** A repository with a commit on main and another on the branch "feature". */
function sourceRepository(): { url: string; main: string; feature: string; dir: string; home: string } {
  const home = tempDir('santra-fleet-repo-home-');
  const dir = tempDir('santra-fleet-repo-src-');
  const commit = (message: string) =>
    git(dir, home, '-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', message);
  git(dir, home, 'init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'README.md'), 'main\n');
  git(dir, home, 'add', '.');
  commit('main');
  const main = git(dir, home, 'rev-parse', 'HEAD');
  git(dir, home, 'switch', '-q', '-c', 'feature');
  writeFileSync(join(dir, 'feature.txt'), 'feature\n');
  git(dir, home, 'add', '.');
  commit('feature');
  const feature = git(dir, home, 'rev-parse', 'HEAD');
  git(dir, home, 'switch', '-q', 'main');
  return { url: `file://${dir}`, main, feature, dir, home };
}

describe('checkouts of a repository', () => {
  test('a ref (branch, commit id) is checked out detached, one checkout per job, removed after', async () => {
    const source = sourceRepository();
    const workdir = tempDir('santra-fleet-repo-work-');
    const [one, two] = await Promise.all([
      prepareCheckout({ workdir, repo: { url: source.url, ref: 'feature' }, key: 'q-1' }),
      prepareCheckout({ workdir, repo: { url: source.url, ref: 'main' }, key: 'q-2' }),
    ]);
    assert.equal(one.commit, source.feature);
    assert.equal(two.commit, source.main);
    assert.notEqual(one.path, two.path);
    assert.ok(existsSync(join(one.path, 'feature.txt')));
    assert.ok(!existsSync(join(two.path, 'feature.txt')));
    assert.equal(git(one.path, source.home, 'rev-parse', 'HEAD'), source.feature);
    assert.equal(git(one.path, source.home, 'branch', '--show-current'), '', 'detached');
    const byId = await prepareCheckout({
      workdir,
      repo: { url: source.url, ref: source.feature },
      key: 'q-3',
    });
    assert.equal(byId.commit, source.feature);
    // One mirror for the repository, bare, with no remote (nor any credentials) in its config.
    const mirrors = readdirSync(join(workdir, 'mirrors'));
    assert.equal(mirrors.length, 1);
    const config = readFileSync(join(workdir, 'mirrors', mirrors[0] ?? '', 'config'), 'utf8');
    assert.match(config, /bare = true/);
    assert.doesNotMatch(config, /url|remote/);
    for (const key of ['q-1', 'q-2', 'q-3'])
      await removeCheckout({ workdir, repo: { url: source.url, ref: 'x' }, key });
    for (const checkout of [one, two, byId])
      assert.ok(!existsSync(checkout.path), `${checkout.path} is removed`);
  });

  test('a second attempt gets the first one’s checkout back, with its changes', async () => {
    const source = sourceRepository();
    const workdir = tempDir('santra-fleet-repo-work-');
    const repo = { url: source.url, ref: 'main' };
    const first = await prepareCheckout({ workdir, repo, key: 'q-7' });
    writeFileSync(join(first.path, 'changed.txt'), 'by the first attempt\n');
    // The branch moves on meanwhile: the job goes on at the commit it began on.
    writeFileSync(join(source.dir, 'later.txt'), 'later\n');
    git(source.dir, source.home, 'add', '.');
    git(
      source.dir,
      source.home,
      '-c',
      'user.name=T',
      '-c',
      'user.email=t@example.com',
      'commit',
      '-q',
      '-m',
      'later',
    );
    const again = await prepareCheckout({ workdir, repo, key: 'q-7', commit: first.commit });
    assert.deepEqual(again, { path: first.path, commit: source.main, reused: true });
    assert.equal(readFileSync(join(again.path, 'changed.txt'), 'utf8'), 'by the first attempt\n');
    // Without its checkout (another worker's disk), a new one is made at the same commit.
    await removeCheckout({ workdir, repo, key: 'q-7' });
    const elsewhere = await prepareCheckout({ workdir, repo, key: 'q-7', commit: first.commit });
    assert.equal(elsewhere.reused, false);
    assert.equal(elsewhere.commit, source.main);
    assert.ok(!existsSync(join(elsewhere.path, 'later.txt')));
    await removeCheckout({ workdir, repo, key: 'q-7' });
  });

  test('an unknown ref or repository is a permanent problem saying what to fix', async () => {
    const source = sourceRepository();
    const workdir = tempDir('santra-fleet-repo-work-');
    await assert.rejects(prepareCheckout({ workdir, repo: { url: source.url, ref: 'nope' }, key: 'q-1' }), {
      permanent: true,
      message: /the ref "nope" is not in file:\/\/.*: give a branch, tag or full commit id/,
    });
    await assert.rejects(
      prepareCheckout({ workdir, repo: { url: `${source.url}-missing`, ref: 'main' }, key: 'q-1' }),
      { permanent: true, message: /there is no git repository at file:\/\/.*-missing: check the URL/ },
    );
    // A URL git is not allowed to use is refused by git too, whatever reached it.
    await assert.rejects(
      prepareCheckout({ workdir, repo: { url: 'ext::sh -c touch% pwned', ref: 'main' }, key: 'q-1' }),
      { permanent: true },
    );
    assert.ok(!existsSync(join(workdir, 'pwned')) && !existsSync('pwned'));
    // A host that does not answer may answer later: not permanent, and the token is not shown.
    await assert.rejects(
      prepareCheckout({
        workdir,
        repo: { url: 'https://bot:s3cret@127.0.0.1:1/x.git', ref: 'main' },
        key: 'q-1',
      }),
      (error: Error & { permanent: boolean }) => {
        assert.equal(error.permanent, false);
        assert.match(error.message, /fetching "main" from https:\/\/\*\*\*@127\.0\.0\.1:1\/x\.git failed/);
        assert.doesNotMatch(error.message, /s3cret/);
        return true;
      },
    );
  });

  test('credentials in an https URL reach the server as a header, never git’s command line', async () => {
    const workdir = tempDir('santra-fleet-repo-work-');
    // git as the worker runs it, through a wrapper that writes down every command line.
    const bin = tempDir('santra-fleet-repo-bin-');
    const argv = join(bin, 'argv.log');
    const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(join(bin, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${argv}'\nexec '${real}' "$@"\n`, {
      mode: 0o755,
    });
    const seen: Array<{ url: string | undefined; authorization: string | undefined }> = [];
    const server = createServer((request, response) => {
      seen.push({ url: request.url, authorization: request.headers.authorization });
      response.writeHead(404).end('no such repository');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path ?? ''}`;
    try {
      await assert.rejects(
        prepareCheckout({
          workdir,
          repo: { url: `https://bot:s3cret@127.0.0.1:${port}/acme/app.git`, ref: 'main' },
          key: 'q-1',
        }),
        (error: Error & { permanent: boolean }) => {
          assert.doesNotMatch(error.message, /s3cret/);
          return true;
        },
      );
    } finally {
      process.env.PATH = path;
      server.close();
    }
    // https to a server without TLS fails before a request; what matters is what git was given.
    const lines = readFileSync(argv, 'utf8');
    assert.match(lines, /fetch .* https:\/\/127\.0\.0\.1:\d+\/acme\/app\.git \+main:/, 'the fetch ran');
    assert.doesNotMatch(lines, /s3cret|bot:/, 'no credentials on a command line');
    // Control: with http the request arrives, and the credentials with it, as a Basic header.
    const plain = createServer((request, response) => {
      seen.push({ url: request.url, authorization: request.headers.authorization });
      response.writeHead(404).end();
    });
    plain.listen(0, '127.0.0.1');
    await once(plain, 'listening');
    const plainPort = (plain.address() as AddressInfo).port;
    try {
      await assert.rejects(
        prepareCheckout({
          workdir,
          repo: { url: `http://bot:s3cret@127.0.0.1:${plainPort}/acme/app.git`, ref: 'main' },
          key: 'q-2',
        }),
        {
          permanent: true,
          message: /there is no git repository at http:\/\/\*\*\*@127\.0\.0\.1:\d+\/acme\/app\.git/,
        },
      );
    } finally {
      plain.close();
    }
    assert.ok(
      seen.some(
        (request) =>
          request.url?.startsWith('/acme/app.git/info/refs') === true &&
          request.authorization === `Basic ${Buffer.from('bot:s3cret').toString('base64')}`,
      ),
      JSON.stringify(seen),
    );
  });

  test('the work directory and checkout names', () => {
    assert.equal(defaultWorkdir({ SANTRA_HOME: '/h/santra' }), '/h/santra/worker');
    assert.equal(defaultWorkdir({ XDG_CACHE_HOME: '/c', HOME: '/h' }), '/c/santra/worker');
    assert.equal(defaultWorkdir({ XDG_CACHE_HOME: 'relative', HOME: '/h' }), '/h/.cache/santra/worker');
    assert.equal(checkoutKey('santra', '42'), 'santra-42');
    assert.match(checkoutKey('santra', '../../etc'), /^job-[0-9a-f]{24}$/);
  });
});
