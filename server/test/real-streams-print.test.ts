/**
 * Streams real providers sent, replayed through `santra -p` (the built client, which starts the
 * built server): every recording of the corpus shows as it was sent, and the exit code says whether
 * the answer is whole (docs/user-guide.md: 3 when it was cut off or refused).
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  type FakeApi,
  type FakeProvider,
  startFakeProvider,
} from '../../conformance-tests/src/fake-providers/index.ts';
import { tempDir } from '../../scripts/temp-dirs.ts';
import {
  checkReplay,
  expectedExitCode,
  loadRecordings,
  promptFor,
  providerSetup,
  turnsFor,
} from './helpers/real-streams.ts';
import { CANARY_KEY, FAST_RESILIENCE, runSantra, TESTER } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const recordings = loadRecordings();
const APIS = ['anthropic', 'openai', 'openai-responses'] as const satisfies readonly FakeApi[];

for (const api of APIS) {
  describe(`${api} recordings through santra -p`, { concurrency: 2 }, () => {
    let fake: FakeProvider;
    let env: NodeJS.ProcessEnv;
    const workspace = tempDir('santra-ws-');
    before(async () => {
      fake = await startFakeProvider(api, []);
      const home = tempDir('santra-home-');
      const santraHome = join(home, 'santra');
      const setup = providerSetup(api, fake.url);
      if (setup.config !== undefined) {
        mkdirSync(santraHome, { recursive: true, mode: 0o700 });
        writeFileSync(join(santraHome, 'config.json'), JSON.stringify(setup.config), { mode: 0o600 });
      }
      env = { PATH: process.env.PATH, HOME: home, SANTRA_HOME: santraHome, ...FAST_RESILIENCE, ...setup.env };
      mkdirSync(join(workspace, '.agents'), { recursive: true });
      writeFileSync(join(workspace, '.agents/tester.json'), JSON.stringify(TESTER));
    });
    after(() => fake.close());

    for (const recording of recordings.filter((r) => r.api === api)) {
      test(`${recording.name}: ${recording.what}`, async () => {
        fake.push(...turnsFor(recording));
        const tag = promptFor(recording);
        const { code, stdout, stderr } = await runSantra(
          ['-p', tag, '--agent', 'tester', '--output-format', 'stream-json', '--cwd', workspace],
          { cwd: workspace, env },
        );
        assert.ok(
          !stdout.includes(CANARY_KEY) && !stderr.includes(CANARY_KEY),
          'the key never leaves the server',
        );
        const lines = stdout
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line) as Json);
        const result = lines.find((line) => line.type === 'result');
        assert.ok(result !== undefined, `a result line: ${stdout}\n${stderr}`);
        const requests = fake.requests.filter((request) => JSON.stringify(request.body).includes(tag));
        checkReplay(
          recording,
          lines.filter((line) => line !== result),
          result,
          requests,
        );
        assert.equal(code, expectedExitCode(recording), `exit code; stderr: ${stderr}`);
        if (code === 3)
          assert.match(
            stderr,
            /santra: (the answer is incomplete: .+|the model declined to answer) \(exit code 3\)/,
          );
      });
    }
  });
}
