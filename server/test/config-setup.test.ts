/**
 * config/setup: a client's first-run setup saves a provider's key and the default model through
 * the protocol; the server writes the config file (0600) and uses them from the next prompt,
 * without a restart, and the key never appears in what it sends or logs.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startFakeProvider } from '../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { sessionServers } from './helpers/sessions.ts';
import type { Json } from './helpers/wire.ts';

const KEY = 'sk-ant-api03-setup-key-0123456789abcdef';
const servers = sessionServers();

async function keylessServer() {
  const fake = await startFakeProvider('anthropic', [{ text: 'Set up and answering.' }]);
  const home = tempDir('santra-setup-home-');
  const workspace = tempDir('santra-setup-ws-');
  servers.later(async () => {
    await fake.close();
    await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
  });
  // No key anywhere: the provider is the fake, but santra has nothing to send it yet.
  const server = await servers.start({ home, workspace, env: { ANTHROPIC_BASE_URL: fake.url } });
  return { fake, home, server };
}

test('config/setup writes the key and model (0600) and the next prompt uses them, no restart', async () => {
  const { fake, home, server } = await keylessServer();
  const before = await server.ok('model/list');
  const sonnet = (before.models as Json[]).find((m) => m.ref === 'anthropic/claude-sonnet-4-5');
  assert.equal(sonnet?.configured, false);

  const saved = await server.ok('config/setup', {
    provider: 'anthropic',
    apiKey: KEY,
    model: 'anthropic/claude-sonnet-4-5',
  });
  const file = join(home, 'santra', 'config.json');
  assert.deepEqual(saved, { file, model: 'anthropic/claude-sonnet-4-5' });
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const written = JSON.parse(readFileSync(file, 'utf8')) as Json;
  assert.equal(written.model, 'anthropic/claude-sonnet-4-5');
  assert.equal(((written.providers as Json).anthropic as Json).apiKey, KEY);

  const after = await server.ok('model/list');
  assert.equal(after.current, 'anthropic/claude-sonnet-4-5');
  const { result } = await server.prompt({ text: 'hello', mode: 'simple_chat' });
  assert.equal(result.status, 'completed');
  const sent = fake.requests[0]?.headers;
  assert.ok(
    [sent?.['x-api-key'], sent?.authorization].some((header) => header?.includes(KEY)),
    'the saved key reached the provider',
  );
  assert.ok(!server.client.stdout.includes(KEY), 'the key is in no message the server sent');
  assert.ok(!server.client.stderr.includes(KEY), 'nor in its log');
});

test('config/setup refuses an unknown provider and a model of another provider, writing nothing', async () => {
  const { home, server } = await keylessServer();
  const unknown = await server.call('config/setup', { provider: 'nope', apiKey: KEY, model: 'nope/x' });
  assert.equal((unknown.error as Json | undefined)?.code, -32602);
  assert.match(
    String((unknown.error as Json).message),
    /params\.provider: there is no provider "nope".*anthropic/,
  );
  const mismatch = await server.call('config/setup', {
    provider: 'anthropic',
    apiKey: KEY,
    model: 'openai/gpt-5',
  });
  assert.match(
    String((mismatch.error as Json | undefined)?.message),
    /params\.model: expected a model of anthropic/,
  );
  assert.throws(() => statSync(join(home, 'santra', 'config.json')), /ENOENT/);
  assert.ok(!server.client.stdout.includes(KEY), 'a refused key is not echoed either');
});

test('config/setup refuses a key an HTTP header cannot carry before saving it; the server keeps working', async () => {
  const { fake, home, server } = await keylessServer();
  const file = join(home, 'santra', 'config.json');
  const pasted = 'sk-ant-api03-cl\u00e9-0123456789abcdef';
  const refused = await server.call('config/setup', {
    provider: 'anthropic',
    apiKey: pasted,
    model: 'anthropic/claude-sonnet-4-5',
  });
  assert.equal((refused.error as Json | undefined)?.code, -32602);
  assert.match(
    String((refused.error as Json).message),
    /params\.apiKey: the key contains the character U\+00E9 at position 16/,
  );
  assert.throws(() => statSync(file), /ENOENT/, 'nothing was saved');

  // The same server, set up properly afterwards, answers.
  await server.ok('config/setup', {
    provider: 'anthropic',
    apiKey: KEY,
    model: 'anthropic/claude-sonnet-4-5',
  });
  const { result } = await server.prompt({ text: 'hello', mode: 'simple_chat' });
  assert.equal(result.status, 'completed');
  assert.equal(fake.requests.length, 1);
  assert.ok(!server.client.stdout.includes(pasted) && !server.client.stderr.includes(pasted));
});
