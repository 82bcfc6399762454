/**
 * `santra -p --fallback-model`: the built client and server, a fake Anthropic provider that is
 * overloaded and a fake OpenAI-compatible one that answers.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startFakeProvider } from '../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { CANARY_KEY, runSantra, santraEnv } from './helpers/run.ts';

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups) await cleanup();
});

async function setup() {
  const anthropic = await startFakeProvider('anthropic', [
    { fault: { kind: 'http_error', status: 529 }, repeat: true },
  ]);
  const openai = await startFakeProvider('openai', [{ text: 'Answered by the fallback.' }]);
  const home = tempDir('santra-home-');
  const workspace = tempDir('santra-ws-');
  cleanups.push(async () => {
    await Promise.all([anthropic.close(), openai.close()]);
    await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
  });
  const env = {
    ...santraEnv(home, anthropic.url),
    OPENAI_API_KEY: CANARY_KEY,
    OPENAI_BASE_URL: openai.url,
    SANTRA_RETRY_BASE_MS: '20',
  };
  return { anthropic, openai, workspace, env };
}

test('--fallback-model: the run continues on the next model, says so in one line, and splits the usage per model', async () => {
  const { openai, workspace, env } = await setup();
  const run = await runSantra(
    ['-p', 'hello', '--cwd', workspace, '--fallback-model', 'openai/gpt-4o-mini,openai/gpt-4o', '--verbose'],
    { cwd: workspace, env },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'Answered by the fallback.');
  assert.equal(openai.requests[0]?.body.model, 'gpt-4o-mini', 'the first fallback of the list answers');
  const lines = run.stderr.split('\n').filter((line) => line.includes('Falling back'));
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0] ?? '', /Falling back to openai\/gpt-4o-mini: anthropic\/claude-sonnet-4-5 failed/);
  assert.match(run.stderr, /openai\/gpt-4o-mini: [\d,]+ in, [\d,]+ out, \$/);
  assert.ok(!run.stderr.includes(CANARY_KEY) && !run.stdout.includes(CANARY_KEY));
});

test('--fallback-model without an id is a usage error that shows how to write one', async () => {
  const { workspace, env } = await setup();
  const run = await runSantra(['-p', 'hello', '--fallback-model', 'openai/gpt-4o,'], { cwd: workspace, env });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /--fallback-model needs model ids, e\.g\. --fallback-model openai\/gpt-5\.1/);
});
