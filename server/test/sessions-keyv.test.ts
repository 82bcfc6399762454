/**
 * Sessions in a shared store (sessions.store) with a real redis-server and a real PostgreSQL:
 * through the built server, two servers on two workspaces save, list, resume (the next prompt
 * sends the whole history) and delete each other's sessions; in process, parallel appends keep
 * their order whole, a store that goes away loses nothing it can get back, the index is rebuilt
 * from the records, and no stored value ever holds a key.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { setImmediate as yieldTurn } from 'node:timers/promises';
import { type FakeProvider, startFakeProvider } from '../../conformance-tests/src/fake-providers/index.ts';
import { tempDir } from '../../scripts/temp-dirs.ts';
import { connectKeyv } from '../src/sessions/keyv-connection.ts';
import { KeyvStorage } from '../src/sessions/keyv-storage.ts';
import { ConfigError, loadConfig } from '../src/config/config.ts';
import { userText } from '../src/providers/messages.ts';
import type { SessionRecord } from '../src/sessions/records.ts';
import { Redactor } from '../src/support/log.ts';
import { CANARY_KEY } from './helpers/run.ts';
import { freePort, missing, type RunningStore, startPostgres, startRedis } from './helpers/stores.ts';
import { sentTexts, sessionServers } from './helpers/sessions.ts';
import type { Json } from './helpers/wire.ts';

const cleanup: Array<() => Promise<void>> = [];

const servers = sessionServers();
servers.later(async () => {
  for (const step of cleanup.reverse()) await step();
});

/** The built server with its own home, whose config keeps sessions in `store`. */
async function server(fake: FakeProvider, workspace: string, store: string) {
  const home = tempDir('santra-home-');
  mkdirSync(join(home, 'santra'), { recursive: true, mode: 0o700 });
  writeFileSync(join(home, 'santra', 'config.json'), JSON.stringify({ sessions: { store } }), {
    mode: 0o600,
  });
  const base = await servers.start({ home, workspace, anthropicUrl: fake.url, ownsHome: true });
  return {
    ...base,
    home,
    /** A simple-chat prompt that must be answered; its result. */
    async prompt(params: Json): Promise<Json> {
      return (await base.prompt({ mode: 'simple_chat', ...params })).result;
    },
  };
}

const ids = (result: Json) => (result.sessions as Json[]).map((s) => s.sessionId as string);

const quiet = () => {
  const lines: string[] = [];
  const at = (level: string) => (message: string) => void lines.push(`${level}: ${message}`);
  return { lines, log: { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') } };
};

/** A storage for in-process tests, redacting the canary key as the server does. */
function storage(
  url: string,
  workspaceRoot: string,
  options: { timeoutMs?: number; closeTimeoutMs?: number } = {},
) {
  const redactor = new Redactor();
  redactor.add(CANARY_KEY);
  const { lines, log } = quiet();
  const store = new KeyvStorage({
    url,
    workspaceRoot,
    redact: (text) => redactor.apply(text),
    log,
    retryMs: 50,
    indexIntervalMs: 50,
    ...options,
  });
  cleanup.push(() => store.close());
  return { store, lines };
}

function header(sessionId: string, workspaceRoot: string): SessionRecord {
  return {
    type: 'session',
    format: 1,
    sessionId,
    workspaceRoot,
    createdAt: new Date().toISOString(),
    santraVersion: 'test',
  };
}

function message(text: string): SessionRecord {
  return { type: 'message', runId: 'run_1', message: userText(text) };
}

/** The texts of the message records. */
const texts = (records: readonly SessionRecord[] | undefined) =>
  (records ?? []).flatMap((record) =>
    record.type === 'message'
      ? record.message.content.map((block) => ('text' in block ? block.text : ''))
      : [],
  );

const newId = () => `ses_${crypto.randomUUID()}`;

describe('sessions.store in the config', () => {
  const load = async (config: unknown) => {
    const dir = tempDir('santra-config-');
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
    return loadConfig({ HOME: dir, SANTRA_HOME: dir });
  };

  test('a Redis or PostgreSQL URL is taken; absent, sessions are files', async () => {
    assert.deepEqual((await load({})).sessions, {});
    for (const store of [
      'redis://127.0.0.1:6379',
      'rediss://u:p@cache:6380/2',
      'postgres://db/s',
      'postgresql://u@db:5432/s',
    ])
      assert.deepEqual((await load({ sessions: { store } })).sessions, { store });
  });

  test('another scheme or no URL is an error naming the key and the fix, never the value', async () => {
    for (const store of ['mysql://u:pw-in-the-url@db/s', 'pw-in-the-url', 'http://pw-in-the-url@x']) {
      await assert.rejects(load({ sessions: { store } }), (error: Error) => {
        assert.ok(error instanceof ConfigError);
        assert.match(
          error.message,
          /sessions\.store(?: \(line \d+\))?: expected the URL of a shared session store such as "redis:/,
        );
        assert.match(error.message, /remove it to keep sessions in files/);
        assert.ok(!error.message.includes('pw-in-the-url'));
        return true;
      });
    }
    await assert.rejects(
      load({ sessions: { stor: 'redis://x' } }),
      /sessions\.stor(?: \(line \d+\))?: unknown field, did you mean "store"\?/,
    );
  });
});

for (const kind of ['redis', 'postgres'] as const) {
  // A missing program fails the file under CI (which installs it) and skips it, saying why, elsewhere.
  const absent = missing(kind);
  if (absent !== undefined && process.env.CI !== undefined) throw new Error(absent);
  describe(`sessions in ${kind}`, { skip: absent }, () => {
    let store: RunningStore;
    before(async () => {
      store = kind === 'redis' ? await startRedis() : await startPostgres();
      cleanup.push(() => store.stop());
    });

    test('two servers on two workspaces save, list, resume and delete each other’s sessions', async () => {
      const url = await store.newDatabase();
      const fake = await startFakeProvider('anthropic', [
        { text: 'Milk it is.' },
        { text: 'You said milk.' },
        { text: 'Bread, noted.' },
        { text: 'You said bread.' },
      ]);
      cleanup.push(() => fake.close());
      const workspaceA = tempDir('santra-ws-');
      const workspaceB = tempDir('santra-ws-');

      const a = await server(fake, workspaceA, url);
      const first = await a.prompt({ text: `Remember: milk. My key is ${CANARY_KEY}` });
      const milk = first.sessionId as string;
      const listedA = await a.ok('session/list');
      assert.deepEqual(ids(listedA), [milk]);
      await a.stop();
      assert.ok(!existsSync(join(a.home, 'santra', 'sessions')), 'nothing went to session files');

      const b = await server(fake, workspaceB, url);
      assert.deepEqual(
        ids(await b.ok('session/list')),
        [],
        'another workspace’s session is not listed by default',
      );
      const everywhere = (await b.ok('session/list', { allWorkspaces: true })).sessions as Json[];
      assert.deepEqual(
        everywhere.map((s) => [s.sessionId, s.workspaceRoot, s.messageCount]),
        [[milk, workspaceA, 2]],
      );
      assert.match(everywhere[0]?.title as string, /^Remember: milk\. My key is \[redacted\]/);

      const refused = await b.call('session/resume', { sessionId: milk });
      assert.equal((refused.error as Json | undefined)?.code, -33007, JSON.stringify(refused));
      const resumed = await b.ok('session/resume', { sessionId: milk, otherWorkspace: true });
      assert.equal((resumed.session as Json).messageCount, 2);
      await b.prompt({ sessionId: milk, text: 'What did I say?' });
      const sent = sentTexts(fake);
      assert.equal(sent.length, 3, JSON.stringify(sent));
      assert.match(sent[0] ?? '', /^Remember: milk\./);
      assert.deepEqual(sent.slice(1), ['Milk it is.', 'What did I say?']);
      const bread = (await b.prompt({ text: 'Remember: bread' })).sessionId as string;

      // A new server on workspace A resumes B's session, and sees B's turns in its own.
      const a2 = await server(fake, workspaceA, url);
      const refusedA = await a2.call('session/resume', { sessionId: bread });
      assert.equal((refusedA.error as Json | undefined)?.code, -33007, JSON.stringify(refusedA));
      await a2.ok('session/resume', { sessionId: bread, otherWorkspace: true });
      await a2.prompt({ sessionId: bread, text: 'What did I say?' });
      assert.deepEqual(sentTexts(fake), ['Remember: bread', 'Bread, noted.', 'What did I say?']);
      const own = await a2.ok('session/resume', { sessionId: milk });
      assert.equal((own.session as Json).messageCount, 4, 'B’s turn is in A’s session');

      assert.deepEqual(await a2.ok('session/delete', { sessionId: milk }), { deleted: true });
      assert.deepEqual(ids(await b.ok('session/list', { allWorkspaces: true })), [bread]);
      await b.stop();
      await a2.stop();
      // B still had both sessions open when A resumed one and deleted the other: a hand-over, not
      // two servers writing at once.
      for (const s of [a, b, a2]) assert.doesNotMatch(s.client.stderr, /being saved by another server/);

      const entries = await store.entries(url);
      assert.ok(entries.length > 0);
      assert.ok(
        entries.every(([key]) => !key.includes(milk)),
        'a deleted session leaves nothing behind',
      );
      for (const [key, value] of entries)
        assert.ok(!value.includes(CANARY_KEY), `the key is stored in ${key}`);
    });

    test('the key never reaches a stored value: records and index are redacted', async () => {
      const url = await store.newDatabase();
      const { store: kept } = storage(url, '/work/a');
      const id = newId();
      const writer = kept.writer(id);
      writer.append(header(id, '/work/a'));
      writer.append({
        type: 'prompt',
        runId: 'run_1',
        at: new Date().toISOString(),
        text: `use ${CANARY_KEY}`,
        model: 'anthropic/claude-sonnet-4-5',
      });
      writer.append(message(`the key is ${CANARY_KEY}`));
      await writer.close();
      const entries = await store.entries(url);
      assert.equal(entries.length, 4, 'three records and the index entry');
      for (const [key, value] of entries)
        assert.ok(!value.includes(CANARY_KEY), `the key is stored in ${key}`);
      assert.equal(entries.filter(([, value]) => value.includes('[redacted]')).length, 3);
    });

    test('parallel appends keep their order and never interleave a record', async () => {
      const url = await store.newDatabase();
      const { store: kept } = storage(url, '/work/a');
      const id = newId();
      const writer = kept.writer(id);
      writer.append(header(id, '/work/a'));
      const expected: string[] = [];
      // Five agents appending at once, with large records among small ones and flushes between.
      await Promise.all(
        [1, 2, 3, 4, 5].map(async (agent) => {
          for (let i = 0; i < 120; i++) {
            const text = `agent ${agent} #${i} ${i % 10 === 0 ? 'x'.repeat(40_000 + agent) : ''}`;
            expected.push(text);
            writer.append(message(text));
            if (i % 7 === agent) await writer.flush();
            else await yieldTurn();
          }
        }),
      );
      await writer.close();
      const read = await storage(url, '/work/a').store.read(id);
      assert.deepEqual(read?.warnings, []);
      assert.equal(read?.records.length, expected.length + 1);
      assert.deepEqual(texts(read?.records), expected);
      for (const [key, value] of await store.entries(url)) assert.doesNotThrow(() => JSON.parse(value), key);
    });

    test('a store that goes away: the records wait, prompts are refused with the reason, nothing is lost', async () => {
      const url = await store.newDatabase();
      const { store: kept, lines } = storage(url, '/work/a', { timeoutMs: 1500, closeTimeoutMs: 20_000 });
      const id = newId();
      const writer = kept.writer(id);
      writer.append(header(id, '/work/a'));
      writer.append(message('before'));
      await writer.flush();
      await store.pause();
      try {
        writer.append(message('while away 1'));
        writer.append(message('while away 2'));
        await writer.flush();
        await assert.rejects(kept.ready(), (error: Error) => {
          assert.equal((error as { errorName?: string }).errorName, 'RequestFailed');
          assert.match(
            error.message,
            /^The session store (redis|postgres):\/\/127\.0\.0\.1:\d+\/\w+ \(sessions\.store/,
          );
          return true;
        });
        assert.equal(
          lines.filter((line) => line.includes('could not save sessions')).length,
          1,
          lines.join('\n'),
        );
      } finally {
        await store.start();
      }
      // The client reconnects on its own schedule (Redis: up to 2 s apart): ready() resolves once
      // the store answers.
      for (let tries = 1; ; tries++) {
        const answered = await kept.ready().then(
          () => true,
          () => false,
        );
        if (answered) break;
        assert.ok(tries < 10, 'the store answers again once it is back');
      }
      writer.append(message('after'));
      await writer.close();
      const read = await kept.read(id);
      assert.deepEqual(texts(read?.records), ['before', 'while away 1', 'while away 2', 'after']);
      assert.ok(
        lines.some((line) => line.startsWith('warn: saving sessions to')),
        lines.join('\n'),
      );
    });

    test('the index is rebuilt from the records; a read repairs a missing entry', async () => {
      const url = await store.newDatabase();
      const { store: kept } = storage(url, '/work/a');
      const [one, two] = [newId(), newId()];
      for (const id of [one, two]) {
        const writer = kept.writer(id);
        writer.append(header(id, '/work/a'));
        writer.append({
          type: 'prompt',
          runId: 'r',
          at: new Date().toISOString(),
          text: `title ${id}`,
          model: 'm',
        });
        writer.append(message(`hello ${id}`));
        await writer.close();
      }
      const listed = async () =>
        (await kept.list(true)).sessions
          .map((info) => [info.sessionId, info.title, info.messageCount])
          .sort();
      const full = await listed();
      assert.deepEqual(
        full,
        [
          [one, `title ${one}`, 1],
          [two, `title ${two}`, 1],
        ].sort(),
      );
      const connection = await connectKeyv(url, 5000);
      try {
        await connection.index.delete(one);
        await connection.index.delete(two);
        assert.deepEqual(await listed(), []);
        assert.equal((await kept.read(one))?.records.length, 3);
        assert.deepEqual(await listed(), [[one, `title ${one}`, 1]]);
        assert.equal((await kept.rebuildIndex()).sessions, 2);
        assert.deepEqual(await listed(), full);
      } finally {
        await connection.close();
      }
    });

    test('two servers appending to one session at once are told so', async () => {
      const url = await store.newDatabase();
      const first = storage(url, '/work/a');
      const second = storage(url, '/work/b');
      const id = newId();
      const one = first.store.writer(id);
      one.append(header(id, '/work/a'));
      await one.flush();
      const two = second.store.writer(id);
      two.append(message('from the second'));
      await two.flush();
      // Both numbered their second record 2: the first overwrote the second's.
      one.append(message('from the first'));
      await one.flush();
      two.append(message('again from the second'));
      await two.flush();
      const told = (lines: string[]) =>
        lines.some((line) => line.includes(`session ${id} is being saved by another server`));
      assert.ok(told(second.lines), second.lines.join('\n'));
      assert.ok(!told(first.lines), 'the writer whose records are intact says nothing');
    });

    test('a store that cannot be reached: prompts and listings fail with the reason; no password in sight', async () => {
      const port = await freePort();
      const closed =
        kind === 'redis'
          ? `redis://:hunter2-secret-pw@127.0.0.1:${port}/0`
          : `postgres://santra:hunter2-secret-pw@127.0.0.1:${port}/x`;
      const fake = await startFakeProvider('anthropic', [{ text: 'never asked' }]);
      cleanup.push(() => fake.close());
      const s = await server(fake, tempDir('santra-ws-'), closed);
      for (const [method, params] of [
        ['prompt', { text: 'hello', mode: 'simple_chat' }],
        ['session/list', {}],
      ] as const) {
        const response = await s.call(method, params);
        const error = response.error as Json | undefined;
        assert.equal(error?.code, -32803, JSON.stringify(response));
        assert.match(
          error?.message as string,
          new RegExp(
            `^The session store ${kind}://127\\.0\\.0\\.1:${port}/\\w+ \\(sessions\\.store in the config file\\) cannot be used: .*ECONNREFUSED`,
          ),
        );
      }
      assert.equal(fake.requests.length, 0, 'no model was asked');
      await s.stop();
      assert.match(s.client.stderr, /cannot be used/);
      assert.ok(!`${s.client.stdout}${s.client.stderr}`.includes('hunter2-secret-pw'));
    });
  });
}
