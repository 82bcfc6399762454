/**
 * Live sessions (§10.11) between two real server processes sharing a store — files (the socket in
 * the sessions directory) and a real redis-server (pub/sub): a subscriber joining mid-run with
 * `afterSeq` gets every phase after it exactly once, in order, partly from the store and partly
 * live; it answers the run's approval, which the running session acts on while its own client's
 * request is withdrawn; unknown sessions and double subscriptions get clear errors.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type FakeTurn, startFakeProvider } from '../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { TESTER } from './helpers/run.ts';
import { sessionServers } from './helpers/sessions.ts';
import { missing, type RunningStore, startPostgres, startRedis } from './helpers/stores.ts';
import type { Json, WireClient } from './helpers/wire.ts';

const servers = sessionServers();
const cleanup: Array<() => Promise<void>> = [];
servers.later(async () => {
  for (const step of cleanup.reverse()) await step();
});

const CLIENT = { approve: true, ask: true, diffs: true };

/** Run 1 answers at once; run 2 streams slowly, asks to write a file, and ends. */
const TURNS: FakeTurn[] = [
  { text: 'first run' },
  {
    text: 'second ',
    generate: { tokens: 30, tokensPerSecond: 100 },
    toolCalls: [{ id: 'w1', name: 'write_file', args: { path: 'a.txt', content: 'from the subscriber\n' } }],
  },
  { text: 'written' },
];

async function setup(store: string | undefined, liveToken?: string) {
  const fake = await startFakeProvider('anthropic', TURNS);
  const workspace = tempDir('santra-ws-');
  mkdirSync(join(workspace, '.agents'));
  writeFileSync(join(workspace, '.agents/tester.json'), JSON.stringify(TESTER));
  const hostHome = tempDir('santra-home-');
  // With files, the two servers share one config directory (one user, one machine).
  const subscriberHome = store === undefined ? hostHome : tempDir('santra-home-');
  const homes = [...new Set([hostHome, subscriberHome])];
  const elsewhere = tempDir('santra-ws-');
  for (const home of homes) {
    mkdirSync(join(home, 'santra'), { recursive: true, mode: 0o700 });
    if (store !== undefined)
      writeFileSync(
        join(home, 'santra', 'config.json'),
        JSON.stringify({ sessions: { store, ...(liveToken === undefined ? {} : { liveToken }) } }),
      );
  }
  cleanup.push(async () => {
    await fake.close();
    await Promise.all([workspace, elsewhere, ...homes].map((dir) => removeTempDir(dir)));
  });
  const host = await servers.start({
    home: hostHome,
    workspace,
    anthropicUrl: fake.url,
    capabilities: CLIENT,
  });
  const subscriber = await servers.start({
    home: subscriberHome,
    workspace: elsewhere,
    anthropicUrl: fake.url,
    capabilities: CLIENT,
  });
  return { host, subscriber, workspace, hostHome };
}

const isRequest = (method: string) => (m: Json) => m.method === method && m.id !== undefined;
const seqs = (phases: Json[]) => phases.map((p) => p.seq as number);

/** Waits until the client has received a message matching `predicate`, leaving it in place. */
async function seen(client: WireClient, predicate: (message: Json) => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!client.messages.some(predicate)) {
    if (Date.now() > deadline) throw new Error(`not received within ${ms} ms; stderr: ${client.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function storeKinds(): Array<{
  kind: string;
  absent: string | false;
  url: () => Promise<string | undefined>;
  liveToken?: string;
}> {
  let redis: RunningStore | undefined;
  let postgres: RunningStore | undefined;
  before(async () => {
    if (missing('redis') === undefined) redis = await startRedis();
    if (missing('postgres') === undefined) postgres = await startPostgres();
  });
  after(async () => {
    await redis?.stop();
    await postgres?.stop();
  });
  return [
    { kind: 'files', absent: false, url: () => Promise.resolve(undefined) },
    {
      kind: 'redis',
      absent: missing('redis') ?? false,
      url: async () => {
        assert.ok(redis !== undefined);
        return redis.newDatabase();
      },
    },
    {
      // LISTEN/NOTIFY, with long messages through the table (sessions/live-postgres.ts), sealed.
      kind: 'postgres with a live token',
      absent: missing('postgres') ?? false,
      liveToken: 'subscribe-test-live-token-pg-5a2e',
      url: async () => {
        assert.ok(postgres !== undefined);
        return postgres.newDatabase();
      },
    },
    {
      // Every message sealed with the token both servers hold (sessions/live-seal.ts).
      kind: 'redis with a live token',
      absent: missing('redis') ?? false,
      liveToken: 'subscribe-test-live-token-77c1',
      url: async () => {
        assert.ok(redis !== undefined);
        return redis.newDatabase();
      },
    },
  ];
}

describe('session/subscribe between two servers', () => {
  for (const { kind, absent, url, liveToken } of storeKinds()) {
    test(
      `${kind}: joined mid-run with afterSeq, every later phase once and in order; the subscriber's answer is the one acted on`,
      { skip: absent },
      async () => {
        const { host, subscriber, workspace, hostHome } = await setup(await url(), liveToken);
        const first = await host.prompt({ text: 'one', agent: 'tester' });
        const sessionId = first.result.sessionId as string;
        const afterSeq = Math.max(...seqs(first.phases)) - 1;
        if (kind === 'files') {
          const live = join(hostHome, 'santra', 'live');
          assert.equal(statSync(live).mode & 0o777, 0o700, 'the live folder is private');
          assert.equal(
            statSync(join(live, `${sessionId}.sock`)).mode & 0o777,
            0o600,
            'the socket is private',
          );
        }

        // Run 2 starts; the subscriber joins once it streams, so some phases are stored and some live.
        const promptId = 'run2';
        host.client.request(promptId, 'prompt', { text: 'two', sessionId, agent: 'tester' });
        await seen(host.client, (m) => m.method === 'phase' && (m.params as Json).type === 'text');
        subscriber.client.handle('approve', () => ({ decision: 'allow' }));
        subscriber.client.request('sub', 'session/subscribe', { sessionId, afterSeq });

        // The host's own client never answers: the subscriber's answer decides, and the host's
        // request is withdrawn on the wire.
        const asked = await host.client.next(isRequest('approve'), 15_000);
        await host.client.next(
          (m) => m.method === '$/cancelRequest' && (m.params as Json).id === asked.id,
          15_000,
        );
        const response = await host.client.response(promptId);
        assert.equal((response.result as Json).status, 'completed');
        assert.equal(readFileSync(join(workspace, 'a.txt'), 'utf8'), 'from the subscriber\n');

        // Every phase the host's client saw after afterSeq, the subscriber saw: once, in order, equal.
        const hostPhases = [
          ...first.phases,
          ...host.client.messages.filter((m) => m.method === 'phase').map((m) => m.params as Json),
        ]
          .filter((p) => (p.seq as number) > afterSeq)
          // In seq order: the order the host's own client got them in is not what is tested.
          .sort((a, b) => (a.seq as number) - (b.seq as number));
        const lastSeq = Math.max(...seqs(hostPhases));
        await seen(subscriber.client, (m) => m.method === 'phase' && (m.params as Json).seq === lastSeq);
        const got = subscriber.client.messages
          .filter((m) => m.method === 'phase')
          .map((m) => m.params as Json);
        assert.deepEqual(seqs(got), seqs(hostPhases), 'no gap, no duplicate, in order');
        // Equal but for the mark of what was read back from the store: the run before the
        // subscription all of it, and from the first phase relayed as it happened on, none.
        const unmarked = got.map(({ replayed: _replayed, ...phase }) => phase);
        assert.deepEqual(unmarked, hostPhases);
        const firstRun = new Set(first.phases.map((p) => p.seq as number));
        assert.ok(got.filter((p) => firstRun.has(p.seq as number)).every((p) => p.replayed === true));
        const live = got.findIndex((p) => p.replayed === undefined);
        assert.ok(
          live > 0 && got.slice(live).every((p) => p.replayed === undefined),
          JSON.stringify(seqs(got)),
        );

        subscriber.client.request('unsub', 'session/unsubscribe', { sessionId });
        assert.deepEqual((await subscriber.client.response('unsub')).result, { unsubscribed: true });
        const ended = (await subscriber.client.response('sub')).result as Json;
        assert.equal(ended.lastSeq, lastSeq);
        assert.equal(ended.answered, 1, "the subscriber's answer decided the approval");
        assert.ok((ended.replayedPhases as number) >= 2, `replayed ${String(ended.replayedPhases)}`);
        assert.ok((ended.livePhases as number) >= 1, `live ${String(ended.livePhases)}`);
        assert.equal((ended.replayedPhases as number) + (ended.livePhases as number), hostPhases.length);
      },
    );
  }

  test('an unknown session is refused with UnknownSession; a second subscription with InvalidParams', async () => {
    const { host, subscriber } = await setup(undefined);
    const unknown = await subscriber.call('session/subscribe', { sessionId: 'ses_nope' });
    assert.equal((unknown.error as Json).code, -33005);
    assert.match((unknown.error as Json).message as string, /Unknown session ses_nope.*santra sessions/);

    const { session } = (await host.ok('session/new')) as { session: Json };
    const sessionId = session.sessionId as string;
    subscriber.client.request('s1', 'session/subscribe', { sessionId });
    // An idle session: nothing to replay, and the subscription waits for a run.
    const again = await subscriber.call('session/subscribe', { sessionId });
    assert.equal((again.error as Json).code, -32602);
    assert.match((again.error as Json).message as string, /already subscribed.*session\/unsubscribe/);
    // A later run of the idle session is seen live.
    const run = await host.prompt({ text: 'one', sessionId, agent: 'tester' });
    const last = Math.max(...seqs(run.phases));
    await seen(subscriber.client, (m) => m.method === 'phase' && (m.params as Json).seq === last);
    await subscriber.ok('session/unsubscribe', { sessionId });
    const ended = (await subscriber.client.response('s1')).result as Json;
    assert.equal((ended.replayedPhases as number) + (ended.livePhases as number), run.phases.length);
    assert.deepEqual(await subscriber.ok('session/unsubscribe', { sessionId }), { unsubscribed: false });
  });
});
