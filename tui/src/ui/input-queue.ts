/**
 * What the user types, and the runs it starts. The composer's Enter is a command or a message; a
 * message typed while a run goes on waits for it, and anything typed while the server starts (a
 * /resume as much as a message) waits for the server, except the commands the UI carries out
 * alone. What waited is carried out in order: commands one after another, up to the next
 * message's run, whose end carries out the rest.
 */
import type { PromptResult } from '#protocol';
import { messageOf } from './command-text.ts';
import type { CommandRunner } from './command-runner.ts';
import type { Interactions } from './interactions.ts';
import type { ServerLink } from './server-link.ts';
import { parseInput, SLASH_COMMANDS, type ParsedInput } from './slash-commands.ts';
import type { UiStore } from './store.ts';
import type { TranscriptFeed } from './transcript-feed.ts';

export interface InputQueueOptions {
  store: UiStore;
  feed: TranscriptFeed;
  link: ServerLink;
  commands: CommandRunner;
  interactions: Interactions;
  /** The directory the user started in, relative to the root (the prompt's cwd); undefined at the root. */
  cwd: string | undefined;
  now: () => number;
}

export class InputQueue {
  readonly #store: UiStore;
  readonly #feed: TranscriptFeed;
  readonly #options: InputQueueOptions;
  /** The queue is being carried out (a queued command is awaited). */
  #draining = false;

  constructor(options: InputQueueOptions) {
    this.#store = options.store;
    this.#feed = options.feed;
    this.#options = options;
  }

  /** The composer's Enter: carried out now, or queued (see the top of this file). */
  submit(raw: string): void {
    const text = raw.replace(/\s+$/, '');
    if (text.trim() === '') return;
    this.#store.set({ history: [...this.#store.state.history, text] });
    const state = this.#store.state;
    const starting = state.connection === 'starting';
    // Until the server answers, its methods are unknown: every command is taken as offered here
    // and checked again when it is carried out.
    const parsed = parseInput(text, starting ? SLASH_COMMANDS : state.commands);
    const local = parsed.kind === 'command' && parsed.command.local === true;
    // While queued input is carried out (a /resume loading its session), the next waits its turn.
    const waits =
      starting ||
      this.#draining ||
      (parsed.kind === 'text' && (state.transcript.running || state.queued.length > 0));
    if (waits && !local) {
      this.#store.set({ queued: [...state.queued, text] });
      return;
    }
    void this.#carryOut(parsed);
  }

  /** Carries out what waited, in order: commands one after another, up to the next message's run. */
  sendQueued(): void {
    if (this.#draining) return;
    this.#draining = true;
    void this.#drain().finally(() => (this.#draining = false));
  }

  /** Esc: stops the running run. The server cancels it and answers the prompt with status cancelled. */
  abort(): boolean {
    if (!this.#store.state.transcript.running) return false;
    const { link } = this.#options;
    const external = link.externalRun;
    // A turn an event started has no prompt of ours: the server stops it by its session.
    if (external !== undefined)
      void link.backend
        ?.request('session/cancel', { sessionId: external.sessionId })
        .catch((error: unknown) => this.#feed.note(messageOf(error), 'error'));
    else link.backend?.cancelPrompt();
    this.#options.interactions.withdrawAll();
    this.#store.set({ cancelling: true, queued: [] });
    return true;
  }

  async #drain(): Promise<void> {
    for (;;) {
      const { queued, transcript, connection } = this.#store.state;
      const [next, ...rest] = queued;
      if (next === undefined || transcript.running || connection !== 'ready') return;
      this.#store.set({ queued: rest });
      const parsed = parseInput(next, this.#store.state.commands);
      if (parsed.kind === 'text') {
        // The run's end drains the rest.
        void this.#run(parsed.text);
        return;
      }
      await this.#carryOut(parsed);
    }
  }

  async #carryOut(parsed: ParsedInput): Promise<void> {
    switch (parsed.kind) {
      case 'command':
        return this.#options.commands.run(parsed.command, parsed.arg);
      case 'unknown_command':
        this.#feed.note(`Unknown command /${parsed.name}. /help lists the commands.`, 'warning');
        return;
      case 'text': {
        const { connection } = this.#store.state;
        if (connection !== 'ready') {
          this.#feed.note(
            connection === 'failed'
              ? 'santra-server is not running, so this was not sent. Restart santra (↑ brings the message back).'
              : 'Finish the setup first.',
            'warning',
          );
          return;
        }
        return this.#run(parsed.text);
      }
      default: {
        const exhaustive: never = parsed;
        throw new Error(`unknown input ${JSON.stringify(exhaustive)}`);
      }
    }
  }

  /** A message's run: its prompt, from the user's row to the run's end and the session's totals. */
  async #run(text: string): Promise<void> {
    const { link, cwd, now } = this.#options;
    const backend = link.backend;
    if (backend === undefined) return;
    const feed = this.#feed;
    feed.dispatch({ type: 'user', text });
    feed.dispatch({ type: 'run_start', at: now() });
    feed.flush();
    const sessionId = this.#store.state.sessionId;
    const model = this.#options.commands.selectedModel;
    const sentMode = this.#store.state.permissionMode;
    let result: PromptResult | undefined;
    try {
      result = await backend.prompt({
        text,
        ...(sessionId === undefined ? {} : { sessionId }),
        ...(model === undefined ? {} : { model }),
        ...(cwd === undefined ? {} : { cwd }),
        permissionMode: this.#store.state.permissionMode,
      });
    } catch (error) {
      feed.note(messageOf(error), 'error');
    }
    feed.dispatch({
      type: 'run_end',
      at: now(),
      status: result?.status ?? 'error',
      ...(result?.stopReason === undefined ? {} : { stopReason: result.stopReason }),
      ...(result === undefined ? {} : { usage: result.usage, costUsd: result.costUsd }),
    });
    feed.flush();
    this.#store.set({
      cancelling: false,
      ...(result === undefined
        ? {}
        : {
            sessionId: result.sessionId,
            sessionUsage: result.sessionUsage,
            sessionCostUsd: result.sessionCostUsd,
            lastRun: { usage: result.usage, costUsd: result.costUsd },
            // An approved plan changes the mode; a Shift+Tab during the run wins over it.
            ...(result.permissionMode === undefined || this.#store.state.permissionMode !== sentMode
              ? {}
              : { permissionMode: result.permissionMode }),
          }),
    });
    this.sendQueued();
  }
}
