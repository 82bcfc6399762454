/**
 * What the runtime holds between requests: the connection's workspace, client and sessions (from
 * `initialize` on), the config as last read — broken or not, read again when the file changes —
 * the connection's default model, and the tools built from that config.
 */
import { statSync } from 'node:fs';
import type { ClientCapabilities } from '#protocol';
import { loadConfigLenient, type ResolvedConfig } from '../config/config.ts';
import { storePassword } from '../sessions/keyv-connection.ts';
import type { Recording } from '../sessions/recorded-model.ts';
import type { SessionStore } from '../sessions/store.ts';
import type { Logger, Redactor } from '../support/log.ts';
import { ProtocolFault } from '../support/protocol-fault.ts';
import type { Hooks } from '../hooks/hooks.ts';
import type { Tool, ToolContextSource } from '../tools/types.ts';
import type { Workspace } from '../workspace/workspace.ts';
import type { ClientChannel } from './contract.ts';
import { recordedModelConfig } from './recorded-model-config.ts';

/** What `initialize` set up. */
export interface Initialized {
  config: ResolvedConfig;
  workspaceRoot: string;
  client: ClientChannel;
  sessions: SessionStore;
  workspace: Workspace;
  capabilities: ClientCapabilities;
}

export interface Tooling {
  toolContext: ToolContextSource;
  /** The tools offered. */
  tools: Tool[];
  /** Every tool, including those the config denies. */
  every: Tool[];
  /** Settings that do nothing (a misspelt tool in tools.policy…), shown with every prompt. */
  warnings: string[];
  /** The user's hooks (config and trusted project hooks), run by the agent loop and the runtime. */
  hooks?: Hooks;
}

export type LoadedConfig = Awaited<ReturnType<typeof loadConfigLenient>>;

export interface RuntimeStateOptions {
  env: NodeJS.ProcessEnv;
  log: Logger;
  redactor: Redactor;
  /** --replay: the recording's models replace the config's. */
  replay?: Recording;
}

export class RuntimeState {
  /** The connection's default model (from initialize or model/set). */
  defaultModel: string | undefined;
  readonly #options: RuntimeStateOptions;
  #initialized: Initialized | undefined;
  /** What is wrong with the config file, while it is broken: prompts are refused until it is fixed. */
  #configError: string | undefined;
  /** The config file as last read (mtime, size, inode), to read it again when it changes. */
  #configStamp = '';
  /** The tools, built from the config when first needed, and again after the config changed. */
  #tooling: Promise<Tooling> | undefined;
  #buildTooling: ((config: ResolvedConfig) => Promise<Tooling>) | undefined;

  constructor(options: RuntimeStateOptions) {
    this.#options = options;
  }

  get configError(): string | undefined {
    return this.#configError;
  }

  /** What `initialize` set up; undefined before it. */
  get initialized(): Initialized | undefined {
    return this.#initialized;
  }

  /** The state, or an error when a request comes before `initialize`. */
  ready(): Initialized {
    if (this.#initialized === undefined) throw new Error('runtime used before initialize');
    return this.#initialized;
  }

  /** The state, for what needs a config the person meant: refused while the file is broken. */
  configured(): Initialized {
    if (this.#configError !== undefined)
      throw new ProtocolFault(
        'ModelUnavailable',
        `${this.#configError}\nFix the file and try again: Santra reads it again on the next request, no restart needed.`,
      );
    return this.ready();
  }

  /** `initialize` is done: requests may use `initialized`, and tools are built with `buildTooling`. */
  begin(initialized: Initialized, buildTooling: (config: ResolvedConfig) => Promise<Tooling>): void {
    this.#initialized = initialized;
    this.#buildTooling = buildTooling;
  }

  /** The tools for the config in use, built once per config. */
  tools(): Promise<Tooling> {
    const build = this.#buildTooling;
    if (build === undefined) throw new Error('runtime used before initialize');
    return (this.#tooling ??= build(this.ready().config));
  }

  /** The config the person just set up (config/setup) replaces the one in use. */
  replaceConfig(config: ResolvedConfig): void {
    this.#initialized = { ...this.ready(), config };
    this.#tooling = undefined;
  }

  /** A config as loaded, made ready for use: its secrets redacted everywhere, a --replay applied. */
  prepared(loaded: ResolvedConfig): ResolvedConfig {
    const { redactor, replay } = this.#options;
    for (const endpoint of Object.values(loaded.providers)) redactor.add(endpoint.apiKey);
    if (loaded.sessions.store !== undefined) redactor.add(storePassword(loaded.sessions.store));
    if (loaded.sessions.liveToken !== undefined) redactor.add(loaded.sessions.liveToken);
    if (loaded.tools.webSearch !== undefined && 'apiKey' in loaded.tools.webSearch)
      redactor.add(loaded.tools.webSearch.apiKey);
    return replay === undefined ? loaded : recordedModelConfig(loaded, replay.models);
  }

  /** Takes the config as loaded (or what could be used of a broken one) into use. */
  useConfig(loaded: LoadedConfig, file: string): ResolvedConfig {
    this.#configStamp = stampOf(file);
    this.#configError =
      loaded.problem === undefined ? undefined : this.#options.redactor.apply(loaded.problem.message);
    if (this.#configError !== undefined) this.#options.log.error(this.#configError);
    return this.prepared(loaded.config);
  }

  /**
   * Reads the config file again when it changed since it was read (a fix, an edit): the next
   * request after a fix is served without a restart. The tools are built again with it; the
   * session store and the workspace's allowed directories keep what the server started with.
   */
  async refresh(): Promise<void> {
    const initialized = this.#initialized;
    if (initialized === undefined || stampOf(initialized.config.file) === this.#configStamp) return;
    const config = this.useConfig(await loadConfigLenient(this.#options.env), initialized.config.file);
    this.replaceConfig(config);
    this.#options.log.info(
      this.#configError === undefined
        ? `read ${config.file} again`
        : `${config.file} changed and is still not usable`,
    );
  }
}

/** The config file's identity as last changed: mtime, size and inode ('' when there is none). */
function stampOf(file: string): string {
  try {
    const info = statSync(file);
    return `${info.mtimeMs}:${info.size}:${info.ino}`;
  } catch {
    return '';
  }
}
