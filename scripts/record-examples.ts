/**
 * Records the spec's example exchanges that involve a model (scripts/examples/scenarios.ts)
 * against the real, built server: a fake model provider on 127.0.0.1 answers, a temporary home and
 * workspace hold what the server writes. Each exchange is written, normalised, as
 * protocol-spec/examples/<name>.jsonl, and the session file the server saved as
 * protocol-spec/examples/recordings/<name>.jsonl, which scripts/test/examples-replay.test.ts
 * re-executes with `santra-server --replay`. Run `npm run build` first, `npm run generate` after.
 *
 *   npm run examples:record [-- NAME…]
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeProvider } from '../conformance-tests/src/fake-providers/index.ts';
import { ExchangeClient, type Json, Normaliser } from './examples/exchange.ts';
import { SCENARIOS, type Scenario } from './examples/scenarios.ts';
import type { ExampleLine } from './examples.ts';
import { removeTempDir, tempDir } from './temp-dirs.ts';

const EXAMPLES = fileURLToPath(new URL('../protocol-spec/examples', import.meta.url));

/** Every text delta its own phase, so a replay splits text exactly as the recording did. */
/**
 * The examples' config. Commands run without the OS sandbox: its launcher line (the bubblewrap
 * found here, a temp file of the seccomp filter) differs from machine to machine, and an example
 * must read the same everywhere; docs/security.md shows the sandbox.
 */
export const EXAMPLE_CONFIG = { stream: { coalesceMs: 0 }, sandbox: { profile: 'danger-full-access' } };

/** A home with the examples' config, and the workspace a scenario starts from. */
/** The config directory in a scenario's home, where a user's would be. */
export const configDir = (home: string) => join(home, '.config', 'santra');

export function prepare(scenario: Scenario): { home: string; workspace: string } {
  const home = tempDir('santra-example-home-');
  mkdirSync(configDir(home), { recursive: true, mode: 0o700 });
  // Memory's extraction after a run is a model call of its own: off where runs are scripted (in
  // the config, not the environment: what a command may not see is part of `terminal/run`).
  const config =
    scenario.turns.length > 0 ? { ...EXAMPLE_CONFIG, memory: { autoExtract: false } } : EXAMPLE_CONFIG;
  writeFileSync(join(configDir(home), 'config.json'), JSON.stringify(config), { mode: 0o600 });
  const workspace = tempDir('santra-example-ws-');
  for (const [path, content] of Object.entries(scenario.files)) {
    mkdirSync(dirname(join(workspace, path)), { recursive: true });
    writeFileSync(join(workspace, path), content);
  }
  return { home, workspace };
}

/**
 * The server's environment when recording, and when checking an example that calls no model: an
 * Anthropic key (a fake one: a provider with a key is configured) and the fake provider's URL.
 */
export function recordingEnv(home: string, providerUrl: string): NodeJS.ProcessEnv {
  return {
    HOME: home,
    SANTRA_HOME: configDir(home),
    ANTHROPIC_API_KEY: 'sk-example-not-a-key',
    ANTHROPIC_BASE_URL: providerUrl,
    SANTRA_MODEL: 'anthropic/claude-sonnet-5-5',
  };
}

export async function initialize(
  client: ExchangeClient,
  workspace: string,
  capabilities: Json = { approve: true, ask: true },
): Promise<void> {
  const response = await client.call(1, 'initialize', {
    protocolVersion: '0.1.0',
    clientInfo: { name: 'record-examples' },
    workspaceRoot: workspace,
    capabilities,
  });
  if (response.error !== undefined) throw new Error(`initialize failed: ${JSON.stringify(response.error)}`);
}

async function record(scenario: Scenario): Promise<void> {
  const fake = await startFakeProvider('anthropic', scenario.turns);
  const { home, workspace } = prepare(scenario);
  const client = new ExchangeClient([], recordingEnv(home, fake.url));
  try {
    await initialize(client, workspace, scenario.capabilities);
    client.startLog();
    let id = scenario.firstId;
    const sessions = join(configDir(home), 'sessions');
    let kept: string | undefined;
    const sessionFile = () => {
      const files = readdirSync(sessions, { recursive: true, encoding: 'utf8' }).filter((file) =>
        file.endsWith('.jsonl'),
      );
      if (files.length !== 1)
        throw new Error(`${scenario.name}: expected one session file, got ${files.join(', ')}`);
      return readFileSync(join(sessions, files[0] as string), 'utf8');
    };
    await scenario.run({
      client,
      note: (text) => client.log.push({ note: text }),
      call: (method, params) => client.call(id++, method, params),
      nextId: () => id++,
      keepRecording: () => {
        kept = sessionFile();
      },
    });
    // Every scripted answer was asked for: the exchange went as the scenario meant.
    if (fake.requests.length !== scenario.turns.length)
      throw new Error(
        `${scenario.name}: ${fake.requests.length} model calls for ${scenario.turns.length} turns`,
      );
    const normaliser = new Normaliser(workspace, home);
    const lines: ExampleLine[] = client.log.map((line) =>
      line.message === undefined ? line : { ...line, message: normaliser.out(line.message) },
    );
    writeFileSync(
      join(EXAMPLES, `${scenario.name}.jsonl`),
      lines.map((line) => `${JSON.stringify(line)}\n`).join(''),
    );
    // An exchange with no model call has nothing to replay: it is checked against a live server.
    if (scenario.turns.length > 0) {
      // Normalised like the example (ids, times, paths), so that recording again changes nothing
      // unless the server does; a replay compares neither the workspace's path nor times.
      const recordingNormaliser = new Normaliser(workspace, home);
      const recording = (kept ?? sessionFile())
        .split('\n')
        .map((line) =>
          line === '' ? line : JSON.stringify(recordingNormaliser.out(JSON.parse(line) as Json)),
        )
        .join('\n');
      mkdirSync(join(EXAMPLES, 'recordings'), { recursive: true });
      writeFileSync(join(EXAMPLES, 'recordings', `${scenario.name}.jsonl`), recording);
    }
    console.log(`${scenario.name}: ${lines.length} lines, ${fake.requests.length} model calls`);
  } catch (error) {
    console.error(`${scenario.name}: stderr of the server:\n${client.stderr}`);
    throw error;
  } finally {
    await client.close();
    await fake.close();
    await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
  }
}

if (import.meta.main) {
  const wanted = process.argv.slice(2);
  for (const scenario of SCENARIOS)
    if (wanted.length === 0 || wanted.includes(scenario.name)) await record(scenario);
}
