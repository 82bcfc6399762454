/**
 * What the editor tests (the Neovim plugin, `santra lsp`, `santra acp`) share: the environment a
 * Santra server runs in against a fake Anthropic provider, and the custom agent their prompts use,
 * so each test scripts one agent with the tools it needs and nothing else.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  type FakeTurn,
  startFakeProvider,
  summarizeRequest,
} from '../../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../../temp-dirs.ts';

/**
 * What a test file of Neovim flows needs: the built server, the plugin, and the cleanups of what
 * its flows create (temp dirs, fake providers), run after the file's tests.
 */
export function nvimFlowSuite(): { SERVER: string; PLUGIN: string; cleanups: (() => Promise<void>)[] } {
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  return {
    SERVER: fileURLToPath(new URL('../../../dist/santra-server.js', import.meta.url)),
    PLUGIN: fileURLToPath(new URL('../../../editors/nvim', import.meta.url)),
    cleanups,
  };
}

/** A server's environment: home, config and temp files under `home`; the model is the fake at `fakeUrl`. */
export function santraTestEnv(home: string, fakeUrl: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    TMPDIR: home,
    SANTRA_HOME: join(home, 'santra'),
    // Memory's extraction after runs is a model call of its own: off, so the scripted turns are the runs'.
    SANTRA_MEMORY_AUTO_EXTRACT: '0',
    ANTHROPIC_API_KEY: 'sk-ant-fake-key',
    ANTHROPIC_BASE_URL: fakeUrl,
    SANTRA_MODEL: 'anthropic/claude-sonnet-4-5',
  };
}

/** The same for a headless Neovim that starts the server: its XDG directories under `home` too. */
export function nvimTestEnv(home: string, fakeUrl: string): NodeJS.ProcessEnv {
  return {
    ...santraTestEnv(home, fakeUrl),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_STATE_HOME: join(home, '.local/state'),
    XDG_CACHE_HOME: join(home, '.cache'),
  };
}

/** Writes `.agents/tester.json`: an agent named "tester" with only `toolNames`. */
export function writeTesterAgent(workspace: string, toolNames: readonly string[], usedBy: string): void {
  mkdirSync(join(workspace, '.agents'), { recursive: true });
  const tester = {
    id: 'tester',
    name: 'Tester',
    description: `A writer used by the ${usedBy} test.`,
    systemPrompt: 'You are the test agent.',
    toolNames,
  };
  writeFileSync(join(workspace, '.agents/tester.json'), JSON.stringify(tester));
}

/**
 * Runs `nvim --headless` with `args` (no user config, shada or swap files) until it exits, then
 * reads the JSON report its Lua script wrote to `out`. Fails, with what Neovim printed, when it
 * exits non-zero, writes no report, or the report carries an `error`. With `stuckAfterMs`, a
 * Neovim still running then is ended and the run fails: a flow bounds each of its waits, so only
 * Neovim blocked in a prompt of its own (input(), inputlist(), a hit-enter prompt) gets there.
 */
export async function runHeadlessNvim<Report extends { error?: string }>(options: {
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  out: string;
  stuckAfterMs?: number;
}): Promise<Report> {
  const nvim = spawn('nvim', ['--headless', '-u', 'NONE', '-i', 'NONE', '-n', ...options.args], {
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: options.env,
  });
  let output = '';
  nvim.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  nvim.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let stuck = false;
  const watchdog =
    options.stuckAfterMs === undefined
      ? undefined
      : setTimeout(() => {
          stuck = true;
          nvim.kill('SIGTERM');
        }, options.stuckAfterMs);
  const [code] = (await once(nvim, 'exit')) as [number | null];
  clearTimeout(watchdog);
  assert.ok(
    !stuck,
    `nvim was still running after ${options.stuckAfterMs} ms, blocked in a prompt: ${output}`,
  );
  assert.equal(code, 0, `nvim exited with ${code}: ${output}`);
  assert.ok(existsSync(options.out), `the Lua flow wrote no report: ${output}`);
  const report = JSON.parse(readFileSync(options.out, 'utf8')) as Report;
  assert.equal(report.error, undefined, `the Lua flow failed: ${report.error}`);
  return report;
}

/**
 * Runs the Neovim plugin's Lua flow `script` (the plugin at `plugin` on the runtimepath) in a
 * headless Neovim, in a fresh workspace that `prepare` fills, against the built server `server`
 * and a fake Anthropic provider scripted with `turns`; the flow reads `env`, and finds the server
 * in $SANTRA_NVIM_NODE and $SANTRA_NVIM_SERVER. The provider and the temp directories are closed
 * by a function pushed onto `cleanups`, for the test file's `after` hook.
 */
export async function runNvimFlow<Report extends { error?: string }>(options: {
  plugin: string;
  server: string;
  script: string;
  turns: FakeTurn[];
  prepare: (workspace: string) => void;
  env: Record<string, string>;
  cleanups: (() => Promise<void>)[];
}) {
  const fake = await startFakeProvider('anthropic', options.turns);
  const home = tempDir('santra-nvim-home-');
  const workspace = tempDir('santra-nvim-ws-');
  options.cleanups.push(async () => {
    await fake.close();
    await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
  });
  options.prepare(workspace);
  const out = join(home, 'report.json');
  try {
    const report = await runHeadlessNvim<Report>({
      args: ['--cmd', `set rtp^=${options.plugin}`, '-c', `luafile ${options.script}`],
      cwd: workspace,
      env: {
        ...nvimTestEnv(home, fake.url),
        SANTRA_NVIM_NODE: process.execPath,
        SANTRA_NVIM_SERVER: options.server,
        SANTRA_NVIM_OUT: out,
        ...options.env,
      },
      out,
      // Each wait of a flow gives up after 30 s; a few of them in a row stay well under this.
      stuckAfterMs: 150_000,
    });
    return { report, fake, workspace };
  } catch (error) {
    // What the model was asked tells a flow that failed on the server's side from one on Neovim's.
    const asked = fake.requests.map((request, i) => `  ${i + 1}. ${summarizeRequest(request)}`);
    const turns = `the fake provider got ${fake.requests.length} requests, ${fake.pending()} scripted turns left unserved`;
    if (error instanceof Error) error.message += `\n-- ${turns}:\n${asked.join('\n')}`;
    throw error;
  }
}
