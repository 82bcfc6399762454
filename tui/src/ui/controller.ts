/**
 * The interactive UI's state and everything that changes it: the conversation with the server
 * (through a Backend), the transcript reducer fed in batches, the queue of approvals and
 * questions, queued messages, slash commands, pickers and the first-run setup. Components read
 * the state (useSyncExternalStore) and call the actions; they hold no protocol logic.
 *
 * Batching: phases and other transcript events are queued and applied together in frames paced
 * by the FrameClock (frame-clock.ts), so a fast stream costs one React update per frame, not one
 * per delta. Finished entries are printed PRINT_CHARS at most a frame, the rest in the next frames.
 */
import { basename } from 'node:path';
import type { Phase, PromptResult, Usage } from '#protocol';
import { PrintError } from '../client/print-error.ts';
import type { Backend } from './backend.ts';
import {
  agentsText,
  costText,
  helpText,
  modelPicker,
  modelsText,
  outputEntries,
  providersOf,
  sessionsText,
  sessionPicker,
  statusText,
} from './command-text.ts';
import { entryMarkdown } from './export-markdown.ts';
import { FrameClock } from './frame-clock.ts';
import type { FrameDrawer } from './frames.ts';
import { type Answered, type Interaction, Interactions } from './interactions.ts';
import { keyOf } from './keybindings.ts';
import {
  chooseModel,
  compactSession,
  exportTranscript,
  sessionPrompts,
  undoInSession,
} from './session-commands.ts';
import {
  availableCommands,
  parseInput,
  SLASH_COMMANDS,
  type ParsedInput,
  type SlashCommand,
} from './slash-commands.ts';
import { EMPTY_TRANSCRIPT, type Entry, reflowEntries, stepAll, type TranscriptEvent } from './transcript.ts';
import type { SetupChoice } from './components/setup-flow.ts';
import {
  FRAME_MS,
  TEXT_FRAME_MS,
  type PickerState,
  PRINT_CHARS,
  printedSize,
  type UiState,
  withPrinted,
} from './ui-state.ts';

const EXIT_ARM_MS = 2000;
/** A resize prints the transcript again once the terminal has kept its width this long. */
const REFLOW_MS = 150;

export interface ControllerOptions {
  /** Starts (or restarts) the server; phases and approvals go to the controller's handlers. */
  connect: (handlers: { interactions: Interactions; onPhase: (phase: Phase) => void }) => Promise<Backend>;
  workspaceRoot: string;
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
  readonly #now: () => number;
  readonly #interactions: Interactions;
  readonly #listeners = new Set<() => void>();
  #state: UiState;
  #backend: Backend | undefined;
  #pending: TranscriptEvent[] = [];
  /** Finished entries waiting for a frame to print them (a burst is printed over several). */
  #unprinted: Entry[] = [];
  /** Every finished entry of this UI, printed or not: what a resized terminal prints again. */
  #history: Entry[] = [];
  /** The width the transcript was last printed at, and the pending reprint at a new one. */
  #printedWidth: number | undefined;
  #reflowTimer: NodeJS.Timeout | undefined;
  readonly #clock: FrameClock;
  #exitTimer: NodeJS.Timeout | undefined;
  #selectedModel: string | undefined;
  #exported: string[] = [];
  #exiting = false;
  /** The queue is being carried out (a queued command is awaited). */
  #draining = false;
  /** Ctrl+O pressed again: how many outputs back it went, while no new output came. */
  #outputBack: { count: number; outputs: number } | undefined;
  /** While /resume replays a session: the user's text of each run, and the run shown last. */
  #replaying: { prompts: ReadonlyMap<string, string>; runId: string | undefined } | undefined;

  constructor(options: ControllerOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
    this.#interactions = new Interactions(
      (queue) => this.#set({ interactions: queue }),
      (answered) => this.#approved(answered),
    );
    this.#clock = new FrameClock({
      now: this.#now,
      frame: () => this.flush(),
      step: (now) => this.#set({ now }),
    });
    this.#state = {
      connection: 'starting',
      failure: undefined,
      project: basename(options.workspaceRoot) || options.workspaceRoot,
      model: undefined,
      sessionId: undefined,
      sessionUsage: undefined,
      sessionCostUsd: 0,
      transcript: EMPTY_TRANSCRIPT,
      printed: { key: 0, items: [] },
      interactions: [],
      queued: [],
      picker: undefined,
      setup: undefined,
      commands: availableCommands(undefined),
      history: [],
      cancelling: false,
      exitArmed: false,
      epoch: 0,
      now: this.#now(),
    };
  }

  // ---- the store ----

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  readonly getState = (): UiState => this.#state;

  #set(patch: Partial<UiState>): void {
    this.#state = { ...this.#state, ...patch };
    const draw = this.#options.drawFrame;
    if (draw === undefined) this.#notify();
    else draw(() => this.#notify());
  }

  #notify(): void {
    for (const listener of this.#listeners) listener();
  }

  /**
   * Queues a transcript event; it is applied with the others of its frame. Streamed text waits for
   * a frame of its own pace (TEXT_FRAME_MS); anything else brings the frame forward to FRAME_MS.
   */
  dispatch(event: TranscriptEvent): void {
    this.#pending.push(event);
    this.#clock.request(isStreamedText(event) ? TEXT_FRAME_MS : FRAME_MS);
  }

  /** Applies the queued events now (the clock does this; tests may too). */
  flush(): void {
    const now = this.#clock.drawing();
    if (this.#pending.length === 0 && this.#unprinted.length === 0) return;
    const events = this.#pending;
    this.#pending = [];
    const { state, entries } = stepAll(this.#state.transcript, events);
    for (const entry of entries) {
      const text = entryMarkdown(entry);
      if (text !== undefined) this.#exported.push(text);
    }
    this.#unprinted.push(...entries);
    this.#history.push(...entries);
    this.#set({
      transcript: state,
      printed: withPrinted(this.#state.printed, this.#takePrintable()),
      now,
    });
    if (this.#unprinted.length > 0) this.#clock.again();
    this.#clock.spin(state.running);
  }

  /** The entries this frame prints: PRINT_CHARS at most, and always at least one. */
  #takePrintable(): Entry[] {
    let count = 0;
    let size = 0;
    for (const entry of this.#unprinted) {
      size += printedSize(entry);
      if (count > 0 && size > PRINT_CHARS) break;
      count++;
    }
    return this.#unprinted.splice(0, count);
  }

  /**
   * The terminal's columns, from the view: answers are then printed row by row as they come. A
   * change of width (a resize) prints the transcript again at the new width once the resizing has
   * stopped for REFLOW_MS: the terminal's own rewrapping of the old frame leaves copies of it and
   * torn boxes in the scrollback, which only a clear and a fresh print remove.
   */
  setWidth(columns: number): void {
    if (columns !== this.#state.transcript.width) this.dispatch({ type: 'width', columns });
    if (this.#printedWidth === undefined) {
      this.#printedWidth = columns;
      return;
    }
    clearTimeout(this.#reflowTimer);
    if (columns === this.#printedWidth) return;
    this.#reflowTimer = setTimeout(() => this.reflow(columns), REFLOW_MS);
    this.#reflowTimer.unref?.();
  }

  /** Prints everything again at `columns` wide, after a clear of the screen and the scrollback. */
  reflow(columns: number): void {
    this.#reflowTimer = undefined;
    this.#printedWidth = columns;
    this.flush();
    // Nothing printed yet: Ink redraws its frame at the new width itself.
    if (this.#options.resetTerminal === undefined || this.#history.length === 0) return;
    this.#options.resetTerminal();
    this.#history = reflowEntries(this.#history);
    this.#unprinted = [...this.#history];
    this.#set({
      printed: { key: this.#state.printed.key + 1, items: this.#takePrintable() },
      epoch: this.#state.epoch + 1,
    });
    if (this.#unprinted.length > 0) this.#clock.again();
  }

  #note(text: string, tone: 'info' | 'warning' | 'error' = 'info'): void {
    this.dispatch({ type: 'note', text, tone });
  }

  // ---- the server ----

  /** Starts the server and, when no model can be used, the first-run setup. */
  async start(): Promise<void> {
    try {
      const backend = await this.#options.connect({
        interactions: this.#interactions,
        onPhase: (phase) => this.#onPhase(phase),
      });
      this.#backend = backend;
      this.#set({ commands: availableCommands(backend.methods) });
      const models = await backend.models();
      const current = models.models.find((model) => model.ref === models.current);
      // A broken config file: say what to fix, and keep working — the server reads the file again
      // at the next request, so the message after the fix is answered.
      if (models.configProblem !== undefined) {
        this.#note(
          `${models.configProblem}\nFix the file and send your message again: no restart needed. Sessions and models work meanwhile.`,
          'error',
        );
        this.#set({ connection: 'ready', model: models.current === '' ? undefined : models.current });
        this.#sendQueued();
        return;
      }
      // The setup is the server's to save (config/setup): offered when the server has it.
      if ((current === undefined || !current.configured) && backend.methods?.has('config/setup') === true) {
        const providers = providersOf(models.models, models.current, backend.defaultModels, backend.keyless);
        this.#set({ connection: 'setup', setup: { providers } });
        return;
      }
      this.#set({ connection: 'ready', model: models.current === '' ? undefined : models.current });
      this.#sendQueued();
    } catch (error) {
      const waiting = this.#state.queued.length;
      this.#set({ connection: 'failed', failure: messageOf(error), queued: [] });
      this.#note(messageOf(error), 'error');
      if (waiting > 0)
        this.#note(
          `${waiting === 1 ? 'What you typed was' : `The ${waiting} inputs you typed were`} not sent; ↑ brings ${waiting === 1 ? 'it' : 'them'} back.`,
          'warning',
        );
    }
  }

  #onPhase(phase: Phase): void {
    const replay = this.#replaying;
    if (replay !== undefined && phase.runId !== replay.runId) {
      replay.runId = phase.runId;
      const text = replay.prompts.get(phase.runId);
      if (text !== undefined) this.dispatch({ type: 'user', text });
    }
    if (this.#state.sessionId === undefined && phase.sessionId !== '')
      this.#set({ sessionId: phase.sessionId });
    this.dispatch({ type: 'phase', phase });
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
      this.#note(
        `Saved ${saved.model}${choice.apiKey === '' ? '' : ' and its key'} to ${saved.file} (mode 0600).`,
      );
      this.#set({ connection: 'ready', setup: undefined, model: saved.model });
      this.#sendQueued();
    } catch (error) {
      const setup = this.#state.setup;
      if (setup !== undefined) this.#set({ setup: { ...setup, error: messageOf(error) } });
    }
  }

  // ---- what the user does ----

  /**
   * The composer's Enter: a command, or a message. A message typed while a run goes on waits for
   * it; anything typed while the server starts (a /resume as much as a message) waits for the
   * server, except the commands the UI carries out alone.
   */
  submit(raw: string): void {
    const text = raw.replace(/\s+$/, '');
    if (text.trim() === '') return;
    this.#set({ history: [...this.#state.history, text] });
    const starting = this.#state.connection === 'starting';
    // Until the server answers, its methods are unknown: every command is taken as offered here
    // and checked again when it is carried out.
    const parsed = parseInput(text, starting ? SLASH_COMMANDS : this.#state.commands);
    const local = parsed.kind === 'command' && parsed.command.local === true;
    // While queued input is carried out (a /resume loading its session), the next waits its turn.
    const waits =
      starting ||
      this.#draining ||
      (parsed.kind === 'text' && (this.#state.transcript.running || this.#state.queued.length > 0));
    if (waits && !local) {
      this.#set({ queued: [...this.#state.queued, text] });
      return;
    }
    void this.#carryOut(parsed);
  }

  async #carryOut(parsed: ParsedInput): Promise<void> {
    switch (parsed.kind) {
      case 'command':
        return this.#command(parsed.command, parsed.arg);
      case 'unknown_command':
        this.#note(`Unknown command /${parsed.name}. /help lists the commands.`, 'warning');
        return;
      case 'text':
        if (this.#state.connection !== 'ready') {
          this.#note(
            this.#state.connection === 'failed'
              ? 'santra-server is not running, so this was not sent. Restart santra (↑ brings the message back).'
              : 'Finish the setup first.',
            'warning',
          );
          return;
        }
        return this.#run(parsed.text);
      default: {
        const exhaustive: never = parsed;
        throw new Error(`unknown input ${JSON.stringify(exhaustive)}`);
      }
    }
  }

  async #run(text: string): Promise<void> {
    const backend = this.#backend;
    if (backend === undefined) return;
    this.dispatch({ type: 'user', text });
    this.dispatch({ type: 'run_start', at: this.#now() });
    this.flush();
    let result: PromptResult | undefined;
    try {
      result = await backend.prompt({
        text,
        ...(this.#state.sessionId === undefined ? {} : { sessionId: this.#state.sessionId }),
        ...(this.#selectedModel === undefined ? {} : { model: this.#selectedModel }),
        ...(this.#options.cwd === undefined ? {} : { cwd: this.#options.cwd }),
      });
    } catch (error) {
      this.#note(messageOf(error), 'error');
    }
    this.dispatch({
      type: 'run_end',
      at: this.#now(),
      status: result?.status ?? 'error',
      ...(result?.stopReason === undefined ? {} : { stopReason: result.stopReason }),
      ...(result === undefined ? {} : { usage: result.usage, costUsd: result.costUsd }),
    });
    this.flush();
    this.#set({
      cancelling: false,
      ...(result === undefined
        ? {}
        : {
            sessionId: result.sessionId,
            sessionUsage: result.sessionUsage,
            sessionCostUsd: result.sessionCostUsd,
          }),
    });
    this.#sendQueued();
  }

  /** Carries out what waited, in order: commands one after another, up to the next message's run. */
  #sendQueued(): void {
    if (this.#draining) return;
    this.#draining = true;
    void this.#drain().finally(() => (this.#draining = false));
  }

  async #drain(): Promise<void> {
    for (;;) {
      const [next, ...rest] = this.#state.queued;
      if (next === undefined || this.#state.transcript.running || this.#state.connection !== 'ready') return;
      this.#set({ queued: rest });
      const parsed = parseInput(next, this.#state.commands);
      if (parsed.kind === 'text') {
        // The run's end drains the rest.
        void this.#run(parsed.text);
        return;
      }
      await this.#carryOut(parsed);
    }
  }

  /** Esc: stops the running run. The server cancels it and answers the prompt with status cancelled. */
  abort(): boolean {
    if (!this.#state.transcript.running) return false;
    this.#backend?.cancelPrompt();
    this.#interactions.withdrawAll();
    this.#set({ cancelling: true, queued: [] });
    return true;
  }

  /** Ctrl+C: the first press stops a run and arms; the second within two seconds exits. */
  interrupt(): void {
    if (this.#state.exitArmed) {
      void this.exit();
      return;
    }
    this.abort();
    this.#set({ exitArmed: true });
    this.#exitTimer = setTimeout(() => this.#set({ exitArmed: false }), EXIT_ARM_MS);
  }

  clearScreen(): void {
    this.#options.clearScreen?.();
    this.#set({ epoch: this.#state.epoch + 1 });
  }

  /**
   * Ctrl+O: prints what the model saw of the last tool call, whole: its output, after the diff of
   * a change the user allowed. Pressed again (no new output meanwhile), the one before, and so on.
   */
  expandOutput(): void {
    this.flush();
    const { outputs, outputCount } = this.#state.transcript;
    const back =
      this.#outputBack === undefined || this.#outputBack.outputs !== outputCount
        ? 0
        : this.#outputBack.count + 1;
    const output = outputs[outputs.length - 1 - back];
    if (output === undefined) {
      this.#outputBack = undefined;
      this.#note(
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

  /** An approval answered: its feedback is shown with the tool's row, an allowed diff kept for Ctrl+O. */
  #approved({ params, result }: Answered): void {
    const allowed = result.decision === 'allow' || result.decision === 'allow_all';
    this.dispatch({
      type: 'approval',
      toolCallId: params.toolCallId,
      ...(result.decision === 'feedback' ? { feedback: result.feedback } : {}),
      ...(allowed && params.kind === 'file_change' ? { diff: params.diff.unifiedDiff.split('\n') } : {}),
    });
  }

  /** The approval overlay's `e`: the whole diff (or command) printed above, into the scrollback. */
  printInteraction(interaction: Interaction): void {
    if (interaction.kind !== 'approve') return;
    const { params } = interaction;
    const lines =
      params.kind === 'file_change'
        ? params.diff.unifiedDiff.split('\n')
        : [`$ ${params.command}`, `in ${params.cwd}`];
    this.dispatch({
      type: 'entry',
      entry: {
        kind: 'block',
        title: params.kind === 'file_change' ? params.path : 'command',
        lines,
        diff: params.kind === 'file_change',
      },
    });
  }

  closePicker(): void {
    this.#set({ picker: undefined });
  }

  /** A model or session chosen from a picker: what `/model NAME` or `/resume ID` does. */
  async pick(picker: PickerState, value: string): Promise<void> {
    this.#set({ picker: undefined });
    const name = picker.purpose === 'model' ? 'model' : 'resume';
    const command = SLASH_COMMANDS.find((c) => c.name === name);
    if (command !== undefined) await this.#command(command, value);
  }

  async exit(): Promise<void> {
    if (this.#exiting) return;
    this.#exiting = true;
    if (this.#exitTimer !== undefined) clearTimeout(this.#exitTimer);
    this.#clock.stop();
    this.#interactions.withdrawAll();
    this.#backend?.cancelPrompt();
    this.#set({ exitArmed: false });
    await this.#backend?.close();
    this.#options.onExit?.();
  }

  // ---- slash commands ----

  async #command(command: SlashCommand, arg: string): Promise<void> {
    try {
      await this.#commandOrThrow(command, arg);
    } catch (error) {
      this.#note(messageOf(error), 'error');
    }
  }

  /** The server, for what needs it; a command given when it is not running says so. */
  #server(): Backend {
    if (this.#backend === undefined) throw new Error('santra-server is not running.');
    return this.#backend;
  }

  async #commandOrThrow(command: SlashCommand, arg: string): Promise<void> {
    if (command.idle === true && this.#state.transcript.running) {
      this.#note(`A run is going on: press ${keyOf('abort')} to stop it first.`, 'warning');
      return;
    }
    switch (command.name) {
      case 'help':
        this.#note(helpText(this.#state.commands));
        return;
      case 'clear':
        this.#exported = [];
        this.dispatch({ type: 'new_session' });
        this.#set({ sessionId: undefined, sessionUsage: undefined, sessionCostUsd: 0 });
        this.clearScreen();
        this.#note('New session.');
        return;
      case 'exit':
        await this.exit();
        return;
      case 'status':
        this.#note(statusText(this.#state, this.#options.workspaceRoot));
        return;
      case 'cost':
        this.#note(costText(this.#state.sessionUsage, this.#state.sessionCostUsd));
        return;
      case 'export': {
        const note = await exportTranscript({
          backend: this.#backend,
          sessionId: this.#state.sessionId,
          name: arg,
          startDir: this.#options.startDir,
          shown: () => {
            this.flush();
            return `${this.#exported.join('\n')}\n`;
          },
        });
        this.#note(note.text);
        return;
      }
      case 'model':
        if (arg !== '') await this.#setModel(arg);
        else this.#set({ picker: modelPicker((await this.#server().models()).models, this.#state.model) });
        return;
      case 'models':
        this.#note(modelsText((await this.#server().models()).models, this.#state.model));
        return;
      case 'agents':
        this.#note(agentsText(await this.#server().agents()));
        return;
      case 'sessions':
        this.#note(sessionsText((await this.#server().sessions(20)).sessions));
        return;
      case 'resume': {
        if (arg !== '') {
          await this.#resume(arg);
          return;
        }
        const { sessions } = await this.#server().sessions(50);
        if (sessions.length === 0) this.#note('No saved session to resume.');
        else this.#set({ picker: sessionPicker(sessions) });
        return;
      }
      case 'compact':
      case 'undo': {
        const sessionId = this.#state.sessionId;
        if (sessionId === undefined) {
          this.#note(`Nothing to ${command.name} yet: this session has no run.`);
          return;
        }
        if (command.name === 'undo') {
          const note = await undoInSession(this.#server(), sessionId, arg);
          this.#note(note.text, note.tone);
          return;
        }
        this.#note('Compacting…');
        const compacted = await compactSession(this.#server(), sessionId);
        // The summary's tokens and cost are the session's (the server adds them): /cost and the
        // ChromeBar count them now, not from the next run on.
        this.#set({
          sessionUsage: addUsage(this.#state.sessionUsage, compacted.usage),
          sessionCostUsd: this.#state.sessionCostUsd + compacted.costUsd,
        });
        this.#note(compacted.text, compacted.tone);
        return;
      }
      default: {
        const exhaustive: never = command.name;
        throw new Error(`unknown command ${String(exhaustive)}`);
      }
    }
  }

  async #setModel(model: string): Promise<void> {
    const chosen = await chooseModel(this.#server(), model, this.#state.sessionId);
    this.#selectedModel = chosen.perPrompt ? chosen.model : undefined;
    this.#set({ model: chosen.model });
    // A model Santra does not list: the server's warning at the next run says what that means.
    this.#note(`Model: ${chosen.model}${chosen.listed ? '' : " (not in Santra's model list)"}`);
  }

  /**
   * Continues a saved session, its earlier runs replayed on screen first: `session/resume` with
   * afterSeq 0 sends every saved phase again before it answers. Phases carry no user text, so the
   * prompts come from `session/export` (json) when the server offers it, one per run.
   */
  /**
   * `santra --continue` / `--resume <id>`: once the server is ready, go on with that session (the
   * latest of the project for --continue), as /resume would.
   */
  async continueSession(resume: { latest: true } | { id: string }): Promise<void> {
    if (this.#state.connection !== 'ready') return;
    try {
      let id = 'id' in resume ? resume.id : undefined;
      if (id === undefined) {
        const { sessions } = await this.#server().sessions(1);
        id = sessions[0]?.sessionId;
        if (id === undefined) {
          this.#note('No saved session of this project to continue: this is a new one.');
          return;
        }
      }
      await this.#resume(id);
    } catch (error) {
      this.#note(messageOf(error), 'error');
    }
  }

  async #resume(sessionId: string): Promise<void> {
    const backend = this.#server();
    if (this.#state.transcript.running) {
      this.#note(`A run is going on: press ${keyOf('abort')} to stop it first.`, 'warning');
      return;
    }
    const prompts = await sessionPrompts(backend, sessionId);
    this.#note('Earlier in this session:');
    this.#replaying = { prompts, runId: undefined };
    let answer: Awaited<ReturnType<Backend['resume']>>;
    try {
      answer = await backend.resume(sessionId, 0);
    } finally {
      this.#replaying = undefined;
    }
    const { session, warnings } = answer;
    for (const warning of warnings) this.#note(warning, 'warning');
    this.#set({ sessionId: session.sessionId, sessionUsage: session.usage, sessionCostUsd: session.costUsd });
    if (session.model !== undefined && this.#selectedModel === undefined) this.#set({ model: session.model });
    this.#note(
      `Resumed "${session.title}" (${session.messageCount} messages). The model has its whole history.`,
    );
  }
}

/**
 * An error's message for the screen: the server's own words, without the "santra: " of the
 * command line or the name of the protocol method it refused (client/session.ts words both).
 */
export function messageOf(error: unknown): string {
  if (error instanceof PrintError)
    return error.message.replace(/^santra: /, '').replace(/^santra-server refused [\w/]+: /, '');
  return error instanceof Error ? error.message : String(error);
}

function addUsage(usage: Usage | undefined, more: Usage): Usage {
  if (usage === undefined) return more;
  return {
    inputTokens: usage.inputTokens + more.inputTokens,
    outputTokens: usage.outputTokens + more.outputTokens,
    cacheReadTokens: usage.cacheReadTokens + more.cacheReadTokens,
    cacheWriteTokens: usage.cacheWriteTokens + more.cacheWriteTokens,
    ...(usage.estimated === true || more.estimated === true ? { estimated: true } : {}),
  };
}

/** A delta of an answer or of thinking being streamed: it only grows what is on screen. */
function isStreamedText(event: TranscriptEvent): boolean {
  return event.type === 'phase' && (event.phase.type === 'text' || event.phase.type === 'thinking');
}
