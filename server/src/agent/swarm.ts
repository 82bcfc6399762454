/**
 * The swarm: an agent tree rooted at one agent (the orchestrator for agent tasks). Agents spawn
 * agents through the agent-control tools, in parallel with bounded concurrency, down to a depth
 * limit. Every agent gets only the tools on its whitelist; every phase carries its agent id, its
 * parent and its role, and a `section` phase opens each sub-agent, so a client can draw the tree.
 * A failing or timed-out sub-agent becomes an error result for its parent, never the end of the
 * run; cancelling the run reaches every agent, since they share its signal. Every agent spends from
 * the run's ledger (budget-ledger.ts), and every request of an agent names its line for the
 * provider's prompt cache (the session and the agent's role). Agents may start agents in the
 * background (background.ts) where their tools include agent_collect; whatever still runs when
 * the root ends is cancelled, and the run's interactive shells are ended, before the run answers.
 */
import type { AnswerStop, RunStatus, Usage } from '#protocol';
import { promptCacheKey } from '../providers/cache-plan.ts';
import type { CacheHints, StreamFn } from '../providers/stream.ts';
import { addUsage, cacheHitRatio, EMPTY_USAGE } from '../providers/stream.ts';
import type { ModelSpec, ProviderEndpoint } from '../providers/types.ts';
import type { SessionApprovals } from '../approval/gate.ts';
import type { AgentHooks } from '../hooks/agent-hooks.ts';
import type {
  BackgroundControl,
  SpawnRequest,
  SpawnResult,
  Tool,
  ToolCallRecorder,
  ToolContextSource,
} from '../tools/types.ts';
import { endRunShells } from '../tools/shell-tools.ts';
import { type AgentInbox, BackgroundAgents } from './background.ts';
import type { SpendLedger } from './budget-ledger.ts';
import type { FallbackChain } from './fallback.ts';
import { PrefixWarmUp } from './cache-warmup.ts';
import type { AgentDefinition } from './custom-agents.ts';
import type { AgentEvent } from './events.ts';
import type { AgentLimits } from './agent-run.ts';
import { runAgent } from './loop.ts';
import type { ChatMessage } from '../providers/messages.ts';
import { RunToolCalls } from './tool-call-ids.ts';
import type { AgentIdentity } from './phase-stream.ts';
import { listsTool } from './tool-names.ts';

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
  /** The run's model fallback chain, shared by its agents (fallback.ts); absent: the model only. */
  fallback?: FallbackChain;
  /**
   * Events sent into the session while it runs (sessions/events.ts), framed as untrusted data:
   * the root agent reads them before its next model call. Absent: none.
   */
  events?: () => string[];
  /** The user's hooks for each agent, sub-agents included (hooks/agent-hooks.ts); absent: none. */
  hooks?: (agent: {
    agentId: string;
    subAgent: boolean;
    signal: AbortSignal;
    warn(text: string): void;
  }) => AgentHooks;
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
  const background = new BackgroundAgents({
    emit: (agent, event) => swarm.emit(agent, event),
    maxRunning: swarm.settings.maxParallel,
  });

  async function runNode(
    definition: AgentDefinition,
    identity: AgentIdentity,
    history: ChatMessage[],
    depth: number,
    signal: AbortSignal,
    /** A sub-agent's: the history it shares with its siblings, and its stream (cache-warmup.ts). */
    inherited: { shared: number; stream: StreamFn } | undefined = undefined,
    /** A resumed background agent's later runs: see AgentRun.callScope. */
    callScope: string | undefined = undefined,
  ) {
    const tools = swarm.tools.filter((tool) => listsTool(definition.toolNames, tool.name));
    const control: { output?: string; messages?: ChatMessage[] } = {};
    const ledger = swarm.ledger;
    const emit = (event: AgentEvent) => {
      background.observe(identity.agentId, event);
      swarm.emit(
        identity,
        event.type === 'complete' && ledger !== undefined ? withSpend(event, ledger, identity) : event,
      );
    };
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
      inbox: withEvents(background.inbox(identity.agentId), depth === 0 ? swarm.events : undefined),
      ...(swarm.hooks === undefined
        ? {}
        : {
            hooks: swarm.hooks({
              agentId: identity.agentId,
              subAgent: depth > 0,
              signal,
              warn: (text) => emit({ type: 'status', level: 'warning', text }),
            }),
          }),
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
      ...(callScope === undefined ? {} : { callScope }),
      ...(swarm.fallback === undefined ? {} : { fallback: swarm.fallback }),
      agents: {
        spawn: (requests) => spawnAll(identity, history, depth, requests, signal),
        ...(listsTool(definition.toolNames, 'agent_collect')
          ? { background: backgroundControl(identity, history, depth, signal) }
          : {}),
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

  /** The agent a spawn request names, with its new identity; or why it may not run. */
  function admit(
    parent: AgentIdentity,
    depth: number,
    request: SpawnRequest,
    signal: AbortSignal,
  ): { definition: AgentDefinition; identity: AgentIdentity & { parentAgentId: string } } | SpawnResult {
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
    const identity = {
      agentId: `${definition.id}-${++instances}`,
      parentAgentId: parent.agentId,
      agentRole: definition.id,
    };
    swarm.emit(identity, { type: 'section', title: `${definition.name}: ${oneLine(request.task)}` });
    return { definition, identity };
  }

  async function spawnOne(
    parent: AgentIdentity,
    parentHistory: ChatMessage[],
    depth: number,
    request: SpawnRequest,
    signal: AbortSignal,
    warmUp: PrefixWarmUp,
  ): Promise<SpawnResult> {
    const admitted = admit(parent, depth, request, signal);
    if (!('definition' in admitted)) return admitted;
    const { definition, identity } = admitted;
    const shared = forSubAgent(parentHistory);
    return runSpawned(definition, identity, [...shared, ...taskTurn(request)], depth, signal, {
      shared: shared.length,
      stream: warmUp.streamFor(definition.id, swarm.stream),
    });
  }

  /** Runs an admitted sub-agent on `history` under the sub-agent timeout; failures become its result. */
  async function runSpawned(
    definition: AgentDefinition,
    identity: AgentIdentity,
    history: ChatMessage[],
    depth: number,
    signal: AbortSignal,
    inherited: { shared: number; stream: StreamFn } | undefined,
    callScope?: string,
  ): Promise<SpawnResult> {
    // Linked, not listened for: AbortSignal.any is aborted at once when the run already is.
    const timeout = new AbortController();
    const agentSignal = AbortSignal.any([signal, timeout.signal]);
    const timer = setTimeout(() => timeout.abort(new Error('timed out')), swarm.settings.subAgentTimeoutMs);
    try {
      const outcome = await runNode(
        definition,
        identity,
        history,
        depth + 1,
        agentSignal,
        inherited,
        callScope,
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

  /** Background agents as `parent` starts and sees them (background.ts). */
  function backgroundControl(
    parent: AgentIdentity,
    parentHistory: ChatMessage[],
    depth: number,
    signal: AbortSignal,
  ): BackgroundControl {
    const parentId = parent.agentId;
    return {
      start: (request) => {
        const refusal = background.refusal();
        if (refusal !== undefined)
          return Promise.resolve({
            output: refusal,
            summary: 'not started',
            isError: true,
            errorType: 'too_many_agents',
          });
        const admitted = admit(parent, depth, request, signal);
        if (!('definition' in admitted))
          return Promise.resolve({
            output: admitted.output,
            summary: 'not started',
            isError: true,
            errorType: `agent_${admitted.status}`,
          });
        const { definition, identity } = admitted;
        const history = [...forSubAgent(parentHistory), ...taskTurn(request)];
        return Promise.resolve(
          background.start(identity, definition.name, request, history, (agentHistory, own, round) =>
            runSpawned(
              definition,
              identity,
              agentHistory,
              depth,
              AbortSignal.any([signal, own]),
              undefined,
              round === 0 ? undefined : `${identity.agentId}~${round}`,
            ),
          ),
        );
      },
      status: (id) => background.status(parentId, id),
      steer: (id, text) => background.steer(parentId, id, text),
      collect: (id, waitMs, callSignal) => background.collect(parentId, id, waitMs, callSignal),
      resume: (id, task) => background.resume(parentId, id, task),
      cancel: (id) => background.cancel(parentId, id),
    };
  }

  let outcome: Awaited<ReturnType<typeof runNode>>;
  try {
    outcome = await runNode(root, { agentId: root.id }, messages, 0, swarm.signal);
  } finally {
    // Nothing the run started outlives it: agents still running, then the interactive shells.
    await background.stopAll('the run ended');
    await endRunShells(swarm.runId);
  }
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

/** A sub-agent's task (and its context) as the user turn that starts it. */
function taskTurn(request: SpawnRequest): ChatMessage[] {
  const task =
    request.context === undefined || request.context === ''
      ? request.task
      : `${request.task}\n\nContext:\n${request.context}`;
  return userTurn(`Your task:\n${task}`);
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

/** The root agent's inbox also takes the session's events (sessions/events.ts). */
function withEvents(inbox: AgentInbox, events: (() => string[]) | undefined): AgentInbox {
  if (events === undefined) return inbox;
  return { take: () => [...inbox.take(), ...events()], holdFinish: () => inbox.holdFinish() };
}
