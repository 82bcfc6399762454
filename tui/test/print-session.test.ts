/**
 * client/session.ts, the client layer under `santra -p` and the interactive UI, against the fake
 * server over real pipes: the initialize result handed back, the client name, the generic
 * `request` (its result checked against the method table, the server's refusal as a PrintError),
 * and `resume` with afterSeq.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import type { Phase } from '#protocol';
import { PrintError, ServerSession } from '../src/client/session.ts';
import { tempDir } from '../../scripts/temp-dirs.ts';
import { FAKE_SERVER } from './helpers/print-run.ts';

const open: ServerSession[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((session) => session.close()));
});

function connect(clientName?: string) {
  const log = join(tempDir('santra-session-log-'), 'fake.log');
  const server = spawn(process.execPath, [FAKE_SERVER], {
    stdio: 'pipe',
    env: { ...process.env, FAKE_LOG: log },
  });
  const phases: Phase[] = [];
  const session = new ServerSession({
    server,
    workspaceRoot: process.cwd(),
    ...(clientName === undefined ? {} : { clientName }),
    clientVersion: '0.1.0',
    capabilities: { approve: true, ask: true, diffs: true },
    approvals: {
      approve: () => Promise.reject(new Error('no approvals here')),
      ask: () => Promise.reject(new Error('no questions here')),
    },
    verbose: false,
    stderr: process.stderr,
    onPhase: (_raw, phase) => {
      if (phase !== undefined) phases.push(phase);
    },
  });
  open.push(session);
  const sent = () =>
    readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { method?: string; params?: Record<string, unknown> });
  return { session, phases, sent };
}

describe('ServerSession', () => {
  test('initialize returns the server result; the client name is an option (santra-print by default)', async () => {
    const print = connect();
    const result = await print.session.initialize();
    assert.equal(result.serverInfo.name, 'fake-server');
    assert.ok(result.capabilities.methods.includes('prompt'));
    const init = print.sent().find((entry) => entry.method === 'initialize');
    assert.deepEqual(init?.params?.clientInfo, { name: 'santra-print', version: '0.1.0' });

    const tui = connect('santra-tui');
    await tui.session.initialize();
    const named = tui.sent().find((entry) => entry.method === 'initialize');
    assert.deepEqual(named?.params?.clientInfo, { name: 'santra-tui', version: '0.1.0' });
  });

  test('request: a valid result is returned, an invalid one and a refusal are PrintErrors', async () => {
    const { session } = connect();
    await session.initialize();
    assert.deepEqual(await session.request('model/set', { model: 'x' }), { model: 'fake/x' });
    await assert.rejects(
      session.request('session/compact', { sessionId: 'ses_1' }),
      (error) =>
        error instanceof PrintError &&
        error.message === 'santra: santra-server answered session/compact with an invalid result',
    );
    await assert.rejects(
      session.request('session/undo', { sessionId: 'ses_gone' }),
      (error) =>
        error instanceof PrintError &&
        error.message === 'santra: santra-server refused session/undo: Unknown session ses_gone',
    );
  });

  test('resume with afterSeq: the saved phases above it arrive before the answer', async () => {
    const { session, phases, sent } = connect();
    await session.initialize();
    const plain = await session.resume('ses_a');
    assert.equal(plain.replayedPhases, 0);
    assert.equal(phases.length, 0);
    const replayed = await session.resume('ses_a', 1);
    assert.equal(replayed.replayedPhases, 2);
    assert.deepEqual(
      phases.map((phase) => phase.seq),
      [2, 3],
    );
    assert.deepEqual(
      sent()
        .filter((entry) => entry.method === 'session/resume')
        .map((entry) => entry.params),
      [{ sessionId: 'ses_a' }, { sessionId: 'ses_a', afterSeq: 1 }],
    );
  });
});
