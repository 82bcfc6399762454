/**
 * Saved sessions through the real server: every session is on disk as it happens, survives the
 * server (a clean exit, a kill -9 mid-stream), loads past damage, resumes with its whole history
 * sent to the model, and never holds a key.
 */
import assert from 'node:assert/strict';
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  type FakeProvider,
  type FakeTurn,
  startFakeProvider,
} from '../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { Journal, parseJournal } from '../src/sessions/journal.ts';
import type { SessionRecord } from '../src/sessions/records.ts';
import { CANARY_KEY, runSantra, santraEnv } from './helpers/run.ts';
import { sentTexts, sessionFiles, sessionServers } from './helpers/sessions.ts';
import type { Json } from './helpers/wire.ts';

const cleanup: Array<() => Promise<void>> = [];

/** A home and workspace that outlive any one server, and a fake provider. */
async function setup(turns: FakeTurn[]) {
  const fake = await startFakeProvider('anthropic', turns);
  const home = tempDir('santra-home-');
  const workspace = tempDir('santra-ws-');
  writeFileSync(join(workspace, 'notes.txt'), 'remember the milk\n');
  cleanup.push(async () => {
    await fake.close();
    await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
  });
  return { fake, home, workspace, sessionsDir: join(home, 'santra', 'sessions') };
}

const servers = sessionServers();
servers.later(async () => {
  for (const step of cleanup.reverse()) await step();
});

function server(at: { home: string; fake: FakeProvider }, workspace: string, capabilities: Json = {}) {
  return servers.start({
    home: at.home,
    workspace,
    anthropicUrl: at.fake.url,
    capabilities,
    promptDefaults: { mode: 'simple_chat' },
  });
}

function records(path: string): SessionRecord[] {
  const parsed = parseJournal(readFileSync(path, 'utf8'), path);
  assert.deepEqual(parsed.warnings, []);
  return parsed.records;
}

describe('saved sessions', () => {
  test('a session is on disk as it happens, lists and resumes in a new server with its whole history sent', async () => {
    const at = await setup([{ text: 'Milk it is.' }, { text: 'You said milk.' }]);
    const first = await server(at, at.workspace);
    const { result } = await first.prompt({ text: 'Remember: milk' });
    const sessionId = result.sessionId as string;
    const files = sessionFiles(at.sessionsDir);
    assert.deepEqual([...files.keys()], [`${sessionId}.jsonl`]);
    const saved = records(files.get(`${sessionId}.jsonl`) as string);
    assert.deepEqual(
      [...new Set(saved.map((r) => r.type))].sort(),
      ['message', 'model_output', 'phase', 'prompt', 'run_end', 'session'].sort(),
    );
    await first.stop();

    const second = await server(at, at.workspace);
    const listed = await second.call('session/list', {});
    const sessions = (listed.result as Json).sessions as Json[];
    assert.equal(sessions.length, 1);
    assert.equal(sessions[0]?.sessionId, sessionId);
    assert.equal(sessions[0]?.title, 'Remember: milk');
    assert.equal(sessions[0]?.messageCount, 2);
    assert.equal(sessions[0]?.workspaceRoot, at.workspace);
    const resumed = await second.call('session/resume', { sessionId });
    assert.equal(((resumed.result as Json).session as Json).messageCount, 2);
    const next = await second.prompt({ text: 'What did I say?', sessionId });
    assert.equal(next.result.sessionId, sessionId);
    assert.deepEqual(sentTexts(at.fake), ['Remember: milk', 'Milk it is.', 'What did I say?']);
    assert.ok((next.phases[0]?.seq as number) > (sessions[0]?.lastSeq as number) - 1, 'seq keeps counting');
    assert.equal(next.phases[0]?.seq, (sessions[0]?.lastSeq as number) + 1);
  });

  test('a prompt naming a saved session continues it without an explicit resume', async () => {
    const at = await setup([{ text: 'One.' }, { text: 'Two.' }]);
    const first = await server(at, at.workspace);
    const { result } = await first.prompt({ text: 'first' });
    await first.stop();
    const second = await server(at, at.workspace);
    await second.prompt({ text: 'second', sessionId: result.sessionId });
    assert.deepEqual(sentTexts(at.fake), ['first', 'One.', 'second']);
  });

  test('session/new saves an empty session that a later server resumes and a prompt continues', async () => {
    const at = await setup([{ text: 'Hello there.' }]);
    const first = await server(at, at.workspace);
    const created = ((await first.call('session/new')).result as Json).session as Json;
    assert.match(String(created.sessionId), /^ses_/);
    assert.deepEqual(
      [created.title, created.messageCount, created.workspaceRoot],
      ['(no prompt yet)', 0, at.workspace],
    );
    await first.stop();
    const second = await server(at, at.workspace);
    const listed = ((await second.call('session/list', {})).result as Json).sessions as Json[];
    assert.deepEqual(
      listed.map((info) => info.sessionId),
      [created.sessionId],
    );
    const { result } = await second.prompt({ text: 'hi', sessionId: created.sessionId });
    assert.equal(result.sessionId, created.sessionId, 'the prompt went on with the session, not a new one');
    assert.equal(sessionFiles(at.sessionsDir).size, 1);
  });

  test('kill -9 mid-stream: the prompt and every phase sent before it are kept; the session resumes', async () => {
    const at = await setup([
      { text: 'Counting: ', generate: { tokens: 100_000, tokensPerSecond: 200 } },
      { text: 'Resumed.' },
    ]);
    const first = await server(at, at.workspace);
    first.client.request('kill-me', 'prompt', { mode: 'simple_chat', text: 'count forever' });
    const texts = async () => {
      for (;;) {
        const phases = first.client.messages.filter((m) => (m.params as Json | undefined)?.type === 'text');
        if (phases.length >= 5) return phases;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const seen = await texts();
    first.client.child.kill('SIGKILL');
    await first.client.exited;
    const sessionId = (seen[0]?.params as Json).sessionId as string;
    const saved = records(sessionFiles(at.sessionsDir).get(`${sessionId}.jsonl`) as string);
    const savedSeqs = saved.flatMap((r) => (r.type === 'phase' ? [r.phase.seq] : []));
    for (const phase of seen)
      assert.ok(
        savedSeqs.includes((phase.params as Json).seq as number),
        'every phase the client got is saved',
      );
    assert.ok(saved.some((r) => r.type === 'prompt' && r.text === 'count forever'));

    const second = await server(at, at.workspace);
    const resumed = await second.call('session/resume', { sessionId, afterSeq: 0 });
    const replayed = second.client.messages.filter((m) => m.method === 'phase');
    assert.equal((resumed.result as Json).replayedPhases, replayed.length);
    assert.ok(replayed.length >= seen.length, 'the client catches up on every saved phase');
    second.client.messages.splice(0);
    await second.prompt({ text: 'go on', sessionId });
    assert.deepEqual(sentTexts(at.fake).slice(0, 1), ['count forever']);
    assert.equal(sentTexts(at.fake).at(-1), 'go on');
  });

  test('a torn last record and a block of NUL bytes are skipped with a warning; nothing else is lost', async () => {
    const at = await setup([{ text: 'Kept.' }, { text: 'Still here.' }]);
    const first = await server(at, at.workspace);
    const { result } = await first.prompt({ text: 'keep this' });
    await first.stop();
    const sessionId = result.sessionId as string;
    const path = sessionFiles(at.sessionsDir).get(`${sessionId}.jsonl`) as string;
    const before = records(path).length;
    appendFileSync(path, Buffer.alloc(4096, 0));
    appendFileSync(path, '{"type":"message","runId":"run_x","message":{"role":"user","con');

    const second = await server(at, at.workspace);
    const listed = (await second.call('session/list', {})).result as Json;
    assert.equal((listed.sessions as Json[]).length, 1, 'never an empty session list');
    assert.ok((listed.warnings as string[]).some((w) => /NUL/.test(w)));
    assert.ok(
      (listed.warnings as string[]).some((w) => /damaged record \(\d+ characters, cut off\)/.test(w)),
    );
    const resumed = (await second.call('session/resume', { sessionId })).result as Json;
    assert.equal((resumed.session as Json).messageCount, 2);
    assert.equal((resumed.warnings as string[]).length, 2);
    await second.prompt({ text: 'more', sessionId });
    assert.deepEqual(sentTexts(at.fake), ['keep this', 'Kept.', 'more']);
    // The next record started on a line of its own: only the two damaged pieces are skipped.
    const parsed = parseJournal(readFileSync(path, 'utf8'), path);
    assert.equal(parsed.warnings.length, 2);
    assert.ok(parsed.records.length > before);
  });

  test('parallel writers never interleave a record; a 10,000-message session resumes whole', async () => {
    const at = await setup([{ text: 'Read them all.' }]);
    const workspaceSessions = tempDir('santra-journal-');
    cleanup.push(() => removeTempDir(workspaceSessions));
    const path = join(workspaceSessions, 'ses_big.jsonl');
    const journal = new Journal(path, (line) => line);
    journal.append({
      type: 'session',
      format: 1,
      sessionId: 'ses_big',
      workspaceRoot: at.workspace,
      createdAt: new Date().toISOString(),
      santraVersion: 'test',
    });
    // Two "agents" appending alternately in one process: one write per record.
    for (let i = 0; i < 5000; i++) {
      journal.append({
        type: 'message',
        runId: 'run_a',
        message: { role: 'user', content: [{ type: 'text', text: `q${i} ${'x'.repeat(i % 300)}` }] },
      });
      journal.append({
        type: 'message',
        runId: 'run_a',
        message: { role: 'assistant', content: [{ type: 'text', text: `a${i}` }] },
      });
    }
    journal.close();
    const parsed = parseJournal(readFileSync(path, 'utf8'), 'ses_big.jsonl');
    assert.deepEqual(parsed.warnings, []);
    assert.equal(parsed.records.length, 10_001);

    // The same file as a saved session of this workspace.
    const first = await server(at, at.workspace);
    const { result } = await first.prompt({ text: 'hello' });
    await first.stop();
    const project = readdirSync(at.sessionsDir)[0] as string;
    writeFileSync(join(at.sessionsDir, project, 'ses_big.jsonl'), readFileSync(path));
    const second = await server(at, at.workspace);
    const resumed = (await second.call('session/resume', { sessionId: 'ses_big' })).result as Json;
    assert.equal((resumed.session as Json).messageCount, 10_000);
    const listed = ((await second.call('session/list', {})).result as Json).sessions as Json[];
    assert.deepEqual(listed.map((s) => s.sessionId).sort(), ['ses_big', result.sessionId].sort());
  });

  test('a session of another workspace is refused unless asked for; the store is per project', async () => {
    const at = await setup([{ text: 'From A.' }, { text: 'In B.' }]);
    const other = tempDir('santra-ws-b-');
    cleanup.push(() => removeTempDir(other));
    const a = await server(at, at.workspace);
    const { result } = await a.prompt({ text: 'in A' });
    await a.stop();
    const b = await server(at, other);
    assert.deepEqual(
      ((await b.call('session/list', {})).result as Json).sessions,
      [],
      'B lists only its own',
    );
    const all = ((await b.call('session/list', { allWorkspaces: true })).result as Json).sessions as Json[];
    assert.equal(all.length, 1);
    const refused = await b.call('session/resume', { sessionId: result.sessionId });
    assert.equal((refused.error as Json).code, -33007);
    assert.match((refused.error as Json).message as string, /otherWorkspace: true/);
    assert.equal(((refused.error as Json).data as Json).workspaceRoot, at.workspace);
    const prompted = await b.call('prompt', { text: 'sneak in', sessionId: result.sessionId });
    assert.equal((prompted.error as Json).code, -33007, 'a prompt cannot bypass the check');
    const resumed = await b.call('session/resume', { sessionId: result.sessionId, otherWorkspace: true });
    assert.equal(resumed.error, undefined);
    await b.prompt({ text: 'now in B', sessionId: result.sessionId });
    assert.deepEqual(sentTexts(at.fake), ['in A', 'From A.', 'now in B']);
  });

  test('list pages newest first; export as Markdown and JSON; delete; bad ids are clear errors', async () => {
    const at = await setup([{ text: 'A1.' }, { text: 'B1.' }, { text: 'C1.' }]);
    const s = await server(at, at.workspace);
    const ids: string[] = [];
    for (const text of ['alpha', 'beta', 'gamma'])
      ids.push((await s.prompt({ text })).result.sessionId as string);
    const page1 = (await s.call('session/list', { limit: 2 })).result as Json;
    assert.deepEqual(
      (page1.sessions as Json[]).map((x) => x.title),
      ['gamma', 'beta'],
    );
    const page2 = (await s.call('session/list', { limit: 2, cursor: page1.nextCursor })).result as Json;
    assert.deepEqual(
      (page2.sessions as Json[]).map((x) => x.title),
      ['alpha'],
    );
    assert.equal(page2.nextCursor, undefined);
    const bad = await s.call('session/list', { cursor: 'nonsense' });
    assert.equal((bad.error as Json).code, -32602);

    const markdown = (
      (await s.call('session/export', { sessionId: ids[1], format: 'markdown' })).result as Json
    ).content as string;
    assert.match(markdown, /^# beta\n/);
    assert.match(markdown, /## You\n\nbeta\n\n## Santra\n\nB1\./);
    const json = JSON.parse(
      ((await s.call('session/export', { sessionId: ids[1], format: 'json' })).result as Json)
        .content as string,
    ) as Json[];
    assert.equal(json[0]?.type, 'session');

    assert.deepEqual((await s.call('session/delete', { sessionId: ids[0] })).result, { deleted: true });
    const left = ((await s.call('session/list', {})).result as Json).sessions as Json[];
    assert.deepEqual(
      left.map((x) => x.title),
      ['gamma', 'beta'],
    );
    for (const sessionId of [ids[0], 'ses_nope', '../../etc/passwd']) {
      const missing = await s.call('session/resume', { sessionId });
      assert.equal((missing.error as Json).code, -33005, String(sessionId));
    }
  });

  test('no key and no secret answer is ever saved', async () => {
    const at = await setup([
      {
        toolCalls: [{ name: 'ask_user', args: { prompt: 'Your token?', secret: true } }],
      },
      // The key split across two deltas (and phases): redacted as one stream.
      { text: [`Thanks. (echo: ${CANARY_KEY.slice(0, 14)}`, `${CANARY_KEY.slice(14)})`], chunkDelayMs: 50 },
    ]);
    const s = await server(at, at.workspace, { ask: true });
    s.client.handle('ask', () => ({ answer: 'hunter2-secret-answer' }));
    const { result } = await s.prompt({ mode: 'agent_task', text: `${CANARY_KEY} is my key` });
    assert.equal(result.status, 'completed');
    const listed = await s.call('session/list', {});
    assert.match(JSON.stringify(listed), /\[redacted\] is my key/, 'the title too');
    await s.stop();
    const at0 = s.client.stdout.indexOf(CANARY_KEY);
    assert.ok(
      at0 === -1,
      `the key appeared in protocol output: ${s.client.stdout.slice(at0 - 300, at0 + 60)}`,
    );
    assert.ok(!s.client.stdout.includes('hunter2-secret-answer'), 'the secret answer was sent back');
    assert.ok(!s.client.stdout.includes(CANARY_KEY.slice(14)), 'no part of the key either');
    assert.match(s.client.stdout, /\(echo: \[redacted\]\)/);
    const project = join(at.sessionsDir, readdirSync(at.sessionsDir)[0] as string);
    const bytes = readdirSync(project)
      .map((name) => readFileSync(join(project, name), 'utf8'))
      .join('');
    assert.match(bytes, /"entries"/, 'the index is among the files read');
    assert.ok(bytes.length > 0);
    assert.ok(!bytes.includes(CANARY_KEY), 'the key was saved');
    assert.ok(!bytes.includes('hunter2-secret-answer'), 'the secret answer was saved');
    assert.match(bytes, /"type":"ask"/);
  });
});

describe('a swarm writing at once', () => {
  test('parallel sub-agents and their parent save whole records, in the order they happened', async () => {
    const as = (role: string) => (request: { body: { system?: Array<{ text: string }> } }) =>
      (request.body.system ?? []).some((block) => block.text.includes(`You are the ${role}`));
    const reader = (n: number): FakeTurn => ({
      match: as('reader'),
      text: ['Reading ', `part ${n} `, 'now. '.repeat(50)],
      toolCalls: [{ id: `r${n}`, name: 'task_completed', args: { result: `part ${n} read` } }],
      chunkDelayMs: 5,
    });
    const at = await setup([
      {
        match: as('orchestrator'),
        text: 'Splitting the work. ',
        toolCalls: [
          {
            id: 'o1',
            name: 'spawn_agents',
            args: { agents: [1, 2, 3].map((n) => ({ agentId: 'reader', task: `Read part ${n}` })) },
          },
        ],
      },
      reader(1),
      reader(2),
      reader(3),
      {
        match: as('orchestrator'),
        toolCalls: [{ id: 'o2', name: 'task_completed', args: { result: 'all read' } }],
      },
    ]);
    const s = await server(at, at.workspace, { approve: true, ask: true });
    const { result, phases } = await s.prompt({ mode: 'agent_task', text: 'Read the three parts' });
    assert.equal(result.output, 'all read');
    const saved = records(sessionFiles(at.sessionsDir).get(`${result.sessionId as string}.jsonl`) as string);
    const savedPhases = saved.flatMap((r) => (r.type === 'phase' ? [r.phase] : []));
    assert.deepEqual(savedPhases, phases, 'every phase saved whole, in the order sent');
    const outputs = saved.flatMap((r) => (r.type === 'model_output' ? [r.agentId] : []));
    assert.deepEqual(outputs.filter((a) => a.startsWith('reader')).length, 3);
    assert.equal(outputs.filter((a) => a === 'orchestrator').length, 2);
    // The conversation saved is the orchestrator's: the prompt, and its two answers each with its
    // tool result; the readers' conversations end with their runs.
    assert.deepEqual(
      saved.flatMap((r) => (r.type === 'message' ? [r.message.role] : [])),
      ['user', 'assistant', 'user', 'assistant', 'user'],
    );
  });
});

describe('santra and saved sessions', () => {
  test('santra sessions lists them; santra -p --continue and --resume send the whole conversation', async () => {
    const at = await setup([{ text: 'Noted.' }, { text: 'Milk.' }, { text: 'Still milk.' }]);
    const env = santraEnv(at.home, at.fake.url);
    const none = await runSantra(['-p', '--continue', 'hello?'], { cwd: at.workspace, env });
    assert.equal(none.code, 1);
    assert.match(none.stderr, /--continue: this project has no saved session yet/);
    assert.equal(at.fake.requests.length, 0, 'nothing was sent');

    const first = await runSantra(['-p', 'remember: milk'], { cwd: at.workspace, env });
    assert.equal(first.code, 0, first.stderr);
    const listed = await runSantra(['sessions'], { cwd: at.workspace, env });
    assert.equal(listed.code, 0, listed.stderr);
    const id = /^(ses_[\w-]+)\s.*remember: milk$/m.exec(listed.stdout)?.[1];
    assert.ok(id !== undefined, listed.stdout);
    assert.match(listed.stdout, /santra -p --resume <id>/);

    const continued = await runSantra(['-p', '--continue', 'what did I say?'], { cwd: at.workspace, env });
    assert.equal(continued.code, 0, continued.stderr);
    assert.equal(continued.stdout, 'Milk.\n');
    assert.deepEqual(sentTexts(at.fake), ['remember: milk', 'Noted.', 'what did I say?']);

    const resumed = await runSantra(['-p', '--resume', id, 'again?'], { cwd: at.workspace, env });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(sentTexts(at.fake).length, 5);

    const json = JSON.parse(
      (await runSantra(['sessions', '--json'], { cwd: at.workspace, env })).stdout,
    ) as Json;
    assert.equal((json.sessions as Json[])[0]?.messageCount, 6);

    const unknown = await runSantra(['-p', '--resume', 'ses_nope', 'x'], { cwd: at.workspace, env });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /Unknown session ses_nope/);
  });
});

describe('StreamRedactor', () => {
  test('a key split anywhere across pieces is redacted; text that only looks like its start is released', async () => {
    const { Redactor, StreamRedactor } = await import('../src/support/log.ts');
    const redactor = new Redactor();
    redactor.add(CANARY_KEY);
    const text = `before ${CANARY_KEY} middle sk-can after ${CANARY_KEY}`;
    for (let cut = 1; cut < text.length; cut += 3) {
      const stream = new StreamRedactor(redactor);
      const shown = stream.push(text.slice(0, cut)) + stream.push(text.slice(cut)) + stream.flush();
      assert.equal(shown, 'before [redacted] middle sk-can after [redacted]', `cut at ${cut}`);
    }
    const stream = new StreamRedactor(redactor);
    assert.equal(stream.push('ends with sk-can'), 'ends with ', 'a possible key start is held');
    assert.equal(stream.push('vas!'), 'sk-canvas!', 'and released once it is not one');
  });
});

describe('the file store', () => {
  test('a damaged or stale index is rebuilt from the session files; a file of another kind is left out', async () => {
    const { FileStorage, projectFolder } = await import('../src/sessions/file-storage.ts');
    const root = tempDir('santra-store-');
    cleanup.push(() => removeTempDir(root));
    const storage = new FileStorage(root, '/work/app', (line) => line);
    const writer = storage.writer('ses_one');
    writer.append({
      type: 'session',
      format: 1,
      sessionId: 'ses_one',
      workspaceRoot: '/work/app',
      createdAt: '2026-11-23T10:00:00.000Z',
      santraVersion: 'test',
    });
    writer.append({
      type: 'prompt',
      runId: 'run_1',
      at: '2026-11-23T10:00:01.000Z',
      text: 'first',
      model: 'm/x',
    });
    await writer.close();
    const dir = join(root, projectFolder('/work/app'));
    assert.equal((await storage.list(false)).sessions[0]?.title, 'first');

    writeFileSync(join(dir, 'index.json'), '{"format":1,"entr');
    writeFileSync(
      join(dir, 'ses_other.jsonl'),
      '{"type":"prompt","runId":"r","at":"x","text":"no header"}\n',
    );
    const listed = await storage.list(false);
    assert.deepEqual(
      listed.sessions.map((s) => s.sessionId),
      ['ses_one'],
    );
    assert.ok(listed.warnings.some((w) => /index.json was damaged; it was rebuilt/.test(w)));
    assert.ok(listed.warnings.some((w) => /ses_other.jsonl: not a session file/.test(w)));
    assert.match(readFileSync(join(dir, 'index.json'), 'utf8'), /"ses_one.jsonl"/);

    // A session that grew since the index was written is read again.
    const again = storage.writer('ses_one');
    again.append({
      type: 'prompt',
      runId: 'run_2',
      at: '2026-11-23T11:00:00.000Z',
      text: 'second',
      model: 'm/y',
    });
    await again.close();
    const fresh = (await storage.list(false)).sessions.find((s) => s.sessionId === 'ses_one');
    assert.ok((fresh?.updatedAt ?? '') >= '2026-11-23T11:00:00.000Z');
    assert.equal(fresh?.model, 'm/y');
    assert.equal(await storage.delete('ses_one'), true);
    assert.equal(await storage.delete('ses_one'), false);
    assert.equal(await storage.read('../etc/passwd'), undefined, 'ids are checked before they become paths');
  });
});
