/**
 * Santra runs started from the editor: which workspace a file belongs to, one Santra session per
 * workspace (opened on its first run), one run at a time in each, and the run's life — its
 * prompt, its phases into the report, its file changes into the editor's buffers. Santra reads
 * and edits open files through their buffers (buffer-sync.ts), so a run may start on a file with
 * unsaved changes.
 *
 * `workspace/executeCommand` answers as soon as a run is accepted: a run outlasts the request
 * timeouts editors keep (Helix: 20 s by default), so it is followed by progress and messages,
 * and cancelled with `santra.cancel` or the progress's cancel button.
 *
 * `santra.undo` is Santra's own undo (protocol session/undo), in the workspace of the last run:
 * Santra's changes are on disk as well as in the buffers (a command run next must see them), so
 * the editor's undo alone leaves the file changed; this one restores the disk and brings the
 * buffers along.
 */
import { dirname, sep } from 'node:path';
import type { Phase, PromptContext, PromptParams, ToolKind, UndoneChange } from '#protocol';
import { ErrorCodes, MessageType, ResponseError, ShowMessageRequest } from 'vscode-languageserver-protocol';
import type { Connection } from 'vscode-languageserver';
import type { InProcessLink } from '../adapters/in-process.ts';
import type { LentCapabilities } from '../adapters/santra-client.ts';
import type { Logger } from '../../support/log.ts';
import type { BufferSync } from './buffer-sync.ts';
import {
  editorContext,
  promptText,
  type Selection,
  questionIn,
  type RunKind,
  type Target,
  type UndoScope,
} from './commands.ts';
import { type Documents, textIn } from './documents.ts';
import type { Interactions } from './interactions.ts';
import { showMessage } from './messages.ts';
import { type AnswerFiles, RunReport } from './run-report.ts';
import { type RunHandle, SantraSession } from './santra-session.ts';

/** What the editor's user set in the server's `config` (LSP initializationOptions). */
export interface LspSettings {
  /** Run every prompt with this agent (protocol §7.1 `agent`), e.g. a project's own. */
  agent?: string;
  /** Model for this editor's sessions, `provider/model`. */
  model?: string;
}

export interface RunsOptions {
  connection: Connection;
  documents: Documents;
  interactions: Interactions;
  buffers: BufferSync;
  /** What of the editor each workspace's Santra may use: its buffers, served by `buffers`. */
  lend: LentCapabilities;
  answers: AnswerFiles | undefined;
  openLink: () => InProcessLink;
  log: Logger;
  /** Workspace roots, absolute paths, from the editor's workspace folders or root. */
  roots: string[];
  settings: LspSettings;
  clientInfo: { name: string; version?: string };
  /** The editor has showMessageRequest, so "ask…" can offer a choice of questions. */
  canChooseQuestion: boolean;
}

/** What "Santra: ask…" offers when the selection names no question. */
export const PRESET_QUESTIONS = [
  'What does this code do, step by step?',
  'Is there a bug in this code?',
  'How could this code be simpler?',
  'What tests would cover this code?',
];

const TITLES: Record<RunKind, string> = {
  explain: 'Santra: explain',
  fix: 'Santra: fix',
  ask: 'Santra: ask',
};

/** Tool kinds whose successful call leaves a change session/undo can put back. */
const CHANGING_KINDS: ReadonlySet<ToolKind> = new Set(['edit', 'delete', 'move']);

/** A run accepted: its workspace, and how to get its prompt once it may ask the user. */
interface Accepted {
  root: string;
  cwd?: string;
  /** The file and selection the run is about, for the server to read (§7.1.1). */
  context?: PromptContext;
  text: () => Promise<string | undefined>;
}

export class Runs {
  readonly #options: RunsOptions;
  readonly #sessions = new Map<string, Promise<SantraSession>>();
  /** Workspaces with a run (or an undo) going, from acceptance to its end. */
  readonly #running = new Map<string, RunHandle | 'starting' | 'undoing'>();
  /** Workspaces whose runs changed files that santra.undo has not put back yet (as far as known). */
  readonly #undoable = new Set<string>();
  /** The workspace of the latest run: where santra.undo undoes. */
  #lastRoot: string | undefined;

  constructor(options: RunsOptions) {
    this.#options = options;
  }

  /** The workspace root holding `path` (the innermost one), if any. */
  rootOf(path: string | undefined): string | undefined {
    if (path === undefined) return undefined;
    const inside = this.#options.roots.filter(
      (root) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep),
    );
    return inside.sort((a, b) => b.length - a.length)[0];
  }

  isRunning(root: string | undefined): boolean {
    return root !== undefined && this.#running.has(root);
  }

  /** A run in `root` changed a file that may still be undone. */
  canUndo(root: string | undefined): boolean {
    return root !== undefined && this.#undoable.has(root);
  }

  /**
   * Accepts a run of `kind` on `target` and starts it in the background; throws a ResponseError
   * saying what is wrong when it cannot start, so the editor shows why at once.
   */
  start(kind: RunKind, target: Target | string): void {
    const accepted = typeof target === 'string' ? this.#acceptQuestion(target) : this.#accept(kind, target);
    if (this.#running.has(accepted.root)) {
      throw invalid(
        `Santra is already running in ${accepted.root}: wait for it, or cancel it with santra.cancel`,
      );
    }
    this.#running.set(accepted.root, 'starting');
    void this.#run(kind, accepted).finally(() => this.#running.delete(accepted.root));
  }

  /** Cancels every run going (or the one in `root`); false when there was none. */
  cancel(root?: string): boolean {
    let cancelled = false;
    for (const [where, run] of this.#running) {
      if (typeof run === 'string' || (root !== undefined && where !== root)) continue;
      run.cancel();
      cancelled = true;
    }
    return cancelled;
  }

  /**
   * Starts undoing the last change (or run) in the workspace of the latest run, in the background:
   * Santra restores the disk, the open buffers are brought to it, and a message says what was put
   * back. Throws a ResponseError when it cannot start.
   */
  undo(scope: UndoScope): void {
    const root = this.#lastRoot;
    const session = root === undefined ? undefined : this.#sessions.get(root);
    if (root === undefined || session === undefined)
      throw invalid('santra.undo: Santra has changed nothing here yet');
    if (this.#running.has(root)) {
      throw invalid(
        `santra.undo: Santra is running in ${root}: wait for it, or cancel it with santra.cancel, then undo`,
      );
    }
    this.#running.set(root, 'undoing');
    void this.#undo(root, session, scope).finally(() => this.#running.delete(root));
  }

  /** Cancels what runs and ends every workspace's Santra server. */
  async close(): Promise<void> {
    this.cancel();
    const sessions = await Promise.allSettled([...this.#sessions.values()]);
    const opened = sessions.flatMap((session) => (session.status === 'fulfilled' ? [session.value] : []));
    await Promise.all(opened.map((session) => session.close()));
    this.#sessions.clear();
  }

  #acceptQuestion(question: string): Accepted {
    const root = this.#options.roots[0];
    if (root === undefined) throw invalid('santra.ask: the editor named no workspace folder to work in');
    return { root, text: () => Promise.resolve(question) };
  }

  #accept(kind: RunKind, target: Target): Accepted {
    const document = this.#options.documents.get(target.uri);
    if (document === undefined)
      throw invalid(`${target.uri} is not open in the editor: open it, then pick the action again`);
    const root = this.rootOf(document.path);
    if (root === undefined) {
      throw invalid(
        `${document.path ?? target.uri} is outside the workspace (${this.#options.roots.join(', ') || 'none'}): open the editor in the file's project`,
      );
    }
    const selection: Selection = {
      document,
      root,
      range: target.range,
      ...(target.diagnostics === undefined ? {} : { diagnostics: target.diagnostics }),
    };
    const question =
      target.question ?? (kind === 'ask' ? questionIn(textIn(document.text, target.range)) : undefined);
    if (kind === 'ask' && question === undefined && !this.#options.canChooseQuestion) {
      throw invalid(
        'santra.ask needs a question: write it in a "santra:" comment in the selection (// santra: why…?), or give it to the command in double quotes: santra.ask "why…?"',
      );
    }
    const text = async () => {
      const asked = kind === 'ask' ? (question ?? (await this.#chooseQuestion())) : undefined;
      if (kind === 'ask' && asked === undefined) return undefined;
      return promptText(kind, { ...selection, ...(asked === undefined ? {} : { question: asked }) });
    };
    const context = editorContext(selection);
    return {
      root,
      ...(document.path === undefined ? {} : { cwd: dirname(document.path) }),
      ...(context === undefined ? {} : { context }),
      text,
    };
  }

  async #chooseQuestion(): Promise<string | undefined> {
    const picked = await this.#options.connection
      .sendRequest(ShowMessageRequest.type, {
        type: MessageType.Info,
        message: 'Santra: ask about the selection',
        actions: PRESET_QUESTIONS.map((title) => ({ title })),
      })
      .catch(() => null);
    return picked?.title;
  }

  async #run(kind: RunKind, accepted: Accepted): Promise<void> {
    const report = new RunReport(this.#options.connection, TITLES[kind], this.#options.answers);
    try {
      const text = await accepted.text();
      if (text === undefined) return;
      const session = await this.#session(accepted.root);
      this.#lastRoot = accepted.root;
      await report.begin(() => this.cancel(accepted.root));
      await this.#options.buffers.snapshot(accepted.root);
      const changing = new Set<string>();
      const run = session.prompt(this.#promptParams(kind, text, accepted), (phase) =>
        this.#phase(report, accepted.root, phase, changing),
      );
      this.#running.set(accepted.root, run);
      const result = await run.result;
      await this.#options.buffers.sync(accepted.root);
      await report.end(result);
    } catch (error) {
      report.failed(error instanceof Error ? error.message : String(error));
    }
  }

  /** `changing`: this run's calls of tools that change files, by id. */
  #phase(report: RunReport, root: string, phase: Phase, changing: Set<string>): void {
    report.phase(phase);
    if (phase.type === 'tool_call' && phase.kind !== undefined && CHANGING_KINDS.has(phase.kind))
      changing.add(phase.toolCallId);
    if (phase.type === 'tool_result' && phase.status === 'ok') {
      if (changing.has(phase.toolCallId)) this.#undoable.add(root);
      void this.#options.buffers.sync(root);
    }
  }

  async #undo(root: string, session: Promise<SantraSession>, scope: UndoScope): Promise<void> {
    const { buffers, connection } = this.#options;
    try {
      await buffers.snapshot(root);
      const changes = await (await session).undo(scope);
      await buffers.sync(root);
      // What the buffers now hold came from the undo, not from a change santra.undo could take back.
      buffers.forget(root);
      if (changes.length === 0) this.#undoable.delete(root);
      const said = undoReport(changes);
      connection.console.info(said);
      showMessage(connection, changes.some((c) => c.outcome === 'kept') ? 'warning' : 'info', said);
    } catch (error) {
      const said = `santra.undo: ${error instanceof Error ? error.message : String(error)}`;
      connection.console.error(said);
      showMessage(connection, 'error', said);
    }
  }

  #promptParams(kind: RunKind, text: string, accepted: Accepted): Omit<PromptParams, 'sessionId'> {
    const { agent, model } = this.#options.settings;
    return {
      text,
      ...(agent === undefined ? {} : { agent }),
      ...(agent === undefined && kind === 'fix' ? { mode: 'agent_task' as const } : {}),
      ...(model === undefined ? {} : { model }),
      ...(accepted.cwd === undefined ? {} : { cwd: accepted.cwd }),
      ...(accepted.context === undefined ? {} : { context: accepted.context }),
    };
  }

  #session(root: string): Promise<SantraSession> {
    let session = this.#sessions.get(root);
    if (session === undefined) {
      const { clientInfo, settings, interactions, buffers } = this.#options;
      session = SantraSession.open(
        {
          link: this.#options.openLink(),
          log: this.#options.log,
          clientName: `santra-lsp (${clientInfo.name})`,
          ...(clientInfo.version === undefined ? {} : { clientVersion: clientInfo.version }),
          workspaceRoot: root,
          ...(settings.model === undefined ? {} : { model: settings.model }),
          lend: this.#options.lend,
        },
        {
          approve: (params, token) => interactions.approve(params, token, root),
          ask: (params, token) => interactions.ask(params, token),
          readText: (path) => buffers.text(path),
          writeText: (path, text, signal) => buffers.write(path, text, signal),
        },
      );
      // A workspace whose Santra would not start is tried again on the next run.
      session.catch(() => this.#sessions.delete(root));
      this.#sessions.set(root, session);
    }
    return session;
  }
}

/**
 * What santra.undo did, newest first, in one line (a status line) and in the words of what
 * happened to each file, as the terminal's /undo says it.
 */
function undoReport(changes: readonly UndoneChange[]): string {
  if (changes.length === 0) return 'santra.undo: nothing left to undo';
  const said = changes.map((change) => {
    if (change.outcome === 'kept') {
      const where = `${change.path}${change.destination === undefined ? '' : ` → ${change.destination}`}`;
      return `left ${where} as it is${change.reason === undefined ? '' : ` (${change.reason})`}`;
    }
    switch (change.operation) {
      case 'create':
        return `deleted ${change.path}, which the change had created`;
      case 'modify':
        return `restored ${change.path}`;
      case 'delete':
        return `restored ${change.path}, which the change had deleted`;
      case 'move':
        return `moved ${change.destination ?? '?'} back to ${change.path}`;
      default: {
        const _exhaustive: never = change.operation;
        return `restored ${change.path}`;
      }
    }
  });
  return `santra.undo: ${said.join('; ')}`;
}

function invalid(message: string): ResponseError {
  return new ResponseError(ErrorCodes.InvalidParams, message);
}
