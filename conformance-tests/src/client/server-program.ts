/**
 * The program a client starts in place of santra-server (`SANTRA_SERVER=<this file>` for santra,
 * `cmd = {node, <this file>}` for the Neovim plugin). It speaks the protocol on stdio, plays one
 * scenario, and writes the report (scripted-server.ts) as JSON. Its stdout carries protocol only;
 * notes go to stderr, which clients must not parse (§1.5).
 *
 * Configured by the environment, which a client passes on to the server it starts:
 *   SANTRA_CONFORMANCE_SCENARIO    the scenario to play (required)
 *   SANTRA_CONFORMANCE_REPORT      where to write the report (required)
 *   SANTRA_CONFORMANCE_CUE         a file cues are appended to ("cancel"), for the client's driver
 *   SANTRA_CONFORMANCE_UNATTENDED  1: nobody answers for the client (protected approvals must be rejected)
 *   SANTRA_CONFORMANCE_DEADLINE_MS the scenario's time limit (default 30000)
 */
import { appendFileSync, renameSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { type Scenario, scenarioNamed } from './scenarios.ts';
import { playScenario, type ScenarioReport } from './scripted-server.ts';

const DEFAULT_DEADLINE_MS = 30_000;

/** Writes the report whole or not at all: the driver reads it as soon as it appears. */
function write(path: string, report: ScenarioReport): void {
  writeFileSync(`${path}.partial`, `${JSON.stringify(report, null, 2)}\n`);
  renameSync(`${path}.partial`, path);
}

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    process.stderr.write(
      `santra-conformance scripted server: ${name} is not set; run it through \`santra-conformance client\`, which sets it\n`,
    );
    process.exit(2);
  }
  return value;
}

async function main(): Promise<void> {
  const reportPath = required('SANTRA_CONFORMANCE_REPORT');
  let scenario: Scenario;
  try {
    scenario = scenarioNamed(required('SANTRA_CONFORMANCE_SCENARIO'));
  } catch (error) {
    process.stderr.write(`santra-conformance scripted server: ${(error as Error).message}\n`);
    process.exit(2);
  }
  const cueFile = process.env.SANTRA_CONFORMANCE_CUE;
  const deadline = Number(process.env.SANTRA_CONFORMANCE_DEADLINE_MS ?? DEFAULT_DEADLINE_MS);
  process.stderr.write(`santra-conformance scripted server: playing ${scenario.name}\n`);
  // A client may end its server with a signal rather than `exit`: the report is still written.
  const stop = new AbortController();
  for (const signal of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) process.on(signal, () => stop.abort());
  const report = await playScenario(scenario, {
    input: process.stdin,
    output: process.stdout,
    unattended: process.env.SANTRA_CONFORMANCE_UNATTENDED === '1',
    deadlineMs: Number.isFinite(deadline) && deadline > 0 ? deadline : DEFAULT_DEADLINE_MS,
    stop: stop.signal,
    // Kept up to date while the scenario plays: a client that kills its server (SIGKILL) still
    // leaves the evidence of what it sent, marked as ended by "killed".
    onProgress: (report) => write(reportPath, report),
    onCue: (name) => {
      if (cueFile !== undefined && cueFile !== '') appendFileSync(cueFile, `${name}\n`);
    },
  });
  write(reportPath, report);
  const shutdown = report.transcript.some(
    (e) => e.from === 'client' && (e.message as { method?: unknown })?.method === 'shutdown',
  );
  // As santra-server does (§3.4, §3.5): 0 after shutdown, 1 without it.
  process.exit(shutdown ? 0 : 1);
}

await main();
