/**
 * Running prompts end to end: the built server over stdio, a fake model provider on 127.0.0.1,
 * the real SDKs in between.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after } from 'node:test';
import {
  type FakeApi,
  type FakeProvider,
  type FakeTurn,
  type RecordedRequest,
  startFakeProvider,
} from '../../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../../../scripts/temp-dirs.ts';
import { type Json, WireClient } from './wire.ts';

/**
 * Whether `request` is the sub-agent's whose own task is `task`: the "Your task:" turn Santra
 * gives it. Parallel siblings share their parent's history — where the parent's spawn_agents
 * call names every task — so a match on the task's text alone lets one sibling take another's
 * scripted turns when it asks first.
 */
export const ownTask = (task: string) => (request: RecordedRequest) =>
  JSON.stringify(request.body.messages).includes(JSON.stringify(`Your task:\n${task}`).slice(1, -1));

/** A custom agent with every tool but the agent-control ones. */
export const TESTER = {
  id: 'tester',
  name: 'Tester',
  description: 'A generalist used by the tests.',
  systemPrompt: 'You are the test agent.',
  toolNames: [
    'read_file',
    'write_file',
    'str_replace',
    'multi_edit',
    'list_dir',
    'find_file',
    'get_file_info',
    'delete_file',
    'move_file',
    'grep_search',
    'web_fetch',
    'web_search',
    'run_command',
    'git_status',
    'git_diff',
    'ask_user',
    'think',
    'todo_write',
    'task_completed',
  ],
};

export const CANARY_KEY = 'sk-canary-7f3a9b1c5d2e8f4a6b0c9d1e3f5a7b9c';

/** Fast retries and short timeouts, so resilience cases run in milliseconds. */
export const FAST_RESILIENCE = {
  SANTRA_RETRY_BASE_MS: '20',
  SANTRA_RETRY_MAX_WAIT_MS: '2000',
  SANTRA_TIMEOUT_FIRST_MS: '3000',
  SANTRA_TIMEOUT_IDLE_MS: '1000',
  SANTRA_TIMEOUT_TOTAL_MS: '20000',
};

export interface Harness {
  client: WireClient;
  fake: FakeProvider;
  workspace: string;
  /** The server's config directory (SANTRA_HOME): config.json, sessions/. */
  santraHome: string;
  nextId(): number;
  /** Sends a prompt; resolves with its response and the phases of its run, in order. */
  prompt(params: Json): Promise<{ response: Json; phases: Json[] }>;
  close(): Promise<void>;
}

/**
 * Starts a fake provider and the server pointed at it. `config` is written as the server's
 * config.json, with every "FAKE_URL" replaced by the fake provider's base URL.
 */
export async function harness(
  api: FakeApi,
  turns: FakeTurn[],
  env: NodeJS.ProcessEnv = {},
  config?: unknown,
  init: { capabilities?: Json; args?: string[]; generalist?: boolean } = {},
): Promise<Harness> {
  const fake = await startFakeProvider(api, turns);
  const home = tempDir('santra-home-');
  const santraHome = join(home, 'santra');
  if (config !== undefined) {
    mkdirSync(santraHome, { recursive: true, mode: 0o700 });
    writeFileSync(join(santraHome, 'config.json'), JSON.stringify(config).replaceAll('FAKE_URL', fake.url), {
      mode: 0o600,
    });
  }
  const providerEnv =
    api === 'anthropic'
      ? {
          ANTHROPIC_API_KEY: CANARY_KEY,
          ANTHROPIC_BASE_URL: fake.url,
          SANTRA_MODEL: 'anthropic/claude-sonnet-4-5',
        }
      : { OPENAI_API_KEY: CANARY_KEY, OPENAI_BASE_URL: fake.url, SANTRA_MODEL: 'openai/gpt-4o' };
  const client = new WireClient(init.args ?? [], {
    HOME: home,
    SANTRA_HOME: santraHome,
    ...FAST_RESILIENCE,
    ...providerEnv,
    ...env,
  });
  const workspace = tempDir('santra-ws-');
  let id = 100;
  const generalist = init.generalist !== false;
  if (generalist) {
    // One agent with every tool, so tool behaviour can be driven without the orchestrator.
    mkdirSync(join(workspace, '.agents'), { recursive: true });
    writeFileSync(join(workspace, '.agents/tester.json'), JSON.stringify(TESTER));
  }
  /** Ends the server first, so that nothing writes into the directories once they are removed. */
  const close = async () => {
    client.child.kill('SIGKILL');
    await client.exited;
    await fake.close();
    await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
  };
  try {
    const initialized = await client.initialize(workspace, id++, init.capabilities ?? {});
    if (initialized.error !== undefined)
      throw new Error(`initialize failed: ${JSON.stringify(initialized.error)}`);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    client,
    fake,
    workspace,
    santraHome,
    nextId: () => id++,
    async prompt(params) {
      const requestId = id++;
      client.request(
        requestId,
        'prompt',
        generalist && params.agent === undefined ? { agent: 'tester', ...params } : params,
      );
      const response = await client.response(requestId);
      const phases: Json[] = [];
      for (;;) {
        const index = client.messages.findIndex((m) => m.method === 'phase');
        if (index === -1) break;
        phases.push((client.messages.splice(index, 1)[0] as Json).params as Json);
      }
      return { response, phases };
    },
    close,
  };
}

export const textOf = (phases: Json[], type = 'text') =>
  phases
    .filter((p) => p.type === type)
    .map((p) => p.text as string)
    .join('');

/**
 * A `start` for one test file: every harness it starts is closed after the file's tests, once
 * it is checked that the canary key never left the server — not on stdout (protocol), not on
 * stderr (its log).
 */
export function suiteHarnesses(): typeof harness {
  const open: Harness[] = [];
  after(async () => {
    for (const h of open) {
      assert.ok(!h.client.stdout.includes(CANARY_KEY), 'the key appeared in protocol output');
      assert.ok(!h.client.stderr.includes(CANARY_KEY), 'the key appeared in the server log');
      await h.close();
    }
  });
  return async (...args) => {
    const h = await harness(...args);
    open.push(h);
    return h;
  };
}

/** The built client. */
export const SANTRA_BIN = fileURLToPath(new URL('../../../dist/santra.js', import.meta.url));

/**
 * The environment of a `santra` run against a fake Anthropic provider: its own home and config
 * directory, the canary key, and only PATH from this process.
 */
export function santraEnv(home: string, providerUrl?: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    SANTRA_HOME: join(home, 'santra'),
    // Memory's extraction after runs is a model call of its own: off, so the scripted turns are the runs'.
    SANTRA_MEMORY_AUTO_EXTRACT: '0',
    ANTHROPIC_API_KEY: CANARY_KEY,
    ...(providerUrl === undefined
      ? {}
      : { ANTHROPIC_BASE_URL: providerUrl, SANTRA_MODEL: 'anthropic/claude-sonnet-4-5' }),
  };
}

/** Runs the built `santra` with stdin closed, to its exit; what it wrote on stdout and stderr. */
export async function runSantra(
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [SANTRA_BIN, ...args], {
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: options.env,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}
