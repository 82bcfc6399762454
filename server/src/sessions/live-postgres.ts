/**
 * The live channel for sessions kept in PostgreSQL (live-bus.ts): LISTEN/NOTIFY on the store's
 * database, two channels per session (`santra_live_<hash>_down`, host → subscribers, and `…_up`).
 * A notification carries at most 8000 bytes, so a longer message (a phase with a big tool output)
 * is kept in the table `santra_live_messages` and the notification names its row; rows are
 * dropped a few minutes later, when every listener has long read them.
 *
 * Who hosts a session holds a session-level advisory lock named after it, so a server delivering
 * an event (`deliver`) knows whether anyone hosts it. One connection listens and notifies, so what
 * a server sends arrives in order. As with Redis, the store's access control is the boundary, and
 * a live token seals every message (live-seal.ts).
 */
import { createHash } from 'node:crypto';
import type { Client } from 'pg';
import type * as z from 'zod';
import type { Logger } from '../support/log.ts';
import { ProtocolFault } from '../support/protocol-fault.ts';
import { describeStore } from './keyv-connection.ts';
import {
  type DownMessage,
  DownMessage as DownSchema,
  type HostChannel,
  type JoinedChannel,
  type LiveBus,
  parseMessage,
  type UpMessage,
  UpMessage as UpSchema,
} from './live-bus.ts';
import { LiveSeal } from './live-seal.ts';

const CONNECT_TIMEOUT_MS = 5000;
/** Bytes a notification's payload may hold (PostgreSQL's limit is 8000). */
const MAX_PAYLOAD = 7900;
/** How long a long message's row is kept for its listeners. */
const KEEP_MINUTES = 5;
const TABLE = 'santra_live_messages';

export class PostgresLiveBus implements LiveBus {
  readonly #url: string;
  readonly #log: Logger;
  readonly #seal: LiveSeal;
  /** Listeners by channel. */
  readonly #listeners = new Map<string, (text: string) => void>();
  #connecting: Promise<Client> | undefined;
  /** Sends one after another: a long message's row is written before its notification goes. */
  #sending: Promise<unknown> = Promise.resolve();
  /** Notifications handed on one after another: a long one is read from its row first. */
  #receiving: Promise<unknown> = Promise.resolve();

  constructor(url: string, log: Logger, token?: string) {
    this.#url = url;
    this.#log = log;
    this.#seal = new LiveSeal(token, log);
  }

  async host(sessionId: string, receive: (message: UpMessage) => void): Promise<HostChannel> {
    const up = channelOf(sessionId, 'up');
    const down = channelOf(sessionId, 'down');
    let client: Client;
    try {
      client = await this.#connect();
      // Held while it hosts, so that `deliver` elsewhere knows a server runs it.
      const held = await client.query<{ held: boolean }>('SELECT pg_try_advisory_lock($1) AS held', [
        lockOf(sessionId),
      ]);
      if (held.rows[0]?.held !== true)
        this.#log.warn(
          `session ${sessionId}: another connection holds its live lock; events may not reach it`,
        );
      await this.#listen(client, up, (text) => {
        const message = this.#unwrap(up, text, 'a subscriber', UpSchema);
        if (message !== undefined) receive(message);
      });
    } catch (error) {
      this.#log.warn(
        `session ${sessionId}: no live channel (${describe(error)}); subscribers will not see this run live.`,
      );
      return { send: () => {}, close: () => Promise.resolve() };
    }
    this.#seal.warnIfOpen(describeStore(this.#url), 'anyone who may use the database');
    return {
      send: (message: DownMessage) => {
        this.#notify(client, down, message).catch((error: unknown) => {
          this.#log.warn(`session ${sessionId}: a live message was not sent: ${describe(error)}`);
        });
      },
      close: async () => {
        await this.#unlisten(client, up);
        await client.query('SELECT pg_advisory_unlock($1)', [lockOf(sessionId)]).catch(() => {});
      },
    };
  }

  async join(sessionId: string, receive: (message: DownMessage) => void): Promise<JoinedChannel> {
    const down = channelOf(sessionId, 'down');
    const up = channelOf(sessionId, 'up');
    let client: Client;
    try {
      client = await this.#connect();
      await this.#listen(client, down, (text) => {
        const message = this.#unwrap(down, text, 'the session', DownSchema);
        if (message !== undefined) receive(message);
      });
    } catch (error) {
      throw new ProtocolFault(
        'RequestFailed',
        `Cannot subscribe to session ${sessionId}: the session store ${describeStore(this.#url)} cannot be reached (${describe(error)}). Check that it runs and that sessions.store names it.`,
      );
    }
    const send = (message: UpMessage) => {
      this.#notify(client, up, message).catch((error: unknown) => {
        this.#log.warn(`session ${sessionId}: an answer was not sent: ${describe(error)}`);
      });
    };
    send({ kind: 'hello' });
    return { send, close: () => this.#unlisten(client, down) };
  }

  /** Notifies the session's up channel when a server hosts it (holds its lock); false when none does. */
  async deliver(sessionId: string, message: UpMessage): Promise<boolean> {
    try {
      const client = await this.#connect();
      const lock = lockOf(sessionId);
      const free = await client.query<{ free: boolean }>('SELECT pg_try_advisory_lock($1) AS free', [lock]);
      if (free.rows[0]?.free === true) {
        await client.query('SELECT pg_advisory_unlock($1)', [lock]);
        return false;
      }
      await this.#notify(client, channelOf(sessionId, 'up'), message);
      return true;
    } catch (error) {
      this.#log.warn(`session ${sessionId}: the live channel could not be used: ${describe(error)}`);
      return false;
    }
  }

  async close(): Promise<void> {
    const connecting = this.#connecting;
    this.#connecting = undefined;
    this.#listeners.clear();
    await (await connecting?.catch(() => undefined))?.end().catch(() => {});
  }

  /** Sends in the order called, each after the one before it has gone. */
  #notify(client: Client, channel: string, message: UpMessage | DownMessage): Promise<void> {
    const sent = this.#sending.then(() => this.#notifyNow(client, channel, message));
    this.#sending = sent.catch(() => {});
    return sent;
  }

  async #notifyNow(client: Client, channel: string, message: UpMessage | DownMessage): Promise<void> {
    const text = this.#seal.wrap(channel, message);
    if (Buffer.byteLength(text) <= MAX_PAYLOAD) {
      await client.query('SELECT pg_notify($1, $2)', [channel, text]);
      return;
    }
    // Too long for a notification: kept in the table, the notification names its row.
    const kept = await client.query<{ id: string }>(
      `INSERT INTO ${TABLE} (channel, body) VALUES ($1, $2) RETURNING id`,
      [channel, text],
    );
    await client.query('SELECT pg_notify($1, $2)', [channel, JSON.stringify({ ref: kept.rows[0]?.id })]);
    await client
      .query(`DELETE FROM ${TABLE} WHERE at < now() - interval '${KEEP_MINUTES} minutes'`)
      .catch(() => {});
  }

  #unwrap<T>(channel: string, text: string, from: string, schema: z.ZodType<T>): T | undefined {
    const body = this.#seal.unwrap(channel, text, from);
    return body === undefined ? undefined : parseMessage(schema, body, this.#log, from);
  }

  async #listen(client: Client, channel: string, listener: (text: string) => void): Promise<void> {
    this.#listeners.set(channel, listener);
    await client.query(`LISTEN ${channel}`);
  }

  async #unlisten(client: Client, channel: string): Promise<void> {
    this.#listeners.delete(channel);
    await client.query(`UNLISTEN ${channel}`).catch(() => {});
  }

  #connect(): Promise<Client> {
    const connecting = (this.#connecting ??= this.#open());
    // A failed attempt is not kept: the next subscription tries again.
    connecting.catch(() => {
      if (this.#connecting === connecting) this.#connecting = undefined;
    });
    return connecting;
  }

  async #open(): Promise<Client> {
    const { default: pg } = await import('pg');
    const client = new pg.Client({
      connectionString: this.#url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    let said = false;
    client.on('error', (error) => {
      if (!said) this.#log.warn(`live channel: ${describeStore(this.#url)}: ${describe(error)}`);
      said = true;
    });
    client.on('notification', (notification) => {
      const payload = notification.payload;
      if (payload === undefined || !this.#listeners.has(notification.channel)) return;
      // In the order they came, a long one read from its row before the next is handed on.
      this.#receiving = this.#receiving.then(async () => {
        try {
          const text = await this.#payload(client, payload);
          if (text !== undefined) this.#listeners.get(notification.channel)?.(text);
        } catch (error) {
          this.#log.warn(`live channel ${notification.channel}: ${describe(error)}`);
        }
      });
    });
    await client.connect();
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${TABLE} (id BIGSERIAL PRIMARY KEY, channel TEXT NOT NULL, body TEXT NOT NULL, at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    return client;
  }

  /** A notification's text: as sent, or read from its row for a long one. */
  async #payload(client: Client, payload: string): Promise<string | undefined> {
    const ref = /^\{"ref":"(\d+)"\}$/.exec(payload)?.[1];
    if (ref === undefined) return payload;
    const kept = await client.query<{ body: string }>(`SELECT body FROM ${TABLE} WHERE id = $1`, [ref]);
    return kept.rows[0]?.body;
  }
}

/** A channel name PostgreSQL takes unquoted: lower-case letters, digits and `_`, under 63 bytes. */
function channelOf(sessionId: string, direction: 'up' | 'down'): string {
  return `santra_live_${hash(sessionId).slice(0, 32)}_${direction}`;
}

/** The advisory lock key of a session: 64 bits of its hash, as PostgreSQL's bigint (a decimal string). */
function lockOf(sessionId: string): string {
  return BigInt.asIntN(64, BigInt(`0x${hash(sessionId).slice(0, 16)}`)).toString();
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
