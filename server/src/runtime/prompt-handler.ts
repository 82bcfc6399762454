/**
 * `prompt`: a run of the agents with what the runtime holds — the config in use, the session
 * store, the tools, the workspace's agents and instructions — tracked so that shutdown waits for
 * it to save.
 */
import type { ClientCapabilities } from '#protocol';
import { BUILTIN_AGENTS } from '../agent/builtin-agents.ts';
import { loadCustomAgents } from '../agent/custom-agents.ts';
import { loadProjectInstructions } from '../agent/project-instructions.ts';
import { runPrompt } from '../agent/run-prompt.ts';
import { configDir } from '../config/config.ts';
import type { StreamFn } from '../providers/stream.ts';
import type { Redactor } from '../support/log.ts';
import type { RequestHandlers } from './contract.ts';
import type { RuntimeState } from './state.ts';
import type { McpManager } from '../mcp/manager.ts';
import { contextWindowFor } from './mcp-handler.ts';
import { errorMessage } from '../support/errno.ts';
import { ProtocolFault } from '../support/protocol-fault.ts';
import type { SkillsAndMemory } from './skills-memory.ts';
import type { SessionLifecycle } from '../hooks/session-hooks.ts';
import { LOAD_SKILL_TOOL } from '../tools/load-skill.ts';

export interface PromptHandlerParts {
  state: RuntimeState;
  stream: StreamFn;
  redactor: Redactor;
  env: NodeJS.ProcessEnv;
  /** The runs not yet ended; each is added, and removed once it settles. */
  runs: Set<Promise<unknown>>;
  /** The MCP servers: the tools of those connected now join the run (mcp/manager.ts). */
  mcp?: () => McpManager | undefined;
  /** Skills (load_skill and the listing) and memory (the note, the extraction after runs). */
  knowledge?: SkillsAndMemory;
  /** The sessions begun here, for their SessionStart and SessionEnd hooks. */
  lifecycle: SessionLifecycle;
}

export function promptHandler(parts: PromptHandlerParts): Required<Pick<RequestHandlers, 'prompt'>> {
  const { state, stream, redactor, env, runs } = parts;
  return {
    async prompt(params, { signal }) {
      const { config, workspaceRoot, client, sessions, capabilities } = state.configured();
      // A shared store that cannot be reached refuses the prompt: its session would not be saved.
      await sessions.storage.ready?.();
      const {
        toolContext,
        tools: builtIn,
        every: everyBuiltIn,
        warnings: configWarnings,
        hooks,
      } = await state.tools();
      const mcp = parts.mcp?.();
      // Too many schemas for the model's context: search_mcp_tools finds them on demand.
      const mcpTools = mcp?.offeredTools(contextWindowFor(config, params.model ?? state.defaultModel)) ?? [];
      const knowledge = await parts.knowledge?.forPrompt();
      // load_skill is offered only when there is a skill to load; custom agents may name it either way.
      const offerSkills = knowledge?.hasSkills === true;
      const offered = [
        ...builtIn.filter((tool) => offerSkills || tool.name !== LOAD_SKILL_TOOL),
        ...mcpTools,
      ];
      const every = [...everyBuiltIn, ...mcpTools];
      // `/mcp__<server>__<prompt> args` and `@server:uri` mentions (§7.7), done here so every client has them.
      const text =
        mcp === undefined
          ? params.text
          : await mcp
              .expandPrompt(params.text, config.tools.commandOutputLimitBytes, signal)
              .catch((error: unknown) => {
                throw new ProtocolFault(
                  'InvalidParams',
                  `Invalid params for prompt: text: ${errorMessage(error)}`,
                );
              });
      // A server that failed is told once, with the prompt after it failed.
      const warnings = [...configWarnings, ...(mcp?.takeNotices() ?? [])];
      // What the run's tools returned, every agent's, for memory's extraction to check its facts
      // against (kept only when there will be one): the phases as sent, so nothing is read back.
      const toolOutputs: string[] | undefined =
        parts.knowledge?.extractsAfter(params) === true ? [] : undefined;
      const run = runPrompt(
        {
          sessions,
          config,
          defaultModel: state.defaultModel,
          workspaceRoot,
          toolContext,
          loadAgents: () =>
            loadCustomAgents(workspaceRoot, {
              tools: every,
              builtInIds: BUILTIN_AGENTS.map((agent) => agent.id),
            }),
          loadInstructions: (startDir) =>
            loadProjectInstructions({
              workspaceRoot,
              configDir: configDir(env),
              ...(startDir === undefined ? {} : { startDir }),
            }),
          swarm: {
            maxDepth: config.agent.maxDepth,
            maxParallel: config.agent.maxParallelAgents,
            subAgentTimeoutMs: config.agent.subAgentTimeoutSeconds * 1000,
          },
          stream,
          tools: offered,
          ...(hooks === undefined ? {} : { hooks }),
          lifecycle: parts.lifecycle,
          configWarnings: warnings,
          sendPhase: (phase) => {
            if (phase.type === 'tool_result' && phase.output !== undefined) toolOutputs?.push(phase.output);
            client.phase(phase);
          },
          coalesceMs: textBatchMs(config.stream.coalesceMs, capabilities),
          redactor,
          ...(knowledge === undefined
            ? {}
            : {
                skills: (contextWindow: number) => knowledge.skills(contextWindow),
                memory: {
                  note: (messages) => knowledge.memory.note(messages),
                  takeAdded: () => knowledge.memory.takeAdded(),
                },
              }),
          // A spent budget asks to be raised only a client that answers questions (§7.4, §7.6).
          ...(capabilities.ask === true
            ? { ask: async (question, asking) => (await client.ask(question, asking)).answer }
            : {}),
        },
        text === params.text ? params : { ...params, text },
        signal,
      );
      runs.add(run);
      void run.finally(() => runs.delete(run)).catch(() => {});
      // Memory's extraction after the run: in the background, never holding the answer (§7.10).
      if (parts.knowledge !== undefined) {
        const after = run
          .then((result) =>
            parts.knowledge?.afterRun(result, params, { sessions, stream, toolOutputs: toolOutputs ?? [] }),
          )
          .catch(() => {});
        runs.add(after);
        void after.finally(() => runs.delete(after));
      }
      return run;
    },
  };
}

/** A client draws streamed text this often at most, whatever it declares: longer would look stuck. */
const MAX_CLIENT_TEXT_INTERVAL_MS = 100;

/**
 * How long the later deltas of a turn are held to be merged: the configured window, or the
 * client's drawing interval (§7.2, SANTRA-PHASE-008, at most 100 ms) when that is longer — a
 * client that draws every 50 ms gains nothing from being woken every 8.
 */
function textBatchMs(configured: number, capabilities: ClientCapabilities): number {
  // 0 is the user's own choice: every delta at once.
  if (configured === 0) return 0;
  return Math.max(configured, Math.min(capabilities.textIntervalMs ?? 0, MAX_CLIENT_TEXT_INTERVAL_MS));
}
