/**
 * Replaying what the person did between runs. Sessions are recorded through the real server
 * against the fake provider — a `session/compact` between prompts, an answer stopped while it
 * streamed, a run stopped at an approval, a `session/undo` — and each recording is executed again
 * by the built `santra -p --replay FILE` in a fresh copy of the workspace, with no provider: every
 * run must end as recorded (exit code 0), with the same answers and the same files. The compaction
 * is also replayed through `santra-server --replay` by a client that plays the user's part as
 * docs/sessions.md says (the prompts, and `session/compact` where the recording compacted).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, describe, test } from 'node:test';
import {
  type FakeProvider,
  type FakeTurn,
  startFakeProvider,
} from '../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { parseJournal } from '../src/sessions/journal.ts';
import type { SessionRecord } from '../src/sessions/records.ts';
import { CANARY_KEY } from './helpers/run.ts';
import { type SessionServer, sessionServers } from './helpers/sessions.ts';
import type { Json } from './helpers/wire.ts';

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

/** An agent that reads and writes files, so a run can make a change that is asked for and undone. */
const TESTER = {
  id: 'tester',
  name: 'Tester',
  description: 'The agent of this test.',
  systemPrompt: 'You are the test agent.',
  toolNames: ['read_file', 'write_file', 'task_completed'],
};

/** The workspace as it is before a recorded session: what every replay starts from. */
function freshWorkspace(): string {
  const workspace = dir('santra-ws-');
  mkdirSync(join(workspace, '.agents'));
  writeFileSync(join(workspace, '.agents', 'tester.json'), JSON.stringify(TESTER));
  writeFileSync(join(workspace, 'greeting.txt'), 'hello world\n');
  return workspace;
}

let fake: FakeProvider;
before(async () => {
  fake = await startFakeProvider('anthropic', []);
  cleanup.push(() => fake.close());
});

/**
 * A recording server on the fake provider. `approve` answers the server's approvals (never
 * answering leaves one open until the run is stopped).
 */
async function recorder(
  workspace: string,
  approve: (params: Json) => unknown = () => ({ decision: 'allow' }),
) {
  const home = dir('santra-home-');
  const s = await servers.start({
    home,
    workspace,
    anthropicUrl: fake.url,
    capabilities: { approve: true },
    promptDefaults: { agent: 'tester' },
  });
  const approvals: Json[] = [];
  s.client.handle('approve', (params) => {
    approvals.push(params);
    return approve(params);
  });
  return { ...s, home, approvals };
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

/** The built santra replaying `file` in `workspace`: a fresh home, no key, no provider, no terminal. */
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

/** Waits until `condition` holds (a phase arrived, an approval was asked). */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A prompt cancelled ($/cancelRequest) once `ready` says so; its result and phases. */
async function stoppedPrompt(s: SessionServer, params: Json, ready: (phases: Json[]) => boolean) {
  const id = `stopped-${Math.random().toString(36).slice(2)}`;
  s.client.request(id, 'prompt', { agent: 'tester', ...params });
  const phases = () => s.client.messages.filter((m) => m.method === 'phase').map((m) => m.params as Json);
  await until(() => ready(phases()), 'the moment to stop the run');
  s.client.notify('$/cancelRequest', { id });
  const response = await s.client.response(id);
  s.client.messages.splice(0);
  assert.equal(response.error, undefined, JSON.stringify(response.error));
  return response.result as Json;
}

const text = (answer: string): FakeTurn => ({ text: answer });
const write = (id: string, path: string, content: string): FakeTurn => ({
  toolCalls: [{ id, name: 'write_file', args: { path, content } }],
});

describe('santra -p --replay of what the person did between runs', () => {
  test('a session/compact between prompts: the replay compacts there too, and the next run matches', async () => {
    const workspace = freshWorkspace();
    const s = await recorder(workspace);
    fake.push(text('A1'), text('A2'), text('The user said P1; the agent answered A1.'), text('A3'));
    const sessionId = (await s.prompt({ text: 'P1' })).result.sessionId as string;
    await s.prompt({ text: 'P2', sessionId });
    const compacted = await s.ok('session/compact', { sessionId, keepTurns: 1 });
    assert.equal(compacted.compacted, true);
    assert.equal((await s.prompt({ text: 'P3', sessionId })).result.status, 'completed');
    const { file, records } = recording(s.home);
    assert.equal(records.filter((record) => record.type === 'compaction').length, 1);

    const replay = await santraReplay(file, freshWorkspace());
    assert.equal(replay.code, 0, replay.stderr);
    assert.equal(replay.stdout, 'A1\nA2\nA3\n');
    assert.match(
      replay.stderr,
      /santra: replay: compacted the conversation, as recorded: 4 messages became 3/,
    );
    assert.doesNotMatch(replay.stderr, /diverged/);
  });

  test("a prompt with the editor's context: the replay sends it again, in the new workspace, and matches", async () => {
    const workspace = freshWorkspace();
    const s = await recorder(workspace);
    fake.push(text('E1'), text('E2'));
    const context = {
      files: [
        {
          path: join(workspace, 'greeting.txt'),
          focused: true,
          selections: [{ start: { line: 1 }, end: { line: 1 } }],
        },
      ],
      diagnostics: [
        {
          path: join(workspace, 'greeting.txt'),
          range: { start: { line: 1, column: 1 }, end: { line: 1, column: 5 } },
          severity: 'warning',
          message: 'lowercase greeting',
        },
      ],
    };
    const sessionId = (await s.prompt({ text: 'P1', context })).result.sessionId as string;
    await s.prompt({ text: 'P2', sessionId });
    const { file } = recording(s.home);

    const replay = await santraReplay(file, freshWorkspace());
    assert.equal(replay.code, 0, replay.stderr);
    assert.equal(replay.stdout, 'E1\nE2\n');
    assert.doesNotMatch(replay.stderr, /diverged/);
  });

  test('santra-server --replay: a client that sends the prompts and the session/compact between them', async () => {
    const workspace = freshWorkspace();
    const s = await recorder(workspace);
    fake.push(text('B1'), text('B2'), text('The user said P1.'), text('B3'));
    const sessionId = (await s.prompt({ text: 'P1' })).result.sessionId as string;
    await s.prompt({ text: 'P2', sessionId });
    await s.ok('session/compact', { sessionId, keepTurns: 1 });
    await s.prompt({ text: 'P3', sessionId });
    const { file } = recording(s.home);

    const home = dir('santra-home-');
    const replay = await servers.start({ home, workspace: freshWorkspace(), args: ['--replay', file] });
    const first = await replay.prompt({ text: 'P1', agent: 'tester' });
    const id = first.result.sessionId as string;
    assert.equal((await replay.prompt({ text: 'P2', agent: 'tester', sessionId: id })).result.output, 'B2');
    const again = await replay.ok('session/compact', { sessionId: id, keepTurns: 1 });
    assert.deepEqual([again.compacted, again.messagesBefore, again.messagesAfter], [true, 4, 3]);
    const third = await replay.prompt({ text: 'P3', agent: 'tester', sessionId: id });
    assert.deepEqual([third.result.status, third.result.output], ['completed', 'B3']);
  });

  test('an answer stopped while it streamed: replayed as stopped, and the next run sees the same note', async () => {
    const workspace = freshWorkspace();
    const s = await recorder(workspace);
    fake.push({ text: 'Let me think', generate: { tokens: 400, tokensPerSecond: 40 } }, text('C2'));
    const stopped = await stoppedPrompt(s, { text: 'P1' }, (phases) =>
      phases.some((phase) => phase.type === 'text'),
    );
    assert.equal(stopped.status, 'cancelled');
    const sessionId = stopped.sessionId as string;
    assert.equal((await s.prompt({ text: 'P2', sessionId })).result.output, 'C2');
    const { file, records } = recording(s.home);
    assert.ok(
      records.some(
        (record) => record.type === 'message' && JSON.stringify(record).includes('stopped your answer'),
      ),
    );

    const replay = await santraReplay(file, freshWorkspace());
    assert.equal(replay.code, 0, replay.stderr);
    assert.ok(replay.stdout.startsWith('Let me think'), replay.stdout);
    assert.ok(replay.stdout.endsWith('C2\n'), replay.stdout);
    assert.doesNotMatch(replay.stderr, /diverged/);
  });

  test('a run stopped at an approval: the replay stops it there too, and the next run matches', async () => {
    const workspace = freshWorkspace();
    // The first approval is never answered: the person stops the run while it is asked.
    const s = await recorder(workspace, () => new Promise(() => {}));
    fake.push(write('w1', 'notes.txt', 'milk\n'), text('D2'));
    const stopped = await stoppedPrompt(s, { text: 'P1' }, () => s.approvals.length === 1);
    assert.equal(stopped.status, 'cancelled');
    const sessionId = stopped.sessionId as string;
    assert.equal((await s.prompt({ text: 'P2', sessionId })).result.output, 'D2');
    const { file } = recording(s.home);

    const replayWorkspace = freshWorkspace();
    const replay = await santraReplay(file, replayWorkspace);
    assert.equal(replay.code, 0, replay.stderr);
    assert.equal(replay.stdout, 'D2\n');
    assert.match(
      replay.stderr,
      /santra: replay: the recorded run was stopped at create notes\.txt .*; stopping it there/,
    );
    assert.ok(!existsSync(join(replayWorkspace, 'notes.txt')), 'the write was not made');
  });

  test('a session/undo between prompts: the replay undoes there too, and leaves the same files', async () => {
    const workspace = freshWorkspace();
    const s = await recorder(workspace);
    fake.push(
      write('w1', 'notes.txt', 'milk\n'),
      text('Wrote notes.txt.'),
      write('w2', 'todo.txt', 'eggs\n'),
      text('Wrote todo.txt.'),
      text('E3'),
    );
    const sessionId = (await s.prompt({ text: 'P1' })).result.sessionId as string;
    await s.prompt({ text: 'P2', sessionId });
    const undone = await s.ok('session/undo', { sessionId });
    assert.deepEqual(
      (undone.changes as Json[]).map((change) => [change.path, change.outcome]),
      [['todo.txt', 'restored']],
    );
    assert.equal((await s.prompt({ text: 'P3', sessionId })).result.output, 'E3');
    assert.deepEqual(
      [existsSync(join(workspace, 'notes.txt')), existsSync(join(workspace, 'todo.txt'))],
      [true, false],
    );
    const { file } = recording(s.home);

    const replayWorkspace = freshWorkspace();
    const replay = await santraReplay(file, replayWorkspace);
    assert.equal(replay.code, 0, replay.stderr);
    assert.equal(replay.stdout, 'Wrote notes.txt.\nWrote todo.txt.\nE3\n');
    assert.match(replay.stderr, /santra: replay: undid the last change, as recorded: restored todo\.txt/);
    assert.equal(readFileSync(join(replayWorkspace, 'notes.txt'), 'utf8'), 'milk\n');
    assert.ok(!existsSync(join(replayWorkspace, 'todo.txt')), 'the undone file is gone again');
    assert.ok(!replay.stdout.includes(CANARY_KEY) && !replay.stderr.includes(CANARY_KEY));
  });
});
