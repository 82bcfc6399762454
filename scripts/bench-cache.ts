/**
 * Prompt-cache benchmark: what share of a session's input a provider's cache would serve, and what
 * that costs, with Santra's cache planner (providers/cache-plan.ts) against the planner before it
 * (breakpoints on the tools and the system prompt only).
 *   npm run build && node scripts/bench-cache.ts [--turns 20] [--timeout 300]
 * 1. A session of N prompts to one agent through the built server and a fake Anthropic provider;
 *    each prompt reads two files (two tool calls) and answers: three model calls a prompt.
 * 2. An orchestrator that sends three readers at once: what the second and third read of the
 *    prefix they share with the first on their first call.
 * The requests the fake recorded are run through a simulation of Anthropic's cache
 * (bench/cache-sim.ts: breakpoints, 20-block lookback, 1,024-token minimum, 5-minute TTL; one call
 * every 15 s, two minutes between prompts), once as sent and once with the breakpoints the old
 * planner placed. Costs at claude-sonnet-4-5's prices from the catalog. Goal: 90% of the input
 * read from the cache. Printed, never enforced; results go in docs/performance.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  type FakeTurn,
  lastUserText,
  type RecordedRequest,
  startFakeProvider,
} from '../conformance-tests/src/fake-providers/index.ts';
import { resolveModel } from '../server/src/providers/catalog.ts';
import type { ModelSpec } from '../server/src/providers/types.ts';
import { AnthropicCacheSim, beforeThePlanner, type SimulatedUsage, total } from './bench/cache-sim.ts';
import { positiveIntegers } from './bench/options.ts';
import { installGuards, setStep } from './bench/processes.ts';
import { BenchClient, type Json } from './bench/protocol-client.ts';
import { removeTempDir, tempDir } from './temp-dirs.ts';

const USAGE = 'Usage: node scripts/bench-cache.ts [--turns 20] [--timeout 300]';
const { values } = parseArgs({
  options: { turns: { type: 'string', default: '20' }, timeout: { type: 'string', default: '300' } },
});
const option = positiveIntegers('bench-cache', USAGE, values);
const TURNS = option('turns');
installGuards(option('timeout'));

const MODEL = 'anthropic/claude-sonnet-4-5';
const SPEC = resolveModel(MODEL) as ModelSpec;
const CALL_GAP_MS = 15_000;
const PROMPT_GAP_MS = 120_000;

/** A source file of about 7 KB: what a read_file of real code returns. */
function source(n: number): string {
  return Array.from(
    { length: 150 },
    (_, line) => `export function step${n}_${line}(input: number): number { return input * ${line} + ${n}; }`,
  ).join('\n');
}

const CODER = {
  id: 'coder',
  name: 'Coder',
  description: 'Reads the code and answers (the benchmark).',
  systemPrompt: 'You are the coder of the cache benchmark. Read what you need, then answer.',
  toolNames: ['read_file', 'list_dir', 'grep_search', 'find_file'],
};

const systemText = (request: RecordedRequest) =>
  ((request.body as { system?: Array<{ text: string }> }).system ?? []).map((block) => block.text).join('\n');
const as = (role: string) => (request: RecordedRequest) =>
  systemText(request).includes(`You are the ${role}`);

/** A compaction's summary request, asked inside the conversation or as a transcript. */
const summarising = (request: RecordedRequest) =>
  lastUserText(request).startsWith('[Compaction:') || systemText(request).startsWith('You summarise');

function sessionTurns(turns: number): FakeTurn[] {
  const summary: FakeTurn = {
    match: summarising,
    repeat: true,
    text: 'Summary: the files compute linear steps.',
  };
  return [
    summary,
    ...Array.from({ length: turns }, (_, n) => [
      { toolCalls: [{ name: 'read_file', args: { path: `src/file${2 * n}.ts` } }] },
      { toolCalls: [{ name: 'read_file', args: { path: `src/file${2 * n + 1}.ts` } }] },
      { text: `Turn ${n + 1}: ${'the two files compute linear steps; '.repeat(12)}` },
    ]).flat(),
  ];
}

const SIBLINGS: FakeTurn[] = [
  {
    match: as('orchestrator'),
    toolCalls: [
      {
        name: 'spawn_agents',
        args: { agents: [1, 2, 3].map((n) => ({ agentId: 'reader', task: `Read src/file${n}.ts` })) },
      },
    ],
  },
  ...[1, 2, 3].map((): FakeTurn => ({
    match: as('reader'),
    toolCalls: [{ name: 'task_completed', args: { result: 'read' } }],
  })),
  { match: as('orchestrator'), text: 'The readers are done.' },
];

async function record(): Promise<{ session: RecordedRequest[]; siblings: RecordedRequest[] }> {
  const home = tempDir('santra-bench-cache-');
  const workspace = join(home, 'ws');
  mkdirSync(join(workspace, 'src'), { recursive: true });
  mkdirSync(join(workspace, '.agents'), { recursive: true });
  writeFileSync(join(workspace, '.agents/coder.json'), JSON.stringify(CODER));
  for (let n = 0; n < 2 * TURNS + 4; n++) writeFileSync(join(workspace, `src/file${n}.ts`), source(n));
  const fake = await startFakeProvider('anthropic', sessionTurns(TURNS));
  const client = new BenchClient({
    env: {
      PATH: process.env.PATH,
      HOME: home,
      SANTRA_HOME: join(home, 'santra'),
      SANTRA_MEMORY_AUTO_EXTRACT: '0',
      ANTHROPIC_API_KEY: 'sk-ant-bench',
      ANTHROPIC_BASE_URL: fake.url,
      SANTRA_MODEL: MODEL,
    },
    cwd: workspace,
  });
  try {
    await client.initialize(workspace);
    let sessionId: string | undefined;
    for (let n = 0; n < TURNS; n++) {
      setStep(`prompt ${n + 1} of ${TURNS}`);
      const { message } = await client.request('prompt', {
        text: `Prompt ${n + 1}: what do the next two files do?`,
        agent: 'coder',
        ...(sessionId === undefined ? {} : { sessionId }),
      });
      const result = message.result as Json;
      if (result.status !== 'completed') throw new Error(`prompt ${n + 1} ended ${String(result.status)}`);
      sessionId = result.sessionId as string;
    }
    const session = [...fake.requests];
    setStep('three readers at once');
    fake.push(...SIBLINGS);
    const { message } = await client.request('prompt', { text: 'Read three files', agent: 'orchestrator' });
    if ((message.result as Json).status !== 'completed') throw new Error('the readers did not complete');
    return { session, siblings: fake.requests.slice(session.length) };
  } finally {
    await client.close();
    await fake.close();
    await removeTempDir(home);
  }
}

/** Each request's simulated usage, sent at the session's pace (three calls a prompt). */
function simulate(
  requests: readonly RecordedRequest[],
  shape: (body: Json) => Json = (b) => b,
): SimulatedUsage[] {
  const cache = new AnthropicCacheSim();
  return requests.map((request, index) =>
    cache.send(
      shape(request.body as Json),
      Math.floor(index / 3) * PROMPT_GAP_MS + (index % 3) * CALL_GAP_MS,
    ),
  );
}

const inputUsd = (usage: SimulatedUsage) => {
  const pricing = SPEC.pricing as NonNullable<ModelSpec['pricing']>;
  return (
    (usage.inputTokens * pricing.input +
      usage.cacheReadTokens * (pricing.cacheRead ?? pricing.input) +
      usage.cacheWriteTokens * (pricing.cacheWrite ?? pricing.input)) /
    1e6
  );
};
const pct = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;
const usd = (amount: number) => `$${amount.toFixed(4)}`;
const grouped = (n: number) => n.toLocaleString('en-US');

function report(name: string, usages: SimulatedUsage[]): void {
  const sum = total(usages);
  const all = sum.inputTokens + sum.cacheReadTokens + sum.cacheWriteTokens;
  const cost = inputUsd(sum);
  const last = total(usages.slice(-3));
  console.log(
    `| ${name} | ${pct(sum.hitRatio)} | ${pct(last.hitRatio)} | ${grouped(sum.cacheReadTokens)} | ${grouped(sum.cacheWriteTokens)} | ${grouped(sum.inputTokens)} | ${grouped(all)} | ${usd(cost)} |`,
  );
}

const { session, siblings } = await record();
const now = simulate(session);
const before = simulate(session, beforeThePlanner);
const all = total(now);
const uncached = {
  inputTokens: all.inputTokens + all.cacheReadTokens + all.cacheWriteTokens,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
};
const compactions = session.filter(summarising).length;
console.log(
  `\n${TURNS} prompts, ${session.length} model calls (${compactions} of them a compaction's summary), ${MODEL} (simulated Anthropic cache)\n`,
);
console.log(
  '| planner | input read from the cache | last prompt | read | written | uncached | input tokens | input cost |',
);
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
report('this one (tools, system, anchor, end)', now);
report('before (tools and system only)', before);
report('no cache at all', [uncached]);
const saving = 1 - inputUsd(total(now)) / inputUsd(total(before));
console.log(
  `\nInput cost ${pct(saving)} lower than before; goal: 90% of the input from the cache (${pct(all.hitRatio)}).`,
);
session.forEach((request, index) => {
  if (!summarising(request)) return;
  const [mine, old] = [now[index], before[index]].map((usage) =>
    pct(total(usage === undefined ? [] : [usage]).hitRatio),
  );
  console.log(
    `The compaction's summary request (call ${index + 1}) read ${mine} of its input from the cache (before: ${old}).`,
  );
});

// The readers' first calls: what the second and third read of what they share with the first.
const readers = siblings.filter(as('reader')).slice(0, 3);
const firstCalls = (shape: (body: Json) => Json) => {
  const cache = new AnthropicCacheSim();
  siblings
    .slice(0, siblings.indexOf(readers[0] as RecordedRequest))
    .forEach((r, i) => cache.send(shape(r.body as Json), i));
  return readers.map((r, i) => cache.send(shape(r.body as Json), 1_000 + i));
};
for (const [name, shape] of [
  ['this one', (b: Json) => b],
  ['before', beforeThePlanner],
] as const) {
  const shares = firstCalls(shape).map((usage) => pct(total([usage]).hitRatio));
  console.log(
    `Three readers at once, ${name}: first calls read ${shares.join(', ')} of their input from the cache.`,
  );
}
