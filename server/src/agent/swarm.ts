/**
 * The swarm: an agent tree rooted at one agent (the orchestrator for agent tasks). Agents spawn
 * agents through the agent-control tools, in parallel with bounded concurrency, down to a depth
 * limit. Every agent gets only the tools on its whitelist; every phase carries its agent id, its
 * parent and its role, and a `section` phase opens each sub-agent, so a client can draw the tree.
 * A failing or timed-out sub-agent becomes an error result for its parent, never the end of the
 * run; cancelling the run reaches every agent, since they share its signal. Every agent spends from
 * the run's ledger (budget-ledger.ts), and every request of an agent names its line for the
 * provider's prompt cache (the session and the agent's role).
 */
import type { AnswerStop, RunStatus, Usage } from '#protocol';
import { promptCacheKey } from '../providers/cache-plan.ts';
import type { CacheHints, StreamFn } from '../providers/stream.ts';
import { addUsage, cacheHitRatio, EMPTY_USAGE } from '../providers/stream.ts';
import type { ModelSpec, ProviderEndpoint } from '../providers/types.ts';
import type { SessionApprovals } from '../approval/gate.ts';
import type { SpawnRequest, SpawnResult, Tool, ToolCallRecorder, ToolContextSource } from '../tools/types.ts';
import type { SpendLedger } from './budget-ledger.ts';
import { PrefixWarmUp } from './cache-warmup.ts';
import type { AgentDefinition } from './custom-agents.ts';
import type { AgentEvent } from './events.ts';
import { type AgentLimits, runAgent } from './loop.ts';
import type { ChatMessage } from '../providers/messages.ts';
import { RunToolCalls } from './tool-call-ids.ts';
import type { AgentIdentity } from './phase-stream.ts';

export interface SwarmSettings {
  /** Agents below the root may spawn agents until this depth (the root is depth 0). */
  maxDepth: number;
  /** Sub-agents of one spawn_agents call running at once. */
  maxParallel: number;
  /** A sub-agent running longer is stopped and reported as failed to its parent. */
  subAgentTimeoutMs: number;
}

export interface SwarmRun {
  sessionId: string;
  runId: string;
  agents: readonly AgentDefinition[];
  tools: readonly Tool[];
  endpoint: ProviderEndpoint;
  model: ModelSpec;
  stream: StreamFn;
  limits: AgentLimits;
  settings: SwarmSettings;
  signal: AbortSignal;
  /** Appends what every agent's system prompt shares (workspace, date). */
  systemPrompt(definition: AgentDefinition): string;
  emit(agent: AgentIdentity, event: AgentEvent): void;
  /** Builds a tool call's context (runtime/tool-context.ts). */
  toolContext: ToolContextSource;
  /** What the user allowed for the session (allow-all). */
  approvals: SessionApprovals;
  /** Where tool calls' approvals and questions are saved. */
  recorder?: ToolCallRecorder;
  /** The run's spend ledger: every agent has an account in it. */
  ledger?: SpendLedger;
}

export interface SwarmOutcome {
  status: RunStatus;
  output: string;
  /** Why the root agent's model stopped its last answer. */
  stopReason?: AnswerStop;
  /** Tokens of every agent of the run. */
  usage: Usage;
}

/** Runs `root` on `messages` (the session history, ending with the user's prompt). */
export async function runSwarm(
  swarm: SwarmRun,
  root: AgentDefinition,
  messages: ChatMessage[],
): Promise<SwarmOutcome> {
  let usage = EMPTY_USAGE;
  let instances = 0;
  const toolCalls = new RunToolCalls();

  async function runNode(
    definition: AgentDefinition,
    identity: AgentIdentity,
    history: ChatMessage[],
    depth: number,
    signal: AbortSignal,
    /** A sub-agent's: the history it shares with its siblings, and its stream (cache-warmup.ts). */
    inherited: { shared: number; stream: StreamFn } | undefined = undefined,
  ) {
    const tools = swarm.tools.filter((tool) => definition.toolNames.includes(tool.name));
    const control: { output?: string; messages?: ChatMessage[] } = {};
    const ledger = swarm.ledger;
    const emit = (event: AgentEvent) =>
      swarm.emit(
        identity,
        event.type === 'complete' && ledger !== undefined ? withSpend(event, ledger, identity) : event,
      );
    const cache: CacheHints = {
      key: promptCacheKey(swarm.sessionId, definition.id),
      ...(inherited === undefined || inherited.shared === 0 ? {} : { sharedPrefix: inherited.shared }),
    };
    const outcome = await runAgent({
      agentId: identity.agentId,
      sessionId: swarm.sessionId,
      runId: swarm.runId,
      endpoint: swarm.endpoint,
      model: swarm.model,
      system: swarm.systemPrompt(definition),
      messages: history,
      tools,
      stream: inherited?.stream ?? swarm.stream,
      limits: swarm.limits,
      signal,
      emit,
      toolCalls,
      control,
      cache,
      ...(ledger === undefined
        ? {}
        : {
            budget: ledger.account(identity.agentId, {
              ...(identity.parentAgentId === undefined ? {} : { parentId: identity.parentAgentId }),
            }),
          }),
      toolContext: swarm.toolContext,
      approvals: swarm.approvals,
      ...(swarm.recorder === undefined ? {} : { recorder: swarm.recorder }),
      agents: {
        spawn: (requests) => spawnAll(identity, history, depth, requests, signal),
        setOutput: (output) => {
          control.output = output;
        },
        setMessages: (replacement) => {
          control.messages = withTrailingUser(
            replacement.map((m) => ({
              role: m.role,
              content: [{ type: 'text' as const, text: m.content }],
            })),
          );
        },
      },
    });
    usage = addUsage(usage, outcome.usage);
    return outcome;
  }

  async function spawnOne(
    parent: AgentIdentity,
    parentHistory: ChatMessage[],
    depth: number,
    request: SpawnRequest,
    signal: AbortSignal,
    warmUp: PrefixWarmUp,
  ): Promise<SpawnResult> {
    const definition = swarm.agents.find((agent) => agent.id === request.agentId);
    const refuse = (output: string): SpawnResult => ({
      agentId: request.agentId,
      role: request.agentId,
      status: 'error',
      output,
    });
    if (definition === undefined) {
      const spawnable = swarm.agents.filter((agent) => agent.canBeSpawned).map((agent) => agent.id);
      return refuse(`There is no agent "${request.agentId}". Agents you can spawn: ${spawnable.join(', ')}.`);
    }
    if (!definition.canBeSpawned) return refuse(`The agent "${definition.id}" cannot be spawned.`);
    // The run was cancelled while this spawn waited its turn (after an earlier call of the same
    // response, or behind other sub-agents): it never starts.
    if (signal.aborted)
      return {
        agentId: request.agentId,
        role: definition.id,
        status: 'cancelled',
        output: 'Not started: the run was cancelled.',
      };
    if (depth + 1 > swarm.settings.maxDepth) {
      return refuse(
        `Not spawned: agents may be nested ${swarm.settings.maxDepth} levels deep at most. Do this part yourself or return what you have.`,
      );
    }
    const identity: AgentIdentity = {
      agentId: `${definition.id}-${++instances}`,
      parentAgentId: parent.agentId,
      agentRole: definition.id,
    };
    swarm.emit(identity, { type: 'section', title: `${definition.name}: ${oneLine(request.task)}` });
    // Linked, not listened for: AbortSignal.any is aborted at once when the run already is.
    const timeout = new AbortController();
    const agentSignal = AbortSignal.any([signal, timeout.signal]);
    const timer = setTimeout(() => timeout.abort(new Error('timed out')), swarm.settings.subAgentTimeoutMs);
    try {
      const task =
        request.context === undefined || request.context === ''
          ? request.task
          : `${request.task}\n\nContext:\n${request.context}`;
      const shared = forSubAgent(parentHistory);
      const outcome = await runNode(
        definition,
        identity,
        [...shared, ...userTurn(`Your task:\n${task}`)],
        depth + 1,
        agentSignal,
        { shared: shared.length, stream: warmUp.streamFor(definition.id, swarm.stream) },
      );
      const timedOut = timeout.signal.aborted && !signal.aborted;
      return {
        agentId: identity.agentId,
        role: definition.id,
        status: timedOut ? 'error' : outcome.status,
        output: timedOut
          ? `The agent ran out of time (${Math.round(swarm.settings.subAgentTimeoutMs / 1000)} s) and was stopped. ${outcome.output}`.trim()
          : (outcome.failure ?? outcome.output),
      };
    } catch (error) {
      return {
        agentId: identity.agentId,
        role: definition.id,
        status: 'error',
        output: `The agent failed: ${error instanceof Error ? error.message : String(error)}`,
      };
    } finally {
      clearTimeout(timer);
    }
  }

  async function spawnAll(
    parent: AgentIdentity,
    parentHistory: ChatMessage[],
    depth: number,
    requests: SpawnRequest[],
    signal: AbortSignal,
  ): Promise<SpawnResult[]> {
    const results: SpawnResult[] = new Array<SpawnResult>(requests.length);
    let next = 0;
    // Only a provider that caches gains from siblings waiting for the first (cache-warmup.ts).
    const { promptCaching, promptCacheKey: keyed } = swarm.model.compat;
    const warmUp = new PrefixWarmUp(promptCaching || keyed ? undefined : 0);
    const worker = async () => {
      for (let index = next++; index < requests.length; index = next++) {
        results[index] = await spawnOne(
          parent,
          parentHistory,
          depth,
          requests[index] as SpawnRequest,
          signal,
          warmUp,
        );
      }
    };
    await Promise.all(Array.from({ length: Math.min(swarm.settings.maxParallel, requests.length) }, worker));
    return results;
  }

  const outcome = await runNode(root, { agentId: root.id }, messages, 0, swarm.signal);
  return {
    status: outcome.status,
    output: outcome.output,
    ...(outcome.stopReason === undefined ? {} : { stopReason: outcome.stopReason }),
    usage,
  };
}

/** A `complete` event with what the agent and those under it spent (the phase carries it). */
function withSpend(
  event: Extract<AgentEvent, { type: 'complete' }>,
  ledger: SpendLedger,
  identity: AgentIdentity,
): AgentEvent {
  const { usage, costUsd } = ledger.subtree(identity.agentId);
  const ratio = cacheHitRatio(usage);
  return { ...event, spend: { usage, costUsd, ...(ratio === undefined ? {} : { cacheHitRatio: ratio }) } };
}

function userTurn(text: string): ChatMessage[] {
  return [{ role: 'user', content: [{ type: 'text', text }] }];
}

/**
 * The parent's conversation as a sub-agent may see it: text only (the parent's tool calls and
 * results belong to tools the sub-agent may not have), each text a block of its own, consecutive
 * turns of one role as one message. It only grows as the parent's conversation does — a block is
 * never rewritten or merged into another, and nothing is made up at its end — so what a sub-agent
 * of one turn sent is a prefix (block for block) of what one of a later turn sends, and a provider's
 * cache reads it back. The task follows as a user message of its own, which the APIs fold into a
 * trailing user turn (openai.ts folds it for servers whose chat templates insist on alternation).
 */
export function forSubAgent(history: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const message of history) {
    const texts = message.content.flatMap((block) =>
      block.type === 'text' && block.text.trim() !== '' ? [{ type: 'text' as const, text: block.text }] : [],
    );
    if (texts.length === 0) continue;
    const last = out.at(-1);
    if (last !== undefined && last.role === message.role) last.content.push(...texts);
    else
      out.push(
        message.role === 'user' ? { role: 'user', content: texts } : { role: 'assistant', content: texts },
      );
  }
  return out;
}

function withTrailingUser(messages: ChatMessage[]): ChatMessage[] {
  return messages.at(-1)?.role === 'user' ? messages : [...messages, ...userTurn('Continue with the task.')];
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
