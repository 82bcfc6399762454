/**
 * config/setup writes only what works, and writes it safely: a key an HTTP header cannot carry, or
 * a setup the next prompt could not use, leaves the file as it was, with an error naming the real
 * source of the bad key (the request, the config file's field, or the environment variable); a
 * `config.json` that is a symbolic link stays one and its target is updated (0600); and the
 * read-merge-write holds a lock that a dead owner cannot keep, but a live one does.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { mkdir, symlink, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { tempDir } from '../../scripts/temp-dirs.ts';
import { ConfigError, type ResolvedConfig, loadConfig, updateConfigFile } from '../src/config/config.ts';
import { setupConfig } from '../src/runtime/config-setup.ts';
import { Redactor } from '../src/support/log.ts';
import { ProtocolFault } from '../src/support/protocol-fault.ts';

const GOOD_KEY = 'sk-ant-api03-good-key-0123456789';
const MODEL = 'anthropic/claude-sonnet-4-5';

function sandbox(env: NodeJS.ProcessEnv = {}) {
  const dir = tempDir('santra-setup-safety-');
  const home = join(dir, 'santra');
  return { dir, home, file: join(home, 'config.json'), env: { HOME: dir, SANTRA_HOME: home, ...env } };
}

/** setupConfig as the runtime calls it; `used` records what the running server switched to. */
async function setup(env: NodeJS.ProcessEnv, params: { provider: string; apiKey?: string; model: string }) {
  let config = await loadConfig(env);
  const used: ResolvedConfig[] = [];
  const deps = {
    env,
    redactor: new Redactor(),
    current: () => config,
    reload: () => loadConfig(env),
    use: (next: ResolvedConfig) => {
      used.push(next);
      config = next;
    },
  };
  try {
    return { result: await setupConfig(params, deps), used };
  } catch (error) {
    return { error: error as Error, used };
  }
}

function faultOf(outcome: { error?: Error }): ProtocolFault {
  assert.ok(outcome.error instanceof ProtocolFault, `expected a ProtocolFault, got ${String(outcome.error)}`);
  return outcome.error;
}

async function writeConfig(file: string, value: unknown): Promise<string> {
  await mkdir(join(file, '..'), { recursive: true });
  const text = JSON.stringify(value, null, 2);
  await writeFile(file, text, { mode: 0o600 });
  return text;
}

describe('config/setup validates before it writes', () => {
  for (const [name, key, character] of [
    ['a non-ASCII character', 'sk-ant-api03-cl\u00e9-0123456789', 'U+00E9'],
    ['a control character', 'sk-ant-api03-\u0007bell-0123456789', 'U+0007'],
    ['a trailing newline (a pasted line)', `${GOOD_KEY}\n`, 'U+000A'],
    ['a space', 'sk-ant-api03 with-space-0123456789', 'a space'],
  ] as const) {
    test(`a key with ${name} is refused, naming params.apiKey, and nothing is written`, async () => {
      const fresh = sandbox();
      const refused = await setup(fresh.env, { provider: 'anthropic', apiKey: key, model: MODEL });
      const fault = faultOf(refused);
      assert.equal(fault.errorName, 'InvalidParams');
      assert.match(fault.message, /params\.apiKey: the key contains/);
      assert.ok(fault.message.includes(character), fault.message);
      assert.ok(!fault.message.includes(key.trim()), 'the key is not quoted');
      assert.ok(!existsSync(fresh.file), 'no file was created');
      assert.deepEqual(refused.used, [], 'the running server keeps its config');

      // An existing file is left byte for byte.
      const existing = sandbox();
      const before = await writeConfig(existing.file, { providers: { groq: { apiKey: 'gsk_kept' } } });
      faultOf(await setup(existing.env, { provider: 'anthropic', apiKey: key, model: MODEL }));
      assert.equal(readFileSync(existing.file, 'utf8'), before);
    });
  }

  test('a bad key already in the file is named by its field and the file, not by a variable that is not set', async () => {
    const { file, env } = sandbox();
    const before = await writeConfig(file, {
      providers: { anthropic: { apiKey: 'sk-ant-api03-cl\u00e9-0123' } },
    });
    const fault = faultOf(await setup(env, { provider: 'anthropic', model: MODEL }));
    assert.equal(fault.errorName, 'ModelUnavailable');
    assert.ok(fault.message.includes(`providers.anthropic.apiKey in ${file}`), fault.message);
    assert.ok(!fault.message.includes('ANTHROPIC_API_KEY'), fault.message);
    assert.match(fault.message, /U\+00E9 at position 16.*Nothing was saved\./);
    assert.equal(readFileSync(file, 'utf8'), before, 'the model was not saved beside the broken key');
  });

  test('a bad key in the environment, which outranks the file, is named, and the key given is not saved', async () => {
    const { file, env } = sandbox({ ANTHROPIC_API_KEY: 'sk-ant-\u201ckey\u201d' });
    const fault = faultOf(await setup(env, { provider: 'anthropic', apiKey: GOOD_KEY, model: MODEL }));
    assert.ok(!existsSync(file), 'nothing was saved');
    assert.equal(fault.errorName, 'ModelUnavailable');
    assert.match(
      fault.message,
      /\(the environment variable ANTHROPIC_API_KEY\) contains the character U\+201C/,
    );
    assert.match(fault.message, /fix ANTHROPIC_API_KEY or unset it/);
  });

  test('a setup the next prompt could not use (no key for the provider) writes nothing', async () => {
    const { file, env } = sandbox();
    const fault = faultOf(await setup(env, { provider: 'groq', model: 'groq/llama-3.3-70b-versatile' }));
    assert.ok(!existsSync(file), 'nothing was saved');
    assert.equal(fault.errorName, 'ModelUnavailable');
    assert.match(fault.message, /No API key for Groq.*Nothing was saved\./);
  });

  test('a good key is saved and used, as before', async () => {
    const { file, env } = sandbox();
    const saved = await setup(env, { provider: 'anthropic', apiKey: GOOD_KEY, model: MODEL });
    assert.deepEqual(saved.result, { file, model: MODEL });
    assert.equal(saved.used[0]?.providers.anthropic?.apiKey, GOOD_KEY);
    assert.deepEqual(saved.used[0]?.keySources.anthropic, { file, field: 'providers.anthropic.apiKey' });
  });
});

describe('a config.json that is a symbolic link', () => {
  test('stays a link; the file it names is updated in place, 0600, with its other settings kept', async () => {
    const { dir, home, file, env } = sandbox();
    const dotfiles = join(dir, 'dotfiles', 'santra');
    await mkdir(dotfiles, { recursive: true });
    await mkdir(home, { recursive: true });
    const target = join(dotfiles, 'config.json');
    await writeFile(target, JSON.stringify({ agent: { maxTurnsPerRun: 7 } }), { mode: 0o644 });
    await symlink('../dotfiles/santra/config.json', file);

    const saved = await setup(env, { provider: 'anthropic', apiKey: GOOD_KEY, model: MODEL });
    assert.equal(saved.error, undefined, String(saved.error));
    assert.ok(lstatSync(file).isSymbolicLink(), 'config.json is still a link');
    assert.equal(readlinkSync(file), '../dotfiles/santra/config.json', 'to the same place');
    const written = JSON.parse(readFileSync(target, 'utf8')) as Record<string, unknown>;
    assert.deepEqual(written, {
      agent: { maxTurnsPerRun: 7 },
      model: MODEL,
      providers: { anthropic: { apiKey: GOOD_KEY } },
    });
    assert.equal(statSync(target).mode & 0o777, 0o600);
    // No temp or lock file is left in either directory.
    assert.deepEqual(readdirSync(home), ['config.json']);
    assert.deepEqual(readdirSync(dotfiles), ['config.json']);
  });

  test('a chain of links ending where no file is yet: the file is made there and the links stay', async () => {
    const { dir, home, file, env } = sandbox();
    await mkdir(home, { recursive: true });
    await mkdir(join(dir, 'elsewhere'));
    await symlink(join(dir, 'middle.json'), file);
    await symlink('elsewhere/santra.json', join(dir, 'middle.json'));

    const saved = await setup(env, { provider: 'anthropic', apiKey: GOOD_KEY, model: MODEL });
    assert.equal(saved.error, undefined, String(saved.error));
    assert.ok(lstatSync(file).isSymbolicLink());
    assert.ok(lstatSync(join(dir, 'middle.json')).isSymbolicLink());
    const target = join(dir, 'elsewhere', 'santra.json');
    assert.equal((JSON.parse(readFileSync(target, 'utf8')) as { model: string }).model, MODEL);
    assert.equal(statSync(target).mode & 0o777, 0o600);
  });

  test('a loop of links is an error naming the file, and nothing is written', async () => {
    const { dir, home, file, env } = sandbox();
    await mkdir(home, { recursive: true });
    await symlink(join(dir, 'b.json'), file);
    await symlink(file, join(dir, 'b.json'));
    await assert.rejects(
      updateConfigFile(env, { model: MODEL }),
      (error: unknown) =>
        error instanceof ConfigError && error.message.includes(file) && /loop/.test(error.message),
    );
    assert.ok(lstatSync(file).isSymbolicLink());
  });
});

describe('the lock around read-merge-write', () => {
  function deadPid(): number {
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    return Number(child.stdout.toString());
  }

  test('a lock left by a process that no longer exists is taken over at once', async () => {
    const { home, file, env } = sandbox();
    await mkdir(home, { recursive: true });
    const lock = join(home, '.config.json.lock');
    await writeFile(lock, JSON.stringify({ pid: deadPid(), host: hostname(), token: 'dead' }));
    const started = Date.now();
    await updateConfigFile(env, { model: MODEL }, { lock: { timeoutMs: 2_000 } });
    assert.ok(Date.now() - started < 1_000, 'not waited out');
    assert.equal((JSON.parse(readFileSync(file, 'utf8')) as { model: string }).model, MODEL);
    assert.ok(!existsSync(lock), 'and released');
  });

  test('a lock held by a live process makes the update wait, then fail naming the lock; the file is untouched', async () => {
    const { home, file, env } = sandbox();
    const before = await writeConfig(file, { model: 'anthropic/claude-opus-4-1' });
    const lock = join(home, '.config.json.lock');
    await writeFile(lock, JSON.stringify({ pid: process.pid, host: hostname(), token: 'live' }));
    await assert.rejects(
      updateConfigFile(env, { model: MODEL }, { lock: { timeoutMs: 300 } }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message.includes(`holds its lock ${lock}`) &&
        error.message.includes(`(pid ${process.pid})`),
    );
    assert.equal(readFileSync(file, 'utf8'), before);
    assert.ok(existsSync(lock), "someone else's lock is left alone");
  });

  test('a lock older than the stale age is taken over even if its pid is alive (a reused pid)', async () => {
    const { home, file, env } = sandbox();
    await mkdir(home, { recursive: true });
    const lock = join(home, '.config.json.lock');
    await writeFile(lock, JSON.stringify({ pid: process.pid, host: hostname(), token: 'old' }));
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    await updateConfigFile(env, { model: MODEL }, { lock: { staleMs: 10_000, timeoutMs: 2_000 } });
    assert.equal((JSON.parse(readFileSync(file, 'utf8')) as { model: string }).model, MODEL);
    assert.ok(!existsSync(lock));
  });

  test('updates from one process at once are serialised too, and all kept', async () => {
    const { file, env } = sandbox();
    const ids = ['groq', 'together', 'fireworks', 'perplexity', 'nvidia', 'openrouter'];
    await Promise.all(
      ids.map((id) => updateConfigFile(env, { providers: { [id]: { apiKey: `${id}-key-0123` } } })),
    );
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { providers: Record<string, unknown> };
    assert.deepEqual(Object.keys(saved.providers).sort(), [...ids].sort());
  });
});
