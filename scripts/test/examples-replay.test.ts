/**
 * The spec's example exchanges that involve a model are recordings of the real server
 * (scripts/record-examples.ts): each is re-executed here with `santra-server --replay` from its
 * session file in protocol-spec/examples/recordings/, driven by the example's client messages,
 * and the server must send exactly the example's server messages, after the same normalisation
 * as when it was recorded (ids, times, paths). A recording the server no longer replays shows as
 * a `replay_divergence` error phase where the example has something else; an example that drifts
 * from what the server sends fails with the line and the difference.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ExchangeClient, Normaliser } from '../examples/exchange.ts';
import { SCENARIOS } from '../examples/scenarios.ts';
import { loadExamples } from '../examples.ts';
import { initialize, prepare, recordingEnv } from '../record-examples.ts';
import { removeTempDir } from '../temp-dirs.ts';

const dir = fileURLToPath(new URL('../../protocol-spec/examples', import.meta.url));
const examples = await loadExamples(dir);

/** Replayed exactly, with no model, by server/test/stdio.test.ts. */
const EXACT = ['lifecycle', 'version-mismatch', 'errors'];

describe('the example exchanges, replayed from their recordings by the real server', () => {
  test('every example is checked against the real server: exactly, or through its recording', () => {
    const recorded = SCENARIOS.map((scenario) => scenario.name);
    for (const scenario of SCENARIOS.filter((s) => s.turns.length > 0))
      assert.ok(
        existsSync(join(dir, 'recordings', `${scenario.name}.jsonl`)),
        `recordings/${scenario.name}.jsonl exists`,
      );
    assert.deepEqual(
      examples
        .map((example) => example.name)
        .filter((name) => !EXACT.includes(name) && !recorded.includes(name)),
      [],
      'examples that no test compares with what the server sends',
    );
  });

  for (const scenario of SCENARIOS) {
    const example = examples.find((e) => e.name === scenario.name);
    const replayed = scenario.turns.length > 0;
    const how = replayed
      ? `the server replaying recordings/${scenario.name}.jsonl`
      : 'the server (no model call: nothing to replay)';
    test(`${scenario.name}.jsonl: ${how} sends exactly the example's messages`, async () => {
      assert.ok(example, `protocol-spec/examples/${scenario.name}.jsonl exists`);
      const { home, workspace } = prepare(scenario);
      // The environment it was recorded in (what a command may not see is part of `terminal/run`),
      // with a provider that is configured but never contacted: port 9 (discard) on this machine.
      const env = recordingEnv(home, 'http://127.0.0.1:9');
      const client = replayed
        ? new ExchangeClient(['--replay', join(dir, 'recordings', `${scenario.name}.jsonl`)], env)
        : new ExchangeClient([], env);
      try {
        await initialize(client, workspace, scenario.capabilities);
        const normaliser = new Normaliser(workspace, home);
        for (const [index, line] of example.lines.entries()) {
          const where: string = `${example.file}:${index + 1}`;
          if (line.from === 'client' && line.message) client.send(normaliser.in(line.message));
          else if (line.from === 'server' && line.message) {
            const actual = normaliser.out(await client.next());
            assert.deepEqual(
              actual,
              line.message,
              `${where}: the server sent something else (if the change is intended: npm run examples:record)`,
            );
          }
        }
        assert.deepEqual(client.pending, [], 'no messages beyond the example');
      } finally {
        await client.close();
        await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
      }
    });
  }
});
