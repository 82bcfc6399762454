/**
 * The connection to a shared session store through keyv and its official adapters: Redis
 * (`redis://`, `rediss://`) through @keyv/redis, PostgreSQL (`postgres://`, `postgresql://`)
 * through @keyv/postgres. The adapters are imported here, on demand, so a server keeping its
 * sessions in files never loads them.
 *
 * Three keyv namespaces, the same on both adapters:
 *   santra-index   one small entry per session: what session/list shows (rebuildable)
 *   santra-record  one entry per record: `<session id>:<n>`, n = 1, 2, 3…
 *   santra-import  what session/import keeps (import/archive.ts): its ledger, `ledger:<workspace
 *                  hash>:<transcript key>`, and imported transcripts' text, `original:<id>:<n>`
 * In Redis they are keys `santra-index::<id>` and `santra-record::<id>:<n>`; in PostgreSQL rows
 * of the table `santra_sessions` keyed `santra-index:<id>` and `santra-record:<id>:<n>`. A value
 * is stored as it is given (no keyv envelope): a record is the same JSON line a session file
 * holds.
 *
 * PostgreSQL: @keyv/postgres keeps one pool per process and listens to none of its errors, so a
 * database restart (an idle connection terminated) would end the server with an unhandled
 * 'error' event. The adapter's queries are used as they are, on a pool of our own that does listen.
 */
import type { Keyv, KeyvOptions } from 'keyv';
import type { Pool } from 'pg';
import { ProtocolFault } from '../support/protocol-fault.ts';
import { withTimeout } from '../support/time-limit.ts';

export const STORE_SCHEMES = ['redis', 'rediss', 'postgres', 'postgresql'] as const;

const INDEX = 'santra-index';
const RECORDS = 'santra-record';
const IMPORTS = 'santra-import';
const TABLE = 'santra_sessions';

export interface KeyvConnection {
  /** One entry per session, keyed by its id. */
  index: Keyv<string>;
  /** One entry per record, keyed `<session id>:<n>`. */
  records: Keyv<string>;
  /** session/import's ledger and originals. */
  imports: Keyv<string>;
  /** The last error the adapters reported (they report some as events only: a failed iteration). */
  readonly lastError: string | undefined;
  /** How many errors the adapters have reported; an iteration that saw one more did not finish. */
  readonly errorCount: number;
  close(): Promise<void>;
}

/** The URL without its credentials, to name the store in messages. */
export function describeStore(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    return parsed.toString();
  } catch {
    return 'the configured store';
  }
}

/** The password in a store URL (what the log must never show), if any. */
export function storePassword(url: string): string | undefined {
  try {
    const password = new URL(url).password;
    return password === '' ? undefined : decodeURIComponent(password);
  } catch {
    return undefined;
  }
}

/** Values are stored as given: the keyv envelope ({value, expires}) would only wrap each line. */
const raw: Pick<KeyvOptions, 'serialize' | 'deserialize'> = {
  serialize: (data) => String(data.value),
  // keyv types this for any value; ours are strings.
  deserialize: <Value>(text: string) => ({ value: text as Value }),
};

/**
 * Connects and checks that the store answers (one read), within `timeoutMs`. Rejects with the
 * adapter's own reason; nothing is left open then.
 */
export async function connectKeyv(url: string, timeoutMs: number): Promise<KeyvConnection> {
  const scheme = new URL(url).protocol.slice(0, -1);
  const { Keyv } = await import('keyv');
  let lastError: string | undefined;
  let errorCount = 0;
  const noteError = (error: unknown) => {
    errorCount++;
    lastError = error instanceof Error ? error.message : String(error);
  };
  const open = (store: unknown, namespace: string, useKeyPrefix: boolean): Keyv<string> => {
    const keyv = new Keyv<string>(store as ConstructorParameters<typeof Keyv>[0], {
      namespace,
      useKeyPrefix,
      throwOnErrors: true,
      ...raw,
    });
    keyv.on('error', noteError);
    return keyv;
  };
  let index: Keyv<string>;
  let records: Keyv<string>;
  let imports: Keyv<string>;
  let close: () => Promise<void>;
  if (scheme === 'redis' || scheme === 'rediss') {
    const { default: KeyvRedis, createClient } = await import('@keyv/redis');
    let connected = false;
    const client = createClient({
      url,
      socket: {
        connectTimeout: timeoutMs,
        // The first connection fails at once (a refused port, a wrong password); once connected,
        // the client reconnects for as long as the server runs, and writes wait meanwhile (up to
        // their timeout).
        reconnectStrategy: (retries: number, cause: Error) =>
          connected ? Math.min(100 * 2 ** retries, 2000) : cause,
      },
    });
    client.on('error', noteError);
    close = async () => {
      if (client.isOpen) await client.close().catch(() => client.destroy());
    };
    try {
      await withStoreTimeout(client.connect(), timeoutMs, 'connecting');
      connected = true;
    } catch (error) {
      if (client.isOpen) client.destroy();
      throw new Error(reason(error, lastError), { cause: error });
    }
    // @keyv/redis puts the namespace in the key itself (`ns::key`); keyv must not add its own.
    const adapter = () => new KeyvRedis(client, { throwOnErrors: true, throwOnConnectError: true });
    index = open(adapter(), INDEX, false);
    records = open(adapter(), RECORDS, false);
    imports = open(adapter(), IMPORTS, false);
  } else if (scheme === 'postgres' || scheme === 'postgresql') {
    const [{ default: KeyvPostgres }, { default: pg }] = await Promise.all([
      import('@keyv/postgres'),
      import('pg'),
    ]);
    const pool: Pool = new pg.Pool({
      connectionString: url,
      connectionTimeoutMillis: timeoutMs,
      max: 4,
      idleTimeoutMillis: 30_000,
    });
    // An idle connection the server ends (a restart) is reported here, and replaced on next use.
    pool.on('error', noteError);
    class PooledPostgres extends KeyvPostgres {
      override connect() {
        return Promise.resolve(
          async (sql: string, values?: unknown[]) => (await pool.query(sql, values)).rows as unknown[],
        );
      }
      override disconnect() {
        return Promise.resolve();
      }
    }
    const adapter = () => new PooledPostgres({ table: TABLE, iterationLimit: 500 });
    index = open(adapter(), INDEX, true);
    records = open(adapter(), RECORDS, true);
    imports = open(adapter(), IMPORTS, true);
    close = () => pool.end().catch(() => {});
  } else {
    throw new Error(`unsupported store scheme ${scheme}: (expected one of ${STORE_SCHEMES.join(', ')})`);
  }
  try {
    // The first query also waits for @keyv/postgres to create its table.
    await withStoreTimeout(index.get('probe'), timeoutMs, 'reading');
  } catch (error) {
    await close();
    throw new Error(reason(error, lastError), { cause: error });
  }
  return {
    index,
    records,
    imports,
    get lastError() {
      return lastError;
    },
    get errorCount() {
      return errorCount;
    },
    close,
  };
}

/** The most telling reason: the adapters' wrapped messages hide the socket's. */
function reason(error: unknown, lastError: string | undefined): string {
  const message = error instanceof Error ? error.message : String(error);
  if (
    lastError !== undefined &&
    !message.includes(lastError) &&
    /not connected|timed out|no answer/i.test(message)
  )
    return `${message.replace(/\.?$/, '')}: ${lastError}`;
  return message;
}

/** `promise`, or a rejection naming `what` once `ms` have passed. */
export function withStoreTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return withTimeout(promise, ms, () => new Error(`no answer after ${ms} ms (${what})`));
}

/** A store that cannot be used, as the protocol reports it (RequestFailed); `reason` is the store's. */
export class StoreFault extends ProtocolFault {
  readonly reason: string;

  constructor(store: string, reason: string) {
    super(
      'RequestFailed',
      `The session store ${store} (sessions.store in the config file) cannot be used: ${reason} Start it or correct sessions.store; without sessions.store, sessions are kept in files.`,
    );
    this.reason = reason;
  }
}

/** The reason in one sentence, ending with a full stop. */
export function messageOf(error: unknown): string {
  if (error instanceof StoreFault) return error.reason;
  const text = error instanceof Error ? error.message : String(error);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
