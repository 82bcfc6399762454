/**
 * The live channel for sessions kept in Redis (live-bus.ts): two pub/sub channels per session on
 * the store's server, `santra-live:<db>:<session id>:down` (host → subscribers) and `…:up`
 * (subscribers → host). Pub/sub ignores Redis's database numbers, so the number is part of the
 * name: two stores on one server stay apart.
 *
 * Who may subscribe is whoever may use the store: Redis's own access control (a password, ACL
 * users, TLS with `rediss://`) is the boundary, as it is for the sessions themselves. With a live
 * token (`sessions.liveToken`), every message is sealed with it (live-seal.ts), and one that is not
 * is dropped: only the user's own servers, which hold the token, can answer approvals or send events.
 *
 * One connection publishes, so what the host sends arrives in order; a second one subscribes, as
 * Redis requires. Both are opened on first use.
 */
import type { Logger } from '../support/log.ts';
import { ProtocolFault } from '../support/protocol-fault.ts';
import { describeStore } from './keyv-connection.ts';
import { LiveSeal } from './live-seal.ts';
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

const CONNECT_TIMEOUT_MS = 5000;

interface PubSub {
  publish(channel: string, message: string): Promise<unknown>;
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
  close(): Promise<void>;
}

export class RedisLiveBus implements LiveBus {
  readonly #url: string;
  readonly #log: Logger;
  readonly #db: string;
  readonly #seal: LiveSeal;
  #connecting: Promise<PubSub> | undefined;

  constructor(url: string, log: Logger, token?: string) {
    this.#url = url;
    this.#log = log;
    this.#db = new URL(url).pathname.replace(/^\//, '') || '0';
    this.#seal = new LiveSeal(token, log);
  }

  async host(sessionId: string, receive: (message: UpMessage) => void): Promise<HostChannel> {
    let pubsub: PubSub;
    const up = this.#channel(sessionId, 'up');
    try {
      pubsub = await this.#connect();
      await pubsub.subscribe(up, (text) => {
        const body = this.#seal.unwrap(up, text, 'a subscriber');
        const message =
          body === undefined ? undefined : parseMessage(UpSchema, body, this.#log, 'a subscriber');
        if (message !== undefined) receive(message);
      });
      this.#seal.warnIfOpen(describeStore(this.#url), 'anyone who may use the store');
    } catch (error) {
      this.#log.warn(
        `session ${sessionId}: no live channel (${describe(error)}); subscribers will not see this run live.`,
      );
      return { send: () => {}, close: () => Promise.resolve() };
    }
    const down = this.#channel(sessionId, 'down');
    return {
      send: (message: DownMessage) => {
        pubsub.publish(down, this.#seal.wrap(down, message)).catch((error: unknown) => {
          this.#log.warn(`session ${sessionId}: a live message was not sent: ${describe(error)}`);
        });
      },
      close: async () => {
        await pubsub.unsubscribe(up).catch(() => {});
      },
    };
  }

  async join(sessionId: string, receive: (message: DownMessage) => void): Promise<JoinedChannel> {
    let pubsub: PubSub;
    const down = this.#channel(sessionId, 'down');
    try {
      pubsub = await this.#connect();
      await pubsub.subscribe(down, (text) => {
        const body = this.#seal.unwrap(down, text, 'the session');
        const message =
          body === undefined ? undefined : parseMessage(DownSchema, body, this.#log, 'the session');
        if (message !== undefined) receive(message);
      });
    } catch (error) {
      throw new ProtocolFault(
        'RequestFailed',
        `Cannot subscribe to session ${sessionId}: the session store ${describeStore(this.#url)} cannot be reached (${describe(error)}). Check that it runs and that sessions.store names it.`,
      );
    }
    const up = this.#channel(sessionId, 'up');
    const send = (message: UpMessage) => {
      pubsub.publish(up, this.#seal.wrap(up, message)).catch((error: unknown) => {
        this.#log.warn(`session ${sessionId}: an answer was not sent: ${describe(error)}`);
      });
    };
    send({ kind: 'hello' });
    return { send, close: async () => void (await pubsub.unsubscribe(down).catch(() => {})) };
  }

  /** Publishes `message` on the session's up channel: handed over when a host listens on it. */
  async deliver(sessionId: string, message: UpMessage): Promise<boolean> {
    try {
      const pubsub = await this.#connect();
      const up = this.#channel(sessionId, 'up');
      const receivers = await pubsub.publish(up, this.#seal.wrap(up, message));
      return typeof receivers === 'number' && receivers > 0;
    } catch (error) {
      this.#log.warn(`session ${sessionId}: the live channel could not be used: ${describe(error)}`);
      return false;
    }
  }

  async close(): Promise<void> {
    const connecting = this.#connecting;
    this.#connecting = undefined;
    await (await connecting?.catch(() => undefined))?.close();
  }

  #channel(sessionId: string, direction: 'up' | 'down'): string {
    return `santra-live:${this.#db}:${sessionId}:${direction}`;
  }

  #connect(): Promise<PubSub> {
    const connecting = (this.#connecting ??= openPubSub(this.#url, this.#log));
    // A failed attempt is not kept: the next subscription tries again.
    connecting.catch(() => {
      if (this.#connecting === connecting) this.#connecting = undefined;
    });
    return connecting;
  }
}

async function openPubSub(url: string, log: Logger): Promise<PubSub> {
  const { createClient } = await import('@keyv/redis');
  let connected = false;
  const publisher = createClient({
    url,
    socket: {
      connectTimeout: CONNECT_TIMEOUT_MS,
      reconnectStrategy: (retries: number, cause: Error) =>
        connected ? Math.min(100 * 2 ** retries, 2000) : cause,
    },
  });
  const subscriber = publisher.duplicate();
  let said = false;
  const onError = (error: unknown) => {
    if (!said) log.warn(`live channel: ${describeStore(url)}: ${describe(error)}`);
    said = true;
  };
  publisher.on('error', onError);
  subscriber.on('error', onError);
  try {
    await Promise.all([publisher.connect(), subscriber.connect()]);
    connected = true;
  } catch (error) {
    publisher.destroy();
    subscriber.destroy();
    throw error;
  }
  return {
    publish: (channel, message) => publisher.publish(channel, message),
    subscribe: (channel, listener) => subscriber.subscribe(channel, listener),
    unsubscribe: (channel) => subscriber.unsubscribe(channel),
    close: async () => {
      await Promise.allSettled([publisher.close(), subscriber.close()]);
    },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
