/**
 * Sessions benchmark: what saving sessions costs, how fast they resume, how fast a recording
 * replays.
 *   npm run build && node scripts/bench-sessions.ts [--events 100000] [--messages 10000] [--runs 5]
 *     [--baseline <rev>] [--no-baseline] [--timeout 900]
 * 1. Saving: N phase-sized records appended through the Journal (one write(2) each, redacted, as
 *    the server saves them); µs per event.
 * 2. Resuming a 10,000-message session: a realistic file (runs of prompt, text, tool calls and
 *    their results, with their phases and model outputs) written through FileStorage; the time of
 *    `session/resume` through the built server (a fresh server each run), and of reading,
 *    parsing and folding the file in this process.
 * 3. Replay speed: a session recorded against a fake provider that paces its answers like a model
 *    (first byte after 400 ms, then 100 tokens/s; tool calls between turns), then executed again
 *    with `santra-server --replay`; the ratio of the two wall times.
 * 4. The largest session `session/resume` loads within 300 ms (sizes doubled, then bisected).
 * 5. `santra -p` on bench-stream's 190,000-character answer with sessions saved (this tree) beside
 *    the commit before sessions were saved (`--baseline`, built in a temp dir from `git archive`).
 * Goals: replay over 100x real time; resume of 10,000 messages under 300 ms. Printed, never
 * enforced. Results go in docs/performance.md. A benchmark, not a test.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type FakeTurn, startFakeProvider } from '../conformance-tests/src/fake-providers/index.ts';
import { Journal, parseJournal } from '../server/src/sessions/journal.ts';
import { FileStorage } from '../server/src/sessions/file-storage.ts';
import type { SessionRecord } from '../server/src/sessions/records.ts';
import { foldSession } from '../server/src/sessions/summary.ts';
import { Redactor } from '../server/src/support/log.ts';
import { answerChunks, startFakeProcess } from './bench/fake-provider.ts';
import { measureProcess, type ProcessRun } from './bench/measure-process.ts';
import { currentStep, installGuards, killAll, setStep } from './bench/processes.ts';
import { BenchClient, type Json, SERVER_BIN, wallClock } from './bench/protocol-client.ts';
import { positiveIntegers } from './bench/options.ts';

const USAGE =
  'Usage: node scripts/bench-sessions.ts [--events 100000] [--messages 10000] [--runs 5] [--baseline <rev>] [--no-baseline] [--timeout 900]';
const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '100000' },
    messages: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '5' },
    chars: { type: 'string', default: '190000' },
    // The commit before sessions were saved (7b57349 brought them).
    baseline: { type: 'string', default: '7b57349^' },
    'no-baseline': { type: 'boolean', default: false },
    timeout: { type: 'string', default: '900' },
  },
});
const count = positiveIntegers<'events' | 'messages' | 'runs' | 'chars' | 'timeout'>(
  'bench-sessions',
  USAGE,
  values,
);
const events = count('events');
const messages = count('messages');
const runs = count('runs');
const chars = count('chars');
installGuards(count('timeout'));

const REPO = fileURLToPath(new URL('..', import.meta.url));
const SANTRA_BIN = join(REPO, 'dist', 'santra.js');
for (const bin of [SERVER_BIN, SANTRA_BIN]) {
  if (!existsSync(bin)) {
    console.error(`bench-sessions: ${bin} is missing; run npm run build first`);
    process.exit(1);
  }
}

const root = mkdtempSync(join(tmpdir(), 'santra-bench-sessions-'));
let homes = 0;
/** A fresh HOME (also SANTRA_HOME) in the temp dir. */
function home(): string {
  const dir = join(root, `home-${++homes}`);
  mkdirSync(dir);
  return dir;
}
function newWorkspace(): string {
  const dir = join(root, `workspace-${++homes}`);
  mkdirSync(dir);
  return realpathSync(dir);
}

const median = (samples: number[]): number => {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const mb = (bytes: number) => `${fmt(bytes / 1e6, 1)} MB`;
const verdict = (met: boolean) => (met ? 'met' : '**missed**');
const list = (samples: number[], digits: number) => samples.map((s) => fmt(s, digits)).join(', ');

const SESSION_ID = 'ses_bench-0001';
const RUN = 'run_1a2b3c4d';
const MODEL = 'anthropic/claude-sonnet-4-5';
const USAGE_OF_TURN = { inputTokens: 1200, outputTokens: 180, cacheReadTokens: 9000, cacheWriteTokens: 0 };
/** Prose-like filler of a given length (distinct enough that compression-like shortcuts do not apply). */
const prose = (seed: number, length: number) => {
  let text = '';
  for (let i = 0; text.length < length; i++) text += `word${(seed * 7919 + i * 31) % 10007} `;
  return text.slice(0, length);
};

/** A text phase as the server saves it: about 250 bytes on disk. */
function textPhase(seq: number, text: string): SessionRecord {
  return {
    type: 'phase',
    phase: { type: 'text', runId: RUN, sessionId: SESSION_ID, seq, agentId: 'orchestrator', text },
  };
}

function measureAppend(): string[] {
  setStep(`appending ${fmt(events)} phase records`);
  const redactor = new Redactor();
  redactor.add('sk-ant-bench-key-0123456789abcdef');
  const dir = join(root, 'append');
  const samples: number[] = [];
  let bytes = 0;
  for (let run = 1; run <= runs; run++) {
    const journal = new Journal(join(dir, `${run}.jsonl`), (line) => redactor.apply(line));
    const records = Array.from({ length: events }, (_, i) => textPhase(i + 1, prose(i, 160)));
    for (let i = 0; i < 1000; i++) journal.append(records[i] as SessionRecord); // open, warm up
    const start = performance.now();
    for (let i = 1000; i < events; i++) journal.append(records[i] as SessionRecord);
    samples.push(((performance.now() - start) * 1000) / (events - 1000));
    bytes = journal.bytesWritten / events;
    journal.close();
  }
  rmSync(dir, { recursive: true, force: true });
  return [
    `### Saving: ${fmt(events)} phase records through the Journal`,
    '',
    `One \`write(2)\` per record on an O_APPEND file, each line redacted first (one key registered), as the server saves a phase; ${fmt(bytes)} bytes a record. Median of ${runs} runs.`,
    '',
    '| measurement | median | runs |',
    '| --- | --- | --- |',
    `| µs per saved event | ${fmt(median(samples), 2)} | ${list(samples, 2)} |`,
    '',
  ];
}

/**
 * Writes a realistic session of about `count` messages through FileStorage: runs of a prompt and
 * four tool-calling turns (text phases, a tool call and its result, the model output, the
 * assistant message and the tool result message), then a final answer.
 */
async function writeSession(sessionsDir: string, workspace: string, count: number): Promise<string> {
  const storage = new FileStorage(sessionsDir, workspace, (line) => line);
  const writer = storage.writer(SESSION_ID);
  const at = new Date().toISOString();
  writer.append({
    type: 'session',
    format: 1,
    sessionId: SESSION_ID,
    workspaceRoot: workspace,
    createdAt: at,
    santraVersion: '0.1.0',
  });
  let seq = 0;
  let written = 0;
  for (let run = 0; written < count; run++) {
    const runId = `run_${run.toString(16).padStart(8, '0')}`;
    const phase = (body: Json) =>
      writer.append({
        type: 'phase',
        phase: { runId, sessionId: SESSION_ID, seq: ++seq, agentId: 'tester', ...body },
      } as SessionRecord);
    writer.append({ type: 'prompt', runId, at, text: prose(run, 120), model: MODEL, agent: 'tester' });
    writer.append({
      type: 'message',
      runId,
      message: { role: 'user', content: [{ type: 'text', text: prose(run, 120) }] },
    });
    written++;
    phase({ type: 'status', text: 'Route: agent_task (the client asked for the agent tester)' });
    for (let turn = 1; turn <= 5 && written < count; turn++) {
      const text = prose(run * 10 + turn, 600);
      for (let piece = 0; piece < 3; piece++)
        phase({ type: 'text', text: text.slice(piece * 200, piece * 200 + 200) });
      const last = turn === 5 || written + 2 > count;
      const id = `toolu_${run}_${turn}`;
      const args = { path: `src/module-${turn}.ts` };
      const content = last
        ? [{ type: 'text' as const, text }]
        : [
            { type: 'text' as const, text },
            { type: 'tool_call' as const, id, name: 'read_file', args, argsText: JSON.stringify(args) },
          ];
      writer.append({
        type: 'model_output',
        runId,
        agentId: 'tester',
        turn,
        inputMessages: written,
        content,
        stopReason: last ? 'end_turn' : 'tool_use',
        usage: USAGE_OF_TURN,
      });
      writer.append({ type: 'message', runId, message: { role: 'assistant', content } });
      written++;
      if (last) break;
      const output = prose(run * 100 + turn, 1500);
      phase({ type: 'tool_call', toolCallId: id, toolName: 'read_file', args, summary: args.path });
      phase({
        type: 'tool_result',
        toolCallId: id,
        toolName: 'read_file',
        status: 'ok',
        summary: '60 lines',
        output,
      });
      writer.append({
        type: 'message',
        runId,
        message: {
          role: 'user',
          content: [{ type: 'tool_result', toolCallId: id, toolName: 'read_file', output, isError: false }],
        },
      });
      written++;
    }
    phase({ type: 'complete', status: 'completed', output: '' });
    writer.append({
      type: 'run_end',
      runId,
      status: 'completed',
      model: MODEL,
      usage: USAGE_OF_TURN,
      costUsd: 0.01,
      at,
    });
  }
  await writer.close();
  const project = readdirSync(sessionsDir)[0] as string;
  return join(sessionsDir, project, `${SESSION_ID}.jsonl`);
}

interface Stored {
  homeDir: string;
  workspace: string;
  file: string;
  bytes: number;
}

async function storedSession(count: number): Promise<Stored> {
  const homeDir = home();
  const workspace = newWorkspace();
  const file = await writeSession(join(homeDir, 'sessions'), workspace, count);
  return { homeDir, workspace, file, bytes: statSync(file).size };
}

/** `session/resume` through a fresh built server: ms from the request to its response. */
async function resumeOnce(stored: Stored): Promise<{ ms: number; messageCount: number }> {
  const client = new BenchClient({
    env: { PATH: process.env.PATH, HOME: stored.homeDir, SANTRA_HOME: stored.homeDir },
    cwd: stored.workspace,
  });
  try {
    await client.initialize(stored.workspace);
    const start = wallClock();
    const { message, at } = await client.request('session/resume', { sessionId: SESSION_ID });
    const session = (message.result as Json).session as Json;
    return { ms: at - start, messageCount: session.messageCount as number };
  } finally {
    await client.close();
  }
}

async function resumeMedian(
  stored: Stored,
  times: number,
): Promise<{ ms: number; samples: number[]; messageCount: number }> {
  const samples: number[] = [];
  let messageCount = 0;
  for (let i = 0; i < times; i++) {
    const once = await resumeOnce(stored);
    samples.push(once.ms);
    messageCount = once.messageCount;
  }
  return { ms: median(samples), samples, messageCount };
}

async function measureResume(): Promise<string[]> {
  setStep(`writing a ${fmt(messages)}-message session`);
  const stored = await storedSession(messages);
  const parse: number[] = [];
  const fold: number[] = [];
  let records = 0;
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    const parsed = parseJournal(readFileSync(stored.file, 'utf8'), 'bench');
    const parsedAt = performance.now();
    const state = foldSession(parsed.records);
    fold.push(performance.now() - parsedAt);
    parse.push(parsedAt - start);
    records = parsed.records.length;
    if (state?.messages.length !== messages)
      throw new Error(`folded ${state?.messages.length} messages, wrote ${messages}`);
  }
  setStep(`resuming a ${fmt(messages)}-message session through the server`);
  const server = await resumeMedian(stored, runs);
  if (server.messageCount !== messages)
    throw new Error(`resumed ${server.messageCount} messages, wrote ${messages}`);
  rmSync(stored.homeDir, { recursive: true, force: true });
  return [
    `### Resuming a ${fmt(messages)}-message session`,
    '',
    `${mb(stored.bytes)} on disk, ${fmt(records)} records (prompts, text, read_file calls with 1,500-character results, their phases and model outputs). Median of ${runs} runs; the server is a fresh \`dist/santra-server.js\` each run, timed from sending \`session/resume\` to reading its response.`,
    '',
    '| measurement | median | runs | goal |',
    '| --- | --- | --- | --- |',
    `| \`session/resume\` through the server | ${fmt(server.ms, 1)} ms | ${list(server.samples, 1)} | < 300 ms: ${verdict(server.ms < 300)} |`,
    `| read + parseJournal, in process | ${fmt(median(parse), 1)} ms | ${list(parse, 1)} | — |`,
    `| foldSession alone | ${fmt(median(fold), 2)} ms | ${list(fold, 2)} | — |`,
    '',
  ];
}

async function measureLargest(): Promise<string[]> {
  const limit = 300;
  const tries: Array<{ count: number; ms: number; bytes: number }> = [];
  const attempt = async (count: number) => {
    setStep(`resuming a ${fmt(count)}-message session (looking for the largest within ${limit} ms)`);
    const stored = await storedSession(count);
    const { ms } = await resumeMedian(stored, 3);
    rmSync(stored.homeDir, { recursive: true, force: true });
    tries.push({ count, ms, bytes: stored.bytes });
    return ms <= limit;
  };
  let good = 0;
  let bad = 0;
  for (let count = 2500; count <= 1_280_000; count *= 2) {
    if (await attempt(count)) good = count;
    else {
      bad = count;
      break;
    }
  }
  // Bisect to within 5 %.
  while (bad > 0 && good > 0 && bad - good > good * 0.05) {
    const mid = Math.round((good + bad) / 2 / 100) * 100;
    if (await attempt(mid)) good = mid;
    else bad = mid;
  }
  const best = tries.filter((t) => t.ms <= limit).sort((a, b) => b.count - a.count)[0];
  return [
    `### The largest session resumed within ${limit} ms`,
    '',
    'Sessions like the one above, sizes doubled from 2,500 messages until `session/resume` took longer, then bisected; median of 3 fresh servers each.',
    '',
    '| messages | on disk | `session/resume` |',
    '| ---: | ---: | ---: |',
    ...tries
      .sort((a, b) => a.count - b.count)
      .map((t) => `| ${fmt(t.count)} | ${mb(t.bytes)} | ${fmt(t.ms, 1)} ms |`),
    '',
    best === undefined
      ? `No size tried resumed within ${limit} ms.`
      : `Largest within ${limit} ms: **${fmt(best.count)} messages (${mb(best.bytes)})**.`,
    '',
  ];
}

/** The recorded session: a tester agent reading files between paced answers. */
const PACED: FakeTurn[] = [1, 2, 3, 4].map((turn) => ({
  text: `Turn ${turn}: `,
  generate: { tokens: 200, tokensPerSecond: 100 },
  firstByteDelayMs: 400,
  ...(turn < 4 ? { toolCalls: [{ name: 'read_file', args: { path: `notes-${turn}.txt` } }] } : {}),
}));
const BENCH_AGENT = {
  id: 'bench',
  name: 'Bench',
  description: 'Reads files.',
  systemPrompt: 'You are the bench agent.',
  toolNames: ['read_file', 'list_dir', 'grep_search'],
};

async function measureReplay(): Promise<string[]> {
  setStep('recording a paced session');
  const workspace = newWorkspace();
  mkdirSync(join(workspace, '.agents'));
  writeFileSync(join(workspace, '.agents', 'bench.json'), JSON.stringify(BENCH_AGENT));
  for (let n = 1; n <= 3; n++) writeFileSync(join(workspace, `notes-${n}.txt`), `${prose(n, 2000)}\n`);
  const fake = await startFakeProvider('anthropic', PACED);
  const recordHome = home();
  let recordedMs: number;
  let recordedOutput: unknown;
  const recorder = new BenchClient({
    env: {
      PATH: process.env.PATH,
      HOME: recordHome,
      SANTRA_HOME: recordHome,
      SANTRA_MEMORY_AUTO_EXTRACT: '0',
      ANTHROPIC_API_KEY: 'sk-ant-bench',
      ANTHROPIC_BASE_URL: fake.url,
      SANTRA_MODEL: MODEL,
    },
    cwd: workspace,
  });
  try {
    await recorder.initialize(workspace);
    const start = wallClock();
    const { message, at } = await recorder.request('prompt', { text: 'Read the notes', agent: 'bench' });
    recordedMs = at - start;
    recordedOutput = (message.result as Json).output;
    if ((message.result as Json).status !== 'completed') throw new Error('the recorded run did not complete');
  } finally {
    await recorder.close();
    await fake.close();
  }
  const sessionsDir = join(recordHome, 'sessions');
  const project = readdirSync(sessionsDir).find((name) => !name.endsWith('.json')) as string;
  const recording = join(
    sessionsDir,
    project,
    readdirSync(join(sessionsDir, project)).find((name) => name.endsWith('.jsonl')) as string,
  );
  const samples: number[] = [];
  for (let run = 1; run <= runs; run++) {
    setStep(`replaying the recording (run ${run} of ${runs})`);
    const replayHome = home();
    const client = new BenchClient({
      env: { PATH: process.env.PATH, HOME: replayHome, SANTRA_HOME: replayHome },
      cwd: workspace,
      args: ['--replay', recording],
    });
    try {
      await client.initialize(workspace);
      const start = wallClock();
      const { message, at } = await client.request('prompt', { text: 'Read the notes', agent: 'bench' });
      const result = message.result as Json;
      if (result.status !== 'completed' || result.output !== recordedOutput)
        throw new Error(`the replay ended ${String(result.status)} with another output`);
      samples.push(at - start);
    } finally {
      await client.close();
    }
  }
  const replayMs = median(samples);
  const speed = recordedMs / replayMs;
  return [
    '### Replay speed',
    '',
    `A run of 4 model turns (each: first byte after 400 ms, then 200 tokens at 100 tokens/s) with 3 read_file calls between them, recorded against the fake provider, then executed again with \`santra-server --replay\` (tools run for real; a fresh server each run, timed from sending \`prompt\` to reading its response; median of ${runs}).`,
    '',
    '| measurement | figure | goal |',
    '| --- | --- | --- |',
    `| recorded run | ${fmt(recordedMs / 1000, 2)} s | — |`,
    `| its replay | ${fmt(replayMs, 1)} ms (${list(samples, 1)}) | — |`,
    `| replay speed | ${fmt(speed)}x real time | > 100x: ${verdict(speed > 100)} |`,
    '',
  ];
}

/** Builds `rev` in a temp dir (git archive, this checkout's node_modules); returns its dist/santra.js. */
function buildBaseline(rev: string): string {
  setStep(`building ${rev} for the baseline`);
  const dir = join(root, 'baseline');
  mkdirSync(dir);
  const archive = join(root, 'baseline.tar');
  execFileSync('git', ['-C', REPO, 'archive', '--format=tar', '-o', archive, rev]);
  execFileSync('tar', ['-xf', archive, '-C', dir]);
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  execFileSync(process.execPath, [join(dir, 'scripts', 'build.js')], { cwd: dir, stdio: 'ignore' });
  return join(dir, 'dist', 'santra.js');
}

async function measurePrint(): Promise<string[]> {
  const rev = values.baseline;
  const short = execFileSync('git', ['-C', REPO, 'rev-parse', '--short', rev], { encoding: 'utf8' }).trim();
  const baseline = buildBaseline(rev);
  setStep(`starting the fake provider (--chars ${chars})`);
  const fakeHome = home();
  const fake = await startFakeProcess(['--chars', String(chars)], { PATH: process.env.PATH, HOME: fakeHome });
  const workspace = newWorkspace();
  const expected = `${answerChunks(chars).join('')}\n`;
  const print = async (bin: string, check: boolean): Promise<ProcessRun & { saved: number }> => {
    const homeDir = home();
    const out = check ? join(root, 'print.txt') : '/dev/null';
    const run = await measureProcess([process.execPath, bin, '-p', 'write'], {
      env: {
        PATH: process.env.PATH,
        HOME: homeDir,
        SANTRA_HOME: homeDir,
        SANTRA_MEMORY_AUTO_EXTRACT: '0',
        OPENAI_API_KEY: 'sk-bench',
        OPENAI_BASE_URL: fake.url,
        SANTRA_MODEL: 'openai/gpt-5',
      },
      cwd: workspace,
      stdoutPath: out,
      scratch: root,
    });
    if (check && readFileSync(out, 'utf8') !== expected)
      throw new Error(`santra -p (${bin}) printed something else than the answer`);
    const sessions = join(homeDir, 'sessions');
    let saved = 0;
    if (existsSync(sessions))
      for (const project of readdirSync(sessions))
        for (const name of readdirSync(join(sessions, project)))
          if (name.endsWith('.jsonl')) saved += statSync(join(sessions, project, name)).size;
    return { ...run, saved };
  };
  try {
    const builds = [
      {
        name: `this tree (sessions saved)`,
        bin: SANTRA_BIN,
        samples: [] as Array<ProcessRun & { saved: number }>,
      },
      {
        name: `${short}, before sessions`,
        bin: baseline,
        samples: [] as Array<ProcessRun & { saved: number }>,
      },
    ];
    for (const build of builds) await print(build.bin, true); // verify, and warm the file cache
    for (let run = 1; run <= runs; run++)
      for (const build of builds) {
        setStep(`santra -p ${build.name}, run ${run} of ${runs}`);
        build.samples.push(await print(build.bin, false));
      }
    const of = (samples: ProcessRun[], pick: (r: ProcessRun) => number | undefined) => {
      const got = samples.map(pick).filter((v): v is number => v !== undefined);
      return got.length === 0 ? undefined : median(got);
    };
    const rows = builds.map((build) => {
      const cpu = of(build.samples, (r) => r.cpuSeconds);
      const rss = of(build.samples, (r) => r.sampled.server);
      return `| ${build.name} | ${fmt(of(build.samples, (r) => r.wallSeconds) as number, 3)} s (${list(
        build.samples.map((r) => r.wallSeconds),
        3,
      )}) | ${cpu === undefined ? 'n/a' : `${fmt(cpu, 2)} s`} | ${rss === undefined ? 'n/a' : mb(rss)} | ${mb(build.samples[0]?.saved ?? 0)} |`;
    });
    const [now, before] = builds.map((build) => of(build.samples, (r) => r.wallSeconds) as number);
    return [
      `### \`santra -p\` on the ${fmt(expected.length - 1)}-character answer, saving vs not`,
      '',
      `bench-stream's fake OpenAI provider (38,000 deltas of 5 characters), \`santra -p "write" > /dev/null\`, the two builds alternating, median of ${runs} runs; the output was verified once per build. CPU from GNU time (santra and its server).`,
      '',
      '| build | wall | user + sys CPU | VmHWM santra-server | session file |',
      '| --- | --- | --- | --- | --- |',
      ...rows,
      '',
      `Difference: ${fmt(((now as number) - (before as number)) * 1000, 1)} ms (${fmt(((now as number) / (before as number) - 1) * 100, 1)} %).`,
      '',
    ];
  } finally {
    fake.stop();
  }
}

try {
  const started = wallClock();
  const sections = [
    ...measureAppend(),
    ...(await measureResume()),
    ...(await measureReplay()),
    ...(await measureLargest()),
    ...(values['no-baseline'] ? [] : await measurePrint()),
  ];
  const header = `Node ${process.version}, ${process.platform} ${process.arch}, ${cpus().length} CPUs, ${new Date().toISOString().slice(0, 10)}; took ${fmt((wallClock() - started) / 1000)} s`;
  process.stdout.write([header, '', ...sections].join('\n'));
  rmSync(root, { recursive: true, force: true }); // kept after a failure, for its files
} catch (error) {
  killAll();
  console.error(
    `bench-sessions: failed while ${currentStep()}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  process.exitCode = 1;
}
