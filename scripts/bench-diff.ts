/**
 * Diff benchmark: the time to compute the approval diff of a 10,000-line file with 100 scattered
 * edits and of a full rewrite of it, each the median of N runs, with computeDiff and with
 * computeDiffAsync (whose search runs in the worker thread at this size). A third case, a fifth
 * of the lines changed, shows the bound: the search gives up at its 200 ms timeout. The stall
 * column is the longest the event loop stood still during the computeDiffAsync runs.
 *   node scripts/bench-diff.ts [--runs 10]
 * Goal: both cases under 100 ms. Results go in docs/performance.md. A benchmark, not a test: a
 * busy machine moves the numbers.
 */
import { cpus } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { computeDiff, computeDiffAsync, type FileDiff } from '../server/src/approval/diff.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' } } });
const runs = Number(values.runs);

/** Code-like lines: blank lines and closing braces repeat, as they do in real files. */
function source(count: number, variant: 'a' | 'b'): string[] {
  const block =
    variant === 'a'
      ? (i: number) => [
          `function step${i}(input, options) {`,
          `  const value = input * ${i};`,
          '  return value;',
          '}',
          '',
        ]
      : (i: number) => [
          `export const stage${i} = (item) => {`,
          `  if (item > ${i}) return item;`,
          `  return ${i};`,
          '};',
          '',
        ];
  const lines: string[] = [];
  for (let i = 0; lines.length < count; i++) lines.push(...block(i));
  return lines.slice(0, count).map((line) => `${line}\n`);
}

const original = source(10_000, 'a');
const oldText = original.join('');
const scattered = original.map((line, i) => (i % 100 === 50 ? `  // edited ${i}\n` : line)).join('');
const rewrite = source(10_000, 'b').join('');
const fifth = original.map((line, i) => (i % 5 === 2 ? `  changed(${i});\n` : line)).join('');

const cases = [
  { name: '10,000 lines, 100 scattered edits', newText: scattered, goal: '< 100 ms' },
  { name: '10,000 lines, full rewrite', newText: rewrite, goal: '< 100 ms' },
  { name: '10,000 lines, every 5th changed', newText: fifth, goal: '≈ 200 ms timeout, then replacement' },
];

async function median(run: () => FileDiff | Promise<FileDiff>): Promise<{ ms: number; diff: FileDiff }> {
  let diff = await run(); // warm-up: JIT, and the worker's start for computeDiffAsync
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    // Back to the event loop between runs, so the stall monitor sees each run on its own.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const start = performance.now();
    diff = await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const middle = Math.floor(times.length / 2);
  const ms =
    times.length % 2 === 1
      ? (times[middle] as number)
      : ((times[middle - 1] as number) + (times[middle] as number)) / 2;
  return { ms, diff };
}

const rows: string[] = [];
for (const { name, newText, goal } of cases) {
  const sync = await median(() => computeDiff('bench.ts', oldText, newText));
  // How long the event loop stood still while computeDiffAsync ran: what other agents would wait.
  const stalls = monitorEventLoopDelay({ resolution: 1 });
  stalls.enable();
  const async = await median(() => computeDiffAsync('bench.ts', oldText, newText));
  stalls.disable();
  const shape = `+${sync.diff.added} −${sync.diff.removed}${sync.diff.replacement ? ', replacement' : ''}`;
  rows.push(
    `| ${name} | ${shape} | ${sync.ms.toFixed(1)} ms | ${async.ms.toFixed(1)} ms | ${(stalls.max / 1e6).toFixed(0)} ms | ${goal} |`,
  );
}

console.log(
  `Diff benchmark, median of ${runs} runs (node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'})\n`,
);
console.log('| case | diff | computeDiff | computeDiffAsync | longest event-loop stall (async) | goal |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const row of rows) console.log(row);
