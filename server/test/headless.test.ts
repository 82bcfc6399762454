/**
 * `santra -p` end to end: the built client spawns the built server, which talks to a fake
 * provider through the real SDK. (The client's own behaviours are tested in tui/test against a
 * fake server; this checks the two real programs together.)
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import {
  type FakeProvider,
  type FakeTurn,
  startFakeProvider,
} from '../../conformance-tests/src/fake-providers/index.ts';
import { tempDir } from '../../scripts/temp-dirs.ts';
import { CANARY_KEY } from './helpers/run.ts';

const SANTRA = fileURLToPath(new URL('../../dist/santra.js', import.meta.url));
const fakes: FakeProvider[] = [];
after(async () => {
  for (const fake of fakes) await fake.close();
});

async function santra(turns: FakeTurn[], args: string[]) {
  const fake = await startFakeProvider('anthropic', turns);
  fakes.push(fake);
  const home = tempDir('santra-home-');
  const cwd = tempDir('santra-ws-');
  const child = spawn(process.execPath, [SANTRA, ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: home,
      SANTRA_HOME: join(home, 'santra'),
      ANTHROPIC_API_KEY: CANARY_KEY,
      ANTHROPIC_BASE_URL: fake.url,
      SANTRA_MODEL: 'anthropic/claude-sonnet-4-5',
      SANTRA_MEMORY_AUTO_EXTRACT: '0',
      SANTRA_RETRY_BASE_MS: '10',
    },
  });
  let stdout = '';
  let stderr = '';
  const firstOutput: number[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    firstOutput.push(Date.now());
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.ok(!stdout.includes(CANARY_KEY) && !stderr.includes(CANARY_KEY), 'the key never reaches the output');
  return { code, stdout, stderr, firstOutput, fake };
}

describe('santra -p with the real server', () => {
  test('streams the answer to stdout as it arrives and exits 0', async () => {
    const chunks = Array.from({ length: 20 }, (_, i) => `part${i} `);
    const run = await santra([{ text: chunks, chunkDelayMs: 30 }], ['-p', 'Tell me something']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `${chunks.join('')}\n`);
    assert.ok(run.firstOutput.length > 1, 'the answer arrived in pieces, not all at the end');
    assert.equal(run.fake.requests[0]?.body.messages.at(-1).content[0].text, 'Tell me something');
  });

  test('--output-format json prints the result with usage and cost', async () => {
    const run = await santra(
      [{ text: 'Hi.', usage: { inputTokens: 10, outputTokens: 2 } }],
      ['-p', 'hi', '--output-format', 'json'],
    );
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout) as {
      status: string;
      output: string;
      usage: { inputTokens: number };
      costUsd: number;
    };
    assert.equal(result.status, 'completed');
    assert.equal(result.output, 'Hi.');
    assert.equal(result.usage.inputTokens, 10);
    assert.ok(result.costUsd > 0);
  });

  test('--output-format stream-json prints one JSON object per phase, then the result', async () => {
    const run = await santra(
      [{ thinking: 'hmm', text: ['a', 'b'] }],
      ['-p', 'hi', '--output-format', 'stream-json'],
    );
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string });
    assert.ok(lines.some((line) => line.type === 'thinking'));
    assert.equal(lines.at(-2)?.type, 'complete');
    assert.equal(lines.at(-1)?.type, 'result');
  });

  test('a provider error exits 1 with a message that says what to fix', async () => {
    const run = await santra([{ fault: { kind: 'http_error', status: 401 } }], ['-p', 'hi']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /API key was rejected \(401\)\. Check ANTHROPIC_API_KEY/);
    assert.equal(run.stdout.trim(), '');
  });

  test('--model picks the model for the prompt', async () => {
    const run = await santra([{ text: 'ok' }], ['-p', 'hi', '--model', 'anthropic/claude-haiku-4-5']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.fake.requests[0]?.body.model, 'claude-haiku-4-5');
  });
});
