/**
 * The interactive UI's state and everything that changes it, behind the one object the components
 * and main.ts hold. Components read the state (useSyncExternalStore) and call the actions; they
 * hold no protocol logic. The work is done by the parts this wires together:
 *
 * - store.ts: the UiState (the view model) and its subscribers;
 * - transcript-feed.ts: transcript events applied and printed in paced frames, a resize's reprint;
 * - server-link.ts: starting santra-server, the first-run setup, the phases it streams;
 * - input-queue.ts: what the user types, what waits, and the runs messages start;
 * - command-runner.ts: the slash commands, pickers and `--continue` / `--resume`;
 * - interactions.ts and approval-events.ts: the approvals and questions queue, and its entries.
 *
 * What stays here is what the keys do across them: Ctrl+C, Esc, Ctrl+L, Ctrl+O, and leaving.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { PermissionMode } from '#protocol';
import { PERMISSION_MODES } from '../print/args.ts';
import type { PickerState, UiState } from './ui-state.ts';
import { approvalEvent, printedInteraction } from './approval-events.ts';
import { CommandRunner } from './command-runner.ts';
import { messageOf, outputEntries } from './command-text.ts';
import type { SetupChoice } from './components/setup-flow.ts';
import type { FrameDrawer } from './frames.ts';
import { InputQueue } from './input-queue.ts';
import { type Interaction, Interactions } from './interactions.ts';
import { keyOf } from './keybindings.ts';
import { type Connect, ServerLink } from './server-link.ts';
import { initialState, UiStore } from './store.ts';
import type { TranscriptEvent } from './transcript.ts';
import { TranscriptFeed } from './transcript-feed.ts';

/** How long leaving waits for the session's end (its SessionEnd hooks) before the server is shut down. */
const EXIT_CLOSE_MS = 3000;

const EXIT_ARM_MS = 2000;

export interface ControllerOptions {
  /** Starts (or restarts) the server; phases and approvals go to the controller's handlers. */
  connect: Connect;
  workspaceRoot: string;
  /** The permission mode of the first message (`--permission-mode`); default `default`. */
  permissionMode?: PermissionMode;
  /** The directory the user started in, relative to the root (the prompt's cwd); undefined at the root. */
  cwd: string | undefined;
  /** Where /export writes a relative file name. */
  startDir: string;
  /** Clears the terminal screen (Ctrl+L, /clear) and lets Ink draw its frame again. */
  clearScreen?: () => void;
  /**
   * Clears the screen and the scrollback, and forgets Ink's last frame: the transcript is then
   * printed again at the terminal's new width (a resize).
   */
  resetTerminal?: () => void;
  /** Leaves the UI: called once, after the server is closed. */
  onExit?: () => void;
  now?: () => number;
  /** Runs each change of state, whose frame follows (frames.ts); by default, just runs it. */
  drawFrame?: FrameDrawer;
}

export class Controller {
  readonly #options: ControllerOptions;
  readonly #store: UiStore;
  readonly #feed: TranscriptFeed;
  readonly #interactions: Interactions;
  readonly #link: ServerLink;
  readonly #commands: CommandRunner;
  readonly #inputs: InputQueue;
  #exitTimer: NodeJS.Timeout | undefined;
  #exiting = false;
  /** Ctrl+O pressed again: how many outputs back it went, while no new output came. */
  #outputBack: { count: number; outputs: number } | undefined;

  readonly subscribe: UiStore['subscribe'];
  readonly getState: () => UiState;

  constructor(options: ControllerOptions) {
    this.#options = options;
    const now = options.now ?? (() => performance.now());
    const store = new UiStore(
      initialState(options.workspaceRoot, now(), options.permissionMode),
      options.drawFrame,
    );
    const feed = new TranscriptFeed({ store, now, resetTerminal: options.resetTerminal });
    const interactions = new Interactions(
      (queue) => store.set({ interactions: queue }),
      (answered) => feed.dispatch(approvalEvent(answered)),
    );
    const link = new ServerLink({
      store,
      feed,
      interactions,
      connect: options.connect,
      onReady: () => this.#inputs.sendQueued(),
      onRunEnd: () => this.#inputs.sendQueued(),
      now,
    });
    const commands = new CommandRunner({
      store,
      feed,
      link,
      workspaceRoot: options.workspaceRoot,
      startDir: options.startDir,
      clearScreen: () => this.clearScreen(),
      exit: () => this.exit(),
    });
    this.#store = store;
    this.#feed = feed;
    this.#interactions = interactions;
    this.#link = link;
    this.#commands = commands;
    this.#inputs = new InputQueue({ store, feed, link, commands, interactions, cwd: options.cwd, now });
    this.subscribe = store.subscribe;
    this.getState = store.getState;
  }

  // ---- the transcript ----

  /** Queues a transcript event for the next frame (transcript-feed.ts). */
  dispatch(event: TranscriptEvent): void {
    this.#feed.dispatch(event);
  }

  /** Applies the queued events now (the frame clock does this; tests may too). */
  flush(): void {
    this.#feed.flush();
  }

  /** The terminal's columns, from the view; a change of width prints the transcript again. */
  setWidth(columns: number): void {
    this.#feed.setWidth(columns);
  }

  /** Prints everything again at `columns` wide, after a clear of the screen and the scrollback. */
  reflow(columns: number): void {
    this.#feed.reflow(columns);
  }

  // ---- the server ----

  /** Starts the server and, when no model can be used, the first-run setup. */
  start(): Promise<void> {
    return this.#link.start();
  }

  /** The setup's answer: the server saves it (config/setup) and uses it from the next prompt. */
  finishSetup(choice: SetupChoice): Promise<void> {
    return this.#link.finishSetup(choice);
  }

  /** `santra --continue` / `--resume <id>`, once the server is ready. */
  continueSession(resume: { latest: true } | { id: string }): Promise<void> {
    return this.#commands.continueSession(resume);
  }

  // ---- what the user does ----

  /** The composer's Enter: a command, or a message (input-queue.ts says when each waits). */
  submit(raw: string): void {
    if (this.#store.state.draft !== undefined) this.#store.set({ draft: undefined });
    this.#inputs.submit(raw);
  }

  /** Esc Esc on an empty composer while nothing runs: the list of earlier prompts, as /rewind. */
  openRewind(): Promise<void> {
    return this.#commands.openRewind();
  }

  /**
   * Shift+Tab: the next permission mode, as Claude Code cycles them. It goes with the next message
   * (the server enforces it); a run going on takes it at once (session/setMode): its later tool
   * calls are gated in it.
   */
  cycleMode(): void {
    const modes: readonly PermissionMode[] = PERMISSION_MODES;
    const at = modes.indexOf(this.#store.state.permissionMode);
    const mode = modes[(at + 1) % modes.length] ?? 'default';
    this.#store.set({ permissionMode: mode });
    const { transcript, sessionId } = this.#store.state;
    const backend = this.#link.backend;
    if (!transcript.running || sessionId === undefined || backend?.methods?.has('session/setMode') !== true)
      return;
    backend
      .request('session/setMode', { sessionId, permissionMode: mode })
      .catch((error: unknown) => this.#feed.note(messageOf(error), 'error'));
  }

  /** Esc: stops the running run. The server cancels it and answers the prompt with status cancelled. */
  abort(): boolean {
    return this.#inputs.abort();
  }

  /** Ctrl+C: the first press stops a run and arms; the second within two seconds exits. */
  interrupt(): void {
    if (this.#store.state.exitArmed) {
      void this.exit();
      return;
    }
    this.abort();
    this.#store.set({ exitArmed: true });
    this.#exitTimer = setTimeout(() => this.#store.set({ exitArmed: false }), EXIT_ARM_MS);
  }

  clearScreen(): void {
    this.#options.clearScreen?.();
    this.#store.set({ epoch: this.#store.state.epoch + 1 });
  }

  /**
   * Ctrl+O: prints what the model saw of the last tool call, whole: its output, after the diff of
   * a change the user allowed. Pressed again (no new output meanwhile), the one before, and so on.
   */
  expandOutput(): void {
    this.flush();
    const { outputs, outputCount } = this.#store.state.transcript;
    const back =
      this.#outputBack === undefined || this.#outputBack.outputs !== outputCount
        ? 0
        : this.#outputBack.count + 1;
    const output = outputs[outputs.length - 1 - back];
    if (output === undefined) {
      this.#outputBack = undefined;
      this.#feed.note(
        outputs.length === 0
          ? 'No tool output yet.'
          : `That was the oldest output kept (${outputs.length}). ${keyOf('expandOutput')} again starts from the last.`,
      );
      return;
    }
    this.#outputBack = { count: back, outputs: outputCount };
    for (const entry of outputEntries(output, outputs.length - back, outputs.length))
      this.dispatch({ type: 'entry', entry });
  }

  /** The project the server works in: the approval overlay's `e` reads the file a change applies to. */
  get workspaceRoot(): string {
    return this.#options.workspaceRoot;
  }

  /** The approval overlay's `p`: the whole diff (or command) printed above, into the scrollback. */
  printInteraction(interaction: Interaction): void {
    const event = printedInteraction(interaction);
    if (event !== undefined) this.dispatch(event);
  }

  closePicker(): void {
    this.#store.set({ picker: undefined });
  }

  /** A model or session chosen from a picker: what `/model NAME` or `/resume ID` does. */
  pick(picker: PickerState, value: string): Promise<void> {
    return this.#commands.pick(picker, value);
  }

  async exit(): Promise<void> {
    if (this.#exiting) return;
    this.#exiting = true;
    if (this.#exitTimer !== undefined) clearTimeout(this.#exitTimer);
    this.#feed.stop();
    this.#interactions.withdrawAll();
    const { sessionId, transcript } = this.#store.state;
    const running = transcript.running;
    this.#link.backend?.cancelPrompt();
    this.#store.set({ exitArmed: false });
    // Leaving an idle session ends it as the user's exit (SessionEnd: prompt_input_exit); one whose
    // run was just stopped ends with the server (other). Nothing is left to show a failure on.
    if (!running)
      await Promise.race([
        this.#link.closeSession(sessionId, 'exit').catch(() => {}),
        delay(EXIT_CLOSE_MS, undefined, { ref: false }),
      ]);
    await this.#link.backend?.close();
    this.#options.onExit?.();
  }
}
