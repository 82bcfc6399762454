/**
 * Terminal UI benchmark (issue 12): the built `santra` with no arguments, in a real terminal (tmux,
 * 120x40), against a fake OpenAI provider in its own process, with every byte santra writes to the
 * terminal logged (scripts/bench/terminal.ts).
 *   npm run build && node scripts/bench-tui.ts [--runs 7] [--chars 190000] [--turns 200] [--santra PATH] [--startup-only]
 * 1. Start-up: from santra's exec to the first complete frame (the composer and the chrome bar in
 *    the bytes written) and to "ready" (the chrome bar names the model: the server answered
 *    `initialize`). Median of --runs after one warm-up run (V8's compile cache filled).
 * 2. A --chars answer (5-character deltas, unpaced): time from Enter until the end of the answer
 *    and the `done` line are written, CPU of santra and santra-server meanwhile, their peak RSS,
 *    bytes written to the terminal, full-screen clears in them, and whether every delta is in the
 *    terminal's scrollback afterwards (capture-pane, exactly once each).
 * 3. CPU while idle (5 s), and while answers stream at 200 tokens/s (5 s of the first answer of a
 *    fresh santra, and of its second).
 * 4. Per frame, while an answer streams at 200 tokens/s with 50, 500 and 5,000 finished entries in
 *    the transcript: the time from a change of the UI's state to its frame written, and the bytes
 *    of each frame (santra's own meter, SANTRA_FRAME_STATS: tui/src/ui/frames.ts).
 * 5. Keypress-to-echo: a key sent with tmux send-keys until santra writes it back, after start and
 *    again after --turns short turns (with the tmux round trip alone, for comparison); santra's
 *    RSS along those turns.
 * `--only startup,long,cpu,frames,turns` runs some of these; `--profile` adds a CPU profile of
 * santra streaming at 200 tokens/s (node --cpu-prof), summarised by source area and function.
 * Goals (issue 12) are printed beside the figures, never enforced: a benchmark, not a test.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { newestProfile, summarizeProfile } from './bench/cpu-profile.ts';
import { answerChunks, FILL_SIZES, startFakeProcess, WARM_UP } from './bench/fake-provider.ts';
import { cpuSeconds, currentStep, installGuards, killAll, peakRssBytes, setStep } from './bench/processes.ts';
import { wallClock } from './bench/protocol-client.ts';
import { countClears, mainThreadCpuMs, type Pane, TmuxServer } from './bench/terminal.ts';
import { positiveIntegers } from './bench/options.ts';

const USAGE =
  'Usage: node scripts/bench-tui.ts [--runs 7] [--chars 190000] [--turns 200] [--timeout 300] [--santra dist/santra.js] [--only startup,long,cpu,frames,turns] [--profile] [--startup-only]';
const SECTIONS = ['startup', 'long', 'cpu', 'frames', 'turns'] as const;
type Section = (typeof SECTIONS)[number];
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '7' },
    chars: { type: 'string', default: '190000' },
    turns: { type: 'string', default: '200' },
    timeout: { type: 'string', default: '300' },
    santra: { type: 'string', multiple: true },
    only: { type: 'string', default: SECTIONS.join(',') },
    profile: { type: 'boolean', default: false },
    'startup-only': { type: 'boolean', default: false },
  },
});
const count = positiveIntegers<'runs' | 'chars' | 'turns' | 'timeout'>('bench-tui', USAGE, values);
const runs = count('runs');
const chars = count('chars');
const turns = count('turns');
installGuards(count('timeout'));
const only = new Set(values['startup-only'] ? ['startup'] : values.only.split(','));
for (const name of only) {
  if (!(SECTIONS as readonly string[]).includes(name)) {
    console.error(`bench-tui: --only takes ${SECTIONS.join(', ')}; got '${name}'\n${USAGE}`);
    process.exit(2);
  }
}
const wanted = (section: Section) => only.has(section);

/**
 * `--santra` measures another build (node scripts/build.js --outdir DIR). Given more than once, the
 * start-up and CPU runs alternate between the builds (a before/after comparison on a machine whose
 * load drifts); the other measurements use the first.
 */
const SANTRA_BINS = (values.santra ?? [fileURLToPath(new URL('../dist/santra.js', import.meta.url))]).map(
  (path) => resolve(path),
);
const SANTRA_BIN = SANTRA_BINS[0] as string;
for (const bin of SANTRA_BINS) {
  if (!existsSync(bin)) {
    console.error(`bench-tui: ${bin} is missing; run npm run build first`);
    process.exit(1);
  }
}

const root = mkdtempSync(join(tmpdir(), 'santra-bench-tui-'));
const workspace = join(root, 'workspace');
mkdirSync(workspace);
const terminal = new TmuxServer(root);
process.once('exit', () => {
  terminal.close();
  rmSync(root, { recursive: true, force: true });
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
};
const ms = (value: number) => `${Math.round(value)} ms`;
const mb = (bytes: number | undefined) => (bytes === undefined ? '?' : `${(bytes / 1e6).toFixed(0)} MB`);
const fmt = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
/** The median, min and max of `values`, each written with `format`, for the rows of a table. */
const medianMinMax = (values: number[], format: (value: number) => string): [string, string, string] => [
  format(median(values)),
  format(Math.min(...values)),
  format(Math.max(...values)),
];

/** The whole environment of santra: nothing inherited but PATH. */
function santraEnv(name: string, url: string): NodeJS.ProcessEnv {
  const home = join(root, name);
  mkdirSync(home, { recursive: true });
  return {
    PATH: process.env.PATH,
    HOME: home,
    SANTRA_HOME: home,
    SANTRA_MEMORY_AUTO_EXTRACT: '0',
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: url,
    SANTRA_MODEL: 'openai/gpt-5',
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
  };
}

const startFake = (args: string[]) =>
  startFakeProcess(args, { PATH: process.env.PATH, HOME: join(root, 'fake') });

/** The composer's placeholder (its first letter is under the cursor, in inverse video). */
const FIRST_FRAME = 'sk santra, or /help';
/** The chrome bar once the server answered `initialize`. */
const READY = 'openai/gpt-5 · new session';

/** A santra in a new pane; resolves at the first frame and at ready, in ms after its exec. */
async function launch(
  name: string,
  url: string,
  bin = SANTRA_BIN,
  extra: { env?: NodeJS.ProcessEnv; nodeArgs?: string[] } = {},
): Promise<{ pane: Pane; firstFrame: number; firstFrameCpu: number; ready: number }> {
  const pane = terminal.open([process.execPath, ...(extra.nodeArgs ?? []), bin], {
    env: { ...santraEnv(name, url), ...extra.env },
    cwd: workspace,
  });
  const start = pane.go();
  const firstFrame = (await pane.waitFor(FIRST_FRAME, { everyMs: 1 })) - start;
  const firstFrameCpu = mainThreadCpuMs(pane.santraPid);
  const ready = (await pane.waitFor(READY, { everyMs: 1 })) - start;
  return { pane, firstFrame, firstFrameCpu, ready };
}

/** Types `text` (waiting for its echo), presses Enter; returns the byte offset and moment of the Enter. */
async function say(pane: Pane, text: string): Promise<{ from: number; at: number }> {
  const before = pane.read();
  pane.keys([text], true);
  await pane.waitFor(text, { from: before });
  const from = pane.read();
  const at = wallClock();
  pane.keys(['Enter']);
  return { from, at };
}

/** CPU seconds of santra and its server over `seconds`. */
async function cpuOver(pane: Pane, seconds: number): Promise<{ santra: number; server: number }> {
  const server = pane.serverPid() as number;
  const before = { santra: cpuSeconds(pane.santraPid), server: cpuSeconds(server) };
  await pause(seconds * 1000);
  return { santra: cpuSeconds(pane.santraPid) - before.santra, server: cpuSeconds(server) - before.server };
}

const rssBytes = (pid: number) => {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match === null ? 0 : Number(match[1]) * 1024;
};

/** Keypress-to-echo latencies (ms) of `n` keys, and of the bare tmux round trip. */
async function keyLatency(pane: Pane, n: number): Promise<{ echo: number[]; tmux: number[] }> {
  const echo: number[] = [];
  const tmux: number[] = [];
  for (let i = 0; i < n; i++) {
    const typed = 'q'; // in no other text on the screen
    const from = pane.read();
    const t0 = wallClock();
    pane.keys([typed], true);
    const sent = wallClock();
    await pane.waitFor(typed, { from, everyMs: 1 });
    echo.push(wallClock() - t0);
    tmux.push(sent - t0);
    await pause(50);
  }
  for (let i = 0; i < n; i++) pane.keys(['BSpace']);
  await pause(300);
  return { echo, tmux };
}

/** Per-frame records of santra's meter (tui/src/ui/frames.ts) from byte `from` of `file`. */
interface FrameRecord {
  ms: number;
  cpuMs: number;
  bytes: number;
  entries: number;
}
function readFrames(file: string, from: number): { frames: FrameRecord[]; outside: number } {
  const frames: FrameRecord[] = [];
  let outside = 0;
  if (!existsSync(file)) return { frames, outside };
  for (const line of readFileSync(file).subarray(from).toString('utf8').split('\n')) {
    if (line === '') continue;
    const record = JSON.parse(line) as Partial<FrameRecord> & { outside?: number };
    if (record.outside !== undefined) outside += record.outside;
    else frames.push(record as FrameRecord);
  }
  return { frames, outside };
}
const sizeOf = (file: string) => (existsSync(file) ? statSync(file).size : 0);

/**
 * Measures each build `runs` times, alternating between them run by run (a before/after comparison on
 * a machine whose load drifts); returns the samples of each build, in the order of SANTRA_BINS.
 */
async function alternate<T>(
  runs: number,
  measure: (bin: string, index: number, run: number) => Promise<T>,
): Promise<T[][]> {
  const samples = SANTRA_BINS.map((): T[] => []);
  for (let run = 0; run < runs; run++) {
    for (const [index, bin] of SANTRA_BINS.entries()) samples[index]?.push(await measure(bin, index, run));
  }
  return samples;
}

/** The build a row measures, after its label: its path when there are several builds, else nothing. */
const whichBuild = (bin: string) => (SANTRA_BINS.length === 1 ? '' : ` (${bin})`);

const lines: string[] = [];
const machine = `Node ${process.version}, ${process.platform} ${process.arch}, ${cpus().length} cores, ${new Date().toISOString().slice(0, 10)}`;

/** 1. Start-up, alternating between the builds. */
async function startupSection(url: string): Promise<void> {
  const measured = await alternate(runs + 1, async (bin, index, run) => {
    setStep(`start-up run ${run} of ${bin}`);
    const { pane, firstFrame, ready, firstFrameCpu } = await launch(`startup-${run}-${index}`, url, bin);
    await pane.quit();
    return { firstFrame, ready, firstFrameCpu };
  });
  // Run 0 of each build is the warm-up: it fills V8's compile cache, and is left out.
  const taken = measured.map((samples) => samples.slice(1));
  const row = (what: string, samples: number[]) => `| ${what} | ${medianMinMax(samples, ms).join(' | ')} |`;
  lines.push(
    `### Start-up`,
    '',
    `Median of ${runs} runs after one warm-up, from santra's exec (the pane's shell waits on a FIFO) to the bytes of the frame in the terminal's output. ` +
      "The main thread's CPU time (schedstat) is the work on the way to the first frame, less sensitive to the machine's load than the wall clock (it overshoots by what santra did before the benchmark saw the frame).",
    '',
    '| | median | min | max |',
    '| --- | --- | --- | --- |',
  );
  for (const [index, bin] of SANTRA_BINS.entries()) {
    const samples = taken[index] as { firstFrame: number; ready: number; firstFrameCpu: number }[];
    const which = whichBuild(bin);
    lines.push(
      row(
        `first complete frame (composer and chrome bar)${which}`,
        samples.map((sample) => sample.firstFrame),
      ),
      row(
        `ready (the chrome bar names the model: \`initialize\` answered)${which}`,
        samples.map((sample) => sample.ready),
      ),
      row(
        `CPU of santra's main thread until the first frame was seen${which}`,
        samples.map((sample) => sample.firstFrameCpu),
      ),
    );
  }
  lines.push('');
  console.error(lines.join('\n'));
}

/** 2. The long answer, then idle CPU, in one santra. */
async function longSection(url: string): Promise<void> {
  setStep(`the ${chars}-character answer`);
  const big1 = await launch('long', url);
  const pane = big1.pane;
  const server = pane.serverPid() as number;
  await pause(500);
  const cpu0 = { santra: cpuSeconds(pane.santraPid), server: cpuSeconds(server) };
  const { from, at } = await say(pane, 'write');
  const lastChunk = (answerChunks(chars).at(-1) as string).trim();
  await pane.waitFor(lastChunk, { from, everyMs: 5, timeoutMs: 120_000 });
  const done = await pane.waitFor('── done', { from, everyMs: 5, timeoutMs: 120_000 });
  const streamSeconds = (done - at) / 1000;
  const cpu1 = { santra: cpuSeconds(pane.santraPid), server: cpuSeconds(server) };
  await pause(500);
  const written = pane.bytes(from);
  const clears = countClears(written);
  const peak = { santra: peakRssBytes(pane.santraPid), server: peakRssBytes(server) };
  const history = pane.scrollback();
  const seen = new Map<number, number>();
  for (const match of history.matchAll(/\b0[0-9a-z]{3}\b/g)) {
    const id = Number.parseInt(match[0], 36);
    seen.set(id, (seen.get(id) ?? 0) + 1);
  }
  const deltas = answerChunks(chars).length;
  let missing = 0;
  let twice = 0;
  for (let id = 0; id < deltas; id++) {
    const n = seen.get(id) ?? 0;
    if (n === 0) missing++;
    if (n > 1) twice++;
  }
  const cpuSantra = cpu1.santra - cpu0.santra;
  const cpuServer = cpu1.server - cpu0.server;
  const start = lines.length;
  lines.push(
    `### A ${fmt(chars)}-character answer (${fmt(deltas)} deltas, unpaced)`,
    '',
    '| | measured | goal | |',
    '| --- | --- | --- | --- |',
    `| Enter to the whole answer and \`done\` written | ${fmt(streamSeconds, 2)} s | < 1.2 s | ${verdict(streamSeconds < 1.2)} |`,
    `| CPU: santra + santra-server | ${fmt(cpuSantra, 2)} + ${fmt(cpuServer, 2)} s | < 1 s | ${verdict(cpuSantra + cpuServer < 1)} |`,
    `| peak RSS (VmHWM): santra, santra-server | ${mb(peak.santra)}, ${mb(peak.server)} | < 200 MB | ${verdict((peak.santra ?? 0) < 200e6 && (peak.server ?? 0) < 200e6)} |`,
    `| bytes written to the terminal | ${fmt(written.length)} (${fmt(written.length / chars, 1)} per character) | | |`,
    `| full-screen clears (\`ESC[2J\`, \`ESC[3J\`, \`ESC c\`) | ${clears} | 0 | ${verdict(clears === 0)} |`,
    `| deltas in the scrollback afterwards | ${fmt(deltas - missing)} of ${fmt(deltas)}, ${fmt(twice)} more than once | all, once | ${verdict(missing === 0 && twice === 0)} |`,
    '',
  );
  console.error(lines.slice(start).join('\n'));

  setStep('idle CPU');
  await pause(1000);
  const idle = await cpuOver(pane, 5);
  await pane.quit();
  const share = (seconds: number) => `${fmt((seconds / 5) * 100, 1)}%`;
  lines.push(
    '### CPU while idle (after the long answer; 5 s, % of one core)',
    '',
    `santra ${share(idle.santra)}, santra-server ${share(idle.server)}: goal 0, ${verdict(idle.santra + idle.server < 0.02)} (met below 0.4%: one 10 ms clock tick of /proc in 5 s, for both).`,
    '',
  );
}

interface PacedCpu {
  santra: number;
  server: number;
}

/** CPU seconds of santra and santra-server over 5 s of an answer at 200 tokens/s, from its second second. */
async function answerCpu(pane: Pane): Promise<PacedCpu & { ended: boolean; from: number }> {
  const start = await say(pane, 'write');
  await pane.waitFor('tok200 ', { from: start.from, everyMs: 20 }); // past the first second
  const streaming = await cpuOver(pane, 5);
  return { ...streaming, ended: pane.bytes(start.from).includes('── done'), from: start.from };
}

/**
 * A fresh santra of `bin`: its CPU in the first answer at 200 tokens/s (V8 still compiling the
 * code that draws the frames, on its worker threads) and in a second one, once that is done.
 */
async function pacedCpu(url: string, bin: string, name: string) {
  const { pane } = await launch(name, url, bin);
  await pause(500);
  const first = await answerCpu(pane);
  await pane.waitFor('── done', { from: first.from, everyMs: 50, timeoutMs: 120_000 });
  await pause(500);
  const second = await answerCpu(pane);
  await pane.quit();
  return { first, second, ended: first.ended || second.ended };
}

/**
 * 3. CPU while an answer streams at 200 tokens/s: --runs runs of each build, alternating (a
 * before/after comparison on a machine whose load drifts); with `--profile`, where santra's time goes.
 */
async function cpuSection(url: string): Promise<void> {
  const samples = await alternate(runs, (bin, index, run) => {
    setStep(`CPU at 200 tokens/s, run ${run} of ${bin}`);
    return pacedCpu(url, bin, `paced-${run}-${index}`);
  });
  const ended = samples.flat().some((sample) => sample.ended);
  const share = (values: number[]) => {
    const [middle, least, most] = medianMinMax(
      values.map((seconds) => (seconds / 5) * 100),
      (percent) => fmt(percent, 1),
    );
    return `${middle}% (${least}–${most})`;
  };
  const start = lines.length;
  lines.push(
    `### CPU at 200 tokens/s (5 s from the answer's second second, % of one core; median of ${runs} runs, min–max)`,
    '',
    "Each run starts santra, and measures its first answer and then a second one (by then V8 has compiled the code that draws the frames; in the first, part of santra's CPU is that compiling, on V8's worker threads).",
    '',
    '| | answer | santra | santra-server | goal | |',
    '| --- | --- | --- | --- | --- | --- |',
  );
  for (const [index, bin] of SANTRA_BINS.entries()) {
    const which = whichBuild(bin);
    for (const answer of ['first', 'second'] as const) {
      const taken = (samples[index] as { first: PacedCpu; second: PacedCpu }[]).map(
        (sample) => sample[answer],
      );
      const santra = taken.map((sample) => sample.santra);
      lines.push(
        `| streaming at 200 tokens/s${which}${ended ? ' (a stream ended early!)' : ''} | ${answer} | ${share(santra)} | ${share(taken.map((sample) => sample.server))} | < 10% | ${verdict(median(santra) < 0.5)} |`,
      );
    }
  }
  lines.push('');
  console.error(lines.slice(start).join('\n'));
  if (!values.profile) return;
  setStep('a CPU profile at 200 tokens/s');
  const dir = join(root, 'profile');
  mkdirSync(dir);
  const { pane } = await launch('profiled', url, SANTRA_BIN, {
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
  });
  await pause(500);
  const sent = await say(pane, 'write');
  await pane.waitFor('── done', { from: sent.from, everyMs: 20, timeoutMs: 120_000 });
  await pane.quit();
  const file = newestProfile(dir);
  if (file === undefined) throw new Error('santra wrote no CPU profile');
  const profileStart = lines.length;
  lines.push(
    '#### Where santra’s CPU goes at 200 tokens/s',
    '',
    'A second santra with `node --cpu-prof`, from its start to its exit after the whole answer:',
    '',
    ...summarizeProfile(file, 12, 'santra'),
    '',
  );
  console.error(lines.slice(profileStart).join('\n'));
}

/** The transcript sizes at which frames are measured (issue 12). */
const FRAME_SIZES = [50, 500, 5000];

/** 4. Per-frame time and bytes while an answer streams, with the transcript grown to each size. */
async function frameSection(url: string): Promise<void> {
  const stats = join(root, 'frames.jsonl');
  const { pane } = await launch('frames', url, SANTRA_BIN, { env: { SANTRA_FRAME_STATS: stats } });
  await pause(500);
  const entriesNow = () => readFrames(stats, 0).frames.at(-1)?.entries ?? 0;
  const rows: string[] = [];
  const p95ms: number[] = [];
  let keys: { echo: number[]; tmux: number[] } | undefined;
  for (const size of FRAME_SIZES) {
    for (let have = entriesNow(); have < size; have = entriesNow()) {
      const chunk = FILL_SIZES.find((fill) => fill <= size - have) ?? FILL_SIZES.at(-1);
      setStep(`growing the transcript to ${size} entries (${have})`);
      const sent = await say(pane, `fill ${chunk}`);
      await pane.waitFor('── done', { from: sent.from, everyMs: 10, timeoutMs: 120_000 });
      await pause(100);
    }
    setStep(`frames at ${size} entries`);
    const at = sizeOf(stats);
    const before = entriesNow();
    const sent = await say(pane, 'write');
    await pane.waitFor('── done', { from: sent.from, everyMs: 10, timeoutMs: 120_000 });
    await pause(100);
    const { frames, outside } = readFrames(stats, at);
    const times = frames.map((frame) => frame.ms);
    const cpu = frames.map((frame) => frame.cpuMs);
    const bytes = frames.map((frame) => frame.bytes);
    const total = bytes.reduce((sum, n) => sum + n, 0);
    p95ms.push(percentile(cpu, 95));
    if (size === FRAME_SIZES.at(-1)) keys = await keyLatency(pane, 20);
    const spread = (values: number[]) =>
      `${fmt(median(values), 2)} / ${fmt(percentile(values, 95), 2)} / ${fmt(Math.max(...values), 2)} ms`;
    rows.push(
      `| ${fmt(before)} | ${frames.length} | ${spread(times)} | ${spread(cpu)} | ${fmt(median(bytes))} / ${fmt(percentile(bytes, 95))} / ${fmt(Math.max(...bytes))} B | ${fmt((100 * outside) / (outside + total), 1)}% | ${verdict(percentile(cpu, 95) < 5 && percentile(bytes, 95) < 4096)} |`,
    );
  }
  await pane.quit();
  const start = lines.length;
  lines.push(
    '### Per frame, streaming at 200 tokens/s (3 s of answer)',
    '',
    "santra's own meter (`SANTRA_FRAME_STATS`, tui/src/ui/frames.ts): a frame is a change of the UI's state, from the change to the frame written (React's render and commit, Ink's layout, output and write): its wall time, its main-thread CPU time (which the other processes on the machine do not inflate), and the bytes written for it. " +
      'The transcript was grown before each answer with answers of short paragraphs (an entry each). ' +
      '"Outside" is the share of the bytes written outside these frames (keys echoed as the prompt is typed). The goal is judged on the CPU time.',
    '',
    '| entries before the answer | frames | wall p50 / p95 / max | CPU p50 / p95 / max | bytes p50 / p95 / max | outside | goal p95 < 5 ms and < 4 KiB |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    `CPU p95 at ${fmt(FRAME_SIZES.at(-1) as number)} entries against ${fmt(FRAME_SIZES[0] as number)}: ${fmt((p95ms.at(-1) as number) / (p95ms[0] as number), 2)}x (goal: the same).`,
    '',
  );
  if (keys !== undefined) {
    lines.push(
      `Keypress to echo with ${fmt(entriesNow())} entries in the transcript (20 keys, \`send-keys\` included, as below): p50 ${ms(median(keys.echo))}, p95 ${ms(percentile(keys.echo, 95))}, max ${ms(Math.max(...keys.echo))}; goal p95 < 50 ms: ${verdict(percentile(keys.echo, 95) < 50)}.`,
      '',
    );
  }
  console.error(lines.slice(start).join('\n'));
}

/** 5. Keypresses, and RSS along many short turns. */
async function turnSection(url: string): Promise<void> {
  setStep('keypress latency');
  const { pane: chat } = await launch('turns', url);
  await pause(500);
  const fresh = await keyLatency(chat, 20);
  const rss: [number, number][] = [[0, rssBytes(chat.santraPid)]];
  const turnStart = wallClock();
  for (let turn = 1; turn <= turns; turn++) {
    setStep(`turn ${turn} of ${turns}`);
    const sent = await say(chat, WARM_UP);
    await chat.waitFor('── done', { from: sent.from, everyMs: 2 });
    if (turn % Math.max(1, Math.floor(turns / 4)) === 0 || turn === turns)
      rss.push([turn, rssBytes(chat.santraPid)]);
  }
  const perTurn = (wallClock() - turnStart) / turns;
  await pause(1000);
  const later = await keyLatency(chat, 20);
  const chatServer = chat.serverPid();
  const serverRss = chatServer === undefined ? undefined : rssBytes(chatServer);
  await chat.quit();
  const keyRow = (name: string, sample: { echo: number[]; tmux: number[] }) =>
    `| ${name} | ${ms(median(sample.echo))} | ${ms(percentile(sample.echo, 95))} | ${ms(Math.max(...sample.echo))} | ${ms(median(sample.tmux))} | ${verdict(percentile(sample.echo, 95) < 50)} |`;
  const start = lines.length;
  lines.push(
    '### Keypresses and many turns',
    '',
    'Keypress to echo: from `tmux send-keys` (a process spawn, included) until santra writes the key back; 20 keys each.',
    '',
    '| transcript | echo p50 | p95 | max | the `send-keys` call alone, p50 | goal p95 < 50 ms |',
    '| --- | --- | --- | --- | --- | --- |',
    keyRow('empty', fresh),
    keyRow(`after ${turns} turns (${turns * 3} entries: prompt, answer, status line)`, later),
    '',
    `${turns} turns of a two-character answer, ${ms(perTurn)} a turn (typing, answer, \`done\`). santra's RSS (VmRSS) after n turns: ` +
      rss.map(([n, bytes]) => `${n}: ${mb(bytes)}`).join(', ') +
      `; santra-server at the end: ${mb(serverRss)}. Goal: under 200 MB and flat.`,
    '',
  );
  console.error(lines.slice(start).join('\n'));
}

async function main(): Promise<void> {
  setStep('starting the fake providers');
  const big = await startFake(['--chars', String(chars)]);
  const paced = await startFake(['--generate', '2000', '--rate', '200']);
  const framed = await startFake(['--generate', '600', '--rate', '200', '--fill']);
  if (wanted('startup')) await startupSection(big.url);
  if (wanted('long')) await longSection(big.url);
  if (wanted('cpu')) await cpuSection(paced.url);
  if (wanted('frames')) await frameSection(framed.url);
  if (wanted('turns')) await turnSection(big.url);
  big.stop();
  paced.stop();
  framed.stop();
  console.log(
    [`## Terminal UI (issue 12)`, '', `${machine}. \`npm run bench:tui\`.`, '', ...lines].join('\n'),
  );
}

try {
  await main();
} catch (error) {
  killAll();
  console.error(`bench-tui: failed while ${currentStep()}:`, error);
  process.exitCode = 1;
} finally {
  killAll();
}
