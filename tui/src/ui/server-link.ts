/**
 * The interactive UI's link to santra-server: starting it (and, when no model can be used, the
 * first-run setup, which the server saves), and the phases it streams, which go to the transcript.
 * While /resume replays a saved session, each run's phases are headed by the user's text of it.
 *
 * A run this client did not start — a turn an event started (`events.startTurns`, §10.14) — is
 * shown as a run of its own: its event card, then the spinner from its first phase to its root
 * agent's `complete`, and its done line. While it runs, what the user types waits for it as for any
 * run, and Esc stops it with `session/cancel` (it has no `prompt` of ours to cancel).
 */
import type { Phase } from '#protocol';
import type { Backend } from './backend.ts';
import { addUsage } from '../client/usage.ts';
import { messageOf, providersOf } from './command-text.ts';
import type { SetupChoice } from './components/setup-flow.ts';
import type { Interactions } from './interactions.ts';
import { availableCommands } from './slash-commands.ts';
import type { UiStore } from './store.ts';
import type { TranscriptFeed } from './transcript-feed.ts';

/** Starts (or restarts) the server; phases and approvals go to the handlers. */
export type Connect = (handlers: {
  interactions: Interactions;
  onPhase: (phase: Phase) => void;
}) => Promise<Backend>;

export interface ServerLinkOptions {
  store: UiStore;
  feed: TranscriptFeed;
  interactions: Interactions;
  connect: Connect;
  /** The server is ready for what was typed meanwhile. */
  onReady: () => void;
  /** A run this client did not start has ended: what was typed meanwhile may go. */
  onRunEnd: () => void;
  now: () => number;
}

export class ServerLink {
  readonly #store: UiStore;
  readonly #feed: TranscriptFeed;
  readonly #interactions: Interactions;
  readonly #connect: Connect;
  readonly #onReady: () => void;
  readonly #options: ServerLinkOptions;
  #backend: Backend | undefined;
  /** While /resume replays a session: the user's text of each run, and the run shown last. */
  #replaying: { prompts: ReadonlyMap<string, string>; runId: string | undefined } | undefined;
  /** An event's card said it starts a turn: the next run seen is that turn. */
  #eventTurnComing = false;
  /** The run an event started, while it runs. */
  #externalRun: { runId: string; sessionId: string } | undefined;

  constructor(options: ServerLinkOptions) {
    this.#store = options.store;
    this.#feed = options.feed;
    this.#interactions = options.interactions;
    this.#connect = options.connect;
    this.#onReady = options.onReady;
    this.#options = options;
  }

  /** The run an event started that is running now (what Esc stops with session/cancel). */
  get externalRun(): { runId: string; sessionId: string } | undefined {
    return this.#externalRun;
  }

  /** The server, once it has started. */
  get backend(): Backend | undefined {
    return this.#backend;
  }

  /** The server, for what needs it; a command given when it is not running says so. */
  server(): Backend {
    if (this.#backend === undefined) throw new Error('santra-server is not running.');
    return this.#backend;
  }

  /** Starts the server and, when no model can be used, the first-run setup. */
  async start(): Promise<void> {
    const store = this.#store;
    try {
      const backend = await this.#connect({
        interactions: this.#interactions,
        onPhase: (phase) => this.#onPhase(phase),
      });
      this.#backend = backend;
      store.set({ commands: availableCommands(backend.methods) });
      const models = await backend.models();
      const current = models.models.find((model) => model.ref === models.current);
      // A broken config file: say what to fix, and keep working — the server reads the file again
      // at the next request, so the message after the fix is answered.
      if (models.configProblem !== undefined) {
        this.#feed.note(
          `${models.configProblem}\nFix the file and send your message again: no restart needed. Sessions and models work meanwhile.`,
          'error',
        );
        store.set({ connection: 'ready', model: models.current === '' ? undefined : models.current });
        this.#onReady();
        return;
      }
      // The setup is the server's to save (config/setup): offered when the server has it.
      if ((current === undefined || !current.configured) && backend.methods?.has('config/setup') === true) {
        const providers = providersOf(models.models, models.current, backend.defaultModels, backend.keyless);
        store.set({ connection: 'setup', setup: { providers } });
        return;
      }
      store.set({ connection: 'ready', model: models.current === '' ? undefined : models.current });
      this.#onReady();
    } catch (error) {
      const waiting = store.state.queued.length;
      store.set({ connection: 'failed', failure: messageOf(error), queued: [] });
      this.#feed.note(messageOf(error), 'error');
      if (waiting > 0)
        this.#feed.note(
          `${waiting === 1 ? 'What you typed was' : `The ${waiting} inputs you typed were`} not sent; ↑ brings ${waiting === 1 ? 'it' : 'them'} back.`,
          'warning',
        );
    }
  }

  /** The setup's answer: the server saves it (config/setup) and uses it from the next prompt. */
  async finishSetup(choice: SetupChoice): Promise<void> {
    const backend = this.#backend;
    if (backend === undefined) return;
    try {
      const saved = await backend.request('config/setup', {
        provider: choice.provider,
        model: choice.model,
        ...(choice.apiKey === '' ? {} : { apiKey: choice.apiKey }),
      });
      this.#feed.note(
        `Saved ${saved.model}${choice.apiKey === '' ? '' : ' and its key'} to ${saved.file} (mode 0600).`,
      );
      this.#store.set({ connection: 'ready', setup: undefined, model: saved.model });
      this.#onReady();
    } catch (error) {
      const setup = this.#store.state.setup;
      if (setup !== undefined) this.#store.set({ setup: { ...setup, error: messageOf(error) } });
    }
  }

  /**
   * Runs `replay` (a `session/resume` that sends the saved phases again before it answers) with
   * each run's phases headed by its user's text from `prompts` (runId → text).
   */
  async replaying<T>(prompts: ReadonlyMap<string, string>, replay: () => Promise<T>): Promise<T> {
    this.#replaying = { prompts, runId: undefined };
    try {
      return await replay();
    } finally {
      this.#replaying = undefined;
    }
  }

  /**
   * Tells the server the user is done with the session (`session/close`, §10.15) — `clear`: began
   * another; `exit`: is leaving; `other`: went to another — so its SessionEnd hooks run now. A
   * server that does not offer the method ends it when it shuts down instead. Rejects with what
   * went wrong.
   */
  async closeSession(sessionId: string | undefined, reason: 'clear' | 'exit' | 'other'): Promise<void> {
    const backend = this.#backend;
    if (sessionId === undefined || backend?.methods?.has('session/close') !== true) return;
    await backend.request('session/close', { sessionId, reason });
  }

  #onPhase(phase: Phase): void {
    const replay = this.#replaying;
    if (replay !== undefined && phase.runId !== replay.runId) {
      replay.runId = phase.runId;
      const text = replay.prompts.get(phase.runId);
      if (text !== undefined) this.#feed.dispatch({ type: 'user', text });
    }
    if (this.#store.state.sessionId === undefined && phase.sessionId !== '')
      this.#store.set({ sessionId: phase.sessionId });
    const live = replay === undefined && phase.replayed !== true;
    if (live) this.#beforePhase(phase);
    this.#feed.dispatch({ type: 'phase', phase });
    if (live) this.#afterPhase(phase);
  }

  /** A turn an event started begins with its first phase after the card: shown as a run. */
  #beforePhase(phase: Phase): void {
    if (phase.type === 'event') {
      this.#eventTurnComing = phase.delivery === 'started';
      return;
    }
    if (!this.#eventTurnComing || this.#externalRun !== undefined || this.#store.state.transcript.running)
      return;
    this.#eventTurnComing = false;
    this.#externalRun = { runId: phase.runId, sessionId: phase.sessionId };
    this.#feed.dispatch({ type: 'run_start', at: this.#options.now() });
  }

  /** Its root agent's `complete` ends it: the done line, the totals, and what waited may go. */
  #afterPhase(phase: Phase): void {
    const external = this.#externalRun;
    if (
      external === undefined ||
      phase.type !== 'complete' ||
      phase.runId !== external.runId ||
      phase.parentAgentId !== undefined
    )
      return;
    this.#externalRun = undefined;
    this.#feed.dispatch({
      type: 'run_end',
      at: this.#options.now(),
      status: phase.status,
      ...(phase.stopReason === undefined ? {} : { stopReason: phase.stopReason }),
      ...(phase.usage === undefined ? {} : { usage: phase.usage }),
      ...(phase.costUsd === undefined ? {} : { costUsd: phase.costUsd }),
    });
    this.#feed.flush();
    // The session's totals on the bar: its usage phases said the cost; the run's tokens add up.
    const { sessionUsage, sessionCostUsd, transcript } = this.#store.state;
    const spent = transcript.spend?.sessionCostUsd;
    this.#store.set({
      cancelling: false,
      ...(phase.usage === undefined || phase.costUsd === undefined
        ? {}
        : {
            lastRun: { usage: phase.usage, costUsd: phase.costUsd },
            sessionUsage: addUsage(sessionUsage, phase.usage),
            sessionCostUsd: spent ?? sessionCostUsd + phase.costUsd,
          }),
    });
    this.#options.onRunEnd();
  }
}
