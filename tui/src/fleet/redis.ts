/**
 * Redis for the fleet: BullMQ's connections and one plain client for the session locks, all made
 * with node-redis (the client the sessions' Redis store already uses), so no second Redis driver
 * is installed.
 */
import { createClient } from '@keyv/redis';
import { createNodeRedisClient, RedisConnection } from 'bullmq';

/** A BullMQ `connection` option for `url`. */
export interface Connection {
  url: string;
}

let factorySet = false;

/** BullMQ's connections for `url`, made with node-redis. */
export function bullConnection(url: string): Connection {
  if (!factorySet) {
    RedisConnection.clientFactory = (options) =>
      createNodeRedisClient(createClient({ url: String(options.url) }));
    factorySet = true;
  }
  return { url };
}

/** Why `url` is not a Redis URL santra can use, or undefined. */
export function redisUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"${url}" is not a URL; give one like redis://127.0.0.1:6379 (or rediss:// for TLS)`;
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')
    return `"${parsed.protocol}" is not Redis; give a URL like redis://127.0.0.1:6379 (or rediss:// for TLS)`;
  return undefined;
}

/** A URL with its password replaced, to show in messages and logs. */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unparsable URL)';
  }
}

/** The few commands the fleet sends itself. */
export interface RedisCommands {
  send(args: string[]): Promise<unknown>;
  close(): Promise<void>;
}

/** A connected plain client; rejects with the server's error when it cannot be reached. */
export async function connectRedis(url: string): Promise<RedisCommands> {
  const client = createClient({
    url,
    socket: { reconnectStrategy: (retries) => Math.min(retries * 100, 2000) },
  });
  // Errors while connected are retried by the client; the commands that fail say why.
  client.on('error', () => {});
  await client.connect();
  return {
    send: (args) => client.sendCommand(args),
    async close() {
      await client.close().catch(() => {});
    },
  };
}
