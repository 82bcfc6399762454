/**
 * A rewound session replayed: recorded through the real server against the fake provider (two
 * prompts, a rewind to the second — with the files put back — and the prompt edited), then executed
 * again by the built `santra -p --replay FILE` in a fresh workspace with no provider. The replay
 * must rewind at the same point, so every later run is sent what it was sent when recorded.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { parseJournal } from '../src/sessions/journal.ts';
import type { SessionRecord } from '../src/sessions/records.ts';
import { sessionServers } from './helpers/sessions.ts';

const SANTRA = fileURLToPath(new URL('../../dist/santra.js', import.meta.url));

const cleanup: Array<() => Promise<void>> = [];
const servers = sessionServers();
servers.later(async () => {
  for (const step of cleanup.reverse()) await step();
});

function dir(prefix: string): string {
  const path = tempDir(prefix);
  cleanup.push(() => removeTempDir(path));
  return path;
}

const TESTER = {
  id: 'tester',
  name: 'Tester',
  description: 'The agent of this test.',
  systemPrompt: 'You are the test agent.',
  toolNames: ['write_file', 'task_completed'],
};

function freshWorkspace(): string {
  const workspace = dir('santra-ws-');
  mkdirSync(join(workspace, '.agents'));
  writeFileSync(join(workspace, '.agents', 'tester.json'), JSON.stringify(TESTER));
  return workspace;
}

/** The session's file, copied out of the recorder's home, and its records. */
function recording(home: string): { file: string; records: SessionRecord[] } {
  const sessions = join(home, 'santra', 'sessions');
  for (const project of readdirSync(sessions))
    for (const name of readdirSync(join(sessions, project)))
      if (name.endsWith('.jsonl')) {
        const text = readFileSync(join(sessions, project, name), 'utf8');
        const file = join(dir('santra-recording-'), name);
        writeFileSync(file, text);
        return { file, records: parseJournal(text, name).records };
      }
  throw new Error(`no session file under ${sessions}`);
}

async function santraReplay(file: string, workspace: string) {
  const home = dir('santra-home-');
  const child = spawn(process.execPath, [SANTRA, '-p', '--replay', file, '--cwd', workspace], {
    cwd: workspace,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, HOME: home, SANTRA_HOME: join(home, 'santra'), NO_COLOR: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

describe('santra -p --replay of a rewound session', () => {
  test('the replay rewinds where the recording did, files included, and every run matches', async () => {
    const fake = await startFakeProvider('anthropic', [
      { text: 'A1' },
      { toolCalls: [{ id: 'w1', name: 'write_file', args: { path: 'b.txt', content: 'b\n' } }] },
      { text: 'A2' },
      { text: 'A2 again' },
    ]);
    cleanup.push(() => fake.close());
    const workspace = freshWorkspace();
    const home = dir('santra-home-');
    const s = await servers.start({
      home,
      workspace,
      anthropicUrl: fake.url,
      capabilities: { approve: true },
      promptDefaults: { agent: 'tester' },
    });
    s.client.handle('approve', () => ({ decision: 'allow' }));
    const first = await s.prompt({ text: 'P1' });
    const sessionId = first.result.sessionId as string;
    const second = await s.prompt({ text: 'P2 writes b', sessionId });
    assert.ok(existsSync(join(workspace, 'b.txt')));
    const rewound = await s.ok('session/rewind', {
      sessionId,
      runId: second.result.runId,
      restoreFiles: true,
    });
    assert.equal(existsSync(join(workspace, 'b.txt')), false, 'put back');
    assert.equal(rewound.text, 'P2 writes b');
    assert.equal((await s.prompt({ text: 'P2 edited', sessionId })).result.status, 'completed');
    const { file, records } = recording(home);
    assert.deepEqual(
      records.filter((r) => r.type === 'rewind').map((r) => r.type === 'rewind' && r.restoreFiles),
      [true],
    );

    const replayWorkspace = freshWorkspace();
    const replay = await santraReplay(file, replayWorkspace);
    assert.equal(replay.code, 0, replay.stderr);
    assert.equal(replay.stdout, 'A1\nA2\nA2 again\n');
    assert.match(
      replay.stderr,
      /santra: replay: rewound to just before prompt 2, as recorded: 1 file change\(s\) put back/,
    );
    assert.doesNotMatch(replay.stderr, /diverged|undid/);
    assert.equal(existsSync(join(replayWorkspace, 'b.txt')), false);
  });
});
