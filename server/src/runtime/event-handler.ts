/**
 * `session/event` (§10.14): an event from outside — a CI failure, a file watcher, a chat bot,
 * `santra send` — for a session. Where it goes depends on where the session is:
 *
 *   running a prompt here    queued; the root agent reads it before its next model call
 *   idle here                added to the conversation (the next prompt reads it), or, when the
 *                            config allows it (`events.startTurns`) and the session asks before it
 *                            acts, a turn of its own starts with it
 *   in another server        handed to that server over the session's live channel (§10.11),
 *                            which delivers it as above
 *   nowhere                  added to the saved conversation
 *
 * Each delivery is shown to the session's client as an `event` phase (a card) and saved with the
 * session. The text is untrusted (sessions/events.ts frames it as data): an event never changes
 * the session's mode or approvals, and does not start a turn in a session that acts without asking
 * (bypassPermissions, acceptEdits, or "allow all" answered), since nobody would see what it did
 * before it was done.
 */
import {
  type Phase,
  type PromptParams,
  PromptMode,
  type PromptResult,
  type SessionEventResult,
} from '#protocol';
import type { ResolvedConfig } from '../config/config.ts';
import { eventMessage, frameEvent, newEvent, queueEvent, type SessionEvent } from '../sessions/events.ts';
import { sessionIdOf } from '../sessions/names.ts';
import type { UpMessage } from '../sessions/live-bus.ts';
import type { Session, SessionStore } from '../sessions/store.ts';
import type { Logger } from '../support/log.ts';
import type { ClientChannel, RequestHandlers } from './contract.ts';
import type { LiveRelay } from './subscribe-handler.ts';

/** The `runId` and `agentId` of an event's phase and of its message between runs. */
export const EVENT_RUN = 'event';

export interface EventHandlerDeps {
  ready: () => { sessions: SessionStore; client: ClientChannel; config: ResolvedConfig };
  /** This server's live relay (made at `initialize`); undefined before, or without a channel. */
  relay: () => LiveRelay | undefined;
  /** Starts a prompt as the `prompt` request does (its phases go to this server's client). */
  prompt: (params: PromptParams, signal: AbortSignal) => Promise<PromptResult>;
  log: Logger;
}

type Delivery = SessionEventResult['delivered'];

export interface EventHandler {
  handlers: Required<Pick<RequestHandlers, 'session/event'>>;
  /** An event another server handed over on a session's live channel (LiveRelay.onEvent). */
  receive(sessionId: string, message: Extract<UpMessage, { kind: 'event' }>): void;
}

export function eventHandler(deps: EventHandlerDeps): EventHandler {
  const deliverHere = (
    session: Session,
    event: SessionEvent,
    live: boolean,
  ): Exclude<Delivery, 'relayed'> => {
    const { client, config } = deps.ready();
    const delivery = deliveryFor(session, config);
    // The card first, so a client shows the event before a turn it starts.
    const phase = recordCard(session, event, delivery);
    if (live) client.phase(phase);
    switch (delivery) {
      case 'queued':
        queueEvent(session, event);
        break;
      case 'saved':
        saveMessage(session, event);
        break;
      case 'started':
        startTurn(session, event);
        break;
      default: {
        const exhaustive: never = delivery;
        throw new Error(`unknown delivery ${String(exhaustive)}`);
      }
    }
    return delivery;
  };

  /**
   * A turn of its own, as a prompt whose text is the framed event, with the agent and mode of the
   * session's last prompt (a session the user drives with one agent goes on with it); not awaited.
   */
  const startTurn = (session: Session, event: SessionEvent): void => {
    const run = (async () => {
      const records = await deps.ready().sessions.records(session.id);
      const last = records.findLast((record) => record.type === 'prompt');
      const mode = PromptMode.safeParse(last?.type === 'prompt' ? last.mode : undefined);
      return deps.prompt(
        {
          sessionId: session.id,
          text: frameEvent(event),
          ...(last?.type === 'prompt' && last.agent !== undefined ? { agent: last.agent } : {}),
          ...(mode.success && mode.data !== undefined ? { mode: mode.data } : {}),
        },
        new AbortController().signal,
      );
    })();
    run.catch((error: unknown) =>
      deps.log.warn(
        `session ${session.id}: the turn event ${event.eventId} started failed: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
  };

  return {
    /** Delivered as if sent here: the channel is open only to the session's owner (§10.11). */
    receive(sessionId, message) {
      const session = deps.ready().sessions.get(sessionId);
      if (session === undefined) {
        deps.log.warn(`session ${sessionId}: an event came over its live channel, but it is not open here`);
        return;
      }
      const { eventId, source, text, at } = message;
      deliverHere(session, { eventId, source, text, at }, true);
    },
    handlers: {
      async 'session/event'(params) {
        const { sessions } = deps.ready();
        const relay = deps.relay();
        const id = await sessionIdOf(sessions, params.sessionId, 'params.sessionId', false);
        const event = newEvent(params.text, params.source);
        const here = sessions.get(id);
        if (here === undefined) {
          // Running in another server: that server delivers it.
          const handed = await relay?.bus?.deliver?.(id, { kind: 'event', ...event });
          if (handed === true) return { eventId: event.eventId, sessionId: id, delivered: 'relayed' };
        }
        const session = here ?? (await sessions.open(id)).session;
        // A session only loaded to save the event starts nothing: no client of it is here to watch.
        const delivered = here === undefined ? saveOnly(session, event) : deliverHere(session, event, true);
        return { eventId: event.eventId, sessionId: id, delivered };
      },
    },
  };
}

/** What becomes of an event for a session open here. */
function deliveryFor(session: Session, config: ResolvedConfig): Exclude<Delivery, 'relayed'> {
  if (session.running !== undefined) return 'queued';
  if (!config.events.startTurns) return 'saved';
  const mode = session.approvals.permissionMode ?? config.permissionMode;
  const asksFirst = (mode === 'default' || mode === 'plan') && !session.approvals.allowAll;
  return asksFirst ? 'started' : 'saved';
}

/** Adds the event to a session no server runs: its card and its message, saved. */
function saveOnly(session: Session, event: SessionEvent): 'saved' {
  recordCard(session, event, 'saved');
  saveMessage(session, event);
  return 'saved';
}

/** The event's card (an `event` phase), saved with the session; the caller sends it where it goes. */
function recordCard(session: Session, event: SessionEvent, delivery: Exclude<Delivery, 'relayed'>): Phase {
  const phase = session.redact<Phase>({
    type: 'event',
    runId: EVENT_RUN,
    sessionId: session.id,
    agentId: EVENT_RUN,
    seq: ++session.seq,
    eventId: event.eventId,
    source: event.source,
    text: event.text,
    delivery,
  });
  session.record({ type: 'phase', phase });
  return phase;
}

/** The event into the conversation, saved: the next prompt reads it. */
function saveMessage(session: Session, event: SessionEvent): void {
  const message = eventMessage(event);
  session.messages.push(message);
  session.record({ type: 'message', runId: EVENT_RUN, message });
}
