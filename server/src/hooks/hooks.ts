/**
 * The user's hooks, from the two places Santra reads them: the `hooks` key of the user config,
 * and a project's `.santra/settings.json`, whose hooks run only once a person has trusted that
 * exact content (approval/project-trust.ts; asked for each event's block when it first fires,
 * again when it changes). `run` finds an event's matching hooks, runs them at once and merges
 * what they said; the agent loop, the prompt and the runtime call it at each event (docs/hooks.md).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProjectTrust, TrustRunIds } from '../approval/project-trust.ts';
import {
  DEFAULT_HOOK_TIMEOUT_SECONDS,
  HOOK_EVENTS,
  type HookEvent,
  type HookMatcherGroup,
  type HooksConfig,
  HooksSchema,
} from '../config/hooks-schema.ts';
import { errorCode, errorMessage } from '../support/errno.ts';
import { type HookVerdict, mergeVerdicts, readHookRun } from './hook-output.ts';
import { runHookProcess } from './run-hook.ts';

/** The project file, relative to the workspace root (Claude Code's is `.claude/settings.json`). */
export const PROJECT_SETTINGS = '.santra/settings.json';

/** One hook command and where it comes from. */
export interface ActiveHook {
  event: HookEvent;
  /** As written; undefined, "" and "*" match everything. */
  matcher: string | undefined;
  command: string;
  timeoutSeconds: number;
  /** `user`: the config file; `project`: `.santra/settings.json`, trusted. */
  source: 'user' | 'project';
  file: string;
}

/** A project hook's state, for `santra hooks`: trusted (it runs) or not (it does not). */
export interface ListedHook extends ActiveHook {
  trusted: boolean;
}

export interface HooksOptions {
  /** The user config's hooks and its path. */
  user: HooksConfig;
  userFile: string;
  workspaceRoot: string;
  /** The environment hook commands get: run_command's (secrets removed). */
  env: NodeJS.ProcessEnv;
  /** An erroring PreToolUse hook blocks its call (`hooksFailClosed`). */
  failClosed: boolean;
  /** Asks a person to trust a project's hooks; absent: project hooks never run. */
  trust?: ProjectTrust;
  /** Problems for the log (a broken project file, a trust store that cannot be written). */
  warn(message: string): void;
}

/** Who an event is about, for the hook's stdin (Claude Code's common fields). */
export interface HookScope {
  sessionId: string;
  transcriptPath: string;
  permissionMode: string;
  signal: AbortSignal;
  /** The run, when a run waits on a trust question. */
  run?: TrustRunIds;
}

export interface HookOutcome extends HookVerdict {
  /** How many hook commands ran. */
  ran: number;
  /** fail-closed and a PreToolUse hook errored: the call is blocked. */
  failedClosed?: boolean;
}

export class Hooks {
  readonly #options: HooksOptions;

  constructor(options: HooksOptions) {
    this.#options = options;
  }

  get failClosed(): boolean {
    return this.#options.failClosed;
  }

  get workspaceRoot(): string {
    return this.#options.workspaceRoot;
  }

  /**
   * Runs `event`'s hooks whose matcher matches one of `names` (all of them when `names` is
   * undefined), with `input` (plus the common fields) on stdin, and merges their verdicts.
   * Contract: never rejects; a hook's failure is an `error` in the outcome.
   */
  async run(
    event: HookEvent,
    names: readonly string[] | undefined,
    input: Record<string, unknown>,
    scope: HookScope,
  ): Promise<HookOutcome> {
    const hooks = (await this.#eventHooks(event, scope)).filter((hook) => matches(hook.matcher, names));
    if (hooks.length === 0) return { ran: 0 };
    const stdin = {
      session_id: scope.sessionId,
      transcript_path: scope.transcriptPath,
      cwd: this.#options.workspaceRoot,
      permission_mode: scope.permissionMode,
      hook_event_name: event,
      ...input,
    };
    const env = {
      ...this.#options.env,
      CLAUDE_PROJECT_DIR: this.#options.workspaceRoot,
      SANTRA_PROJECT_DIR: this.#options.workspaceRoot,
    };
    const verdicts = await Promise.all(
      hooks.map(async (hook) => {
        const timeoutMs = hook.timeoutSeconds * 1000;
        const run = await runHookProcess({
          command: hook.command,
          cwd: this.#options.workspaceRoot,
          env,
          input: stdin,
          timeoutMs,
          signal: scope.signal,
        });
        return readHookRun(event, run, label(hook), timeoutMs);
      }),
    );
    const merged: HookOutcome = { ...mergeVerdicts(verdicts), ran: hooks.length };
    if (
      event === 'PreToolUse' &&
      merged.error !== undefined &&
      this.#options.failClosed &&
      merged.block === undefined
    ) {
      merged.block = `Blocked because a PreToolUse hook failed and hooksFailClosed is set: ${merged.error}`;
      merged.permission = 'deny';
      merged.failedClosed = true;
    }
    return merged;
  }

  /** Every hook and where it comes from, project hooks with whether they are trusted (never asks). */
  async list(): Promise<{ hooks: ListedHook[]; problems: string[] }> {
    const user = flatten(this.#options.user, 'user', this.#options.userFile).map((hook) => ({
      ...hook,
      trusted: true,
    }));
    const project = await this.#readProject();
    const listed: ListedHook[] = [...user];
    for (const event of HOOK_EVENTS) {
      const groups = project.hooks?.[event];
      if (groups === undefined) continue;
      const trusted =
        (await this.#options.trust?.isTrusted(this.#trustRequest(event, groups, project.file))) === true;
      for (const hook of flatten({ [event]: groups }, 'project', project.file))
        listed.push({ ...hook, trusted });
    }
    return { hooks: listed, problems: project.problem === undefined ? [] : [project.problem] };
  }

  /** The user's hooks of `event`, and the project's once trusted (asking when they are not). */
  async #eventHooks(event: HookEvent, scope: HookScope): Promise<ActiveHook[]> {
    const user = flatten({ [event]: this.#options.user[event] }, 'user', this.#options.userFile);
    const project = await this.#readProject();
    if (project.problem !== undefined) this.#options.warn(project.problem);
    const groups = project.hooks?.[event];
    if (groups === undefined || groups.length === 0) return user;
    if (this.#options.trust === undefined) return user;
    const decision = await this.#options.trust.ensure(this.#trustRequest(event, groups, project.file), {
      signal: scope.signal,
      ...(scope.run === undefined ? {} : { run: scope.run }),
      onStoreError: (message) => this.#options.warn(message),
    });
    if (!decision.trusted) {
      this.#options.warn(decision.message);
      return user;
    }
    return [...user, ...flatten({ [event]: groups }, 'project', project.file)];
  }

  #trustRequest(event: HookEvent, groups: HookMatcherGroup[], file: string) {
    return {
      subject: 'hooks' as const,
      project: this.#options.workspaceRoot,
      source: file,
      name: event,
      definition: groups,
    };
  }

  /** `.santra/settings.json`, read at each event so an edit applies (and is asked about) at once. */
  async #readProject(): Promise<{ file: string; hooks?: HooksConfig; problem?: string }> {
    const file = join(this.#options.workspaceRoot, PROJECT_SETTINGS);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return { file };
      return {
        file,
        problem: `${PROJECT_SETTINGS}: could not be read (${errorMessage(error)}); its hooks do not run.`,
      };
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      return {
        file,
        problem: `${PROJECT_SETTINGS} is not valid JSON (${errorMessage(error)}); its hooks do not run. Fix the file.`,
      };
    }
    const hooks = (json as { hooks?: unknown } | null)?.hooks;
    if (hooks === undefined) return { file };
    const parsed = HooksSchema.safeParse(hooks);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return {
        file,
        problem: `${PROJECT_SETTINGS}: hooks.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}; its hooks do not run. Fix the file (the schema is Claude Code's, docs/hooks.md).`,
      };
    }
    return { file, hooks: parsed.data };
  }
}

function flatten(config: HooksConfig, source: ActiveHook['source'], file: string): ActiveHook[] {
  return HOOK_EVENTS.flatMap((event) =>
    (config[event] ?? []).flatMap((group) =>
      group.hooks.map((hook) => ({
        event,
        matcher: group.matcher,
        command: hook.command,
        timeoutSeconds: hook.timeout ?? DEFAULT_HOOK_TIMEOUT_SECONDS,
        source,
        file,
      })),
    ),
  );
}

/**
 * Claude Code's matching: absent, "" and "*" match everything; a plain name (letters, digits,
 * `_`, and `|` between names) matches exactly one of them; anything else is a regular expression.
 */
export function matches(matcher: string | undefined, names: readonly string[] | undefined): boolean {
  if (matcher === undefined || matcher === '' || matcher === '*' || names === undefined) return true;
  if (/^[A-Za-z0-9_|]+$/.test(matcher)) {
    const alternatives = matcher.split('|');
    return names.some((name) => alternatives.includes(name));
  }
  let pattern: RegExp;
  try {
    pattern = new RegExp(matcher);
  } catch {
    return false;
  }
  return names.some((name) => pattern.test(name));
}

/** A hook as messages name it: its command, shortened. */
function label(hook: ActiveHook): string {
  const line = hook.command.split('\n')[0] ?? '';
  return `\`${line.length > 60 ? `${line.slice(0, 60)}…` : line}\`${hook.source === 'project' ? ` (${PROJECT_SETTINGS})` : ''}`;
}
