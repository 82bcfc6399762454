/**
 * One `session/subscribe` (§10.11): what a subscriber missed, from the store, then the session's
 * channel live (live-bus.ts), each phase once, in `seq` order, without a gap; and the session's
 * approvals and questions put to this subscriber's client, whose answers go back up the channel.
 *
 * No gap, no duplicate: the channel is joined before the store is read, so a phase is either in
 * what was read or arrives on the channel (or both: those are dropped by `seq`). A phase arriving
 * ahead of the next expected `seq` means the ones between were sent before the join but not yet
 * stored when it read (a shared store saves in batches): they are read again until the store has
 * them.
 */
import { randomUUID } from 'node:crypto';
import type { ApproveParams, ApproveResult, AskParams, AskResult, Phase } from '#protocol';
import type { Logger } from '../support/log.ts';
import { ProtocolFault } from '../support/protocol-fault.ts';
import type { DownMessage, JoinedChannel, LiveBus } from './live-bus.ts';
import type { SessionRecord } from './records.ts';
import type { SessionStorage } from './storage.ts';
import { SESSION_ID } from './storage.ts';

/** How long a gap in the live phases is waited for in the store before going on without it. */
const GAP_WAIT_MS = 5000;
const GAP_POLL_MS = 50;

export interface LiveSubscriberOptions {
  sessionId: string;
  afterSeq: number;
  bus: LiveBus;
  storage: Pick<SessionStorage, 'read'>;
  log: Logger;
  /** Sends a phase to the subscriber's client: one it missed, from the store, or a live one. */
  phase(phase: Phase, how: 'replayed' | 'live'): void;
  /** Puts one of the session's approvals to the client; absent: the client does not answer them. */
  approve?: (params: ApproveParams, signal: AbortSignal) => Promise<ApproveResult>;
  /** Puts one of the session's questions to the client; absent: it does not answer them. */
  ask?: (params: AskParams, signal: AbortSignal) => Promise<AskResult>;
}

export interface SubscriptionCounts {
  replayedPhases: number;
  livePhases: number;
  lastSeq: number;
  answered: number;
}

export class LiveSubscriber {
  readonly #options: LiveSubscriberOptions;
  /** This subscriber, as the host names whose answer decided a request. */
  readonly #id = randomUUID();
  /** `resync`: the channel connected late; what went by meanwhile is in the store. */
  readonly #queue: Array<DownMessage | { kind: 'resync' }> = [];
  /** Requests put to the client and not yet decided, by the host's request id. */
  readonly #asking = new Map<string, AbortController>();
  /** Requests already seen (a joining subscriber is sent the waiting ones again). */
  readonly #seen = new Set<string>();
  #joined: JoinedChannel | undefined;
  #replaying = true;
  #pumping = false;
  #stopped = false;
  readonly #counts: SubscriptionCounts;

  private constructor(options: LiveSubscriberOptions) {
    this.#options = options;
    this.#counts = { replayedPhases: 0, livePhases: 0, lastSeq: options.afterSeq, answered: 0 };
  }

  /** Joins and replays. Rejects with UnknownSession when the store has no such session. */
  static async start(options: LiveSubscriberOptions): Promise<LiveSubscriber> {
    const subscriber = new LiveSubscriber(options);
    const { sessionId } = options;
    if (!SESSION_ID.test(sessionId)) throw unknown(sessionId);
    subscriber.#joined = await options.bus.join(
      sessionId,
      (message) => subscriber.#receive(message),
      () => subscriber.#receive({ kind: 'resync' }),
    );
    try {
      const stored = await options.storage.read(sessionId);
      if (stored === undefined) throw unknown(sessionId);
      for (const phase of phasesOf(stored.records)) {
        if (phase.seq <= subscriber.#counts.lastSeq) continue;
        subscriber.#send(phase, 'replayed');
      }
    } catch (error) {
      await subscriber.stop();
      throw error;
    }
    subscriber.#replaying = false;
    subscriber.#pump();
    return subscriber;
  }

  get counts(): SubscriptionCounts {
    return { ...this.#counts };
  }

  /** Leaves the channel; questions still put to the client are withdrawn. */
  async stop(): Promise<SubscriptionCounts> {
    this.#stopped = true;
    for (const asking of this.#asking.values()) asking.abort(new Error('unsubscribed'));
    this.#asking.clear();
    await this.#joined?.close();
    return this.counts;
  }

  #receive(message: DownMessage | { kind: 'resync' }): void {
    if (this.#stopped) return;
    // Decisions do not wait behind phases: a question answered elsewhere is withdrawn at once.
    if (message.kind === 'answered') {
      this.#seen.add(message.id);
      const asking = this.#asking.get(message.id);
      this.#asking.delete(message.id);
      if (message.by === this.#id) this.#counts.answered++;
      asking?.abort(new Error('answered by another client'));
      return;
    }
    this.#queue.push(message);
    this.#pump();
  }

  /** Handles the queue in order, one message at a time (a gap is filled before going on). */
  #pump(): void {
    if (this.#pumping || this.#replaying) return;
    this.#pumping = true;
    void (async () => {
      try {
        for (let message = this.#queue.shift(); message !== undefined; message = this.#queue.shift()) {
          if (this.#stopped) return;
          if (message.kind === 'phase') await this.#live(message.phase);
          else if (message.kind === 'resync') await this.#fill(Number.MAX_SAFE_INTEGER, false);
          else if (message.kind === 'approve' || message.kind === 'ask') this.#put(message);
        }
      } finally {
        this.#pumping = false;
      }
      if (this.#queue.length > 0) this.#pump();
    })();
  }

  async #live(phase: Phase): Promise<void> {
    if (phase.seq <= this.#counts.lastSeq) return;
    if (phase.seq > this.#counts.lastSeq + 1) await this.#fill(phase.seq);
    if (phase.seq > this.#counts.lastSeq) this.#send(phase, 'live');
  }

  /** Sends the stored phases before `seq` not sent yet, waiting (`wait`) for the store to have them. */
  async #fill(seq: number, wait = true): Promise<void> {
    const { sessionId, storage, log } = this.#options;
    const deadline = Date.now() + GAP_WAIT_MS;
    while (!this.#stopped) {
      const stored = await storage.read(sessionId).catch(() => undefined);
      for (const phase of phasesOf(stored?.records ?? []))
        if (phase.seq > this.#counts.lastSeq && phase.seq < seq) this.#send(phase, 'replayed');
      if (this.#counts.lastSeq >= seq - 1 || !wait) return;
      if (Date.now() > deadline) {
        log.warn(
          `session ${sessionId}: phases ${this.#counts.lastSeq + 1}–${seq - 1} were not in the store after ${GAP_WAIT_MS} ms; going on without them`,
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, GAP_POLL_MS));
    }
  }

  #send(phase: Phase, how: 'replayed' | 'live'): void {
    this.#counts.lastSeq = phase.seq;
    if (how === 'replayed') this.#counts.replayedPhases++;
    else this.#counts.livePhases++;
    this.#options.phase(phase, how);
  }

  /** Puts a request to the client, unless it was seen or cannot be answered here; the answer goes up. */
  #put(message: Extract<DownMessage, { kind: 'approve' | 'ask' }>): void {
    if (this.#seen.has(message.id)) return;
    this.#seen.add(message.id);
    const asking = new AbortController();
    let answer: Promise<ApproveResult | AskResult> | undefined;
    if (message.kind === 'approve' && this.#options.approve !== undefined)
      answer = this.#options.approve(message.params, asking.signal);
    else if (message.kind === 'ask' && this.#options.ask !== undefined)
      answer = this.#options.ask(message.params, asking.signal);
    if (answer === undefined) return;
    this.#asking.set(message.id, asking);
    answer.then(
      (result) => {
        if (asking.signal.aborted || this.#stopped) return;
        this.#asking.delete(message.id);
        this.#joined?.send({ kind: 'answer', id: message.id, from: this.#id, result });
      },
      // Withdrawn, or the client could not answer: others may still.
      () => this.#asking.delete(message.id),
    );
  }
}

function phasesOf(records: readonly SessionRecord[]): Phase[] {
  return records
    .flatMap((record) => (record.type === 'phase' ? [record.phase] : []))
    .sort((a, b) => a.seq - b.seq);
}

function unknown(sessionId: string): ProtocolFault {
  return new ProtocolFault(
    'UnknownSession',
    `Unknown session ${sessionId}: it is not saved in this store, so there is nothing to subscribe to. santra sessions lists the sessions (session/list with allWorkspaces over the protocol); a session running elsewhere is visible only through the store it saves to (sessions.store).`,
  );
}
