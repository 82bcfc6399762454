/**
 * Named sessions (sessions/names.ts, §10.12) through the protocol: the built server, a fake
 * Anthropic provider, sessions saved in a temp home that outlives each server process.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { type FakeTurn, startFakeProvider } from '../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { nameProblem, resolveSessionRef } from '../src/sessions/names.ts';
import { sessionRecords, sessionServers } from './helpers/sessions.ts';
import type { Json } from './helpers/wire.ts';

const cleanup: Array<() => Promise<void>> = [];
const servers = sessionServers();
servers.later(async () => {
  for (const step of cleanup.reverse()) await step();
});

async function setup(turns: FakeTurn[]) {
  const fake = await startFakeProvider('anthropic', turns);
  const home = tempDir('santra-home-');
  const workspace = tempDir('santra-ws-');
  mkdirSync(join(home, 'santra'), { recursive: true });
  writeFileSync(join(workspace, 'notes.txt'), 'remember the milk\n');
  cleanup.push(async () => {
    await fake.close();
    await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
  });
  const start = () =>
    servers.start({ home, workspace, anthropicUrl: fake.url, promptDefaults: { mode: 'simple_chat' } });
  return { fake, home, workspace, start, sessionsDir: join(home, 'santra', 'sessions') };
}

const errorOf = (response: Json) => response.error as { code: number; message: string } | undefined;
const listed = async (s: { ok: (m: string, p?: unknown) => Promise<Json> }) =>
  ((await s.ok('session/list', {})) as { sessions: Json[] }).sessions;

describe('session/rename and names', () => {
  test('a named session is listed with its name and resumed by it, after a restart and a compaction', async () => {
    const at = await setup([
      { text: 'A1' },
      { text: 'A2' },
      { text: 'A3' },
      { text: 'the summary' },
      { text: 'A4' },
    ]);
    let s = await at.start();
    const sessionId = (await s.prompt({ text: 'P1' })).result.sessionId as string;
    await s.prompt({ text: 'P2', sessionId });
    const other = (await s.prompt({ text: 'another session' })).result.sessionId as string;

    const renamed = (await s.ok('session/rename', { sessionId, name: 'auth-refactor' })) as { session: Json };
    assert.equal(renamed.session.sessionId, sessionId);
    assert.equal(renamed.session.name, 'auth-refactor');
    const sessions = await listed(s);
    assert.equal(sessions.find((info) => info.sessionId === sessionId)?.name, 'auth-refactor');
    assert.equal(sessions.find((info) => info.sessionId === other)?.name, undefined);

    // A new server reads the name from the session's records.
    await s.stop();
    s = await at.start();
    const resumed = (await s.ok('session/resume', { sessionId: 'auth-refactor' })) as { session: Json };
    assert.equal(resumed.session.sessionId, sessionId, 'the result names the session by its id');
    assert.equal(resumed.session.name, 'auth-refactor');

    // Compaction keeps the session and its name.
    await s.ok('session/compact', { sessionId, keepTurns: 1 });
    const afterCompaction = (await s.ok('session/resume', { sessionId: 'auth-refactor' })) as {
      session: Json;
    };
    assert.equal(afterCompaction.session.sessionId, sessionId);
    assert.equal(afterCompaction.session.name, 'auth-refactor');
    const records = sessionRecords(at.sessionsDir, sessionId);
    assert.ok(records.some((record) => record.type === 'compaction'));
    assert.deepEqual(
      records.filter((record) => record.type === 'name').map((record) => (record as { name: unknown }).name),
      ['auth-refactor'],
    );
    // The name reaches the model nowhere: it is the user's handle, not part of the conversation.
    const turn = await s.prompt({ text: 'P4', sessionId: resumed.session.sessionId });
    assert.equal(turn.result.output, 'A4');
    assert.ok(!JSON.stringify(at.fake.requests.at(-1)?.body).includes('auth-refactor'));
  });

  test('an id prefix resumes its session; one that fits several is refused with the candidates listed', async () => {
    const at = await setup([{ text: 'A1' }, { text: 'A2' }]);
    const s = await at.start();
    const first = (await s.prompt({ text: 'first' })).result.sessionId as string;
    const second = (await s.prompt({ text: 'second' })).result.sessionId as string;
    await s.ok('session/rename', { sessionId: second, name: 'two' });
    const prefix = first.slice(0, 12);
    assert.equal(
      ((await s.ok('session/resume', { sessionId: prefix })) as { session: Json }).session.sessionId,
      first,
    );
    // Without "ses_" too.
    assert.equal(
      ((await s.ok('session/resume', { sessionId: prefix.slice(4) })) as { session: Json }).session.sessionId,
      first,
    );
    const ambiguous = errorOf(await s.call('session/resume', { sessionId: 'ses_' }));
    assert.equal(ambiguous?.code, -32602);
    assert.match(ambiguous?.message ?? '', /params\.sessionId: "ses_" is the start of 2 session ids: /);
    assert.ok(ambiguous?.message.includes(first) && ambiguous.message.includes(`${second} [two] "second"`));
    assert.match(ambiguous?.message ?? '', /Give more of the id, or the session's name\./);
    const unknown = errorOf(await s.call('session/resume', { sessionId: 'no-such-name' }));
    assert.equal(unknown?.code, -33005, 'UnknownSession');
    assert.match(unknown?.message ?? '', /No session has the id, name or id prefix "no-such-name"/);
    // An exact id that is not saved is still UnknownSession, as before names.
    assert.equal(errorOf(await s.call('session/resume', { sessionId: 'ses_nope' }))?.code, -33005);
  });

  test('a bad or taken name is refused naming the field and what to do; null removes a name', async () => {
    const at = await setup([{ text: 'A1' }, { text: 'A2' }]);
    const s = await at.start();
    const first = (await s.prompt({ text: 'first' })).result.sessionId as string;
    const second = (await s.prompt({ text: 'second' })).result.sessionId as string;
    await s.ok('session/rename', { sessionId: first, name: 'shared' });

    const taken = errorOf(await s.call('session/rename', { sessionId: second, name: 'shared' }));
    assert.equal(taken?.code, -32602);
    assert.match(
      taken?.message ?? '',
      new RegExp(`params\\.name: "shared" is already the name of ${first} \\("first"\\)`),
    );
    assert.match(taken?.message ?? '', /Choose another name, or remove that one first/);

    for (const [name, why] of [
      ['two words', /is not a name: use letters, digits/],
      ['', /the name is empty; send null to remove a name/],
      ['ses_fake', /starts with ses_, as session ids do/],
      ['x'.repeat(65), /longer than 64 characters/],
    ] as const) {
      const refused = errorOf(await s.call('session/rename', { sessionId: second, name }));
      assert.equal(refused?.code, -32602, name);
      assert.match(refused?.message ?? '', /Invalid params for session\/rename: params\.name: /);
      assert.match(refused?.message ?? '', why);
    }
    // Renaming a session to its own name is no conflict; a session by its name can be renamed.
    await s.ok('session/rename', { sessionId: 'shared', name: 'shared' });
    const cleared = (await s.ok('session/rename', { sessionId: 'shared', name: null })) as { session: Json };
    assert.equal(cleared.session.name, undefined);
    assert.ok((await listed(s)).every((info) => info.name === undefined));
    // Now the name is free for the other session.
    await s.ok('session/rename', { sessionId: second, name: 'shared' });
    const named = await listed(s);
    assert.equal(named.find((info) => info.name === 'shared')?.sessionId, second);
  });
});

describe('names.ts', () => {
  const info = (sessionId: string, updatedAt: string, name?: string): Json => ({
    sessionId,
    updatedAt,
    title: sessionId,
    ...(name === undefined ? {} : { name }),
  });

  test('an exact id wins over a name, a name over a prefix; a name shared by a line resolves to its newest session', () => {
    const sessions = [
      info('ses_aaa1', '2026-01-01T00:00:00Z', 'line'),
      info('ses_aaa2', '2026-01-03T00:00:00Z', 'line'),
      info('ses_bbb1', '2026-01-02T00:00:00Z', 'ses_aaa1'),
    ] as never[];
    assert.deepEqual(resolveSessionRef('ses_aaa1', sessions), { ok: true, sessionId: 'ses_aaa1' });
    assert.deepEqual(resolveSessionRef('line', sessions), { ok: true, sessionId: 'ses_aaa2' });
    assert.deepEqual(resolveSessionRef('bbb', sessions), { ok: true, sessionId: 'ses_bbb1' });
    const ambiguous = resolveSessionRef('aaa', sessions);
    assert.equal(ambiguous.ok, false);
    assert.equal(resolveSessionRef('', sessions).ok, false);
  });

  test('names: letters, digits, ".", "_" and "-", a letter or digit first', () => {
    for (const good of ['auth-refactor', 'v1.2', 'Übersetzung_2', '42'])
      assert.equal(nameProblem(good), undefined, good);
    for (const bad of ['-x', '.hidden', 'a b', 'a/b', '', 'ses_1', 'x'.repeat(65)])
      assert.notEqual(nameProblem(bad), undefined, bad);
  });
});
