/**
 * What one agent's run is given and what it gives back: the agent loop's contract (loop.ts), which
 * the swarm fills in for each agent it starts (swarm.ts) and the tool calls run against
 * (tool-execution.ts).
 */
import type { AnswerStop, RunStatus, Usage } from '#protocol';
import type { SessionApprovals } from '../approval/gate.ts';
import type { AgentHooks } from '../hooks/agent-hooks.ts';
import type { ChatMessage } from '../providers/messages.ts';
import type { CacheHints, StreamFn } from '../providers/stream.ts';
import type { Effort, ModelSpec, ProviderEndpoint } from '../providers/types.ts';
import type { AgentControl, Tool, ToolCallRecorder, ToolContextSource } from '../tools/types.ts';
import type { AgentInbox } from './background.ts';
import type { BudgetAccount } from './budget-ledger.ts';
import type { AgentEvent } from './events.ts';
import type { FallbackChain } from './fallback.ts';
import type { RunToolCalls } from './tool-call-ids.ts';

export interface AgentLimits {
  maxToolCallsPerResponse: number;
  maxTurns: number;
  maxOutputTokens: number;
  /** Extended thinking budget; 0 for none. */
  thinkingBudget: number;
  /** How hard adaptive-thinking models work; unset: their default. */
  effort?: Effort;
}

export interface AgentRun {
  agentId: string;
  sessionId: string;
  runId: string;
  /** Builds the context a tool call runs in (workspace, approval gate, client questions…). */
  toolContext: ToolContextSource;
  /** What the user allowed for the session (allow-all). */
  approvals: SessionApprovals;
  /** The swarm's control of agents, for the agent tools; absent outside a swarm. */
  agents?: AgentControl;
  /** Where tool calls' approvals and questions are saved. */
  recorder?: ToolCallRecorder;
  endpoint: ProviderEndpoint;
  model: ModelSpec;
  system: string;
  /** The conversation so far, ending with the new user message. The loop appends to it. */
  messages: ChatMessage[];
  tools: readonly Tool[];
  stream: StreamFn;
  limits: AgentLimits;
  signal: AbortSignal;
  emit(event: AgentEvent): void;
  /** The run's tool calls (shared by the agents of a swarm): their ids, and which have run. */
  toolCalls?: RunToolCalls;
  /** Set by set_output and set_messages while the agent runs. */
  control?: { output?: string; messages?: ChatMessage[] };
  /** The agent's account in the run's spend ledger: each model call reserves its worst case first. */
  budget?: BudgetAccount;
  /** For the provider's prompt cache: the agent's line of requests, the history it shares. */
  cache?: CacheHints;
  /** The user's hooks around each tool call and at the agent's end (hooks/agent-hooks.ts). */
  hooks?: AgentHooks;
  /**
   * The run's model fallback chain (fallback.ts): each turn starts on the model it picks, and a
   * failed turn the user saw nothing of is made again on the next model. Absent: the model only.
   */
  fallback?: FallbackChain;
  /**
   * What reaches the agent between turns (background.ts): guidance sent while it works (a user
   * message before its next model call), and why it may not end yet (agents it started still
   * run), which sends it back to work like a Stop hook. Absent: nothing.
   */
  inbox?: AgentInbox;
  /**
   * Names this run's calls where the agent id does not tell them apart, for "a call runs at most
   * once" (tool-call-ids.ts): a resumed background agent's later runs. Default: the agent id.
   */
  callScope?: string;
}

export interface AgentOutcome {
  status: RunStatus;
  output: string;
  /** Why the model stopped its last answer; absent when the agent ended before one. */
  stopReason?: AnswerStop;
  usage: Usage;
  turns: number;
  /** Why the agent ended with an error of the run's own (a spent budget), for its parent to read. */
  failure?: string;
}
