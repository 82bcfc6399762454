/**
 * Two servers running `config/setup` at the same moment, for different providers, both keep their
 * key: two real processes, each setting up its provider round after round into one config file.
 * Without a lock, one process's read-merge-rename regularly puts back the other's older key.
 *
 * This file is both the test and, run with SANTRA_RACER set, one of the racing processes.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../../scripts/temp-dirs.ts';
import { loadConfig } from '../src/config/config.ts';
import { findPreset } from '../src/providers/presets.ts';
import { setupConfig } from '../src/runtime/config-setup.ts';
import { Redactor } from '../src/support/log.ts';

const ROUNDS = 150;

interface RacerReport {
  provider: string;
  /** Rounds that found this process's own last key replaced by an older one (or gone). */
  lost: number;
  errors: string[];
}

/** One racer: `rounds` setups of `provider`, each with a new key, checking its last one survived. */
async function race(provider: string, rounds: number, startAt: number): Promise<RacerReport> {
  const env = { HOME: process.env.HOME, SANTRA_HOME: process.env.SANTRA_HOME };
  let config = await loadConfig(env);
  const deps = {
    env,
    redactor: new Redactor(),
    current: () => config,
    reload: () => loadConfig(env),
    use: (next: typeof config) => void (config = next),
  };
  const file = join(process.env.SANTRA_HOME ?? '', 'config.json');
  const model = `${provider}/${findPreset(provider)?.defaultModel ?? ''}`;
  const report: RacerReport = { provider, lost: 0, errors: [] };
  await sleep(Math.max(0, startAt - Date.now()));
  for (let round = 0; round < rounds; round++) {
    if (round > 0) {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as {
        providers?: Record<string, { apiKey?: string }>;
      };
      if (saved.providers?.[provider]?.apiKey !== `${provider}-key-${round - 1}`) report.lost++;
    }
    try {
      await setupConfig({ provider, apiKey: `${provider}-key-${round}`, model }, deps);
    } catch (error) {
      report.errors.push(String(error));
    }
  }
  return report;
}

if (process.env.SANTRA_RACER !== undefined) {
  const report = await race(process.env.SANTRA_RACER, ROUNDS, Number(process.env.SANTRA_RACE_AT));
  process.stdout.write(JSON.stringify(report));
} else {
  test('two processes setting up different providers at once both keep their keys, every round', async () => {
    const home = tempDir('santra-setup-race-');
    const santraHome = join(home, 'santra');
    const startAt = Date.now() + 1500;
    const racers = ['groq', 'together'].map((provider) => {
      const child = spawn(process.execPath, [fileURLToPath(import.meta.url)], {
        env: {
          PATH: process.env.PATH,
          HOME: home,
          SANTRA_HOME: santraHome,
          SANTRA_RACER: provider,
          SANTRA_RACE_AT: String(startAt),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      return once(child, 'close').then(([code]) => {
        assert.equal(code, 0, stderr);
        return JSON.parse(stdout) as RacerReport;
      });
    });
    const reports = await Promise.all(racers);
    for (const report of reports) {
      assert.deepEqual(report.errors, [], report.provider);
      assert.equal(
        report.lost,
        0,
        `${report.provider}: its key was lost in ${report.lost} of ${ROUNDS} rounds`,
      );
    }
    const saved = JSON.parse(readFileSync(join(santraHome, 'config.json'), 'utf8')) as {
      providers: Record<string, { apiKey: string }>;
    };
    assert.equal(saved.providers.groq?.apiKey, `groq-key-${ROUNDS - 1}`);
    assert.equal(saved.providers.together?.apiKey, `together-key-${ROUNDS - 1}`);
  });
}
