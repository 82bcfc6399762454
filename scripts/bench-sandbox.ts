/**
 * OS sandbox benchmark: the time one command takes through run_command's spawn (runProcess) bare,
 * inside Santra's sandbox (the wrap included: the protected-location scan, the seccomp
 * descriptor), inside bare bubblewrap with the same namespaces, and, for comparison, through
 * @anthropic-ai/sandbox-runtime when it is installed (it is not a dependency). Medians of N runs
 * after a warm-up, interleaved so a busy machine slows them alike, in this repository (a real
 * tree: `.git`, node_modules) and in an empty directory.
 *   node scripts/bench-sandbox.ts [--runs 30] [--command true]
 * Goal (issue 27): the sandbox adds under 50 ms per command. A benchmark, not a test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { probeSandbox, trialArgs } from '../server/src/sandbox/probe.ts';
import { CommandSandbox } from '../server/src/sandbox/sandbox.ts';
import { runProcess } from '../server/src/tools/commands/run-process.ts';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '30' }, command: { type: 'string', default: 'true' } },
});
const runs = Number(values.runs);
const command = values.command;
const repo = fileURLToPath(new URL('..', import.meta.url));
const empty = mkdtempSync(join(tmpdir(), 'santra-bench-sandbox-'));
process.on('exit', () => rmSync(empty, { recursive: true, force: true }));

const status = await probeSandbox({ env: process.env });
if (!status.available || status.mechanism !== 'bubblewrap') {
  console.error(`No bubblewrap sandbox here: ${status.available ? status.mechanism : status.problem}`);
  process.exit(1);
}
const bwrap = status.program;

async function timed(
  file: string,
  args: readonly string[],
  cwd: string,
  extraInputs: readonly Uint8Array[] = [],
): Promise<number> {
  const started = performance.now();
  const outcome = await runProcess({
    file,
    args,
    cwd,
    env: process.env,
    timeoutMs: 30_000,
    signal: new AbortController().signal,
    outputLimit: 10_000,
    extraInputs,
  });
  if (outcome.exitCode !== 0) throw new Error(`${file} ${args.join(' ')} failed: ${outcome.stderr.text}`);
  return performance.now() - started;
}

function sandboxIn(root: string): CommandSandbox {
  return new CommandSandbox({
    settings: { profile: 'workspace-write', allowedDomains: [], autoRun: false },
    scope: {
      workspaceRoot: root,
      allowedDirs: [],
      configDir: join(tmpdir(), 'santra-bench-no-config'),
      home: process.env.HOME,
    },
    env: process.env,
    status,
  });
}

type Runner = () => Promise<number>;

interface SrtManager {
  initialize(config: unknown): Promise<void>;
  wrapWithSandboxArgv(
    command: string,
    shell: string,
    custom?: unknown,
    signal?: AbortSignal,
    cwd?: string,
  ): Promise<{ argv: string[]; env: NodeJS.ProcessEnv }>;
  cleanupAfterCommand(): void;
  reset(): Promise<void>;
}

async function loadSrt(): Promise<SrtManager | undefined> {
  try {
    const name = '@anthropic-ai/sandbox-runtime';
    const module = (await import(name)) as { SandboxManager: SrtManager };
    return module.SandboxManager;
  } catch {
    return undefined;
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};

const srt = await loadSrt();
for (const [label, root] of [
  ['this repository', repo],
  ['an empty directory', empty],
] as const) {
  const sandbox = sandboxIn(root);
  const runners: Record<string, Runner> = {
    'bare /bin/sh -c': () => timed('/bin/sh', ['-c', command], root),
    'bare bubblewrap (same namespaces)': () =>
      timed(bwrap, [...trialArgs(status.disableUserns).slice(0, -1), '/bin/sh', '-c', command], root),
    "Santra's sandbox (wrap + run)": async () => {
      const started = performance.now();
      const wrapped = await sandbox.wrap({
        file: '/bin/sh',
        args: ['-c', command],
        cwd: root,
        env: process.env,
      });
      await timed(wrapped.file, wrapped.args, root, wrapped.extraInputs);
      await wrapped.finish();
      return performance.now() - started;
    },
  };
  if (srt !== undefined) {
    await srt.initialize({
      network: { allowedDomains: [], deniedDomains: [] },
      filesystem: { denyRead: [], allowWrite: [root], denyWrite: [] },
    });
    runners['@anthropic-ai/sandbox-runtime (wrap + run)'] = async () => {
      const started = performance.now();
      const { argv } = await srt.wrapWithSandboxArgv(command, '/bin/sh', undefined, undefined, root);
      await timed(argv[0] ?? '/bin/sh', argv.slice(1), root);
      srt.cleanupAfterCommand();
      return performance.now() - started;
    };
  }
  const samples: Record<string, number[]> = Object.fromEntries(
    Object.keys(runners).map((name) => [name, []]),
  );
  for (const run of Object.values(runners)) await run();
  for (let i = 0; i < runs; i++)
    for (const [name, run] of Object.entries(runners)) samples[name]?.push(await run());
  if (srt !== undefined) await srt.reset();
  const bare = median(samples['bare /bin/sh -c'] ?? []);
  console.log(`\n${label} (${root}), \`${command}\`, median of ${runs}:`);
  console.log('| how | ms per command | added to bare sh |');
  console.log('| --- | ---: | ---: |');
  for (const [name, values] of Object.entries(samples)) {
    const value = median(values);
    console.log(
      `| ${name} | ${value.toFixed(1)} | ${name.startsWith('bare /bin') ? '' : `+${(value - bare).toFixed(1)}`} |`,
    );
  }
}
