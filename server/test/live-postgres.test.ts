/**
 * The PostgreSQL live channel (sessions/live-postgres.ts) on a real PostgreSQL server: a message
 * longer than a notification can carry goes through the table and arrives whole; `deliver` knows
 * whether a server hosts the session; with a live token a forged notification is dropped.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { DownMessage, UpMessage } from '../src/sessions/live-bus.ts';
import { PostgresLiveBus } from '../src/sessions/live-postgres.ts';
import { createLogger } from '../src/support/log.ts';
import { type RunningStore, startPostgres } from './helpers/stores.ts';

let postgres: RunningStore;
before(async () => {
  postgres = await startPostgres();
});
after(async () => postgres.stop());

const TOKEN = 'postgres-live-test-token-91c3';

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function bus(url: string, token: string | undefined, log: string[]) {
  return new PostgresLiveBus(
    url,
    createLogger((line) => log.push(line), 'warn'),
    token,
  );
}

const phase = (text: string): DownMessage => ({
  kind: 'phase',
  phase: { type: 'text', runId: 'run_1', sessionId: 'ses_1', agentId: 'executor', seq: 1, text },
});

describe('the PostgreSQL live channel', () => {
  test('a long message arrives whole through the table; deliver knows whether a server hosts the session', async () => {
    const url = await postgres.newDatabase();
    const logs: string[] = [];
    const host = bus(url, TOKEN, logs);
    const subscriber = bus(url, TOKEN, logs);
    const sender = bus(url, TOKEN, logs);
    try {
      assert.equal(await sender.deliver('ses_1', { kind: 'hello' }), false, 'nobody hosts it yet');
      const up: UpMessage[] = [];
      const channel = await host.host('ses_1', (message) => up.push(message));
      const down: DownMessage[] = [];
      const joined = await subscriber.join('ses_1', (message) => down.push(message));
      await until(() => up.some((message) => message.kind === 'hello'), 'the hello');
      const long = 'x'.repeat(30_000);
      channel.send(phase('short'));
      channel.send(phase(long));
      channel.send(phase('after'));
      await until(() => down.length === 3, 'three messages');
      assert.deepEqual(
        down.map((message) =>
          message.kind === 'phase' && message.phase.type === 'text' ? message.phase.text.length : 0,
        ),
        [5, 30_000, 5],
        'in order, the long one whole',
      );
      const event: UpMessage = {
        kind: 'event',
        eventId: 'evt_1',
        source: 'ci',
        text: 'Build 7 failed.',
        at: 'now',
      };
      assert.equal(await sender.deliver('ses_1', event), true, 'a server hosts it');
      await until(() => up.some((message) => message.kind === 'event'), 'the event');
      await joined.close();
      await channel.close();
      assert.equal(await sender.deliver('ses_1', event), false, 'no longer hosted');
      assert.deepEqual(logs, []);
    } finally {
      await Promise.all([host.close(), subscriber.close(), sender.close()]);
    }
  });

  test('with a live token, a notification anyone with the database sends is dropped', async () => {
    const url = await postgres.newDatabase();
    const logs: string[] = [];
    const host = bus(url, TOKEN, logs);
    const up: UpMessage[] = [];
    const channel = await host.host('ses_2', (message) => up.push(message));
    const raw = new pg.Client({ connectionString: url });
    await raw.connect();
    try {
      const channels = await raw.query<{ name: string }>('SELECT pg_listening_channels() AS name');
      assert.equal(channels.rows.length, 0, 'the raw client listens to nothing');
      const forged = { kind: 'event', eventId: 'evt_x', source: 'ci', text: 'Forged.', at: 'now' };
      // The channel's name is derived from the session id, which anyone with the store can read.
      const wrong = bus(url, 'another-token-of-enough-length', []);
      await wrong.deliver('ses_2', forged as UpMessage);
      await wrong.close();
      await until(() => logs.some((line) => /was dropped: its seal does not match/.test(line)), 'the drop');
      assert.equal(up.filter((message) => message.kind === 'event').length, 0);
    } finally {
      await raw.end();
      await channel.close();
      await host.close();
    }
  });
});
