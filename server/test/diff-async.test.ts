import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { computeDiff, computeDiffAsync } from '../src/approval/diff.ts';
import { suiteHarnesses } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const numbered = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}\n`).join('');
const diffModule = fileURLToPath(new URL('../src/approval/diff.ts', import.meta.url));

const start = suiteHarnesses();

/** The same lines in another order: no cheap bound rules the diff out, so it searches until its timeout. */
function shuffled(text: string): string {
  const lines = text.split('\n').slice(0, -1);
  return lines.map((_, i) => lines[(i * 7919) % lines.length]).join('\n') + '\n';
}

describe('computeDiffAsync', () => {
  test('gives the same result as computeDiff, inline and in the worker', async () => {
    const small = numbered(100);
    const smallNew = small.replace('line 50\n', 'fifty\n');
    assert.deepEqual(await computeDiffAsync('s', small, smallNew), computeDiff('s', small, smallNew));
    // Over 64 KiB, so the search runs in the worker.
    const big = numbered(20_000);
    const bigNew = big.replace('line 10\n', 'ten\n').replace('line 15000\n', 'line 15000\nadded\n');
    const inWorker = await computeDiffAsync('b', big, bigNew);
    assert.deepEqual(inWorker, computeDiff('b', big, bigNew));
    assert.deepEqual([inWorker.added, inWorker.removed, inWorker.replacement], [2, 1, false]);
    const rewrite = big.replaceAll('line', 'row');
    assert.deepEqual(await computeDiffAsync('b', big, rewrite), computeDiff('b', big, rewrite));
    assert.deepEqual(await computeDiffAsync('b', undefined, big), computeDiff('b', undefined, big));
  });

  test('serves concurrent diffs, each with its own result', async () => {
    const big = numbered(20_000);
    const variants = [1, 5000, 12_345, 19_999].map((n) => big.replace(`line ${n}\n`, `changed ${n}\n`));
    const results = await Promise.all(variants.map((text) => computeDiffAsync('c', big, text)));
    results.forEach((result, i) => {
      assert.equal(
        result.hunks[0]?.lines.find((line) => line.type === 'added')?.text,
        `changed ${[1, 5000, 12_345, 19_999][i]}`,
      );
    });
  });

  test('does not block the event loop while a pathological diff runs', async () => {
    const oldText = numbered(20_000);
    let ticks = 0;
    const interval = setInterval(() => ticks++, 10);
    try {
      const diff = await computeDiffAsync('p', oldText, shuffled(oldText), { timeoutMs: 1500 });
      assert.equal(diff.replacement, true);
    } finally {
      clearInterval(interval);
    }
    assert.ok(ticks >= 5, `the event loop ticked ${ticks} times during the diff`);
  });

  test('a process waiting for a diff stays alive until it has it, then exits on its own', async () => {
    // Two diffs that each search for a while: the second starts on a worker that was idle (unref'd)
    // and is busy with no message in flight, when only its ref keeps the process alive.
    const script = `
      import { computeDiffAsync } from ${JSON.stringify(diffModule)};
      const lines = Array.from({ length: 20000 }, (_, i) => 'line ' + i + '\\n');
      const shuffled = lines.map((_, i) => lines[(i * 7919) % lines.length]);
      for (const run of [1, 2]) {
        const diff = await computeDiffAsync('x', lines.join(''), shuffled.join(''), { timeoutMs: 300 });
        process.stdout.write(JSON.stringify([run, diff.replacement]));
      }`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill(), 30_000);
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(timer);
    assert.equal(code, 0, `the child exited with ${String(code)} (killed after 30 s if it hung): ${stderr}`);
    assert.equal(stdout, '[1,true][2,true]');
  });

  test('the built server diffs a big file change in its worker thread (dist/chunks/diff-worker-thread.js)', async () => {
    const big = numbered(20_000); // over 64 KiB: the search goes to the worker
    const changed = big.replace('line 10\n', 'ten\n').replace('line 15000\n', 'line 15000\nadded\n');
    const h = await start(
      'anthropic',
      [
        { toolCalls: [{ id: 't1', name: 'write_file', args: { path: 'big.txt', content: changed } }] },
        { text: 'done' },
      ],
      {},
      undefined,
      { capabilities: { approve: true, diffs: true } },
    );
    writeFileSync(join(h.workspace, 'big.txt'), big);
    const shown: Json[] = [];
    h.client.handle('approve', (params) => {
      shown.push(params.diff as Json);
      return { decision: 'allow' };
    });
    const { response } = await h.prompt({ text: 'edit it' });
    assert.equal((response.result as Json).status, 'completed');
    assert.equal(readFileSync(join(h.workspace, 'big.txt'), 'utf8'), changed);
    const diff = shown[0];
    assert.deepEqual([diff?.added, diff?.removed, diff?.replacement], [2, 1, false]);
    assert.equal(diff?.unifiedDiff, computeDiff('big.txt', big, changed).unifiedDiff);
    // The diff would be the same on the main thread; only this warning tells that the worker
    // could not start (its file missing from dist/, or not found from the chunk that starts it).
    assert.doesNotMatch(h.client.stderr, /SANTRA_DIFF_WORKER|diffs on the main thread/);
  });
});
