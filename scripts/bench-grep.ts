/**
 * grep_search benchmark: a few searches over this project's node_modules (the largest real tree at
 * hand), through ripgrep and through the built-in searcher, each as a ratio to running bare `rg`
 * with the same flags on the same tree (median of N runs after a warm-up, the three interleaved
 * so a busy machine slows them alike). Also checks that both backends give the same output.
 *   node scripts/bench-grep.ts [--runs 5] [--path node_modules]
 * Goals (issue 4): via ripgrep within 1.2x of bare rg; the built-in searcher within 5x.
 * A benchmark, not a test: a busy machine moves the numbers.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compilePattern } from '../server/src/tools/grep/pattern.ts';
import { findRipgrep, ripgrepFlags } from '../server/src/tools/grep/ripgrep.ts';
import { grepSearchTool } from '../server/src/tools/grep-search.ts';
import type { ToolContext } from '../server/src/tools/types.ts';
import { FileTracker } from '../server/src/workspace/file-tracker.ts';
import { Workspace } from '../server/src/workspace/workspace.ts';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '5' }, path: { type: 'string', default: 'node_modules' } },
});
const runs = Number(values.runs);
const path = values.path;
const root = fileURLToPath(new URL('..', import.meta.url));
const rg = findRipgrep();
if (rg === undefined) {
  console.error('rg is not on PATH: install ripgrep (apt-get install ripgrep) to compare against it.');
  process.exit(1);
}

const SEARCHES = [
  { label: 'literal `createServer`', pattern: 'createServer', caseInsensitive: false },
  { label: 'regex `function\\s+\\w+Sync\\(`', pattern: 'function\\s+\\w+Sync\\(', caseInsensitive: false },
  { label: 'case-insensitive `todo`', pattern: 'todo', caseInsensitive: true },
  { label: 'regex `\\w+\\(` (a worst case: most lines match)', pattern: '\\w+\\(', caseInsensitive: false },
];

const workspace = await Workspace.open(root);
const contextFor = (useRipgrep: boolean): ToolContext => ({
  workspace,
  files: new FileTracker(),
  gate: {
    fileChange: () => Promise.resolve({ allowed: true }),
    command: () => Promise.resolve({ allowed: true }),
    escalate: () => Promise.resolve({ allowed: true }),
    mcpTool: () => Promise.resolve({ allowed: true }),
  },
  runId: 'bench',
  agentId: 'bench',
  toolCallId: 'bench',
  signal: new AbortController().signal,
  showThinking: () => {},
  showStatus: () => {},
  ask: () => Promise.reject(new Error('no user in a benchmark')),
  fileChanged: () => {},
  commandEnv: {},
  settings: { commandTimeoutMs: 10_000, maxCommandTimeoutMs: 60_000, commandOutputLimit: 30_000, useRipgrep },
});
const tool = grepSearchTool();

function bareRg(pattern: string, caseInsensitive: boolean): Promise<number> {
  const compiled = compilePattern(pattern, caseInsensitive);
  if (!compiled.ok) throw new Error(compiled.message);
  const args = [...ripgrepFlags(caseInsensitive, undefined), `--regexp=${compiled.pattern.rg}`, '--', path];
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(rg as string, args, { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.resume();
    child.on('error', reject);
    child.on('close', () => resolve(performance.now() - start));
  });
}

async function timeTool(
  context: ToolContext,
  pattern: string,
  caseInsensitive: boolean,
): Promise<{ ms: number; output: string; summary: string }> {
  const start = performance.now();
  const result = await tool.execute({ pattern, path, caseInsensitive }, context);
  const ms = performance.now() - start;
  if (result.isError === true) throw new Error(result.output);
  return { ms, output: result.output, summary: result.summary };
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

const withRg = contextFor(true);
const builtin = contextFor(false);
const rows: string[] = [];
let same = true;
for (const search of SEARCHES) {
  const bare: number[] = [];
  const viaRg: number[] = [];
  const viaBuiltin: number[] = [];
  let summary = '';
  for (let run = 0; run <= runs; run++) {
    const b = await bareRg(search.pattern, search.caseInsensitive);
    const r = await timeTool(withRg, search.pattern, search.caseInsensitive);
    const j = await timeTool(builtin, search.pattern, search.caseInsensitive);
    if (r.output !== j.output) same = false;
    summary = r.summary;
    if (run === 0) continue; // warm-up: the file cache, the JIT
    bare.push(b);
    viaRg.push(r.ms);
    viaBuiltin.push(j.ms);
  }
  const [b, r, j] = [median(bare), median(viaRg), median(viaBuiltin)];
  rows.push(
    `| ${search.label} | ${summary} | ${b.toFixed(0)} ms | ${r.toFixed(0)} ms (${(r / b).toFixed(2)}x) | ${j.toFixed(0)} ms (${(j / b).toFixed(2)}x) |`,
  );
}

process.stdout.write(
  [
    `grep_search over ${path} (${root}), median of ${runs} runs, Node ${process.version}:`,
    '',
    '| search | result | bare rg | grep_search via rg | built-in searcher |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
    'Goals: via rg within 1.2x of bare rg; built-in within 5x.',
    `Both backends gave ${same ? 'the same' : 'DIFFERENT'} output.`,
    '',
  ].join('\n'),
);
if (!same) process.exitCode = 1;
