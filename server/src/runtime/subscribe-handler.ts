/**
 * Live sessions (§10.11), both ends:
 * - the host: `LiveRelay` stands between the runtime and its client, so every session this server
 *   runs is offered on its live channel (sessions/live-bus.ts): each phase goes to the client and
 *   down the channel, and each approval or question goes to the client and to the subscribers at
 *   once. The first answer wins: the others are withdrawn (the client's request is cancelled on
 *   the wire, subscribers are told it was answered).
 * - the subscriber: `session/subscribe` and `session/unsubscribe` (sessions/live-subscriber.ts).
 */
import { randomUUID } from 'node:crypto';
import type * as z from 'zod';
import {
  type ApproveParams,
  ApproveResult,
  type AskParams,
  AskResult,
  type ClientCapabilities,
} from '#protocol';
import type { DownMessage, HostChannel, LiveBus, UpMessage } from '../sessions/live-bus.ts';
import { LiveSubscriber } from '../sessions/live-subscriber.ts';
import type { SessionStorage } from '../sessions/storage.ts';
import type { Logger } from '../support/log.ts';
import { ProtocolFault } from '../support/protocol-fault.ts';
import type { ClientChannel, RequestHandlers } from './contract.ts';

interface Waiting {
  message: Extract<DownMessage, { kind: 'approve' | 'ask' }>;
  /** A subscriber's answer; ignored once decided. */
  answer(result: unknown, from: string): void;
}

interface Hosted {
  channel: HostChannel;
  waiting: Map<string, Waiting>;
}

export class LiveRelay {
  readonly #bus: LiveBus | undefined;
  readonly #log: Logger;
  readonly #hosted = new Map<string, Promise<Hosted>>();
  /** The last `seq` this server's own client was sent, by session (the sessions it runs). */
  readonly #sent = new Map<string, number>();
  /** The client the runtime talks to: this server's own, with the session's subscribers beside it. */
  readonly channel: ClientChannel;

  constructor(client: ClientChannel, bus: LiveBus | undefined, log: Logger) {
    this.#bus = bus;
    this.#log = log;
    this.channel = {
      phase: (phase) => {
        client.phase(phase);
        this.#sent.set(phase.sessionId, Math.max(phase.seq, this.#sent.get(phase.sessionId) ?? 0));
        void this.#host(phase.sessionId)?.then((hosted) => hosted.channel.send({ kind: 'phase', phase }));
      },
      approve: (params, signal) =>
        this.#race(params.sessionId, { kind: 'approve', params }, ApproveResult, signal, (s) =>
          client.approve(params, s),
        ),
      ask: (params, signal) =>
        this.#race(params.sessionId, { kind: 'ask', params }, AskResult, signal, (s) =>
          client.ask(params, s),
        ),
      readTextFile: (params, signal) => client.readTextFile(params, signal),
      writeTextFile: (params, signal) => client.writeTextFile(params, signal),
      runTerminal: (params, signal) => client.runTerminal(params, signal),
    };
  }

  get bus(): LiveBus | undefined {
    return this.#bus;
  }

  /**
   * Whether this server's own client already has the phase: a client subscribed to a session this
   * very server runs gets each of its phases once, not again through the subscription.
   */
  sentToClient(sessionId: string, seq: number): boolean {
    return seq <= (this.#sent.get(sessionId) ?? 0);
  }

  /** Whether this server runs the session (its approvals already go to its own client). */
  runs(sessionId: string): boolean {
    return this.#hosted.has(sessionId);
  }

  /** Stops offering a session closed here (session/close); a later phase of it offers it again. */
  async release(sessionId: string): Promise<void> {
    const hosted = this.#hosted.get(sessionId);
    if (hosted === undefined) return;
    this.#hosted.delete(sessionId);
    this.#sent.delete(sessionId);
    await (await hosted).channel.close();
  }

  /** Stops offering every session and leaves the store's channels. */
  async close(): Promise<void> {
    const hosted = await Promise.all(this.#hosted.values());
    this.#hosted.clear();
    await Promise.allSettled(hosted.map((host) => host.channel.close()));
    await this.#bus?.close();
  }

  /** The session's channel, offered on first use and kept while this server runs. */
  #host(sessionId: string | undefined): Promise<Hosted> | undefined {
    if (this.#bus === undefined || sessionId === undefined) return undefined;
    let hosted = this.#hosted.get(sessionId);
    if (hosted === undefined) {
      const entry: Hosted = {
        channel: { send: () => {}, close: () => Promise.resolve() },
        waiting: new Map(),
      };
      hosted = this.#bus
        .host(sessionId, (message) => this.#receive(entry, message, sessionId))
        .then((channel) => Object.assign(entry, { channel }));
      this.#hosted.set(sessionId, hosted);
    }
    return hosted;
  }

  /** Where events sent to this server's sessions from other servers go (runtime/event-handler.ts). */
  onEvent: ((sessionId: string, event: Extract<UpMessage, { kind: 'event' }>) => void) | undefined;

  #receive(hosted: Hosted, message: UpMessage, sessionId: string): void {
    // A subscriber that joined while a request waits is put it too.
    if (message.kind === 'hello')
      for (const entry of hosted.waiting.values()) hosted.channel.send(entry.message);
    else if (message.kind === 'event') this.onEvent?.(sessionId, message);
    else hosted.waiting.get(message.id)?.answer(message.result, message.from);
  }

  /** Puts a request to the client and to the subscribers; the first valid answer is the answer. */
  async #race<R>(
    sessionId: string | undefined,
    request: { kind: 'approve'; params: ApproveParams } | { kind: 'ask'; params: AskParams },
    schema: z.ZodType<R>,
    signal: AbortSignal,
    local: (signal: AbortSignal) => Promise<R>,
  ): Promise<R> {
    const hostedPromise = this.#host(sessionId);
    if (hostedPromise === undefined) return local(signal);
    const hosted = await hostedPromise;
    const id = randomUUID();
    const message = { ...request, id } as Waiting['message'];
    const mine = new AbortController();
    const forward = () => mine.abort(signal.reason);
    signal.addEventListener('abort', forward, { once: true });
    return new Promise<R>((resolve, reject) => {
      let decided = false;
      const decide = (settle: () => void, by?: string) => {
        if (decided) return;
        decided = true;
        hosted.waiting.delete(id);
        signal.removeEventListener('abort', forward);
        hosted.channel.send({ kind: 'answered', id, ...(by === undefined ? {} : { by }) });
        settle();
      };
      hosted.waiting.set(id, {
        message,
        answer: (result, from) => {
          const parsed = schema.safeParse(result);
          if (!parsed.success) {
            this.#log.warn(
              `session ${sessionId}: a subscriber's answer to ${request.kind} was not valid; ignored`,
            );
            return;
          }
          decide(() => resolve(parsed.data), from);
          // The client's own request is withdrawn: its overlay or prompt goes away.
          mine.abort(new Error('answered by a subscribed client'));
        },
      });
      hosted.channel.send(message);
      local(mine.signal).then(
        (result) => decide(() => resolve(result)),
        (error: unknown) => decide(() => reject(error instanceof Error ? error : new Error(String(error)))),
      );
    });
  }
}

export interface SubscribeParts {
  storage: () => SessionStorage;
  relay: () => LiveRelay | undefined;
  client: () => ClientChannel;
  capabilities: () => ClientCapabilities;
  log: Logger;
}

type SubscribeHandlers = Required<Pick<RequestHandlers, 'session/subscribe' | 'session/unsubscribe'>>;

/** `session/subscribe` and `session/unsubscribe`; one subscription per session per client. */
export function subscribeHandlers(parts: SubscribeParts): SubscribeHandlers {
  /** Each subscription's way to end, by session; set before it starts, so a second one is refused. */
  const subscriptions = new Map<string, () => void>();
  return {
    async 'session/subscribe'(params, { signal }) {
      const { sessionId } = params;
      const bus = parts.relay()?.bus;
      if (bus === undefined)
        throw new ProtocolFault(
          'RequestFailed',
          `Session ${sessionId} cannot be subscribed to: this server has no live channel for its session store (sessions.store); files, Redis and PostgreSQL have one.`,
        );
      if (subscriptions.has(sessionId))
        throw new ProtocolFault(
          'InvalidParams',
          `Invalid params for session/subscribe: params.sessionId: this client is already subscribed to ${sessionId}. Call session/unsubscribe first, or keep the subscription it has.`,
          { issues: [{ path: 'params.sessionId', message: 'already subscribed' }] },
        );
      const client = parts.client();
      const relay = parts.relay();
      const capabilities = parts.capabilities();
      const answering = params.answer !== false;
      // A session this server runs puts its questions to this client already: not twice.
      const own = () =>
        relay?.runs(sessionId) === true
          ? Promise.reject(new Error('the session runs in this server: its own client is asked'))
          : undefined;
      let end = () => {};
      const ended = new Promise<void>((resolve) => {
        end = () => {
          if (subscriptions.get(sessionId) === end) subscriptions.delete(sessionId);
          resolve();
        };
      });
      subscriptions.set(sessionId, end);
      if (signal.aborted) end();
      else signal.addEventListener('abort', end, { once: true });
      const subscriber = await LiveSubscriber.start({
        sessionId,
        afterSeq: params.afterSeq ?? 0,
        bus,
        storage: parts.storage(),
        log: parts.log,
        // What the client asked for from the store it gets; live, what it has had from its own run not again.
        phase: (phase, how) => {
          if (how === 'replayed') client.phase({ ...phase, replayed: true });
          else if (relay?.sentToClient(sessionId, phase.seq) !== true) client.phase(phase);
        },
        ...(answering && capabilities.approve === true
          ? { approve: (request, s) => own() ?? client.approve(request, s) }
          : {}),
        ...(answering && capabilities.ask === true
          ? { ask: (request, s) => own() ?? client.ask(request, s) }
          : {}),
      }).catch((error: unknown) => {
        end();
        throw error;
      });
      await ended;
      return subscriber.stop();
    },
    'session/unsubscribe'(params) {
      const end = subscriptions.get(params.sessionId);
      end?.();
      return Promise.resolve({ unsubscribed: end !== undefined });
    },
  };
}
