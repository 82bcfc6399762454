/**
 * Streams real providers sent, replayed through the built server over stdio: every recording of
 * the corpus (fixtures/real-streams/, SOURCES.md) shows as it was sent — text, thinking, tool
 * calls run once with their results sent back under their ids, usage, and how it ended.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FakeApi } from '../../conformance-tests/src/fake-providers/index.ts';
import { checkReplay, loadRecordings, promptFor, providerSetup, turnsFor } from './helpers/real-streams.ts';
import { type Harness, suiteHarnesses } from './helpers/run.ts';

const start = suiteHarnesses();
const recordings = loadRecordings();

test('the corpus holds at least 40 recordings of every wire API', () => {
  assert.ok(recordings.length >= 40, `${recordings.length} recordings`);
  for (const api of ['anthropic', 'openai', 'openai-responses'] as const)
    assert.ok(recordings.filter((r) => r.api === api).length >= 6, api);
});

for (const api of ['anthropic', 'openai', 'openai-responses'] as const satisfies readonly FakeApi[]) {
  describe(`${api} recordings through santra-server`, () => {
    let server: Promise<Harness> | undefined;
    const harness = () => {
      server ??= (async () => {
        // The harness points the server at the fake for anthropic and openai itself.
        if (api !== 'openai-responses') return start(api, []);
        const setup = providerSetup(api, 'FAKE_URL');
        return start(api, [], setup.env, setup.config);
      })();
      return server;
    };
    for (const recording of recordings.filter((r) => r.api === api)) {
      test(`${recording.name}: ${recording.what}`, async () => {
        const h = await harness();
        const before = h.fake.requests.length;
        h.fake.push(...turnsFor(recording));
        const { response, phases } = await h.prompt({ text: promptFor(recording) });
        assert.equal(response.error, undefined, JSON.stringify(response.error));
        checkReplay(
          recording,
          phases,
          response.result as Record<string, unknown>,
          h.fake.requests.slice(before),
        );
      });
    }
  });
}
