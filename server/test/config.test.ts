import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { tempDir } from '../../scripts/temp-dirs.ts';
import {
  ConfigError,
  configDir,
  loadConfig,
  redactConfig,
  resolveConfiguredModel,
} from '../src/config/config.ts';
import { PRESETS } from '../src/providers/presets.ts';

/** A fresh directory used as HOME and SANTRA_HOME, so nothing reads the real home. */
async function sandbox(): Promise<{ dir: string; file: string; env: NodeJS.ProcessEnv }> {
  const dir = tempDir('santra-config-');
  return { dir, file: join(dir, 'config.json'), env: { HOME: dir, SANTRA_HOME: dir } };
}

async function withFile(body: unknown): Promise<{ file: string; env: NodeJS.ProcessEnv }> {
  const { file, env } = await sandbox();
  await writeFile(file, typeof body === 'string' ? body : JSON.stringify(body, null, 2));
  return { file, env };
}

async function configErrorOf(promise: Promise<unknown>): Promise<ConfigError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  assert.fail('expected a ConfigError');
}

describe('configDir', () => {
  test('SANTRA_HOME wins over XDG_CONFIG_HOME, which wins over HOME', () => {
    assert.equal(configDir({ SANTRA_HOME: '/s', XDG_CONFIG_HOME: '/x', HOME: '/h' }), '/s');
    assert.equal(configDir({ XDG_CONFIG_HOME: '/x', HOME: '/h' }), '/x/santra');
    assert.equal(configDir({ HOME: '/h' }), '/h/.config/santra');
  });

  test('ignores empty values and a relative XDG_CONFIG_HOME', () => {
    assert.equal(configDir({ SANTRA_HOME: '', XDG_CONFIG_HOME: 'rel', HOME: '/h' }), '/h/.config/santra');
  });

  test('loadConfig reads the file from SANTRA_HOME, not XDG_CONFIG_HOME', async () => {
    const santra = await sandbox();
    const xdg = await sandbox();
    await writeFile(santra.file, JSON.stringify({ model: 'groq/from-santra-home' }));
    await mkdir(join(xdg.dir, 'santra'));
    await writeFile(join(xdg.dir, 'santra', 'config.json'), JSON.stringify({ model: 'groq/from-xdg' }));
    const env = { HOME: xdg.dir, XDG_CONFIG_HOME: xdg.dir };
    assert.equal((await loadConfig(env)).model, 'groq/from-xdg');
    assert.equal((await loadConfig({ ...env, SANTRA_HOME: santra.dir })).model, 'groq/from-santra-home');
  });
});

describe('loadConfig', () => {
  test('the live token: from the file or SANTRA_LIVE_TOKEN (which wins); a short one is refused, naming where', async () => {
    const file = await withFile({ sessions: { liveToken: 'token-from-the-file-123' } });
    assert.equal((await loadConfig(file.env)).sessions.liveToken, 'token-from-the-file-123');
    const env = { ...file.env, SANTRA_LIVE_TOKEN: 'token-from-the-environment' };
    assert.equal((await loadConfig(env)).sessions.liveToken, 'token-from-the-environment');
    const short = await configErrorOf(loadConfig({ ...file.env, SANTRA_LIVE_TOKEN: 'short' }));
    assert.match(short.message, /SANTRA_LIVE_TOKEN is shorter than 16 characters/);
    const inFile = await configErrorOf(loadConfig((await withFile({ sessions: { liveToken: 'x' } })).env));
    assert.match(inFile.message, /sessions\.liveToken.*at least 16 characters/);
  });

  test("memory's extraction is on by default; the file turns it off; SANTRA_MEMORY_AUTO_EXTRACT overrides the file", async () => {
    assert.equal((await loadConfig((await sandbox()).env)).memory.autoExtract, true);
    const off = await withFile({ memory: { autoExtract: false } });
    assert.equal((await loadConfig(off.env)).memory.autoExtract, false);
    assert.equal(
      (await loadConfig({ ...off.env, SANTRA_MEMORY_AUTO_EXTRACT: '1' })).memory.autoExtract,
      true,
    );
    const on = await withFile({ memory: { autoExtract: true } });
    assert.equal(
      (await loadConfig({ ...on.env, SANTRA_MEMORY_AUTO_EXTRACT: 'off' })).memory.autoExtract,
      false,
    );
    // Empty is unset: the file decides.
    assert.equal(
      (await loadConfig({ ...off.env, SANTRA_MEMORY_AUTO_EXTRACT: ' ' })).memory.autoExtract,
      false,
    );
    const error = await configErrorOf(loadConfig({ ...on.env, SANTRA_MEMORY_AUTO_EXTRACT: 'maybe' }));
    assert.match(error.message, /SANTRA_MEMORY_AUTO_EXTRACT is "maybe"; set it to 1 \(on\) or 0 \(off\)/);
  });

  test('has defaults without a file', async () => {
    const { file, env } = await sandbox();
    const config = await loadConfig(env);
    assert.equal(config.file, file);
    assert.equal(config.model, '');
    assert.deepEqual(config.agent, {
      maxToolCallsPerResponse: 8,
      maxTurnsPerRun: 50,
      maxOutputTokens: 16_384,
      thinkingBudgetTokens: 0,
      maxDepth: 3,
      maxParallelAgents: 4,
      subAgentTimeoutSeconds: 600,
      compactAt: 0.8,
    });
    assert.deepEqual(config.stream, { coalesceMs: 8 });
    assert.deepEqual(
      Object.keys(config.providers),
      PRESETS.map((preset) => preset.id),
    );
    assert.deepEqual(config.providers.anthropic, {
      id: 'anthropic',
      name: 'Anthropic',
      api: 'anthropic',
      baseUrl: 'https://api.anthropic.com',
      keyEnv: 'ANTHROPIC_API_KEY',
      needsKey: true,
    });
    assert.equal(config.providers.ollama?.needsKey, false);
    assert.equal(config.defaultProvider, undefined);
  });

  test('picks the default model of the first configured provider, anthropic then openai', async () => {
    const { env } = await sandbox();
    assert.equal((await loadConfig({ ...env, GROQ_API_KEY: 'g' })).model, 'groq/openai/gpt-oss-120b');
    assert.equal(
      (await loadConfig({ ...env, GROQ_API_KEY: 'g', OPENAI_API_KEY: 'o' })).model,
      'openai/gpt-6.1-sol',
    );
    const all = await loadConfig({ ...env, GROQ_API_KEY: 'g', OPENAI_API_KEY: 'o', ANTHROPIC_API_KEY: 'a' });
    assert.equal(all.model, 'anthropic/claude-sonnet-5-5');
  });

  test('a keyless local provider counts once the file mentions it', async () => {
    const { env } = await withFile({ providers: { ollama: { baseUrl: 'http://10.1.2.3:11434/v1' } } });
    const config = await loadConfig(env);
    assert.equal(config.model, 'ollama/qwen2.5-coder');
    assert.equal(config.providers.ollama?.baseUrl, 'http://10.1.2.3:11434/v1');
  });

  test('environment overrides beat the file', async () => {
    const { env } = await withFile({
      model: 'anthropic/claude-haiku-4-5',
      providers: {
        anthropic: { apiKey: 'file-anthropic-key', baseUrl: 'https://file.example/anthropic' },
        groq: { apiKey: 'file-groq-key' },
        openai: { apiKey: 'file-openai-key' },
      },
      agent: { maxTurnsPerRun: 7 },
    });
    const config = await loadConfig({
      ...env,
      SANTRA_MODEL: 'openai/gpt-4.1',
      ANTHROPIC_API_KEY: 'env-anthropic-key',
      ANTHROPIC_BASE_URL: 'https://env.example/anthropic/',
      GROQ_API_KEY: 'env-groq-key',
    });
    assert.equal(config.model, 'openai/gpt-4.1');
    assert.equal(config.providers.anthropic?.apiKey, 'env-anthropic-key');
    assert.equal(config.providers.anthropic?.baseUrl, 'https://env.example/anthropic');
    assert.equal(config.providers.groq?.apiKey, 'env-groq-key');
    assert.equal(config.providers.openai?.apiKey, 'file-openai-key');
    assert.deepEqual(config.agent, {
      maxToolCallsPerResponse: 8,
      maxTurnsPerRun: 7,
      maxOutputTokens: 16_384,
      thinkingBudgetTokens: 0,
      maxDepth: 3,
      maxParallelAgents: 4,
      subAgentTimeoutSeconds: 600,
      compactAt: 0.8,
    });
    const file = await loadConfig(env);
    assert.equal(file.model, 'anthropic/claude-haiku-4-5');
    assert.equal(file.providers.anthropic?.apiKey, 'file-anthropic-key');
  });

  test('reads custom providers, with their compat, models and key variable', async () => {
    const { env } = await withFile({
      providers: {
        mybox: {
          api: 'openai',
          baseUrl: 'http://10.0.0.5:8000/v1/',
          keyEnv: 'MYBOX_KEY',
          models: ['qwen2.5-coder'],
          compat: { nativeTools: false },
        },
      },
    });
    const config = await loadConfig({ ...env, MYBOX_KEY: 'box-key' });
    assert.deepEqual(config.providers.mybox, {
      id: 'mybox',
      name: 'mybox',
      api: 'openai',
      baseUrl: 'http://10.0.0.5:8000/v1',
      apiKey: 'box-key',
      keyEnv: 'MYBOX_KEY',
      needsKey: true,
    });
    assert.deepEqual(config.providerCompat, { mybox: { nativeTools: false } });
    assert.equal(config.model, 'mybox/qwen2.5-coder');
    const spec = resolveConfiguredModel(config, 'qwen2.5-coder');
    assert.equal(spec?.provider, 'mybox');
    assert.equal(spec?.compat.nativeTools, false);
    assert.equal(spec?.guessed, true);
  });

  test('OPENAI_BASE_URL makes openai serve bare non-Anthropic model ids', async () => {
    const { env } = await sandbox();
    const config = await loadConfig({
      ...env,
      SANTRA_MODEL: 'qwen2.5-coder',
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
    });
    assert.equal(config.defaultProvider, 'openai');
    assert.equal(config.providers.openai?.baseUrl, 'http://127.0.0.1:11434/v1');
    assert.equal(config.providers.openai?.needsKey, false);
    const spec = resolveConfiguredModel(config);
    assert.equal(spec?.provider, 'openai');
    assert.equal(spec?.id, 'qwen2.5-coder');
    assert.equal(spec?.compat.reasoning, 'think_tags');
    assert.equal(resolveConfiguredModel(config, 'claude-haiku-4-5')?.provider, 'anthropic');
    assert.equal(resolveConfiguredModel(config, 'llama-3.3-70b-versatile')?.provider, 'openai');

    const plain = await loadConfig({ ...env, SANTRA_MODEL: 'qwen2.5-coder' });
    assert.equal(resolveConfiguredModel(plain), undefined);
    assert.equal(resolveConfiguredModel(plain, 'llama-3.3-70b-versatile')?.provider, 'groq');
  });

  test("OpenAI's reasoning models use the Responses API on OpenAI, Chat Completions on a compatible server", async () => {
    const { env } = await sandbox();
    const own = await loadConfig({ ...env, OPENAI_API_KEY: 'sk-test' });
    for (const id of ['gpt-5', 'o3', 'gpt-6.1-sol', 'gpt-7-preview'])
      assert.equal(resolveConfiguredModel(own, `openai/${id}`)?.api, 'openai-responses', id);
    assert.equal(resolveConfiguredModel(own, 'openai/gpt-4o')?.api, 'openai');
    const redirected = await loadConfig({ ...env, OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1' });
    assert.equal(resolveConfiguredModel(redirected, 'openai/gpt-5')?.api, 'openai');
  });

  test('a custom provider, or openai itself, can be set to the Responses API', async () => {
    const { env } = await withFile({
      providers: {
        azure: { api: 'openai-responses', baseUrl: 'https://box.example/openai/v1', keyEnv: 'AZ_KEY' },
        openai: { api: 'openai-responses' },
      },
    });
    const config = await loadConfig({ ...env, AZ_KEY: 'k', OPENAI_API_KEY: 'sk-test' });
    const custom = resolveConfiguredModel(config, 'azure/my-deployment');
    assert.equal(custom?.api, 'openai-responses');
    // Not known to reason: it is not asked to.
    assert.equal(custom?.compat.reasoning, 'none');
    assert.equal(resolveConfiguredModel(config, 'openai/gpt-4o')?.api, 'openai-responses');
  });

  test('a base URL variable that is not an http(s) URL is a ConfigError naming it', async () => {
    const { env } = await sandbox();
    const error = await configErrorOf(loadConfig({ ...env, OPENAI_BASE_URL: 'localhost:11434' }));
    assert.equal(error.field, 'OPENAI_BASE_URL');
    assert.match(error.message, /OPENAI_BASE_URL is not an http\(s\) URL/);
    assert.doesNotMatch(error.message, /localhost/);
  });
});

describe('config files with comments', () => {
  test('comments and trailing commas are accepted, as the docs show them', async () => {
    const { env } = await withFile(
      '{\n  // my default\n  "model": "anthropic/claude-haiku-4-5", /* cheap */\n  "agent": { "maxTurnsPerRun": 7, },\n}\n',
    );
    const config = await loadConfig(env);
    assert.equal(config.model, 'anthropic/claude-haiku-4-5');
    assert.equal(config.agent.maxTurnsPerRun, 7);
  });
});

describe('bad config files', () => {
  const cases: Array<{ name: string; body: string | object; field?: string; message: RegExp }> = [
    {
      name: 'not JSON, with its position',
      body: '{\n  "model": "anthropic/claude-haiku-4-5",\n  oops: 1\n}\n',
      message:
        /is not valid JSON: unexpected character, expected a property name in double quotes at line 3, column 3\./,
    },
    {
      name: 'a missing comma',
      body: '{\n  // comments are fine\n  "model": "x"\n  "agent": {}\n}',
      message:
        /is not valid JSON: expected "," between entries at line 4, column 3\. \(Comments and trailing commas are allowed\.\)/,
    },
    {
      name: 'a wrong type, with the field path',
      body: { agent: { maxTurnsPerRun: 'many' } },
      field: 'agent.maxTurnsPerRun',
      message: /: agent\.maxTurnsPerRun \(line \d+\): expected number, received string$/,
    },
    {
      name: 'an effort that is not a level',
      body: { agent: { effort: 'extreme' } },
      field: 'agent.effort',
      message: /: agent\.effort \(line \d+\): expected one of "low"\|"medium"\|"high"\|"xhigh"\|"max"/,
    },
    {
      name: 'an unknown field, with a suggestion',
      body: { modle: 'anthropic/claude-haiku-4-5' },
      field: 'modle',
      message: /: modle \(line \d+\): unknown field, did you mean "model"\?$/,
    },
    {
      name: 'an unknown nested field, with the allowed ones',
      body: { providers: { groq: { token: 'x' } } },
      field: 'providers.groq.token',
      message:
        /providers\.groq\.token \(line \d+\): unknown field \(expected one of: name, api, baseUrl, apiKey, keyEnv/,
    },
    {
      name: 'a bad URL',
      body: { providers: { ollama: { baseUrl: 'localhost:11434' } } },
      field: 'providers.ollama.baseUrl',
      message: /providers\.ollama\.baseUrl \(line \d+\): expected an http\(s\) URL/,
    },
    {
      name: 'a custom provider without api and baseUrl',
      body: { providers: { mybox: { models: ['m'] } } },
      field: 'providers.mybox.api',
      message:
        / {2}- providers\.mybox\.api \(line \d+\): is required for the custom provider mybox[^\n]*\n {2}- providers\.mybox\.baseUrl \(line \d+\): is required/,
    },
    {
      name: 'a built-in provider given another API',
      body: { providers: { groq: { api: 'anthropic' } } },
      field: 'providers.groq.api',
      message:
        /providers\.groq\.api \(line \d+\): expected "openai" or "openai-responses": groq is a built-in provider/,
    },
    {
      name: 'a top level that is not an object',
      body: '[1, 2]',
      message: /\(top level\): expected object, received array/,
    },
  ];
  for (const { name, body, field, message } of cases) {
    test(name, async () => {
      const { file, env } = await withFile(body);
      const error = await configErrorOf(loadConfig(env));
      assert.equal(error.file, file);
      assert.equal(error.field, field);
      assert.ok(error.message.includes(file), error.message);
      assert.match(error.message, message);
      assert.doesNotMatch(error.message, /\n\s+at /, 'no stack trace in the message');
    });
  }

  test('a config path that cannot be read as a file', async () => {
    const { file, env } = await sandbox();
    await mkdir(file);
    const error = await configErrorOf(loadConfig(env));
    assert.equal(error.file, file);
    assert.match(error.message, /^Cannot read the config file .*config\.json: it is a directory/);
  });

  const CANARY = 'sk-ant-CANARY-0123456789abcdef';
  const leaky: Array<[string, string]> = [
    [
      'a bad field next to the key',
      JSON.stringify({ providers: { groq: { apiKey: CANARY, baseUrl: 'nope' } } }),
    ],
    ['a key of the wrong type', JSON.stringify({ providers: { groq: { apiKey: [CANARY] } } })],
    ['a key in the wrong place', JSON.stringify({ apiKey: CANARY })],
    ['a key in an incomplete custom provider', JSON.stringify({ providers: { box: { apiKey: CANARY } } })],
    ['a key pasted as a bad URL', JSON.stringify({ providers: { openai: { baseUrl: CANARY } } })],
    ['a key left unquoted', `{"providers": {"groq": {"apiKey": ${CANARY}}}}`],
    ['a key with a stray quote', `{"providers": {"groq": {"apiKey": "${CANARY}}}}`],
  ];
  for (const [name, body] of leaky) {
    test(`never echoes a key: ${name}`, async () => {
      const { env } = await withFile(body);
      const error = await configErrorOf(loadConfig(env));
      assert.ok(!error.message.includes('CANARY'), error.message);
    });
  }
});

describe('redactConfig', () => {
  test('replaces every key by its last four characters and leaves the config intact', async () => {
    const { env } = await withFile({ providers: { groq: { apiKey: 'gsk_0123456789abcdefWXYZ' } } });
    const config = await loadConfig({
      ...env,
      ANTHROPIC_API_KEY: 'sk-ant-api03-secretsecret-9876',
      OPENAI_API_KEY: 'short',
    });
    const redacted = redactConfig(config) as typeof config;
    assert.equal(redacted.providers.groq?.apiKey, '…WXYZ');
    assert.equal(redacted.providers.anthropic?.apiKey, '…9876');
    assert.equal(redacted.providers.openai?.apiKey, '…');
    assert.equal(redacted.providers.ollama?.apiKey, undefined);
    const text = JSON.stringify(redacted);
    assert.ok(!text.includes('0123456789') && !text.includes('secretsecret') && !text.includes('short'));
    assert.equal(config.providers.groq?.apiKey, 'gsk_0123456789abcdefWXYZ');
  });
});
