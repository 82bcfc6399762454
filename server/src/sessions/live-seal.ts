/**
 * Sealed messages for a live channel that others can reach (Redis pub/sub, live-redis.ts). Whoever
 * may use the store may publish on a session's channels and read what goes over them, so the store's
 * access control alone lets anyone with it answer the session's approvals or send it events. With a
 * live token (`sessions.liveToken`, SANTRA_LIVE_TOKEN) that only the user's own machines hold, each
 * message carries an HMAC-SHA256 over the channel's name, the time, a nonce and the message:
 *
 * - the token itself never goes over the channel, so reading the channel does not give it away;
 * - a message is bound to its channel: one sent for another session, or the other direction, fails;
 * - a message older (or newer) than MAX_SKEW_MS fails, and a nonce seen in that window fails: a
 *   message read off the channel cannot be played again.
 *
 * Without a token messages go as they are (the store's access control is then the only boundary,
 * and the host says so in its log).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Logger } from '../support/log.ts';

/** How far a message's time may be from the receiver's clock. */
export const MAX_SKEW_MS = 5 * 60_000;

interface Sealed {
  v: 1;
  at: number;
  nonce: string;
  mac: string;
  body: string;
}

/** `body` (a JSON text) sealed for `channel` with `token`, as the text to publish. */
export function seal(token: string, channel: string, body: string, now = Date.now()): string {
  const nonce = randomBytes(12).toString('hex');
  const sealed: Sealed = { v: 1, at: now, nonce, mac: mac(token, channel, now, nonce, body), body };
  return JSON.stringify(sealed);
}

/**
 * What a receiver makes of a published text: the message's JSON text, or why it is refused. With no
 * token it takes any message (a sealed one unwrapped, unchecked); with one, only a message sealed
 * with it, for this channel, recent and not seen before.
 */
export class Opener {
  readonly #token: string | undefined;
  /** Nonces seen, with when they expire (their message's time + the skew). */
  readonly #seen = new Map<string, number>();

  constructor(token: string | undefined) {
    this.#token = token;
  }

  open(channel: string, text: string, now = Date.now()): { body: string } | { refused: string } {
    const sealed = asSealed(text);
    if (this.#token === undefined) return { body: sealed?.body ?? text };
    if (sealed === undefined)
      return { refused: 'it is not sealed with the live token (a sender without sessions.liveToken?)' };
    if (Math.abs(now - sealed.at) > MAX_SKEW_MS)
      return { refused: 'its time is more than 5 minutes from this clock (a replay, or clocks apart)' };
    const expected = Buffer.from(mac(this.#token, channel, sealed.at, sealed.nonce, sealed.body), 'hex');
    const given = Buffer.from(sealed.mac, 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return { refused: 'its seal does not match (another live token, or a changed message)' };
    this.#forgetExpired(now);
    if (this.#seen.has(sealed.nonce)) return { refused: 'it was received before (a replay)' };
    this.#seen.set(sealed.nonce, sealed.at + MAX_SKEW_MS);
    return { body: sealed.body };
  }

  #forgetExpired(now: number): void {
    for (const [nonce, until] of this.#seen) if (until < now) this.#seen.delete(nonce);
  }
}

function mac(token: string, channel: string, at: number, nonce: string, body: string): string {
  return createHmac('sha256', token).update(`${channel}\n${at}\n${nonce}\n${body}`).digest('hex');
}

function asSealed(text: string): Sealed | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Partial<Sealed>;
  return v.v === 1 &&
    typeof v.at === 'number' &&
    typeof v.nonce === 'string' &&
    typeof v.mac === 'string' &&
    /^[0-9a-f]{64}$/.test(v.mac) &&
    typeof v.body === 'string'
    ? (v as Sealed)
    : undefined;
}

/**
 * A channel's messages as a bus (live-redis.ts, live-postgres.ts) sends and takes them: sealed when
 * there is a live token, and what the token refuses dropped with a warning.
 */
export class LiveSeal {
  readonly #token: string | undefined;
  readonly #opener: Opener;
  readonly #log: Logger;
  #warnedOpen = false;

  constructor(token: string | undefined, log: Logger) {
    this.#token = token;
    this.#opener = new Opener(token);
    this.#log = log;
  }

  /** `message` as published on `channel`. */
  wrap(channel: string, message: unknown): string {
    const body = JSON.stringify(message);
    return this.#token === undefined ? body : seal(this.#token, channel, body);
  }

  /** The message's JSON text, or undefined (logged) when the live token refuses it. */
  unwrap(channel: string, text: string, from: string): string | undefined {
    const opened = this.#opener.open(channel, text);
    if ('body' in opened) return opened.body;
    this.#log.warn(`live channel ${channel}: a message from ${from} was dropped: ${opened.refused}`);
    return undefined;
  }

  /**
   * Once per bus, when it first hosts a session without a token: who can then answer the session's
   * approvals and send it events (`where`: the store, `who`: its users).
   */
  warnIfOpen(where: string, who: string): void {
    if (this.#token !== undefined || this.#warnedOpen) return;
    this.#warnedOpen = true;
    this.#log.warn(
      `live channel: sessions in ${where} take answers and events from ${who}; set SANTRA_LIVE_TOKEN (or sessions.liveToken), the same on each of your machines, to take them only from yours`,
    );
  }
}
