/**
 * Streaming benchmark (issue 3): how fast and how promptly an answer streams from a model provider
 * through santra-server and the protocol to a client.
 *   npm run build && node scripts/bench-stream.ts [--tokens 100000] [--runs 3]
 * 1. Throughput: an unpaced fake provider, the built server, and this script as the protocol
 *    client; tokens/s, text phases received, the server's CPU time. The text is checked.
 * 2. Added delay per delta at 200 tokens/s, p50/p99/max, for coalesceMs 8 (the default) and 0:
 *    a marker provider in this process stamps each delta's write, the client its arrival.
 * 3. `santra -p` end to end on a 190,000-character answer beside `curl -sN` reading the same stream.
 * Goals: ≥ 20,000 tokens/s; p99 added delay < 20 ms; `santra -p` within 4x of curl and < 150 MB peak
 * RSS. They are printed, never enforced. Results go in docs/performance.md. A benchmark, not a test:
 * a busy machine moves the numbers. `--cpu-prof DIR` profiles the server in the throughput runs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generatedToken } from '../conformance-tests/src/fake-providers/turn-plan.ts';
import { newestProfile, summarizeProfile } from './bench/cpu-profile.ts';
import { answerChunks, CHUNK_CHARS, startFakeProcess, WARM_UP } from './bench/fake-provider.ts';
import { marker, MARKER_PATTERN, startMarkerProvider } from './bench/marker-provider.ts';
import { hasGnuTime, measureProcess, type ProcessRun } from './bench/measure-process.ts';
import { sdkFloorCommand } from './bench/sdk-floor.ts';
import { cpuSeconds, currentStep, installGuards, killAll, setStep } from './bench/processes.ts';
import { BenchClient, type Json, SERVER_BIN, wallClock } from './bench/protocol-client.ts';
import { positiveIntegers } from './bench/options.ts';

const USAGE =
  'Usage: node scripts/bench-stream.ts [--tokens 100000] [--runs 3] [--latency-tokens 2000] [--chars 190000] [--timeout 120] [--cpu-prof DIR]';
const { values } = parseArgs({
  options: {
    tokens: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '3' },
    'latency-tokens': { type: 'string', default: '2000' },
    chars: { type: 'string', default: '190000' },
    timeout: { type: 'string', default: '120' },
    'cpu-prof': { type: 'string' },
  },
});
const count = positiveIntegers<keyof typeof values>('bench-stream', USAGE, values);
const tokens = count('tokens');
const runs = count('runs');
const latencyTokens = count('latency-tokens');
const chars = count('chars');
const timeout = count('timeout');
const profileDir = values['cpu-prof'] === undefined ? undefined : resolvePath(values['cpu-prof']);
if (profileDir !== undefined) mkdirSync(profileDir, { recursive: true });
const LATENCY_RATE = 200;

const SANTRA_BIN = fileURLToPath(new URL('../dist/santra.js', import.meta.url));
for (const bin of [SERVER_BIN, SANTRA_BIN]) {
  if (!existsSync(bin)) {
    console.error(`bench-stream: ${bin} is missing; run npm run build first`);
    process.exit(1);
  }
}
installGuards(timeout);

const root = mkdtempSync(join(tmpdir(), 'santra-bench-stream-'));
const workspace = join(root, 'workspace');
mkdirSync(workspace);

/** A fresh HOME (also SANTRA_HOME) in the temp dir, with `stream.coalesceMs` set when given. */
function home(name: string, coalesceMs?: number): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  if (coalesceMs !== undefined)
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ stream: { coalesceMs } }));
  return dir;
}

/** The whole environment of a child: nothing inherited but PATH, so no real key or home leaks in. */
function childEnv(homeDir: string, baseUrl: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: homeDir,
    SANTRA_HOME: homeDir,
    SANTRA_MEMORY_AUTO_EXTRACT: '0',
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: baseUrl,
    // A model whose maximum output can hold the 888,895-character answer: Santra stops a response
    // past the model's maximum (providers/output-bound.ts), and gpt-4o's 16k tokens are 327K characters.
    SANTRA_MODEL: 'openai/gpt-5',
  };
}

const median = (samples: number[]): number => {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
/** Nearest-rank percentile. */
const percentile = (sorted: number[], p: number): number =>
  sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as number;
const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const mb = (bytes: number) => `${fmt(bytes / 1e6, 1)} MB`;
const verdict = (met: boolean) => (met ? 'met' : '**missed**');

/** Starts scripts/bench/fake-provider.ts in its own process; resolves with its base URL. */
const startFake = (args: string[]) => startFakeProcess(args, { PATH: process.env.PATH, HOME: home('fake') });

async function withClient<T>(
  homeDir: string,
  baseUrl: string,
  use: (client: BenchClient) => Promise<T>,
  nodeArgs?: string[],
): Promise<T> {
  const client = new BenchClient({ env: childEnv(homeDir, baseUrl), cwd: workspace, nodeArgs });
  try {
    await client.initialize(workspace);
    // The first prompt loads the provider SDK; warm it up so the run measures streaming only.
    await client.request('prompt', { text: WARM_UP });
    const result = await use(client);
    await client.close();
    return result;
  } finally {
    client.child.kill('SIGKILL');
  }
}

function checkResult(result: Json, text: string, expected: string, what: string): void {
  if (result.status !== 'completed') throw new Error(`${what}: the run ended ${String(result.status)}`);
  for (const [name, actual] of [
    ['the streamed text', text],
    ['the result output', result.output],
  ] as const) {
    if (actual !== expected) {
      const got = typeof actual === 'string' ? `${actual.length} chars` : typeof actual;
      throw new Error(
        `${what}: ${name} differs from what the provider sent (${got}, expected ${expected.length})`,
      );
    }
  }
}

interface ThroughputRun {
  seconds: number;
  textPhases: number;
  serverCpu: number;
}

async function throughputRun(url: string, expected: string): Promise<ThroughputRun> {
  const nodeArgs = profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDir];
  return withClient(
    home('throughput'),
    url,
    async (client) => {
      let text = '';
      let textPhases = 0;
      client.onPhase = (phase) => {
        if (phase.type === 'text') {
          text += phase.text as string;
          textPhases++;
        }
      };
      const cpuBefore = cpuSeconds(client.pid);
      const start = wallClock();
      const { message, at } = await client.request('prompt', { text: 'write' });
      const serverCpu = cpuSeconds(client.pid) - cpuBefore;
      checkResult(message.result as Json, text, expected, 'throughput');
      return { seconds: (at - start) / 1000, textPhases, serverCpu };
    },
    nodeArgs,
  );
}

interface LatencyRun {
  delays: number[];
  textPhases: number;
}

async function latencyRun(coalesceMs: number): Promise<LatencyRun> {
  const provider = await startMarkerProvider({ tokens: latencyTokens, tokensPerSecond: LATENCY_RATE });
  try {
    return await withClient(home(`latency-${coalesceMs}`, coalesceMs), provider.url, async (client) => {
      const arrivedAt = new Map<number, number>();
      let text = '';
      let textPhases = 0;
      client.onPhase = (phase, at) => {
        if (phase.type !== 'text') return;
        text += phase.text as string;
        textPhases++;
        for (const match of (phase.text as string).matchAll(MARKER_PATTERN)) {
          const index = Number(match[1]);
          if (arrivedAt.has(index)) throw new Error(`marker ${index} arrived twice`);
          arrivedAt.set(index, at);
        }
      };
      const { message } = await client.request('prompt', { text: 'write' });
      const expected = Array.from({ length: latencyTokens }, (_, i) => marker(i)).join('');
      checkResult(message.result as Json, text, expected, `latency (coalesceMs ${coalesceMs})`);
      const delays = provider.writtenAt.map((written, i) => (arrivedAt.get(i) as number) - written);
      return { delays: delays.sort((a, b) => a - b), textPhases };
    });
  } finally {
    await provider.close();
  }
}

const hasCurl = spawnSync('curl', ['--version'], { stdio: 'ignore' }).error === undefined;

const measure = (command: string[], env: NodeJS.ProcessEnv, stdoutPath = '/dev/null') =>
  measureProcess(command, { env, cwd: workspace, stdoutPath, scratch: root });

function santraPrint(url: string, prompt: string, stdoutPath?: string): Promise<ProcessRun> {
  return measure([process.execPath, SANTRA_BIN, '-p', prompt], childEnv(home('print'), url), stdoutPath);
}

/** Node and the openai SDK alone reading the stream: what parsing it in JavaScript costs. */
function sdkFloor(url: string, prompt: string): Promise<ProcessRun> {
  return measure(sdkFloorCommand(url, prompt), { PATH: process.env.PATH, HOME: home('sdk') });
}

const chatBody = (prompt: string) =>
  JSON.stringify({
    model: 'gpt-4o',
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: prompt }],
  });

/** The floor: the same stream read by curl (or by node:http in this process when curl is missing). */
async function curlFloor(url: string, prompt: string): Promise<ProcessRun> {
  const endpoint = `${url}/chat/completions`;
  if (hasCurl) {
    const curl = ['curl', '-sSN', '--fail', '-X', 'POST', '-H', 'content-type: application/json'];
    const env = { PATH: process.env.PATH, HOME: home('curl') };
    return measure([...curl, '--data-binary', chatBody(prompt), '-o', '/dev/null', endpoint], env);
  }
  const start = wallClock();
  await new Promise<void>((resolve, reject) => {
    const req = request(endpoint, { method: 'POST' }, (res) => {
      res.on('data', () => {});
      res.on('end', resolve);
    });
    req.on('error', reject);
    req.setHeader('content-type', 'application/json');
    req.end(chatBody(prompt));
  });
  const wallSeconds = (wallClock() - start) / 1000;
  return {
    wallSeconds,
    cpuSeconds: undefined,
    maxRss: undefined,
    sampled: { client: undefined, server: undefined },
  };
}

async function measureThroughput(): Promise<string[]> {
  setStep(`starting the fake provider (--generate ${tokens})`);
  const fake = await startFake(['--generate', String(tokens)]);
  try {
    let expected = '';
    for (let n = 1; n <= tokens; n++) expected += generatedToken(n);
    const samples: ThroughputRun[] = [];
    for (let run = 1; run <= runs; run++) {
      setStep(`streaming ${fmt(tokens)} tokens (throughput run ${run} of ${runs})`);
      samples.push(await throughputRun(fake.url, expected));
    }
    const rate = median(samples.map((s) => tokens / s.seconds));
    const all = (pick: (s: ThroughputRun) => string) => samples.map(pick).join(', ');
    const lines = [
      `### Throughput: ${fmt(tokens)} tokens, unpaced`,
      '',
      `Median of ${runs} runs; each a fresh server, after a warm-up prompt; text verified (${fmt(expected.length)} characters).`,
      '',
      '| measurement | median | runs | goal |',
      '| --- | --- | --- | --- |',
      `| tokens/s (prompt sent → response read) | ${fmt(rate)} | ${all((s) => fmt(tokens / s.seconds))} | ≥ 20,000: ${verdict(rate >= 20_000)} |`,
      `| wall time | ${fmt(median(samples.map((s) => s.seconds)), 3)} s | ${all((s) => fmt(s.seconds, 3))} | — |`,
      `| text phases received | ${fmt(median(samples.map((s) => s.textPhases)))} | ${all((s) => fmt(s.textPhases))} | — |`,
      `| server CPU (user + sys) | ${fmt(median(samples.map((s) => s.serverCpu)), 2)} s | ${all((s) => fmt(s.serverCpu, 2))} | — |`,
      '',
    ];
    if (profileDir !== undefined) {
      const file = newestProfile(profileDir);
      if (file !== undefined) lines.push(...summarizeProfile(file, 15, 'santra-server'), '');
    }
    return lines;
  } finally {
    fake.stop();
  }
}

async function measureLatency(): Promise<string[]> {
  const lines = [
    `### Added delay per delta: ${fmt(latencyTokens)} deltas at ${LATENCY_RATE} tokens/s`,
    '',
    'From the provider writing a delta to the client reading the phase that carries it (one run each).',
    '',
    '| coalesceMs | p50 | p99 | max | text phases | goal: p99 < 20 ms |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const coalesceMs of [8, 0]) {
    setStep(`streaming ${latencyTokens} paced deltas with coalesceMs ${coalesceMs}`);
    const { delays, textPhases } = await latencyRun(coalesceMs);
    const p99 = percentile(delays, 99);
    const label = coalesceMs === 8 ? '8 (default)' : `${coalesceMs} (reference)`;
    lines.push(
      `| ${label} | ${fmt(percentile(delays, 50), 1)} ms | ${fmt(p99, 1)} ms | ${fmt(delays.at(-1) as number, 1)} ms | ${fmt(textPhases)} | ${coalesceMs === 8 ? verdict(p99 < 20) : '—'} |`,
    );
  }
  return [...lines, ''];
}

/** Median of one figure over runs; undefined when no run had it. */
function medianOf(
  samples: ProcessRun[],
  figure: (run: ProcessRun) => number | undefined,
): number | undefined {
  const values = samples.map(figure).filter((value): value is number => value !== undefined);
  return values.length === 0 ? undefined : median(values);
}

async function measurePrint(): Promise<string[]> {
  setStep(`starting the fake provider (--chars ${chars})`);
  const fake = await startFake(['--chars', String(chars)]);
  try {
    setStep('checking the santra -p output');
    const outFile = join(root, 'print-output.txt');
    await santraPrint(fake.url, 'write', outFile);
    const expected = `${answerChunks(chars).join('')}\n`;
    if (readFileSync(outFile, 'utf8') !== expected) {
      throw new Error(
        `santra -p printed something else than the ${fmt(chars)}-character answer (see ${outFile})`,
      );
    }
    await sdkFloor(fake.url, WARM_UP); // load the SDK's many modules into the file cache once
    const entry = (name: string, run: (prompt: string) => Promise<ProcessRun>) => ({
      name,
      run,
      long: [] as ProcessRun[],
      short: [] as ProcessRun[],
    });
    const santra = entry('`santra -p`', (prompt) => santraPrint(fake.url, prompt));
    const sdk = entry('Node + `openai` SDK, no Santra', (prompt) => sdkFloor(fake.url, prompt));
    const floor = entry(
      hasCurl ? '`curl -sN` (the floor)' : 'node:http, no curl here (the floor)',
      (prompt) => curlFloor(fake.url, prompt),
    );
    const commands = [santra, sdk, floor];
    for (let run = 1; run <= runs; run++) {
      for (const command of commands) {
        setStep(`${command.name}, run ${run} of ${runs}`);
        command.long.push(await command.run('write'));
        command.short.push(await command.run(WARM_UP));
      }
    }
    const seconds = (n: number | undefined) => (n === undefined ? 'n/a' : `${fmt(n, 3)} s`);
    const bytes = (n: number | undefined) => (n === undefined ? 'n/a' : mb(n));
    const wall = (samples: ProcessRun[]) => medianOf(samples, (r) => r.wallSeconds) as number;
    const rows = commands.flatMap((command) =>
      [
        { answer: `${fmt(chars)} characters`, samples: command.long },
        { answer: '2 characters', samples: command.short },
      ].map(({ answer, samples }) => {
        const of = (figure: (run: ProcessRun) => number | undefined) => medianOf(samples, figure);
        return (
          `| ${command.name} | ${answer} | ${seconds(wall(samples))} | ${seconds(of((r) => r.cpuSeconds))} | ` +
          `${bytes(of((r) => r.maxRss))} | ${bytes(of((r) => r.sampled.client))} | ${bytes(of((r) => r.sampled.server))} |`
        );
      }),
    );
    const ratio = wall(santra.long) / wall(floor.long);
    const peakOf = (r: ProcessRun) => Math.max(r.maxRss ?? 0, r.sampled.client ?? 0, r.sampled.server ?? 0);
    const peak = medianOf(santra.long, peakOf) as number;
    const streaming = commands.map((c) => `${c.name} ${seconds(wall(c.long) - wall(c.short))}`);
    return [
      `### \`santra -p\` on a ${fmt(chars)}-character answer (${fmt(Math.ceil(chars / CHUNK_CHARS))} deltas of ${CHUNK_CHARS} characters)`,
      '',
      `Median of ${runs} runs, stdout to /dev/null (the santra output was verified once). Each command also ran on a ` +
        '2-character answer, which shows its fixed cost. Wall time by this script, spawn to exit. ' +
        (hasGnuTime
          ? 'CPU and `%M` from GNU time; both cover the server, which santra waits for (`%M` is the largest single process). '
          : 'No /usr/bin/time here: no CPU figures, RSS from sampling only. ') +
        'VmHWM sampled from /proc every 5 ms. 1 MB = 10^6 bytes.',
      '',
      '| command | answer | wall | user + sys CPU | peak RSS (`%M`) | VmHWM, not the server | VmHWM santra-server |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      ...rows,
      '',
      `Streaming the long answer (wall, long minus short): ${streaming.join('; ')}.`,
      '',
      '| goal | figure | verdict |',
      '| --- | --- | --- |',
      `| \`santra -p\` within 4x of the floor | ${fmt(ratio, 1)}x | ${verdict(ratio <= 4)} |`,
      `| \`santra -p\` peak RSS < 150 MB | ${mb(peak)} | ${verdict(peak < 150e6)} |`,
      '',
    ];
  } finally {
    fake.stop();
  }
}

try {
  const started = wallClock();
  const sections = [
    ...(await measureThroughput()),
    ...(profileDir === undefined ? [...(await measureLatency()), ...(await measurePrint())] : []),
  ];
  const header = `Node ${process.version}, ${process.platform} ${process.arch}, ${cpus().length} CPUs, ${new Date().toISOString().slice(0, 10)}; took ${fmt((wallClock() - started) / 1000)} s`;
  process.stdout.write([header, '', ...sections].join('\n'));
  rmSync(root, { recursive: true, force: true }); // kept after a failure, for its files
} catch (error) {
  killAll();
  console.error(
    `bench-stream: failed while ${currentStep()}: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exitCode = 1;
}
