/**
 * Runs a client command once per scenario with the scripted server injected, and collects the
 * reports. The injection is through the environment, which every Santra client passes to the server
 * it starts: SANTRA_SERVER (a file run with node, for `santra` and `santra -p`) and
 * SANTRA_CONFORMANCE_SERVER_CMD (the command as a JSON list, for clients configured with a command,
 * such as the Neovim plugin's `setup({cmd = …})`).
 *
 * The scenario's "user" acts through cues: when the scripted server waits for the user (e.g. to
 * cancel the run), it appends a cue to a file; the driver answers with SIGINT (`santra -p`'s
 * Ctrl-C), or leaves it to the client's own driver script, which reads the same file.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SECRET_VALUE, SECRET_VARIABLE } from './editor-scenario.ts';
import { SCENARIOS } from './scenarios.ts';
import type { ScenarioReport } from './scripted-server.ts';

export interface ClientUnderTest {
  /** The client program and its arguments. */
  command: string[];
  cwd?: string;
  /** Added to the driver's environment. */
  env?: Record<string, string>;
  /** Who cancels the run on a "cancel" cue: SIGINT from the driver, or the client's own driver script. */
  cancel: 'sigint' | 'client';
  /** Nobody answers for the client: SANTRA-CLIENT-010 applies. */
  unattended: boolean;
  /** The scenarios to play (default: all). */
  scenarios?: string[];
  /** Each scenario's time limit in the scripted server (default 30 s). */
  deadlineMs?: number;
}

/** One scenario's run: the scripted server's report, or why there is none. */
export interface ScenarioRun {
  scenario: string;
  /** The client's exit code (null: killed). */
  exitCode: number | null;
  report: ScenarioReport | undefined;
  /** What went wrong around the protocol: no report, a client that had to be killed. */
  problems: string[];
  /** The tail of the client's stdout and stderr, for the reader of a failure. */
  output: string;
}

const DEFAULT_DEADLINE_MS = 30_000;
/** How long past the scripted server's deadline the client may take to exit before it is killed. */
const EXIT_GRACE_MS = 10_000;
const OUTPUT_TAIL = 4000;
/** How long after the client exited the scripted server may take to write its report. */
const REPORT_GRACE_MS = 5000;

/**
 * The scripted server program: the TypeScript source when this runs from source, the bundled
 * chunk beside this one in dist/ (scripts/build.ts builds it as the entry santra-conformance-server).
 */
export function scriptedServerPath(): string {
  const source = fileURLToPath(new URL('./server-program.ts', import.meta.url));
  const bundled = fileURLToPath(new URL('./santra-conformance-server.js', import.meta.url));
  const path = import.meta.url.endsWith('.ts') ? source : bundled;
  if (!existsSync(path))
    throw new Error(
      `the scripted server is missing at ${path}; rebuild with npm run build (scripts/build.ts lists it as santra-conformance-server)`,
    );
  return path;
}

/** Plays every scenario asked for against the client, one fresh client process each. */
export async function runClientSuite(client: ClientUnderTest): Promise<ScenarioRun[]> {
  const names = client.scenarios ?? SCENARIOS.map((s) => s.name);
  const runs: ScenarioRun[] = [];
  for (const name of names) runs.push(await runScenario(client, name));
  return runs;
}

async function runScenario(client: ClientUnderTest, scenario: string): Promise<ScenarioRun> {
  const dir = mkdtempSync(join(tmpdir(), 'santra-conformance-client-'));
  try {
    return await runIn(dir, client, scenario);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runIn(dir: string, client: ClientUnderTest, scenario: string): Promise<ScenarioRun> {
  const server = scriptedServerPath();
  const files = { report: join(dir, 'report.json'), cue: join(dir, 'cues') };
  const deadlineMs = client.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const [program, ...args] = client.command;
  if (program === undefined) throw new Error('no client command was given');
  const child = spawn(program, args, {
    cwd: client.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ...client.env,
      SANTRA_SERVER: server,
      SANTRA_CONFORMANCE_SERVER_CMD: JSON.stringify([process.execPath, server]),
      SANTRA_CONFORMANCE_SCENARIO: scenario,
      SANTRA_CONFORMANCE_REPORT: files.report,
      SANTRA_CONFORMANCE_CUE: files.cue,
      SANTRA_CONFORMANCE_UNATTENDED: client.unattended ? '1' : '0',
      SANTRA_CONFORMANCE_DEADLINE_MS: String(deadlineMs),
      // What terminal/run tells a client to keep from commands (SANTRA-FILES-010).
      [SECRET_VARIABLE]: SECRET_VALUE,
    },
  });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const problems: string[] = [];
  const exited = once(child, 'close') as Promise<[number | null, NodeJS.Signals | null]>;
  const stopCues = client.cancel === 'sigint' ? answerCues(files.cue, () => child.kill('SIGINT')) : () => {};
  const killer = setTimeout(() => {
    problems.push(
      `the client had not exited ${(deadlineMs + EXIT_GRACE_MS) / 1000} s after it started; it was killed`,
    );
    child.kill('SIGKILL');
  }, deadlineMs + EXIT_GRACE_MS);
  const [exitCode] = await exited.catch((error: Error) => {
    problems.push(`the client could not be started: ${error.message}`);
    return [null];
  });
  clearTimeout(killer);
  stopCues();
  // The scripted server ends when the client's end of the pipe closes, usually just after the
  // client itself: its final report comes a moment later (until then, a provisional one).
  await waitFor(() => isFinal(files.report), REPORT_GRACE_MS);
  const report = readReport(files.report, problems);
  return { scenario, exitCode, report, problems, output };
}

async function waitFor(done: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** Calls `cancel` once the scripted server cues "cancel". Returns a function that stops watching. */
function answerCues(file: string, cancel: () => void): () => void {
  const timer = setInterval(() => {
    if (existsSync(file) && readFileSync(file, 'utf8').split('\n').includes('cancel')) {
      clearInterval(timer);
      cancel();
    }
  }, 50);
  return () => clearInterval(timer);
}

function isFinal(path: string): boolean {
  return existsSync(path) && (JSON.parse(readFileSync(path, 'utf8')) as ScenarioReport).ending !== 'killed';
}

function readReport(path: string, problems: string[]): ScenarioReport | undefined {
  if (!existsSync(path)) {
    problems.push(
      'the scripted server wrote no report: the client did not start it (does it take the server from SANTRA_SERVER or SANTRA_CONFORMANCE_SERVER_CMD?)',
    );
    return undefined;
  }
  return JSON.parse(readFileSync(path, 'utf8')) as ScenarioReport;
}
