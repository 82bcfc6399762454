/**
 * One ACP session: a Santra link of its own (a fresh server on the session's directory), the
 * Santra session it continues once the first prompt has made one (or session/load named one),
 * and the run in flight. A link per ACP session, rather than per directory, makes routing exact:
 * every phase, approval and question on the link belongs to this session, even before the first
 * prompt's answer says which Santra session it started.
 *
 * Updates to the editor are sent in order through one queue, and a prompt is answered only after
 * its last update, as ACP requires.
 *
 * What the editor lends (its files, its terminals: lent.ts) is served here for this session's
 * link, which declared exactly that.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type {
  AgentContext,
  ContentBlock,
  SessionConfigOption,
  SessionModeState,
  SessionUpdate,
  StopReason,
} from '@agentclientprotocol/sdk';
import {
  ApproveParams,
  type ApproveResult,
  type AskParams,
  type AskResult,
  type ParamsOf,
  type PermissionMode,
  Phase,
  type TerminalRunParams,
  type TerminalRunResult,
} from '#protocol';
import type { Logger } from '../../support/log.ts';
import { type LendingEditor, readFromEditor, runInTerminal, writeToEditor } from './lent.ts';
import { askApproval, askQuestion, type Editor } from './permissions.ts';
import { promptContext, promptText, promptTitle } from './prompt-text.ts';
import { acpToolCallId, RunView } from './run-view.ts';
import type { LentCapabilities, SantraClient, SantraHandlers } from '../adapters/santra-client.ts';

/** How long a turn's answer waits for the editor to kill and release a cancelled command's terminal. */
const TERMINAL_CLEANUP_MS = 5000;

/** The mode that lets Santra route each prompt (its classifier), as the TUI does. */
const AUTO_MODE = 'auto';
const MODEL_OPTION = 'model';
/**
 * Santra's permission modes (§7.8), as a config option of ACP's `mode` category: ACP's session
 * modes already choose the agent, and an editor shows both selectors.
 */
const PERMISSION_OPTION = 'permission_mode';
const PERMISSION_CHOICES: ReadonlyArray<{ value: PermissionMode; name: string; description: string }> = [
  { value: 'default', name: 'Default', description: 'Ask before each file change and command.' },
  {
    value: 'acceptEdits',
    name: 'Accept edits',
    description: 'File changes in the workspace without asking; commands asked.',
  },
  { value: 'plan', name: 'Plan', description: 'Read-only: research, then present a plan to approve.' },
  {
    value: 'bypassPermissions',
    name: 'Bypass permissions',
    description: 'Allow everything that would be asked, protected locations excepted.',
  },
];

export interface SessionOptions {
  /** The ACP session id, which is the Santra session's id. */
  id: string;
  cwd: string;
  client: SantraClient;
  context: AgentContext;
  /** The client renders elicitation forms (questions, rejection feedback). */
  forms: boolean;
  /** What the client lends and `client`'s link declared: served through the client's ACP methods. */
  lent: LentCapabilities;
  log: Logger;
}

export class AcpSession {
  readonly id: string;
  readonly cwd: string;
  readonly #client: SantraClient;
  readonly #context: AgentContext;
  readonly #log: Logger;
  readonly #forms: boolean;
  readonly #view: RunView;
  #mode = AUTO_MODE;
  #modes: SessionModeState | undefined;
  #models: SessionConfigOption | undefined;
  #permissionMode: PermissionMode = 'default';
  #running: AbortController | undefined;
  #sent: Promise<void> = Promise.resolve();
  /** Commands running in the editor's terminals, until each terminal is released. */
  readonly #terminals = new Set<Promise<TerminalRunResult>>();
  #titled = false;

  constructor(options: SessionOptions) {
    this.id = options.id;
    this.cwd = options.cwd;
    this.#client = options.client;
    this.#context = options.context;
    this.#log = options.log;
    this.#forms = options.forms;
    this.#view = new RunView({ root: options.cwd });
    this.#client.setHandlers({
      onPhase: (phase) => this.#phase(phase),
      onApprove: (params, signal) => this.#approve(params, signal),
      onAsk: (params, signal) => this.#ask(params, signal),
      ...this.#lendingHandlers(options.lent),
    });
  }

  /** Santra's agents as ACP modes ("auto" routes each prompt), and its models as a config option. */
  async describe(): Promise<{ modes: SessionModeState; configOptions: SessionConfigOption[] }> {
    const [agents, models] = await Promise.all([
      this.#client.request('agents/list', {}),
      this.#client.request('model/list', { sessionId: this.id }),
    ]);
    this.#modes = {
      currentModeId: this.#mode,
      availableModes: [
        {
          id: AUTO_MODE,
          name: 'Auto',
          description: 'Santra routes each prompt: a quick answer, or the agent swarm.',
        },
        ...agents.agents.map((agent) => ({ id: agent.id, name: agent.name, description: agent.description })),
      ],
    };
    const usable = models.models.filter((model) => model.configured || model.ref === models.current);
    this.#models =
      usable.length === 0
        ? undefined
        : {
            type: 'select',
            id: MODEL_OPTION,
            name: 'Model',
            category: 'model',
            currentValue: models.current === '' ? (usable[0]?.ref ?? '') : models.current,
            options: usable.map((model) => ({ value: model.ref, name: model.ref })),
          };
    return { modes: this.#modes, configOptions: this.#configOptions() };
  }

  /** Runs the next agent as the top agent of each prompt, or lets Santra route ("auto"). */
  setMode(modeId: string): boolean {
    if (this.#modes !== undefined && !this.#modes.availableModes.some((mode) => mode.id === modeId))
      return false;
    this.#mode = modeId;
    if (this.#modes !== undefined) this.#modes.currentModeId = modeId;
    return true;
  }

  /**
   * Switches the model (Santra's model/set) from the next prompt on, or the permission mode at
   * once (a prompt going on gates its later tool calls in it: session/setMode); returns every
   * option as it now is.
   */
  async setModel(configId: string, value: string): Promise<SessionConfigOption[] | string> {
    if (configId === PERMISSION_OPTION) {
      const mode = PERMISSION_CHOICES.find((choice) => choice.value === value)?.value;
      if (mode === undefined)
        return `unknown permission mode "${value}"; use one of ${PERMISSION_CHOICES.map((c) => c.value).join(', ')}`;
      this.#permissionMode = mode;
      if (this.#running !== undefined)
        await this.#client.request('session/setMode', { sessionId: this.id, permissionMode: mode });
      return this.#configOptions();
    }
    if (configId !== MODEL_OPTION || this.#models === undefined)
      return `unknown config option "${configId}"; this session offers "${MODEL_OPTION}"`;
    const { model } = await this.#client.request('model/set', { model: value, sessionId: this.id });
    if (this.#models.type === 'select') this.#models.currentValue = model;
    return this.#configOptions();
  }

  /** One prompt turn, to its end; the stop reason is `cancelled` when session/cancel ended it. */
  async prompt(blocks: readonly ContentBlock[]): Promise<StopReason> {
    if (this.#running !== undefined) throw new Busy();
    const text = promptText(blocks, this.cwd);
    const context = promptContext(blocks, this.cwd);
    const running = new AbortController();
    this.#running = running;
    try {
      if (!this.#titled) this.#send({ sessionUpdate: 'session_info_update', title: promptTitle(text) });
      this.#titled = true;
      const params: ParamsOf<'prompt'> = {
        text,
        sessionId: this.id,
        ...(context === undefined ? {} : { context }),
        ...(this.#mode === AUTO_MODE ? {} : { agent: this.#mode }),
        permissionMode: this.#permissionMode,
      };
      const result = await this.#client.prompt(params, running.signal);
      // An approved plan goes on in the mode the user chose: the editor's selector follows.
      if (result.permissionMode !== undefined && result.permissionMode !== this.#permissionMode) {
        this.#permissionMode = result.permissionMode;
        this.#send({ sessionUpdate: 'config_option_update', configOptions: this.#configOptions() });
      }
      // An answer cut at the output limit, or refused, is said so: ACP has both stop reasons.
      if (result.status === 'cancelled') return 'cancelled';
      return result.stopReason === 'max_tokens' || result.stopReason === 'refusal'
        ? result.stopReason
        : 'end_turn';
    } finally {
      this.#running = undefined;
      // A cancelled command's terminal is killed and released before the turn is answered: the
      // editor may drop the session's terminals, or the connection, as soon as it has the answer.
      // Bounded: an editor that never answers terminal/kill must not hold the turn forever.
      if (this.#terminals.size > 0)
        await Promise.race([
          Promise.allSettled(this.#terminals),
          delay(TERMINAL_CLEANUP_MS, undefined, { ref: false }),
        ]);
      await this.#sent;
    }
  }

  /** session/cancel: cancels the run in flight (if any); its prompt then answers `cancelled`. */
  cancel(): void {
    this.#running?.abort();
  }

  /**
   * Continues a saved Santra session: session/resume checks it (it exists, it is of this
   * workspace), then with `replay` its history is sent again as updates: each prompt as the
   * user's message, each saved phase as it was shown live, with the diffs of its approvals.
   */
  async load(replay: boolean): Promise<void> {
    const resumed = await this.#client.request('session/resume', { sessionId: this.id });
    this.#titled = true;
    for (const warning of resumed.warnings) this.#log.warn(`acp: session/load ${this.id}: ${warning}`);
    if (!replay) return;
    const exported = await this.#client.request('session/export', {
      sessionId: this.id,
      format: 'json',
    });
    for (const record of savedRecords(exported.content)) this.#replay(record);
    this.#send({ sessionUpdate: 'session_info_update', title: resumed.session.title });
    await this.#sent;
  }

  /** Ends the session: its run is cancelled and its link shut down (Santra saves the session). */
  async close(): Promise<void> {
    this.cancel();
    await this.#client.close();
  }

  #configOptions(): SessionConfigOption[] {
    const permission: SessionConfigOption = {
      type: 'select',
      id: PERMISSION_OPTION,
      name: 'Permissions',
      category: 'mode',
      currentValue: this.#permissionMode,
      options: PERMISSION_CHOICES.map(({ value, name, description }) => ({ value, name, description })),
    };
    return this.#models === undefined ? [permission] : [this.#models, permission];
  }

  #replay(record: SavedRecord): void {
    switch (record.type) {
      case 'prompt':
        this.#send({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: record.text } });
        return;
      case 'phase':
        this.#phase(record.phase);
        return;
      case 'approval':
        this.#send({ sessionUpdate: 'tool_call_update', ...this.#view.approval(record.request) });
        return;
      default: {
        const _exhaustive: never = record;
        return;
      }
    }
  }

  #phase(phase: Phase): void {
    for (const update of this.#view.phase(phase)) this.#send(update);
  }

  async #approve(params: ApproveParams, signal: AbortSignal): Promise<ApproveResult> {
    const toolCall = this.#view.approval(params);
    this.#send({ sessionUpdate: 'tool_call_update', ...toolCall });
    await this.#sent;
    const result = await askApproval(this.#editor(), params, toolCall, signal);
    if (result.decision === 'allow' || result.decision === 'allow_all')
      this.#send({
        sessionUpdate: 'tool_call_update',
        toolCallId: toolCall.toolCallId,
        status: 'in_progress',
      });
    return result;
  }

  async #ask(params: AskParams, signal: AbortSignal): Promise<AskResult> {
    await this.#sent;
    const row = acpToolCallId(params.runId, params.toolCallId);
    return askQuestion(this.#editor(), params, this.#view.hasRow(row) ? row : undefined, signal);
  }

  /** A handler for each thing the client lends, and none for what it does not. */
  #lendingHandlers(lent: LentCapabilities): Partial<SantraHandlers> {
    const editor: LendingEditor = { context: this.#context, sessionId: this.id, log: this.#log };
    return {
      ...(lent.fs?.readTextFile === true
        ? { onReadTextFile: (params, signal) => readFromEditor(editor, params, signal) }
        : {}),
      ...(lent.fs?.writeTextFile === true
        ? { onWriteTextFile: (params, signal) => writeToEditor(editor, params, signal) }
        : {}),
      ...(lent.terminal === true
        ? { onTerminalRun: (params, signal) => this.#runInTerminal(editor, params, signal) }
        : {}),
    };
  }

  /** The command runs in an editor terminal that its tool call shows, in order with the other updates. */
  #runInTerminal(
    editor: LendingEditor,
    params: TerminalRunParams,
    signal: AbortSignal,
  ): Promise<TerminalRunResult> {
    const run = runInTerminal(editor, params, signal, (terminalId) => {
      const update = this.#view.terminal(params.runId, params.toolCallId, terminalId);
      if (update !== undefined) this.#send({ sessionUpdate: 'tool_call_update', ...update });
    });
    this.#terminals.add(run);
    void run.finally(() => this.#terminals.delete(run)).catch(() => {});
    return run;
  }

  #editor(): Editor {
    return {
      context: this.#context,
      sessionId: this.id,
      forms: this.#forms,
      say: (update) => {
        this.#send(update);
        return this.#sent;
      },
    };
  }

  /** Queues one update; updates leave in the order they were queued. */
  #send(update: SessionUpdate): void {
    this.#sent = this.#sent
      .then(() => this.#context.notify('session/update', { sessionId: this.id, update }))
      .catch((error: unknown) =>
        this.#log.warn(
          `acp: a session/update was not sent: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
  }
}

/** A second prompt while one runs: ACP has one turn at a time per session. */
export class Busy extends Error {
  constructor() {
    super('a prompt is already running in this session; cancel it (session/cancel) or wait for its answer');
  }
}

/**
 * What session/load reads of session/export's records (protocol-spec README §10.4: the saved
 * records): the prompts, the phases as sent, and the approvals with their diffs. Other record
 * types are the model's side of the conversation and are skipped.
 */
type SavedRecord =
  | { type: 'prompt'; text: string }
  | { type: 'phase'; phase: Phase }
  | { type: 'approval'; request: ApproveParams };

function savedRecords(content: string): SavedRecord[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  const records: SavedRecord[] = [];
  for (const raw of parsed as unknown[]) {
    const record = (raw ?? {}) as Record<string, unknown>;
    if (record.type === 'prompt' && typeof record.text === 'string')
      records.push({ type: 'prompt', text: record.text });
    if (record.type === 'phase') {
      const phase = Phase.safeParse(record.phase);
      if (phase.success) records.push({ type: 'phase', phase: phase.data });
    }
    if (record.type === 'approval') {
      const request = ApproveParams.safeParse(record.request);
      if (request.success) records.push({ type: 'approval', request: request.data });
    }
  }
  return records;
}
