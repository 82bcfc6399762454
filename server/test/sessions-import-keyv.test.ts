/**
 * session/import with sessions in a shared store (a real redis-server and a real PostgreSQL, as
 * in sessions-keyv.test.ts): the ledger and the original live in the store too (the keyv
 * namespace santra-import), so a second server on the same store and workspace imports the same
 * transcript as the same session and adds a grown one's turns to it; the original is kept whole,
 * redacted of the server's secrets like every stored value, and goes when the session is deleted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { tempDir } from '../../scripts/temp-dirs.ts';
import { importTranscript } from '../src/sessions/import/import-session.ts';
import { KeyvStorage } from '../src/sessions/keyv-storage.ts';
import { SessionStore } from '../src/sessions/store.ts';
import { Redactor } from '../src/support/log.ts';
import { CANARY_KEY } from './helpers/run.ts';
import { missing, type RunningStore, startPostgres, startRedis } from './helpers/stores.ts';
import { CLAUDE, transcript } from './helpers/transcripts.ts';

const cleanup: Array<() => Promise<void>> = [];
after(async () => {
  for (const step of cleanup.reverse()) await step();
});

const quiet = { error() {}, warn() {}, info() {}, debug() {} };

/** A session store on `url` for `workspaceRoot`, as a server would open it. */
function sessionStore(url: string, workspaceRoot: string): SessionStore {
  const redactor = new Redactor();
  redactor.add(CANARY_KEY);
  const storage = new KeyvStorage({ url, workspaceRoot, redact: (text) => redactor.apply(text), log: quiet });
  const store = new SessionStore({ storage, workspaceRoot, log: quiet });
  cleanup.push(() => store.close());
  return store;
}

const lines = transcript(CLAUDE).split('\n');
// A secret in the transcript (the person pasted it): the original is stored without it.
const firstTurn = `${lines.slice(0, 15).join('\n').replace('then run the tests', `then run the tests (key ${CANARY_KEY})`)}\n`;
const whole = `${firstTurn}${lines.slice(15).join('\n')}`;

for (const kind of ['redis', 'postgres'] as const) {
  const absent = missing(kind);
  if (absent !== undefined && process.env.CI !== undefined) throw new Error(absent);
  describe(`imports with sessions in ${kind}`, { skip: absent }, () => {
    let store: RunningStore;
    before(async () => {
      store = kind === 'redis' ? await startRedis() : await startPostgres();
      cleanup.push(() => store.stop());
    });

    test('two servers on one workspace share the ledger and the original', async () => {
      const url = await store.newDatabase();
      const workspace = tempDir('santra-ws-');
      const a = sessionStore(url, workspace);
      const b = sessionStore(url, workspace);
      const first = await importTranscript(a, { format: 'claude', content: firstTurn, name: 'ada.jsonl' });
      assert.equal(first.outcome, 'created');
      const id = first.session.id;

      const again = await importTranscript(b, { format: 'claude', content: firstTurn, name: 'ada.jsonl' });
      assert.equal(again.outcome, 'unchanged');
      assert.equal(again.session.id, id, 'the other server finds it in the ledger');
      const grown = await importTranscript(b, { format: 'claude', content: whole, name: 'ada.jsonl' });
      assert.equal(grown.outcome, 'appended');
      assert.equal(grown.session.id, id);
      assert.equal(grown.session.messages.length, 17);

      // Another workspace has a ledger of its own.
      const elsewhere = sessionStore(url, tempDir('santra-ws-'));
      const there = await importTranscript(elsewhere, {
        format: 'claude',
        content: whole,
        name: 'ada.jsonl',
      });
      assert.equal(there.outcome, 'created');
      assert.notEqual(there.session.id, id);

      const entries = new Map(await store.entries(url));
      const part = (key: string) => Number(key.slice(key.lastIndexOf(':') + 1));
      const originals = [...entries]
        .filter(([key]) => key.includes(`original:${id}:`))
        .sort(([a], [b]) => part(a) - part(b))
        .map(([, value]) => value);
      assert.equal(originals.length, 2, 'the first import, then what the transcript grew by');
      assert.equal(originals.join(''), whole.replaceAll(CANARY_KEY, '[redacted]'), 'the transcript, whole');
      for (const [key, value] of entries) assert.ok(!value.includes(CANARY_KEY), `${key} holds no key`);
      assert.ok([...entries.keys()].some((key) => key.includes('ledger:')));

      await a.delete(id);
      const after = new Map(await store.entries(url));
      assert.equal(
        [...after.keys()].some((key) => key.includes(`original:${id}:`)),
        false,
        'deleted with the session',
      );
    });
  });
}
