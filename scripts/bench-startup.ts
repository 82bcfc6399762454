/**
 * Start-up benchmark: the time from spawning the built server to its `initialize` response, and
 * `santra-server --version`, each the median of N runs beside the median of `node -e 0`.
 *   npm run build && node scripts/bench-startup.ts [--runs 10]
 * Goals (issue 2): initialize answered under 150 ms; --version within 1.5x of `node -e 0`.
 * Results go in docs/performance.md. A benchmark, not a test: a busy machine moves the numbers.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' } } });
const runs = Number(values.runs);
const server = fileURLToPath(new URL('../dist/santra-server.js', import.meta.url));
const workspace = mkdtempSync(join(tmpdir(), 'santra-bench-'));

function timeExit(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`${args.join(' ')} exited with ${code}`));
      else resolve(Number(process.hrtime.bigint() - start) / 1e6);
    });
  });
}

function timeInitialize(): Promise<number> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '0.1.0',
      clientInfo: { name: 'bench' },
      workspaceRoot: workspace,
      capabilities: {},
    },
  });
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, [server], { stdio: ['pipe', 'pipe', 'ignore'] });
    child.on('error', reject);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('"result"')) {
        const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
        child.kill();
        resolve(elapsed);
      } else if (output.includes('"error"')) {
        child.kill();
        reject(new Error(`initialize failed: ${output}`));
      }
    });
    child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });
}

async function median(measure: () => Promise<number>): Promise<number> {
  await measure(); // warm the file cache
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push(await measure());
  samples.sort((a, b) => a - b);
  const mid = Math.floor(samples.length / 2);
  return samples.length % 2 === 1
    ? (samples[mid] as number)
    : ((samples[mid - 1] as number) + (samples[mid] as number)) / 2;
}

const node = await median(() => timeExit(['-e', '0']));
const version = await median(() => timeExit([server, '--version']));
const initialize = await median(timeInitialize);
const row = (name: string, ms: number, goal: string) =>
  `| ${name} | ${ms.toFixed(1)} ms | ${(ms / node).toFixed(2)}x | ${goal} |`;
process.stdout.write(
  [
    `Node ${process.version}, ${runs} runs each (median), ${new Date().toISOString().slice(0, 10)}`,
    '',
    '| measurement | median | vs `node -e 0` | goal |',
    '| --- | --- | --- | --- |',
    row('`node -e 0`', node, '—'),
    row('`santra-server --version`', version, '≤ 1.5x'),
    row('spawn → `initialize` response', initialize, '< 150 ms'),
    '',
  ].join('\n'),
);
