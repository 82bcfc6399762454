/**
 * session/undo through the real server: a fake model makes real file changes with the file tools,
 * and undo puts the files back — one change or a whole run at a time, asking first where a file
 * changed since, from the records alone after a restart.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  type FakeProvider,
  type FakeTurn,
  startFakeProvider,
} from '../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { parseJournal } from '../src/sessions/journal.ts';
import type { SessionRecord } from '../src/sessions/records.ts';
import { CANARY_KEY } from './helpers/run.ts';
import { sessionServers } from './helpers/sessions.ts';
import type { Json } from './helpers/wire.ts';

const cleanup: Array<() => Promise<void>> = [];

/** An agent with the file tools, so the fake model's calls run without the orchestrator. */
const EDITOR = {
  id: 'editor',
  name: 'Editor',
  description: 'Changes files for the undo tests.',
  systemPrompt: 'You edit files.',
  toolNames: ['read_file', 'write_file', 'str_replace', 'multi_edit', 'delete_file', 'move_file'],
};

const APPROVER = { approve: true };

type Call = { id: string; name: string; args: Json };
const call = (id: string, name: string, args: Json): Call => ({ id, name, args });
/** One run: its tool calls, one model turn each, then a closing text. */
const run = (...calls: Call[]): FakeTurn[] => [...calls.map((c) => ({ toolCalls: [c] })), { text: 'Done.' }];

/** A home and a workspace that outlive any one server, and a fake provider serving `turns`. */
async function setup(turns: FakeTurn[], files: Record<string, string | Buffer> = {}) {
  const fake = await startFakeProvider('anthropic', turns);
  const home = tempDir('santra-home-');
  const workspace = tempDir('santra-ws-');
  mkdirSync(join(workspace, '.agents'));
  writeFileSync(join(workspace, '.agents/editor.json'), JSON.stringify(EDITOR));
  for (const [path, content] of Object.entries(files)) put(workspace, path, content);
  cleanup.push(async () => {
    await fake.close();
    await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
  });
  return { fake, home, workspace };
}

function put(workspace: string, path: string, content: string | Buffer): void {
  mkdirSync(join(workspace, path, '..'), { recursive: true });
  writeFileSync(join(workspace, path), content);
}

const read = (workspace: string, path: string) =>
  existsSync(join(workspace, path)) ? readFileSync(join(workspace, path), 'utf8') : undefined;

const servers = sessionServers();
servers.later(async () => {
  for (const step of cleanup.reverse()) await step();
});

/**
 * A server on the setup's home and workspace. `approvals` answers `approve` requests: every
 * request is kept in `asked`; the prompt's own are allowed, an undo's get `undoAnswer`.
 */
async function server(
  at: { home: string; fake: FakeProvider; workspace: string },
  capabilities: Json = APPROVER,
  args: string[] = [],
) {
  const base = await servers.start({
    home: at.home,
    workspace: at.workspace,
    anthropicUrl: at.fake.url,
    capabilities,
    args,
    promptDefaults: { agent: 'editor' },
  });
  const undoAsks: Json[] = [];
  let undoAnswer: (params: Json) => unknown = () => ({ decision: 'reject' });
  base.client.handle('approve', (params) => {
    if (params.toolName !== 'session/undo') return { decision: 'allow' };
    undoAsks.push(params);
    return undoAnswer(params);
  });
  return {
    client: base.client,
    undoAsks,
    answerUndo(answer: (params: Json) => unknown) {
      undoAnswer = answer;
    },
    call: base.call,
    /** A prompt that must complete; its result. */
    async prompt(params: Json): Promise<Json> {
      const { result } = await base.prompt(params);
      assert.equal(result.status, 'completed');
      return result;
    },
    async undo(sessionId: string, scope?: 'change' | 'run'): Promise<Json[]> {
      const result = await base.ok('session/undo', { sessionId, ...(scope === undefined ? {} : { scope }) });
      return result.changes as Json[];
    },
    stop: base.stop,
  };
}

/** The saved records of the only session in `home`. */
function savedRecords(home: string): SessionRecord[] {
  const dir = join(home, 'santra', 'sessions');
  const [project] = readdirSync(dir);
  const file = readdirSync(join(dir, project as string)).find((name) => name.endsWith('.jsonl'));
  const parsed = parseJournal(readFileSync(join(dir, project as string, file as string), 'utf8'), 'session');
  assert.deepEqual(parsed.warnings, []);
  return parsed.records;
}

const outcomes = (changes: Json[]) =>
  changes.map((c) => `${String(c.operation)} ${String(c.path)} ${String(c.outcome)}`);

describe('session/undo', () => {
  test('one change at a time, newest first: a move, a deletion, an edit and a creation are put back', async () => {
    const at = await setup(
      run(
        call('c1', 'write_file', { path: 'new.txt', content: 'brand new\n' }),
        call('c2', 'str_replace', { path: 'edit.txt', oldStr: 'old line', newStr: 'new line' }),
        call('c3', 'delete_file', { path: 'gone.txt' }),
        call('c4', 'move_file', { from: 'from.txt', to: 'sub/to.txt' }),
      ),
      { 'edit.txt': 'keep\nold line\n', 'gone.txt': 'deleted content\n', 'from.txt': 'moving\n' },
    );
    const s = await server(at);
    const { sessionId } = await s.prompt({ text: 'change things' });
    const id = sessionId as string;
    assert.equal(read(at.workspace, 'sub/to.txt'), 'moving\n');

    assert.deepEqual(outcomes(await s.undo(id)), ['move from.txt restored']);
    assert.equal(read(at.workspace, 'from.txt'), 'moving\n');
    assert.equal(read(at.workspace, 'sub/to.txt'), undefined);
    assert.equal(read(at.workspace, 'gone.txt'), undefined, 'one change only');

    assert.deepEqual(outcomes(await s.undo(id, 'change')), ['delete gone.txt restored']);
    assert.equal(read(at.workspace, 'gone.txt'), 'deleted content\n');
    assert.equal(read(at.workspace, 'edit.txt'), 'keep\nnew line\n');

    assert.deepEqual(outcomes(await s.undo(id)), ['modify edit.txt restored']);
    assert.equal(read(at.workspace, 'edit.txt'), 'keep\nold line\n');
    assert.equal(read(at.workspace, 'new.txt'), 'brand new\n');

    assert.deepEqual(outcomes(await s.undo(id)), ['create new.txt restored']);
    assert.equal(read(at.workspace, 'new.txt'), undefined);

    assert.deepEqual(await s.undo(id), [], 'nothing left to undo');
    assert.deepEqual(s.undoAsks, [], 'files nobody touched since are restored without asking');

    const saved = savedRecords(at.home);
    const changes = saved.filter((r) => r.type === 'file_change');
    assert.deepEqual(
      changes.map((r) => [r.operation, r.path, r.before, r.after, r.destination, r.toolCallId]),
      [
        ['create', 'new.txt', null, 'brand new\n', undefined, 'c1'],
        ['modify', 'edit.txt', 'keep\nold line\n', 'keep\nnew line\n', undefined, 'c2'],
        ['delete', 'gone.txt', 'deleted content\n', null, undefined, 'c3'],
        ['move', 'from.txt', 'moving\n', 'moving\n', 'sub/to.txt', 'c4'],
      ],
    );
    const undos = saved.filter((r) => r.type === 'undo').map((r) => r.changeIds);
    assert.deepEqual(undos, changes.map((r) => [r.changeId]).reverse());
  });

  test('a whole run at once: its changes in reverse order, an earlier run untouched, binary content exact', async () => {
    const binary = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe, 0x10, 0x80]);
    const at = await setup(
      [
        ...run(call('a1', 'write_file', { path: 'a.txt', content: 'one\n' })),
        ...run(
          call('b1', 'str_replace', { path: 'a.txt', oldStr: 'one', newStr: 'two' }),
          call('b2', 'multi_edit', {
            path: 'a.txt',
            edits: [{ oldStr: 'two', newStr: 'three' }],
          }),
          call('b3', 'write_file', { path: 'deep/b.txt', content: 'b\n' }),
          call('b4', 'delete_file', { path: 'image.png' }),
        ),
      ],
      { 'image.png': binary },
    );
    const s = await server(at);
    const first = await s.prompt({ text: 'first' });
    const id = first.sessionId as string;
    await s.prompt({ text: 'second', sessionId: id });
    assert.equal(read(at.workspace, 'a.txt'), 'three\n');
    assert.equal(existsSync(join(at.workspace, 'image.png')), false);

    assert.deepEqual(outcomes(await s.undo(id, 'run')), [
      'delete image.png restored',
      'create deep/b.txt restored',
      'modify a.txt restored',
      'modify a.txt restored',
    ]);
    assert.deepEqual(readFileSync(join(at.workspace, 'image.png')), binary);
    assert.equal(read(at.workspace, 'deep/b.txt'), undefined);
    assert.equal(read(at.workspace, 'a.txt'), 'one\n', 'the first run’s change stays');

    assert.deepEqual(outcomes(await s.undo(id, 'run')), ['create a.txt restored']);
    assert.equal(read(at.workspace, 'a.txt'), undefined);
    assert.deepEqual(s.undoAsks, []);
  });

  test('a file changed since is asked about: allow restores it, reject keeps it, and both are done with', async () => {
    const at = await setup(
      run(
        call('c1', 'str_replace', { path: 'x.txt', oldStr: 'x1', newStr: 'x2' }),
        call('c2', 'write_file', { path: 'y.txt', content: 'model y\n' }),
        call('c3', 'delete_file', { path: 'z.txt' }),
        call('c4', 'write_file', { path: 'w.txt', content: 'model w\n' }),
      ),
      { 'x.txt': 'x1\n', 'z.txt': 'z\n' },
    );
    const s = await server(at);
    const id = (await s.prompt({ text: 'change' })).sessionId as string;
    // The user works on after the run: edits x and y, makes a new z, removes w.
    writeFileSync(join(at.workspace, 'x.txt'), 'x2 and the user’s line\n');
    writeFileSync(join(at.workspace, 'y.txt'), 'user y\n');
    writeFileSync(join(at.workspace, 'z.txt'), 'user z\n');
    writeFileSync(join(at.workspace, 'w.txt'), '');
    const answers: Record<string, string> = {
      'w.txt': 'allow',
      'z.txt': 'reject',
      'y.txt': 'reject',
      'x.txt': 'allow',
    };
    s.answerUndo((params) => {
      // Nothing is written before the answer.
      assert.equal(read(at.workspace, 'x.txt'), 'x2 and the user’s line\n');
      return { decision: answers[String(params.path)] };
    });

    const changes = await s.undo(id, 'run');
    assert.deepEqual(outcomes(changes), [
      'create w.txt restored',
      'delete z.txt kept',
      'create y.txt kept',
      'modify x.txt restored',
    ]);
    assert.match(String(changes[1]?.reason), /declined/);
    assert.deepEqual(
      s.undoAsks.map((a) => [a.kind, a.path, a.operation, a.toolName, a.toolCallId, a.agentId]),
      [
        ['file_change', 'w.txt', 'delete', 'session/undo', 'c4', 'undo'],
        ['file_change', 'z.txt', 'modify', 'session/undo', 'c3', 'undo'],
        ['file_change', 'y.txt', 'delete', 'session/undo', 'c2', 'undo'],
        ['file_change', 'x.txt', 'modify', 'session/undo', 'c1', 'undo'],
      ],
    );
    // The diff is from the file as it is now to what the undo would write.
    const xDiff = (s.undoAsks[3]?.diff as Json).unifiedDiff as string;
    assert.match(xDiff, /-x2 and the user’s line\n\+x1/);
    assert.match((s.undoAsks[1]?.diff as Json).unifiedDiff as string, /-user z\n\+z/);

    assert.equal(read(at.workspace, 'x.txt'), 'x1\n');
    assert.equal(read(at.workspace, 'y.txt'), 'user y\n');
    assert.equal(read(at.workspace, 'z.txt'), 'user z\n');
    assert.equal(read(at.workspace, 'w.txt'), undefined);
    assert.deepEqual(await s.undo(id, 'run'), [], 'declined changes are done with too');
  });

  test('a move: the file edited since is moved back when allowed; one removed since is written again from the record', async () => {
    const at = await setup(
      run(
        call('m1', 'move_file', { from: 'a.txt', to: 'b/a.txt' }),
        call('m2', 'move_file', { from: 'c.txt', to: 'd.txt' }),
      ),
      { 'a.txt': 'a\n', 'c.txt': 'c\n' },
    );
    const s = await server(at);
    const id = (await s.prompt({ text: 'move' })).sessionId as string;
    writeFileSync(join(at.workspace, 'b/a.txt'), 'a, edited\n');
    rmSync(join(at.workspace, 'd.txt'));
    s.answerUndo(() => ({ decision: 'allow' }));

    assert.deepEqual(outcomes(await s.undo(id, 'run')), ['move c.txt restored', 'move a.txt restored']);
    assert.deepEqual(
      s.undoAsks.map((a) => [a.path, a.destination, a.operation]),
      [
        ['c.txt', undefined, 'create'],
        ['b/a.txt', 'a.txt', 'move'],
      ],
    );
    const moveBack = (s.undoAsks[1]?.diff as Json).unifiedDiff as string;
    assert.ok(moveBack.startsWith('--- a/b/a.txt\n+++ b/a.txt\n'), `the diff shows the rename: ${moveBack}`);
    assert.equal(read(at.workspace, 'c.txt'), 'c\n');
    assert.equal(read(at.workspace, 'a.txt'), 'a, edited\n', 'moved back as it is now');
    assert.equal(read(at.workspace, 'b/a.txt'), undefined);
  });

  test('without a client that can approve, a file changed since is kept and stays undoable; untouched ones are restored', async () => {
    const at = await setup(
      run(
        call('c1', 'write_file', { path: 'a.txt', content: 'model a\n' }),
        call('c2', 'write_file', { path: 'b.txt', content: 'model b\n' }),
      ),
    );
    const s = await server(at, {}, ['--auto-approve']);
    const id = (await s.prompt({ text: 'write' })).sessionId as string;
    writeFileSync(join(at.workspace, 'a.txt'), 'user a\n');

    const changes = await s.undo(id, 'run');
    assert.deepEqual(outcomes(changes), ['create b.txt restored', 'create a.txt kept']);
    assert.match(String(changes[1]?.reason), /changed since.*cannot approve/);
    assert.equal(
      read(at.workspace, 'a.txt'),
      'user a\n',
      'never overwritten silently (not even under --auto-approve)',
    );
    assert.equal(read(at.workspace, 'b.txt'), undefined);
    assert.deepEqual(outcomes(await s.undo(id)), ['create a.txt kept'], 'still there to undo');
  });

  test('a session resumed in a new server undoes what the earlier one did, and a second undo goes further back', async () => {
    const at = await setup(
      run(
        call('c1', 'write_file', { path: 'notes.md', content: '# Notes\n' }),
        call('c2', 'str_replace', { path: 'notes.md', oldStr: '# Notes', newStr: '# Notes\n\nmore' }),
      ),
    );
    const first = await server(at);
    const id = (await first.prompt({ text: 'write notes' })).sessionId as string;
    await first.stop();

    const second = await server(at);
    assert.equal((await second.call('session/resume', { sessionId: id })).error, undefined);
    assert.deepEqual(outcomes(await second.undo(id)), ['modify notes.md restored']);
    assert.equal(read(at.workspace, 'notes.md'), '# Notes\n');
    await second.stop();

    // Undo without resume: the store has it.
    const third = await server(at);
    assert.deepEqual(outcomes(await third.undo(id)), ['create notes.md restored']);
    assert.equal(read(at.workspace, 'notes.md'), undefined);
    assert.deepEqual(await third.undo(id), []);
  });

  test('content saved with a secret redacted is never written back', async () => {
    const at = await setup(run(call('c1', 'write_file', { path: '.env.local', content: 'KEY=none\n' })), {
      '.env.local': `KEY=${CANARY_KEY}\n`,
    });
    const first = await server(at, {}, ['--auto-approve']);
    const id = (await first.prompt({ text: 'clear the key' })).sessionId as string;
    await first.stop();
    assert.ok(!JSON.stringify(savedRecords(at.home)).includes(CANARY_KEY), 'the key is not saved');

    const second = await server(at, {}, ['--auto-approve']);
    const changes = await second.undo(id);
    assert.deepEqual(outcomes(changes), ['modify .env.local kept']);
    assert.match(String(changes[0]?.reason), /not saved exactly \(secrets are redacted/);
    assert.equal(read(at.workspace, '.env.local'), 'KEY=none\n');
  });

  test('a protected location is always asked, even unchanged', async () => {
    const at = await setup(run(call('c1', 'write_file', { path: '.santra/notes.md', content: 'n\n' })));
    const s = await server(at);
    const id = (await s.prompt({ text: 'write' })).sessionId as string;
    s.answerUndo(() => ({ decision: 'allow' }));
    assert.deepEqual(outcomes(await s.undo(id)), ['create .santra/notes.md restored']);
    assert.equal(s.undoAsks[0]?.protected, true);
    assert.equal(read(at.workspace, '.santra/notes.md'), undefined);
  });

  test('a session running a prompt is busy; an unknown session is refused', async () => {
    const at = await setup(run(call('c1', 'write_file', { path: 'a.txt', content: 'a\n' })));
    const s = await server(at);
    let release: (answer: Json) => void = () => {};
    s.client.handle('approve', () => new Promise((resolve) => (release = resolve)));
    const promptId = 'busy-prompt';
    s.client.request(promptId, 'prompt', { agent: 'editor', text: 'write' });
    await s.client.next((m) => m.method === 'approve');
    const sessionId = (
      s.client.messages.find((m) => m.method === 'phase' && (m.params as Json).sessionId !== undefined)
        ?.params as Json
    ).sessionId as string;
    const busy = await s.call('session/undo', { sessionId });
    assert.equal((busy.error as Json).code, -33004);
    release({ decision: 'allow' });
    assert.equal((await s.client.response(promptId)).error, undefined);
    const unknown = await s.call('session/undo', { sessionId: 'ses_00000000-0000-0000-0000-000000000000' });
    assert.equal((unknown.error as Json).code, -33005);
  });
});
