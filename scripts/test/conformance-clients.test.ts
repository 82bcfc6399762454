/**
 * Santra's own clients against the conformance suite's client mode (conformance-tests/src/client):
 * the built `santra -p`, the interactive UI (in tmux, driven by tui-user.ts as a person would) and
 * the Neovim plugin (headless nvim, as nvim-plugin.test.ts runs it) each start the scripted server
 * in place of santra-server and play every scenario; every mandatory and applicable
 * capability-gated client requirement must pass. Advisory findings are printed with
 * SHOW_REPORTS=1, not asserted.
 *
 * It lives in scripts/test: it runs the built santra (dist/) and the editor plugin, which
 * conformance-tests/ may not import. Neovim is installed by .ci/run.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type ClientUnderTest, runClientSuite } from '../../conformance-tests/src/client/driver.ts';
import { buildReport, type ClientReport, formatText } from '../../conformance-tests/src/client/report.ts';
import { removeTempDir, tempDir } from '../temp-dirs.ts';

const SANTRA = fileURLToPath(new URL('../../dist/santra.js', import.meta.url));
const PLUGIN = fileURLToPath(new URL('../../editors/nvim', import.meta.url));
const NVIM_USER = fileURLToPath(new URL('../../conformance-tests/src/client/nvim-user.lua', import.meta.url));
const TUI_USER = fileURLToPath(new URL('../../conformance-tests/src/client/tui-user.ts', import.meta.url));
const cleanups: (() => Promise<void>)[] = [];

after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A temp HOME and workspace, so no client reads the real home directory. */
function sandbox(): { home: string; workspace: string; env: Record<string, string> } {
  const home = tempDir('santra-client-home-');
  const workspace = tempDir('santra-client-ws-');
  cleanups.push(() => Promise.all([removeTempDir(home), removeTempDir(workspace)]).then(() => {}));
  return {
    home,
    workspace,
    env: {
      HOME: home,
      SANTRA_HOME: join(home, 'santra'),
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_DATA_HOME: join(home, '.local/share'),
      XDG_STATE_HOME: join(home, '.local/state'),
      XDG_CACHE_HOME: join(home, '.cache'),
      NO_COLOR: '1',
    },
  };
}

/** Neovim with no user config, no shada, no swap files, and the plugin on its runtimepath. */
const NVIM_HEADLESS = ['--headless', '-u', 'NONE', '-i', 'NONE', '-n', '--cmd', `set rtp^=${PLUGIN}`];

async function check(
  client: Omit<ClientUnderTest, 'cwd' | 'env'>,
  extraEnv: Record<string, string> = {},
): Promise<ClientReport> {
  const { workspace, env } = sandbox();
  const report = buildReport(
    client.command,
    await runClientSuite({ ...client, cwd: workspace, env: { ...env, ...extraEnv } }),
  );
  if (process.env.SHOW_REPORTS === '1') console.log(formatText(report));
  return report;
}

/** Every mandatory and capability-gated requirement that was decided passed, and every scenario ran. */
function assertConforms(report: ClientReport): void {
  const failed = report.requirements.filter((r) => r.status === 'fail' && r.tier !== 'advisory');
  assert.deepEqual(
    failed.map((r) => `${r.id}: ${r.findings.map((f) => `${f.scenario}: ${f.message}`).join('; ')}`),
    [],
    formatText(report),
  );
  assert.deepEqual(
    report.scenarios
      .filter((s) => s.problems.length > 0)
      .map((s) => `${s.scenario}: ${s.problems.join('; ')}`),
    [],
  );
  assert.equal(report.ok, true);
}

const statusOf = (report: ClientReport, id: string) => report.requirements.find((r) => r.id === id)?.status;

/**
 * The client conforms, names itself `name`, and passed each of `exercised`: what the scenarios
 * exercised, not only what they allowed to pass by being not applicable.
 */
function assertExercised(report: ClientReport, name: string, exercised: readonly string[]): void {
  assertConforms(report);
  assert.equal((report.client as { name?: string } | null)?.name, name);
  for (const id of exercised) assert.equal(statusOf(report, id), 'pass', `${id}\n${formatText(report)}`);
}

describe('Santra clients against the client mode', () => {
  test('santra is built, and Neovim and tmux are installed', () => {
    assert.ok(existsSync(SANTRA), 'run npm run build first');
    assert.equal(spawnSync('nvim', ['--version']).status, 0, 'install neovim');
    assert.equal(spawnSync('tmux', ['-V']).status, 0, 'install tmux');
  });

  test('santra -p (no terminal: approvals rejected by policy) passes every mandatory client requirement', async () => {
    const report = await check({
      command: [process.execPath, SANTRA, '-p', 'hello'],
      cancel: 'sigint',
      unattended: true,
    });
    assertExercised(report, 'santra-print', [
      'SANTRA-CLIENT-006',
      'SANTRA-CLIENT-008',
      'SANTRA-MSG-007',
      'SANTRA-CLIENT-009',
      'SANTRA-CLIENT-010',
      'SANTRA-VER-003',
      'SANTRA-APPROVE-016',
    ]);
  });

  test('santra -p --approve-all still rejects a protected change it has no one to ask about', async () => {
    const report = await check({
      command: [process.execPath, SANTRA, '-p', '--approve-all', 'hello'],
      cancel: 'sigint',
      unattended: true,
      scenarios: ['approve', 'protected'],
    });
    assertConforms(report);
    assert.equal(statusOf(report, 'SANTRA-APPROVE-016'), 'pass', formatText(report));
  });

  test('the interactive UI (a person at the keys, in tmux) passes every mandatory client requirement', async () => {
    const report = await check({
      command: [process.execPath, TUI_USER, process.execPath, SANTRA],
      cancel: 'client',
      unattended: false,
    });
    assertExercised(report, 'santra-tui', [
      'SANTRA-CLIENT-006',
      'SANTRA-CLIENT-007',
      'SANTRA-CLIENT-008',
      'SANTRA-CLIENT-009',
      'SANTRA-CLIENT-010',
      'SANTRA-VER-003',
      'SANTRA-CLIENT-016',
    ]);
  });

  test('the Neovim plugin (a person answering in headless nvim) passes every mandatory client requirement', async () => {
    const report = await check({
      command: ['nvim', ...NVIM_HEADLESS, '-c', `luafile ${NVIM_USER}`],
      cancel: 'client',
      unattended: false,
    });
    assertExercised(report, 'santra.nvim', [
      'SANTRA-CLIENT-006',
      'SANTRA-CLIENT-007',
      'SANTRA-CLIENT-008',
      'SANTRA-CLIENT-009',
      'SANTRA-CLIENT-010',
      'SANTRA-VER-003',
      'SANTRA-CLIENT-013',
      'SANTRA-CLIENT-016',
      'SANTRA-FRAME-012',
    ]);
  });

  test('the Neovim plugin: feedback left empty is a plain reject, never an invalid answer', async () => {
    const report = await check(
      {
        command: ['nvim', ...NVIM_HEADLESS, '-c', `luafile ${NVIM_USER}`],
        cancel: 'client',
        unattended: false,
        scenarios: ['approve'],
      },
      { SANTRA_CONFORMANCE_NVIM_KEY: 'f', SANTRA_CONFORMANCE_NVIM_FEEDBACK: '' },
    );
    assertConforms(report);
    assert.equal(statusOf(report, 'SANTRA-CLIENT-006'), 'pass', formatText(report));
  });
});
