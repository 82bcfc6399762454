/**
 * The interactive UI's state and everything that changes it: the conversation with the server
 * (through a Backend), the transcript reducer fed in batches, the queue of approvals and
 * questions, queued messages, slash commands, pickers and the first-run setup. Components read
 * the state (useSyncExternalStore) and call the actions; they hold no protocol logic.
 *
 * Batching: phases and other transcript events are queued and applied together at most every
 * FRAME_MS, FLUSH_MS after the first of a batch, so a fast stream costs one React update per
 * frame, not one per delta; nothing runs while nothing arrives.
 */
import { writeFile } from 'node:fs/promises';
import { basename, isAbsolute, join } from 'node:path';
import type { ModelEntry, Phase, PromptResult, SessionInfo, Usage } from '#protocol';
import { PrintError } from '../print/session.ts';
import type { Backend } from './backend.ts';
import { entryMarkdown } from './export-markdown.ts';
import { type Interaction, Interactions } from './interactions.ts';
import { keyHelp } from './keybindings.ts';
import { availableCommands, commandHelp, parseInput, type SlashCommand } from './slash-commands.ts';
import {
  EMPTY_TRANSCRIPT,
  type Entry,
  stepAll,
  type Transcript,
  type TranscriptEvent,
} from './transcript.ts';
import type { SetupChoice } from './config-file.ts';

export const FLUSH_MS = 8;
/** About 30 frames a second at most. */
export const FRAME_MS = 33;
/** <Static> starts a fresh list past this many entries, so printed entries are not kept. */
const STATIC_WINDOW = 200;
const EXIT_ARM_MS = 2000;

export interface PickerItem {
  label: string;
  detail?: string;
  value: string;
  group?: string;
}

export interface PickerState {
  purpose: 'model' | 'resume';
  title: string;
  items: PickerItem[];
}

export interface SetupState {
  providers: { id: string; models: ModelEntry[] }[];
  error?: string;
}

export interface UiState {
  connection: 'starting' | 'setup' | 'ready' | 'failed';
  failure: string | undefined;
  project: string;
  model: string | undefined;
  sessionId: string | undefined;
  sessionUsage: Usage | undefined;
  sessionCostUsd: number;
  transcript: Transcript;
  /** What <Static> prints: entries are printed once, when they first appear under a key. */
  printed: { key: number; items: Entry[] };
  interactions: readonly Interaction[];
  queued: readonly string[];
  picker: PickerState | undefined;
  setup: SetupState | undefined;
  commands: readonly SlashCommand[];
  history: readonly string[];
  cancelling: boolean;
  exitArmed: boolean;
  /** Changes when the screen was cleared, so the frame is drawn again. */
  epoch: number;
}

export interface ControllerOptions {
  /** Starts (or restarts) the server; phases and approvals go to the controller's handlers. */
  connect: (handlers: { interactions: Interactions; onPhase: (phase: Phase) => void }) => Promise<Backend>;
  workspaceRoot: string;
  /** The directory the user started in, relative to the root (the prompt's cwd); undefined at the root. */
  cwd: string | undefined;
  /** Where /export writes a relative file name. */
  startDir: string;
  /** Writes the first-run setup's choice (config-file.ts); absent: no setup is offered. */
  writeSetup?: (choice: SetupChoice) => Promise<string>;
  /** Clears the terminal screen (Ctrl+L, /clear) and lets Ink draw its frame again. */
  clearScreen?: () => void;
  /** Leaves the UI: called once, after the server is closed. */
  onExit?: () => void;
  now?: () => number;
}

export class Controller {
  readonly #options: ControllerOptions;
  readonly #now: () => number;
  readonly #interactions: Interactions;
  readonly #listeners = new Set<() => void>();
  #state: UiState;
  #backend: Backend | undefined;
  #pending: TranscriptEvent[] = [];
  #timer: NodeJS.Timeout | undefined;
  #lastFlush = -Infinity;
  #exitTimer: NodeJS.Timeout | undefined;
  #selectedModel: string | undefined;
  #exported: string[] = [];
  #exiting = false;

  constructor(options: ControllerOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
    this.#interactions = new Interactions((queue) => this.#set({ interactions: queue }));
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
    for (const listener of this.#listeners) listener();
  }

  /** Queues a transcript event; it is applied with the others of its frame. */
  dispatch(event: TranscriptEvent): void {
    this.#pending.push(event);
    if (this.#timer !== undefined) return;
    const wait = Math.max(FLUSH_MS, this.#lastFlush + FRAME_MS - this.#now());
    this.#timer = setTimeout(() => this.flush(), wait);
  }

  /** Applies the queued events now (the timer does this; tests may too). */
  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.length === 0) return;
    this.#lastFlush = this.#now();
    const events = this.#pending;
    this.#pending = [];
    const { state, entries } = stepAll(this.#state.transcript, events);
    for (const entry of entries) {
      const text = entryMarkdown(entry);
      if (text !== undefined) this.#exported.push(text);
    }
    const { printed } = this.#state;
    const next =
      entries.length === 0
        ? printed
        : printed.items.length + entries.length > STATIC_WINDOW
          ? { key: printed.key + 1, items: entries }
          : { key: printed.key, items: [...printed.items, ...entries] };
    this.#set({ transcript: state, printed: next });
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
      if ((current === undefined || !current.configured) && this.#options.writeSetup !== undefined) {
        this.#set({ connection: 'setup', setup: { providers: providersOf(models.models) } });
        return;
      }
      this.#set({ connection: 'ready', model: models.current === '' ? undefined : models.current });
      this.#sendQueued();
    } catch (error) {
      this.#set({ connection: 'failed', failure: messageOf(error) });
      this.#note(messageOf(error), 'error');
    }
  }

  #onPhase(phase: Phase): void {
    if (this.#state.sessionId === undefined && phase.sessionId !== '')
      this.#set({ sessionId: phase.sessionId });
    this.dispatch({ type: 'phase', phase });
  }

  /** The setup's answer: written to the config file, then a new server reads it. */
  async finishSetup(choice: SetupChoice): Promise<void> {
    const write = this.#options.writeSetup;
    if (write === undefined) return;
    try {
      const file = await write(choice);
      this.#note(
        `Saved ${choice.model}${choice.apiKey === '' ? '' : ' and its key'} to ${file} (mode 0600).`,
      );
      await this.#backend?.close();
      this.#backend = undefined;
      this.#set({ connection: 'starting', setup: undefined });
      await this.start();
    } catch (error) {
      const setup = this.#state.setup;
      if (setup !== undefined) this.#set({ setup: { ...setup, error: messageOf(error) } });
    }
  }

  // ---- what the user does ----

  /** The composer's Enter: a command, or a message (queued while a run goes on). */
  submit(raw: string): void {
    const text = raw.replace(/\s+$/, '');
    if (text.trim() === '') return;
    this.#set({ history: [...this.#state.history, text] });
    const parsed = parseInput(text, this.#state.commands);
    switch (parsed.kind) {
      case 'command':
        void this.#command(parsed.command, parsed.arg);
        return;
      case 'unknown_command':
        this.#note(`Unknown command /${parsed.name}. /help lists the commands.`, 'warning');
        return;
      case 'text':
        if (this.#state.transcript.running || this.#state.connection !== 'ready') {
          this.#set({ queued: [...this.#state.queued, text] });
          return;
        }
        void this.#run(text);
        return;
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

  #sendQueued(): void {
    const [next, ...rest] = this.#state.queued;
    if (next === undefined || this.#state.transcript.running || this.#state.connection !== 'ready') return;
    this.#set({ queued: rest });
    void this.#run(next);
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

  /** Ctrl+O: prints the whole output of the last tool call. */
  expandOutput(): void {
    const last = this.#state.transcript.lastOutput;
    if (last === undefined) {
      this.#note('No tool output yet.');
      return;
    }
    this.dispatch({
      type: 'entry',
      entry: { kind: 'block', title: last.title, lines: last.text.split('\n'), diff: false },
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

  async pick(picker: PickerState, value: string): Promise<void> {
    this.#set({ picker: undefined });
    try {
      if (picker.purpose === 'model') await this.#setModel(value);
      else await this.#resume(value);
    } catch (error) {
      this.#note(messageOf(error), 'error');
    }
  }

  async exit(): Promise<void> {
    if (this.#exiting) return;
    this.#exiting = true;
    if (this.#exitTimer !== undefined) clearTimeout(this.#exitTimer);
    if (this.#timer !== undefined) clearTimeout(this.#timer);
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

  async #commandOrThrow(command: SlashCommand, arg: string): Promise<void> {
    const server = (): Backend => {
      if (this.#backend === undefined) throw new Error('santra-server is not running.');
      return this.#backend;
    };
    switch (command.name) {
      case 'help':
        this.#note(helpText(this.#state.commands));
        return;
      case 'clear':
        if (this.#state.transcript.running) {
          this.#note('A run is going on: press Esc to stop it first.', 'warning');
          return;
        }
        this.#exported = [];
        this.#set({ sessionId: undefined, sessionUsage: undefined, sessionCostUsd: 0 });
        this.clearScreen();
        this.#note('New session.');
        return;
      case 'exit':
        await this.exit();
        return;
      case 'status':
        this.#note(this.#statusText());
        return;
      case 'cost':
        this.#note(costText(this.#state.sessionUsage, this.#state.sessionCostUsd));
        return;
      case 'export':
        await this.#export(arg);
        return;
      case 'model':
        if (arg !== '') await this.#setModel(arg);
        else this.#set({ picker: modelPicker((await server().models()).models, this.#state.model) });
        return;
      case 'models':
        this.#note(modelsText((await server().models()).models, this.#state.model));
        return;
      case 'agents': {
        const { agents, problems } = await server().agents();
        const lines = agents.map((agent) => `  ${agent.id.padEnd(14)} ${agent.description}`);
        for (const problem of problems) lines.push(`  ! ${problem.file}: ${problem.message}`);
        this.#note(['Agents:', ...lines].join('\n'));
        return;
      }
      case 'sessions': {
        const { sessions } = await server().sessions(20);
        this.#note(
          sessions.length === 0
            ? 'No saved session yet.'
            : ['Sessions (/resume ID continues one):', ...sessions.map(sessionLine)].join('\n'),
        );
        return;
      }
      case 'resume': {
        if (arg !== '') {
          await this.#resume(arg);
          return;
        }
        const { sessions } = await server().sessions(50);
        if (sessions.length === 0) this.#note('No saved session to resume.');
        else this.#set({ picker: sessionPicker(sessions) });
        return;
      }
      case 'compact':
      case 'undo':
        await this.#sessionRequest(server(), command.name);
        return;
      default: {
        const exhaustive: never = command.name;
        throw new Error(`unknown command ${String(exhaustive)}`);
      }
    }
  }

  async #setModel(model: string): Promise<void> {
    const backend = this.#backend;
    if (backend === undefined) return;
    if (backend.request !== undefined && backend.methods?.has('model/set') === true) {
      const result = (await backend.request('model/set', {
        model,
        ...(this.#state.sessionId === undefined ? {} : { sessionId: this.#state.sessionId }),
      })) as { model: string };
      this.#selectedModel = undefined;
      this.#set({ model: result.model });
    } else {
      // Without model/set, the model goes with each prompt (prompt.model), which the server checks.
      const known = (await backend.models()).models.find(
        (entry) => entry.ref === model || entry.id === model,
      );
      if (known === undefined) throw new Error(`Unknown model ${model}. /models lists them.`);
      if (!known.configured)
        throw new Error(`${known.ref}: its provider has no key; set it, then choose again.`);
      this.#selectedModel = known.ref;
      this.#set({ model: known.ref });
    }
    this.#note(`Model: ${this.#state.model ?? model}`);
  }

  async #resume(sessionId: string): Promise<void> {
    const backend = this.#backend;
    if (backend === undefined) return;
    if (this.#state.transcript.running) {
      this.#note('A run is going on: press Esc to stop it first.', 'warning');
      return;
    }
    const { session, warnings } = await backend.resume(sessionId);
    for (const warning of warnings) this.#note(warning, 'warning');
    this.#set({ sessionId: session.sessionId, sessionUsage: session.usage, sessionCostUsd: session.costUsd });
    if (session.model !== undefined && this.#selectedModel === undefined) this.#set({ model: session.model });
    this.#note(
      `Resumed "${session.title}" (${session.messageCount} messages). The model has its whole history.`,
    );
  }

  async #sessionRequest(backend: Backend, name: 'compact' | 'undo'): Promise<void> {
    const sessionId = this.#state.sessionId;
    if (backend.request === undefined) throw new Error(`This santra-server cannot ${name}.`);
    if (sessionId === undefined) {
      this.#note(`Nothing to ${name} yet: this session has no run.`);
      return;
    }
    const result = (await backend.request(`session/${name}`, { sessionId })) as Record<string, unknown>;
    if (name === 'compact') {
      this.#note(
        result.compacted === true
          ? `Compacted: ${String(result.messagesBefore)} messages → ${String(result.messagesAfter)}.`
          : 'Too little to compact yet.',
      );
    } else {
      const changes = Array.isArray(result.changes) ? (result.changes as { path?: string }[]) : [];
      this.#note(
        changes.length === 0
          ? 'Nothing left to undo.'
          : `Undone: ${changes.map((c) => c.path ?? '?').join(', ')}`,
      );
    }
  }

  async #export(arg: string): Promise<void> {
    const name = arg !== '' ? arg : `santra-${new Date().toISOString().replace(/[:.]/g, '-')}.md`;
    const file = isAbsolute(name) ? name : join(this.#options.startDir, name);
    this.flush();
    await writeFile(file, `${this.#exported.join('\n')}\n`, { flag: 'wx' });
    this.#note(`Transcript written to ${file}`);
  }

  #statusText(): string {
    const s = this.#state;
    return [
      `Project: ${this.#options.workspaceRoot}`,
      `Model:   ${s.model ?? '(none)'}`,
      `Session: ${s.sessionId ?? '(new; saved with the first message)'}`,
      `Server:  ${s.connection}${this.#backend?.methods === undefined ? '' : `, ${this.#backend.methods.size} methods`}`,
      costText(s.sessionUsage, s.sessionCostUsd),
    ].join('\n');
  }
}

function providersOf(models: readonly ModelEntry[]): SetupState['providers'] {
  const byProvider = new Map<string, ModelEntry[]>();
  for (const model of models)
    byProvider.set(model.provider, [...(byProvider.get(model.provider) ?? []), model]);
  return [...byProvider].map(([id, entries]) => ({ id, models: entries }));
}

function helpText(commands: readonly SlashCommand[]): string {
  return [
    'Commands:',
    ...commandHelp(commands),
    'Keys:',
    ...keyHelp([
      'submit',
      'newline',
      'historyPrevious',
      'complete',
      'abort',
      'exit',
      'clearScreen',
      'expandOutput',
    ]),
    'Approvals:',
    ...keyHelp(['allow', 'allowAll', 'reject', 'feedback', 'expandDiff']),
  ].join('\n');
}

export function formatTokens(count: number): string {
  return count >= 1000 ? `${(count / 1000).toFixed(count >= 100_000 ? 0 : 1)}k` : String(count);
}

export function formatCost(usd: number): string {
  return `$${usd < 1 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

function costText(usage: Usage | undefined, cost: number): string {
  if (usage === undefined) return 'Tokens: none yet; cost $0';
  return `Tokens:  ${usage.inputTokens} in, ${usage.outputTokens} out, ${usage.cacheReadTokens} cache read, ${usage.cacheWriteTokens} cache write; cost ${formatCost(cost)}`;
}

function price(model: ModelEntry): string {
  const context = `${formatTokens(model.contextWindow)} context`;
  if (model.inputUsdPerMTok === undefined || model.outputUsdPerMTok === undefined) return context;
  return `${context}, $${model.inputUsdPerMTok}/$${model.outputUsdPerMTok} per Mtok`;
}

function modelsText(models: readonly ModelEntry[], current: string | undefined): string {
  const lines: string[] = ['Models (✓ has a key, * current):'];
  for (const { id, models: entries } of providersOf(models)) {
    lines.push(`  ${id}`);
    for (const model of entries) {
      const mark = model.ref === current ? '*' : model.configured ? '✓' : ' ';
      lines.push(`   ${mark} ${model.ref.padEnd(40)} ${price(model)}`);
    }
  }
  return lines.join('\n');
}

export function modelPicker(models: readonly ModelEntry[], current: string | undefined): PickerState {
  // Models with a key first, grouped by provider.
  const ordered = [...models.filter((m) => m.configured), ...models.filter((m) => !m.configured)];
  return {
    purpose: 'model',
    title: 'Choose the model',
    items: ordered.map((model) => ({
      label: `${model.ref === current ? '* ' : ''}${model.id}`,
      detail: `${price(model)}${model.configured ? '' : ' — no key'}`,
      value: model.ref,
      group: model.provider,
    })),
  };
}

function sessionLine(session: SessionInfo): string {
  return `  ${session.sessionId}  ${session.updatedAt.slice(0, 16).replace('T', ' ')}  ${session.title}`;
}

function sessionPicker(sessions: readonly SessionInfo[]): PickerState {
  return {
    purpose: 'resume',
    title: 'Resume a session',
    items: sessions.map((session) => ({
      label: session.title,
      detail: `${session.updatedAt.slice(0, 16).replace('T', ' ')} · ${session.messageCount} messages`,
      value: session.sessionId,
    })),
  };
}

function messageOf(error: unknown): string {
  if (error instanceof PrintError) return error.message.replace(/^santra: /, '');
  return error instanceof Error ? error.message : String(error);
}
