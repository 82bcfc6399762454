import assert from 'node:assert/strict';
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { tempDir } from '../../scripts/temp-dirs.ts';
import { ConfigError, loadConfig, updateConfigFile } from '../src/config/config.ts';

async function modeOf(path: string): Promise<number> {
  return (await stat(path)).mode & 0o777;
}

async function freshHome(): Promise<{ dir: string; file: string; env: NodeJS.ProcessEnv }> {
  const root = tempDir('santra-config-file-');
  const dir = join(root, 'nested', 'santra');
  return { dir, file: join(dir, 'config.json'), env: { HOME: root, SANTRA_HOME: dir } };
}

describe('updateConfigFile', () => {
  test('creates the directory 0700 and the file 0600', async () => {
    const { dir, file, env } = await freshHome();
    await updateConfigFile(env, {
      model: 'groq/llama-3.3-70b-versatile',
      providers: { groq: { apiKey: 'gsk_x' } },
    });
    assert.equal(await modeOf(dir), 0o700);
    assert.equal(await modeOf(file), 0o600);
    assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), {
      model: 'groq/llama-3.3-70b-versatile',
      providers: { groq: { apiKey: 'gsk_x' } },
    });
    const config = await loadConfig(env);
    assert.equal(config.model, 'groq/llama-3.3-70b-versatile');
    assert.equal(config.providers.groq?.apiKey, 'gsk_x');
    assert.deepEqual(await readdir(dir), ['config.json'], 'no temporary file is left behind');
  });

  test('tightens an existing 0644 file and 0755 directory, and keeps the other fields', async () => {
    const { dir, file, env } = await freshHome();
    await mkdir(dir, { recursive: true });
    await writeFile(
      file,
      JSON.stringify({
        model: 'openai/gpt-4.1',
        providers: { groq: { compat: { parallelToolCalls: false } } },
        stream: { coalesceMs: 20 },
      }),
    );
    await chmod(dir, 0o755);
    await chmod(file, 0o644);
    await updateConfigFile(env, { providers: { groq: { apiKey: 'gsk_new' } } });
    assert.equal(await modeOf(dir), 0o700);
    assert.equal(await modeOf(file), 0o600);
    assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), {
      model: 'openai/gpt-4.1',
      providers: { groq: { compat: { parallelToolCalls: false }, apiKey: 'gsk_new' } },
      stream: { coalesceMs: 20 },
    });
  });

  test('a field set to undefined is removed', async () => {
    const { file, env } = await freshHome();
    await updateConfigFile(env, { model: 'openai/gpt-5', providers: { openai: { apiKey: 'sk-1' } } });
    await updateConfigFile(env, { providers: { openai: { apiKey: undefined } } });
    assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), {
      model: 'openai/gpt-5',
      providers: { openai: {} },
    });
  });

  test('refuses a patch that would make the file invalid, and leaves the file alone', async () => {
    const { file, env } = await freshHome();
    await updateConfigFile(env, { model: 'openai/gpt-5' });
    const before = await readFile(file, 'utf8');
    await assert.rejects(
      updateConfigFile(env, { providers: { mybox: { baseUrl: 'not a url' } } }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.field === 'providers.mybox.baseUrl' &&
        error.message.includes(file),
    );
    assert.equal(await readFile(file, 'utf8'), before);
  });

  test('never overwrites a file it cannot parse', async () => {
    const { dir, file, env } = await freshHome();
    await mkdir(dir, { recursive: true });
    await writeFile(file, '{ "model": ');
    await assert.rejects(
      updateConfigFile(env, { model: 'openai/gpt-5' }),
      /is not valid JSON: unexpected end of file/,
    );
    assert.equal(await readFile(file, 'utf8'), '{ "model": ');
    await writeFile(file, '["not", "an", "object"]');
    await assert.rejects(updateConfigFile(env, { model: 'openai/gpt-5' }), /expected object, received array/);
    assert.equal(await readFile(file, 'utf8'), '["not", "an", "object"]');
  });
});
