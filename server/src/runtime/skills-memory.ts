/**
 * Skills and memory as the runtime serves them: `skills/list` (§7.9), `memory/show` and
 * `memory/add` (§7.10), and what a prompt gets — the `load_skill` tool with the listing for the
 * system prompt, the memory note for its message, and the extraction after the run (when the user
 * turned it on), counted into the session's usage and cost.
 */
import type { PromptResult, Usage } from '#protocol';
import { selectModel } from '../agent/model-selection.ts';
import { configDir } from '../config/config.ts';
import { Memory } from '../memory/memory.ts';
import type { MemoryFile } from '../memory/memory-file.ts';
import { costUsd } from '../providers/catalog.ts';
import { addUsage, type StreamFn } from '../providers/stream.ts';
import type { SessionStore } from '../sessions/store.ts';
import { skillLibrary } from '../skills/library.ts';
import { skillListing } from '../skills/listing.ts';
import { loadSkills, skillDirectories, type SkillCatalog } from '../skills/skills.ts';
import type { Logger, Redactor } from '../support/log.ts';
import { loadSkillTool } from '../tools/load-skill.ts';
import type { Tool } from '../tools/types.ts';
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
  /** `load_skill`: offered when there is a skill to load; known either way (a custom agent may name it). */
  loadSkill: Tool;
  /** Whether any skill loads. */
  hasSkills: boolean;
  /** The system prompt's section on skills for a model of that context, and the status lines to show. */
  skills(contextWindow: number): { listing: string | undefined; status: string[] };
  memory: Memory;
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
    const { workspaceRoot } = this.#parts.state.ready();
    return {
      loadSkill: loadSkillTool(skillLibrary(() => Promise.resolve(catalog), workspaceRoot)),
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
   * After a run that completed: the extraction, in the background, when `memory.autoExtract` is
   * on. Resolves when it is done (the runtime's shutdown waits for it); never rejects.
   */
  async afterRun(
    result: PromptResult,
    prompt: string,
    sessions: SessionStore,
    stream: StreamFn,
  ): Promise<void> {
    const { config } = this.#parts.state.ready();
    if (!config.memory.autoExtract || result.status !== 'completed' || result.output.trim() === '') return;
    const selection = selectModel(
      config,
      config.memory.model ?? this.#parts.state.defaultModel ?? config.model,
    );
    if (!selection.ok) {
      this.#parts.log.warn(`memory: no extraction after the run: ${selection.message}`);
      return;
    }
    const records = await sessions.records(result.sessionId).catch(() => []);
    const toolOutputs = records.flatMap((record) =>
      record.type === 'phase' &&
      record.phase.runId === result.runId &&
      record.phase.type === 'tool_result' &&
      record.phase.output !== undefined
        ? [record.phase.output]
        : [],
    );
    // The conversation's own tool results too: a phase's output may be cut, the model's is whole.
    const session = sessions.get(result.sessionId);
    for (const message of session?.messages ?? [])
      if (message.role === 'user')
        for (const block of message.content) if (block.type === 'tool_result') toolOutputs.push(block.output);
    await this.memory().extract({
      run: { prompt, answer: result.output, toolOutputs },
      stream,
      endpoint: selection.endpoint,
      model: selection.model,
      spent: (usage: Usage) => {
        if (session === undefined) return;
        session.usage = addUsage(session.usage, usage);
        session.costUsd += costUsd(selection.model, usage);
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
