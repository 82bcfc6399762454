/**
 * Skills and memory as the runtime serves them: `skills/list` (§7.9), `memory/show` and
 * `memory/add` (§7.10), and what a prompt gets — the `load_skill` tool with the listing for the
 * system prompt, the memory note for its message, and the extraction after the run (when the user
 * turned it on), counted into the session's usage and cost.
 */
import type { PromptParams, PromptResult, Usage } from '#protocol';
import { selectModel } from '../agent/model-selection.ts';
import { configDir } from '../config/config.ts';
import { Memory } from '../memory/memory.ts';
import type { MemoryFile } from '../memory/memory-file.ts';
import { MOST_EXTRACTION_USAGE } from '../memory/extract.ts';
import { costUsd, formatUsd } from '../providers/catalog.ts';
import { addUsage, type StreamFn } from '../providers/stream.ts';
import type { SessionStore } from '../sessions/store.ts';
import { skillLibrary } from '../skills/library.ts';
import { skillListing } from '../skills/listing.ts';
import { loadSkills, skillDirectories, type SkillCatalog } from '../skills/skills.ts';
import type { Logger, Redactor } from '../support/log.ts';
import type { SkillLibrary } from '../tools/load-skill.ts';
import type { RequestHandlers } from './contract.ts';
import { contextWindowFor } from './mcp-handler.ts';
import type { RuntimeState } from './state.ts';

export interface SkillsMemoryParts {
  state: RuntimeState;
  env: NodeJS.ProcessEnv;
  redactor: Redactor;
  log: Logger;
}

/** What one prompt gets of the skills and the memory. */
export interface PromptKnowledge {
  /** Whether any skill loads: load_skill is offered only then. */
  hasSkills: boolean;
  /** The system prompt's section on skills for a model of that context, and the status lines to show. */
  skills(contextWindow: number): { listing: string | undefined; status: string[] };
  memory: Memory;
}

/** What the extraction after a run reads beside the run's result. */
export interface AfterRunParts {
  sessions: SessionStore;
  stream: StreamFn;
  /** What the run's tools returned (every agent's, as the tool_result phases carried it). */
  toolOutputs: readonly string[];
}

export class SkillsAndMemory {
  readonly #parts: SkillsMemoryParts;
  /** One per workspace: it holds what extractions added until the next run says it. */
  readonly #memories = new Map<string, Memory>();

  constructor(parts: SkillsMemoryParts) {
    this.#parts = parts;
  }

  memory(): Memory {
    const { workspaceRoot } = this.#parts.state.ready();
    let memory = this.#memories.get(workspaceRoot);
    if (memory === undefined) {
      memory = new Memory({
        workspaceRoot,
        configDir: configDir(this.#parts.env),
        redactor: this.#parts.redactor,
        log: this.#parts.log,
      });
      this.#memories.set(workspaceRoot, memory);
    }
    return memory;
  }

  /** The skills as load_skill reads them: the catalog read again at each call, so a new skill loads. */
  library(): SkillLibrary {
    return skillLibrary(() => this.catalog(), this.#parts.state.ready().workspaceRoot);
  }

  async catalog(): Promise<SkillCatalog> {
    return loadSkills({
      workspaceRoot: this.#parts.state.ready().workspaceRoot,
      configDir: configDir(this.#parts.env),
    });
  }

  handlers(): Required<Pick<RequestHandlers, 'skills/list' | 'memory/show' | 'memory/add'>> {
    return {
      'skills/list': async (params) => {
        const { config, workspaceRoot } = this.#parts.state.ready();
        const catalog = await this.catalog();
        const listing = skillListing(
          catalog,
          contextWindowFor(config, params.model ?? this.#parts.state.defaultModel),
        );
        return {
          skills: catalog.skills.map((skill) => ({
            name: skill.name,
            description: skill.description,
            source: skill.source,
            file: skill.file,
          })),
          problems: catalog.problems,
          directories: skillDirectories({ workspaceRoot, configDir: configDir(this.#parts.env) }).map(
            (entry) => entry.dir,
          ),
          listed: listing.shown,
          listingBudgetChars: listing.budgetChars,
        };
      },
      'memory/show': async () => ({
        files: (await this.memory().files()).map(fileInfo),
        autoExtract: this.#parts.state.ready().config.memory.autoExtract,
      }),
      'memory/add': async (params) => {
        const outcome = await this.memory().add(params.scope, params.text);
        return {
          file: fileInfo(outcome.file),
          ...(outcome.added[0] === undefined ? {} : { added: outcome.added[0] }),
          dropped: outcome.dropped,
        };
      },
    };
  }

  /** What a prompt gets: read afresh each time, so a skill added between prompts is there. */
  async forPrompt(): Promise<PromptKnowledge> {
    const catalog = await this.catalog();
    return {
      hasSkills: catalog.skills.length > 0,
      skills: (contextWindow) => {
        const listing = skillListing(catalog, contextWindow);
        const status = catalog.problems.map(
          (problem) => `Skills: skipped ${problem.file}: ${problem.message}`,
        );
        if (listing.omitted > 0)
          status.unshift(
            `Skills: ${listing.shown} of ${catalog.skills.length} listed for the model (the listing keeps to ${listing.budgetChars} characters); the others load by exact name`,
          );
        return { listing: listing.text, status };
      },
      memory: this.memory(),
    };
  }

  /**
   * Whether a run of this prompt is followed by an extraction (when it completes with an answer):
   * `memory.autoExtract` is on, and the client did not ask for one plain model call (a quick
   * question from an editor gets just that).
   */
  extractsAfter(prompt: Pick<PromptParams, 'mode'>): boolean {
    const { config } = this.#parts.state.ready();
    return config.memory.autoExtract && prompt.mode !== 'simple_chat' && prompt.mode !== 'direct_answer';
  }

  /**
   * After a run that completed: the extraction, in the background, when `memory.autoExtract` is
   * on. Resolves when it is done (the runtime's shutdown waits for it); never rejects.
   */
  async afterRun(
    result: PromptResult,
    prompt: Pick<PromptParams, 'text' | 'mode'>,
    { sessions, stream, toolOutputs: runOutputs }: AfterRunParts,
  ): Promise<void> {
    const { config } = this.#parts.state.ready();
    if (!this.extractsAfter(prompt) || result.status !== 'completed' || result.output.trim() === '') return;
    const selection = selectModel(
      config,
      config.memory.model ?? this.#parts.state.defaultModel ?? config.model,
    );
    if (!selection.ok) {
      this.#parts.log.warn(`memory: no extraction after the run: ${selection.message}`);
      return;
    }
    const session = sessions.get(result.sessionId);
    // The session's budget holds for it too: it is not made when it could take the session past it.
    const limit = config.budget.perSessionUsd;
    const most = costUsd(selection.model, MOST_EXTRACTION_USAGE);
    if (limit !== undefined && (session?.costUsd ?? 0) + most > limit) {
      this.#parts.log.info(
        `memory: no extraction after run ${result.runId}: it could cost up to ${formatUsd(most)}, which would take the session past its budget (budget.perSessionUsd, ${formatUsd(limit)})`,
      );
      return;
    }
    const toolOutputs = [...runOutputs];
    // The conversation's own tool results too: a phase's output may be cut, the model's is whole.
    for (const message of session?.messages ?? [])
      if (message.role === 'user')
        for (const block of message.content) if (block.type === 'tool_result') toolOutputs.push(block.output);
    await this.memory().extract({
      run: { prompt: prompt.text, answer: result.output, toolOutputs },
      stream,
      endpoint: selection.endpoint,
      model: selection.model,
      // Counted and saved like a run's spending, so the session's totals and budget see it.
      spent: (usage: Usage) => {
        if (session === undefined) return;
        const cost = costUsd(selection.model, usage);
        session.usage = addUsage(session.usage, usage);
        session.costUsd += cost;
        session.record({
          type: 'spend',
          runId: result.runId,
          purpose: 'memory',
          model: selection.ref,
          usage,
          costUsd: cost,
          at: new Date().toISOString(),
        });
      },
    });
  }

  close(): void {
    for (const memory of this.#memories.values()) memory.close();
  }
}

function fileInfo(file: MemoryFile) {
  return {
    scope: file.scope,
    path: file.path,
    exists: file.exists,
    text: file.text,
    entries: file.entries.length,
  };
}
