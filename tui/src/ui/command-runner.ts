/**
 * The slash commands carried out: what each shows (a note in the transcript, a picker) and what it
 * changes (the session, the model). The work with the server is session-commands.ts's and the
 * text command-text.ts's; this is the wiring to the UI's state. Also `--continue` / `--resume`,
 * which go on with a saved session as /resume does.
 */
import { addUsage } from '../client/usage.ts';
import { sandboxStatusText } from './sandbox-text.ts';
import {
  agentsText,
  costText,
  helpText,
  messageOf,
  modelPicker,
  modelsText,
  sessionsText,
  sessionPicker,
  statusText,
} from './command-text.ts';
import { rewindPicker, rewindText } from './rewind-text.ts';
import { keyOf } from './keybindings.ts';
import { mcpText, revocationText } from '../client/mcp-text.ts';
import { memoryCommand } from './memory-command.ts';
import { skillsText } from '../client/knowledge-text.ts';
import type { ServerLink } from './server-link.ts';
import {
  chooseModel,
  compactSession,
  exportTranscript,
  sessionPrompts,
  undoInSession,
} from './session-commands.ts';
import { SLASH_COMMANDS, type SlashCommand } from './slash-commands.ts';
import type { UiStore } from './store.ts';
import type { TranscriptFeed } from './transcript-feed.ts';
import type { PickerState } from './ui-state.ts';

export interface CommandRunnerOptions {
  store: UiStore;
  feed: TranscriptFeed;
  link: ServerLink;
  workspaceRoot: string;
  /** Where /export writes a relative file name. */
  startDir: string;
  /** /clear's clear of the screen. */
  clearScreen: () => void;
  /** /exit. */
  exit: () => Promise<void>;
}

export class CommandRunner {
  readonly #store: UiStore;
  readonly #feed: TranscriptFeed;
  readonly #link: ServerLink;
  readonly #options: CommandRunnerOptions;
  #selectedModel: string | undefined;

  constructor(options: CommandRunnerOptions) {
    this.#store = options.store;
    this.#feed = options.feed;
    this.#link = options.link;
    this.#options = options;
  }

  /**
   * The model /model chose for each prompt, when the server has no `model/set` to choose it for
   * the session; undefined otherwise.
   */
  get selectedModel(): string | undefined {
    return this.#selectedModel;
  }

  /** Carries out `command`; what goes wrong is said in the transcript. */
  async run(command: SlashCommand, arg: string): Promise<void> {
    try {
      await this.#runOrThrow(command, arg);
    } catch (error) {
      this.#feed.note(messageOf(error), 'error');
    }
  }

  /** A model or session chosen from a picker: what `/model NAME` or `/resume ID` does. */
  async pick(picker: PickerState, value: string): Promise<void> {
    this.#store.set({ picker: undefined });
    if (picker.purpose === 'rewind') {
      try {
        await this.#rewind(value, picker.rewind ?? { restoreFiles: false, fork: false });
      } catch (error) {
        this.#feed.note(messageOf(error), 'error');
      }
      return;
    }
    const name = picker.purpose === 'model' ? 'model' : 'resume';
    const command = SLASH_COMMANDS.find((c) => c.name === name);
    if (command !== undefined) await this.run(command, value);
  }

  /**
   * `santra --continue` / `--resume <id>`: once the server is ready, go on with that session (the
   * latest of the project for --continue), as /resume would.
   */
  async continueSession(resume: { latest: true } | { id: string }): Promise<void> {
    if (this.#store.state.connection !== 'ready') return;
    try {
      let id = 'id' in resume ? resume.id : undefined;
      if (id === undefined) {
        const { sessions } = await this.#link.server().sessions(1);
        id = sessions[0]?.sessionId;
        if (id === undefined) {
          this.#feed.note('No saved session of this project to continue: this is a new one.');
          return;
        }
      }
      await this.#resume(id);
    } catch (error) {
      this.#feed.note(messageOf(error), 'error');
    }
  }

  async #runOrThrow(command: SlashCommand, arg: string): Promise<void> {
    const store = this.#store;
    const feed = this.#feed;
    const server = () => this.#link.server();
    if (command.idle === true && store.state.transcript.running) {
      feed.note(`A run is going on: press ${keyOf('abort')} to stop it first.`, 'warning');
      return;
    }
    switch (command.name) {
      case 'help':
        feed.note(helpText(store.state.commands));
        return;
      case 'clear':
        // The session left ends now (its SessionEnd hooks), in the background: the screen clears at once.
        this.#closeLeft(store.state.sessionId, 'clear');
        feed.startOver();
        feed.dispatch({ type: 'new_session' });
        store.set({ sessionId: undefined, sessionUsage: undefined, sessionCostUsd: 0, lastRun: undefined });
        this.#options.clearScreen();
        feed.note('New session.');
        return;
      case 'exit':
        await this.#options.exit();
        return;
      case 'status':
        feed.note(
          `${statusText(store.state, this.#options.workspaceRoot)}\n${sandboxStatusText(this.#link.backend?.sandbox)}`,
        );
        return;
      case 'cost':
        feed.note(costText(store.state.sessionUsage, store.state.sessionCostUsd, store.state.lastRun));
        return;
      case 'export': {
        const note = await exportTranscript({
          backend: this.#link.backend,
          sessionId: store.state.sessionId,
          name: arg,
          startDir: this.#options.startDir,
          shown: () => feed.shownMarkdown(),
        });
        feed.note(note.text);
        return;
      }
      case 'model':
        if (arg !== '') await this.#setModel(arg);
        else store.set({ picker: modelPicker((await server().models()).models, store.state.model) });
        return;
      case 'models':
        feed.note(modelsText((await server().models()).models, store.state.model));
        return;
      case 'agents':
        feed.note(agentsText(await server().agents()));
        return;
      case 'sessions':
        feed.note(sessionsText((await server().sessions(20)).sessions));
        return;
      case 'mcp': {
        // `/mcp logout NAME`: forget that server's sign-in (mcp/logout); otherwise the list.
        const logout = /^logout\s+(\S+)$/.exec(arg.trim());
        if (logout !== null) {
          const name = logout[1] as string;
          const {
            signedOut,
            revocation,
            server: info,
          } = await server().request('mcp/logout', {
            server: name,
          });
          feed.note(
            signedOut
              ? `Signed out of ${name}: its sign-in is removed.${revocationText(revocation)}${info.authUrl === undefined ? '' : ` To sign in again, open:\n  ${info.authUrl}`}`
              : `${name} was not signed in; nothing was removed.`,
          );
          return;
        }
        if (arg.trim() !== '') {
          feed.note(`/mcp takes nothing, or "logout NAME" (got "${arg.trim()}").`, 'warning');
          return;
        }
        feed.note(mcpText(await server().request('mcp/list', {}), { maxTools: 12 }).trimEnd());
        return;
      }
      case 'skills':
        feed.note(skillsText(await server().request('skills/list', {})).trimEnd());
        return;
      case 'memory':
        feed.note(await memoryCommand(server(), arg));
        return;
      case 'resume': {
        if (arg !== '') {
          await this.#resume(arg);
          return;
        }
        const { sessions } = await server().sessions(50);
        if (sessions.length === 0) feed.note('No saved session to resume.');
        else store.set({ picker: sessionPicker(sessions) });
        return;
      }
      case 'name':
        await this.#name(arg);
        return;
      case 'rewind':
        await this.#openRewind(arg);
        return;
      case 'compact':
      case 'undo': {
        const sessionId = store.state.sessionId;
        if (sessionId === undefined) {
          feed.note(`Nothing to ${command.name} yet: this session has no run.`);
          return;
        }
        if (command.name === 'undo') {
          const note = await undoInSession(server(), sessionId, arg);
          feed.note(note.text, note.tone);
          return;
        }
        feed.note('Compacting…');
        const compacted = await compactSession(server(), sessionId);
        // The summary's tokens and cost are the session's (the server adds them): /cost and the
        // ChromeBar count them now, not from the next run on.
        store.set({
          sessionUsage: addUsage(store.state.sessionUsage, compacted.usage),
          sessionCostUsd: store.state.sessionCostUsd + compacted.costUsd,
        });
        feed.note(compacted.text, compacted.tone);
        return;
      }
      default: {
        const exhaustive: never = command.name;
        throw new Error(`unknown command ${String(exhaustive)}`);
      }
    }
  }

  /** Esc Esc: what /rewind without options does; what goes wrong is said in the transcript. */
  async openRewind(): Promise<void> {
    const command = SLASH_COMMANDS.find((c) => c.name === 'rewind');
    if (command !== undefined && this.#store.state.commands.includes(command)) await this.run(command, '');
  }

  /** /rewind [files] [fork]: the prompts of the conversation, newest first, to pick one from. */
  async #openRewind(arg: string): Promise<void> {
    const words = arg.split(/\s+/).filter((word) => word !== '');
    const unknown = words.filter((word) => word !== 'files' && word !== 'fork');
    if (unknown.length > 0) {
      this.#feed.note(
        `/rewind takes "files" (also put back the files changed since) and "fork" (as a new session), not ${unknown.map((w) => JSON.stringify(w)).join(', ')}.`,
        'error',
      );
      return;
    }
    const sessionId = this.#store.state.sessionId;
    if (sessionId === undefined) {
      this.#feed.note('Nothing to rewind yet: this session has no prompt.');
      return;
    }
    const { prompts } = await this.#link.server().request('session/prompts', { sessionId });
    if (prompts.length === 0) {
      this.#feed.note('Nothing to rewind: the conversation has no prompt now.');
      return;
    }
    this.#store.set({
      picker: rewindPicker(prompts, { restoreFiles: words.includes('files'), fork: words.includes('fork') }),
    });
  }

  /** Goes back to just before the prompt of `runId`, whose text comes back in the composer. */
  async #rewind(runId: string, options: { restoreFiles: boolean; fork: boolean }): Promise<void> {
    const sessionId = this.#store.state.sessionId;
    if (sessionId === undefined) return;
    const result = await this.#link.server().request('session/rewind', {
      sessionId,
      runId,
      ...(options.restoreFiles ? { restoreFiles: true } : {}),
      ...(options.fork ? { fork: true } : {}),
    });
    const draftId = (this.#store.state.draft?.id ?? 0) + 1;
    this.#store.set({ sessionId: result.session.sessionId, draft: { id: draftId, text: result.text } });
    this.#feed.note(
      rewindText(result),
      result.changes.some((c) => c.outcome === 'kept') ? 'warning' : undefined,
    );
  }

  /** /name NAME names this session (session/rename); /name alone says its name; /name --clear removes it. */
  async #name(arg: string): Promise<void> {
    const sessionId = this.#store.state.sessionId;
    if (sessionId === undefined) {
      this.#feed.note('Nothing to name yet: a session starts with its first prompt. Name it after that.');
      return;
    }
    if (arg === '') {
      const { session } = await this.#link.server().resume(sessionId);
      this.#feed.note(
        session.name === undefined
          ? 'This session has no name: /name NAME gives it one.'
          : `This session is named ${session.name}: /resume ${session.name} or santra --resume ${session.name} continues it.`,
      );
      return;
    }
    const name = arg === '--clear' ? null : arg;
    const { session } = await this.#link.server().request('session/rename', { sessionId, name });
    this.#feed.note(
      session.name === undefined
        ? 'The session has no name now.'
        : `Named this session ${session.name}: /resume ${session.name} or santra --resume ${session.name} continues it.`,
    );
  }

  async #setModel(model: string): Promise<void> {
    const chosen = await chooseModel(this.#link.server(), model, this.#store.state.sessionId);
    this.#selectedModel = chosen.perPrompt ? chosen.model : undefined;
    this.#store.set({ model: chosen.model });
    // A model Santra does not list: the server's warning at the next run says what that means.
    this.#feed.note(`Model: ${chosen.model}${chosen.listed ? '' : " (not in Santra's model list)"}`);
  }

  /** Ends the session the user left on the server, in the background; a failure is a warning. */
  #closeLeft(sessionId: string | undefined, reason: 'clear' | 'other'): void {
    this.#link
      .closeSession(sessionId, reason)
      .catch((error: unknown) =>
        this.#feed.note(`The session left was not closed: ${messageOf(error)}`, 'warning'),
      );
  }

  /**
   * Continues a saved session, its earlier runs replayed on screen first: `session/resume` with
   * afterSeq 0 sends every saved phase again before it answers. Phases carry no user text, so the
   * prompts come from `session/export` (json) when the server offers it, one per run.
   */
  async #resume(sessionId: string): Promise<void> {
    const backend = this.#link.server();
    const store = this.#store;
    if (store.state.transcript.running) {
      this.#feed.note(`A run is going on: press ${keyOf('abort')} to stop it first.`, 'warning');
      return;
    }
    // A name (which never starts with ses_) is the session the server says it is (§10.12); an id,
    // or the start of one, the server resolves as it resumes.
    if (!sessionId.startsWith('ses_')) sessionId = (await backend.resume(sessionId)).session.sessionId;
    const prompts = await sessionPrompts(backend, sessionId);
    this.#feed.note('Earlier in this session:');
    const left = store.state.sessionId;
    const { session, warnings } = await this.#link.replaying(prompts, () => backend.resume(sessionId, 0));
    for (const warning of warnings) this.#feed.note(warning, 'warning');
    // The session the user was in ends here, unless it is the one resumed.
    if (left !== session.sessionId) this.#closeLeft(left, 'other');
    store.set({
      sessionId: session.sessionId,
      sessionUsage: session.usage,
      sessionCostUsd: session.costUsd,
      lastRun: undefined,
    });
    if (session.model !== undefined && this.#selectedModel === undefined) store.set({ model: session.model });
    this.#feed.note(
      `Resumed "${session.title}" (${session.messageCount} messages). The model has its whole history.`,
    );
  }
}
