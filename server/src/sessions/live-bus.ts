/**
 * The live channel of a running session (§10.11, `session/subscribe`): the server running the
 * session (the host) sends what happens down it — its phases, its approval and ask requests — and
 * servers whose clients subscribed send their answers up it. A server serves one stdio client, so
 * the subscriber is always another server process sharing the store: the channel goes through
 * what both already share.
 *
 *   files (one machine)  a Unix socket per running session in `<config dir>/live/`, a folder
 *                        only its owner may enter (0700; the socket itself 0600): live-socket.ts
 *   Redis                two pub/sub channels per session on the store's server: live-redis.ts,
 *                        each message sealed with the user's live token when set (live-seal.ts)
 *   PostgreSQL           LISTEN/NOTIFY on the store's database, two channels per session:
 *                        live-postgres.ts, sealed the same way
 *
 * Neither is the record of the session: what a subscriber missed comes from the store, which has
 * every phase (live-subscriber.ts). The channel only has to be fast, and ordered per sender.
 */
import * as z from 'zod';
import { ApproveParams, ApproveResult, AskParams, AskResult, Phase } from '#protocol';
import type { Logger } from '../support/log.ts';
import { PostgresLiveBus } from './live-postgres.ts';
import { RedisLiveBus } from './live-redis.ts';
import { SocketLiveBus } from './live-socket.ts';

/** Host → subscribers. */
export const DownMessage = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('phase'), phase: Phase }),
  z.object({ kind: z.literal('approve'), id: z.string().min(1), params: ApproveParams }),
  z.object({ kind: z.literal('ask'), id: z.string().min(1), params: AskParams }),
  /** The request `id` is decided (by the answer of subscriber `by`, or otherwise): stop asking. */
  z.object({ kind: z.literal('answered'), id: z.string().min(1), by: z.string().optional() }),
]);
export type DownMessage = z.infer<typeof DownMessage>;

/** Subscribers → host. */
export const UpMessage = z.discriminatedUnion('kind', [
  /**
   * A subscriber joined: send the requests still waiting for an answer again. On a socket it
   * carries the host's key (live-socket.ts), and must come first.
   */
  z.object({ kind: z.literal('hello'), key: z.string().optional() }),
  z.object({
    kind: z.literal('answer'),
    id: z.string().min(1),
    /** The subscriber, so that the host can say whose answer won. */
    from: z.string().min(1),
    result: z.union([ApproveResult, AskResult]),
  }),
  /** An event for the session (session/event sent to another server, sessions/events.ts): the host delivers it. */
  z.object({
    kind: z.literal('event'),
    eventId: z.string().min(1),
    source: z.string().min(1),
    text: z.string().min(1),
    at: z.string(),
  }),
]);
export type UpMessage = z.infer<typeof UpMessage>;

/** The host's end of one session's channel. */
export interface HostChannel {
  /** Contract: never throws; a message that cannot be sent is logged and dropped. */
  send(message: DownMessage): void;
  close(): Promise<void>;
}

/** A subscriber's end. */
export interface JoinedChannel {
  /** Contract: never throws, as `HostChannel.send`. */
  send(message: UpMessage): void;
  close(): Promise<void>;
}

export interface LiveBus {
  /**
   * Offers the session's channel; `receive` gets what subscribers send. Contract: never rejects;
   * when the channel cannot be offered (another server hosts the session, the store is down) the
   * reason is logged and the channel sends nowhere.
   */
  host(sessionId: string, receive: (message: UpMessage) => void): Promise<HostChannel>;
  /**
   * Joins the session's channel, whether or not it runs now: once `join` has resolved, every
   * message the host sends from then on is received, in order, including those of later runs.
   * `connected` is called each time the channel (re)connects to a host after messages may have
   * been missed (a socket found later): the subscriber then reads the store again. Rejects with
   * a ProtocolFault when the store cannot carry a channel.
   */
  join(
    sessionId: string,
    receive: (message: DownMessage) => void,
    connected?: () => void,
  ): Promise<JoinedChannel>;
  /**
   * Sends one message to the server running the session, if one is there now: resolves true once
   * it is handed over, false when no server hosts the session (nothing was sent). Contract: never
   * rejects. Absent: the bus cannot carry a message to a host (treated as no host).
   */
  deliver?(sessionId: string, message: UpMessage): Promise<boolean>;
  close(): Promise<void>;
}

export interface LiveBusOptions {
  /** `sessions.store`: a Redis or PostgreSQL URL; undefined for files. */
  store: string | undefined;
  /** Where the sockets of sessions kept in files go: `<config dir>/live`. */
  liveDir: string;
  /** `sessions.liveToken`: seals the messages of a channel others can reach (Redis; live-seal.ts). */
  token?: string;
  log: Logger;
}

/** The channel for the store sessions are kept in, or undefined when that store has none. */
export function openLiveBus(options: LiveBusOptions): LiveBus | undefined {
  if (options.store === undefined) return new SocketLiveBus(options.liveDir, options.log);
  const scheme = new URL(options.store).protocol;
  if (scheme === 'redis:' || scheme === 'rediss:')
    return new RedisLiveBus(options.store, options.log, options.token);
  if (scheme === 'postgres:' || scheme === 'postgresql:')
    return new PostgresLiveBus(options.store, options.log, options.token);
  return undefined;
}

/** Parses one message of the channel; undefined (and a warning naming the problem) when it is not one. */
export function parseMessage<T>(
  schema: z.ZodType<T>,
  text: string,
  log: Logger,
  from: string,
): T | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    log.warn(`live channel: ${from} sent a message that is not JSON; ignored`);
    return undefined;
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  log.warn(
    `live channel: ${from} sent a message that is not one of the protocol's (${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}); ignored`,
  );
  return undefined;
}
