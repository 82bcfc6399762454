import type { AnswerStop, RunErrorCode, RunStatus, ToolKind, Usage } from '#protocol';
import type { AssistantBlock, ChatMessage } from '../providers/messages.ts';
import type { ProviderFailure, StopReason } from '../providers/stream.ts';
import type { SpendReport } from './budget-ledger.ts';

/**
 * What an agent reports while it runs. One file (phase-stream.ts) maps these to `phase`
 * notifications; nothing else in the runtime knows the wire format. `message`,
 * `messages_replaced` and `model_output` are for the session's record, not the client.
 */
export type AgentEvent =
  /** A model turn begins: its first text delta is sent at once, not coalesced. */
  | { type: 'turn_start' }
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'status'; text: string; level?: 'info' | 'warning'; key?: string }
  /** A sub-agent starts: the title a client shows for its branch of the tree. */
  | { type: 'section'; title: string }
  | {
      type: 'tool_call';
      toolCallId: string;
      toolName: string;
      kind?: ToolKind;
      args: Record<string, unknown>;
      summary: string;
    }
  | {
      type: 'tool_result';
      toolCallId: string;
      toolName: string;
      status: 'ok' | 'error' | 'rejected' | 'cancelled';
      summary: string;
      output: string;
    }
  | {
      type: 'error';
      message: string;
      code?: RunErrorCode;
      provider?: string;
      httpStatus?: number;
      retryable: boolean;
    }
  /** A model call ended: what it cost, and where the run and the session stand. */
  | { type: 'usage'; spend: SpendReport }
  | {
      type: 'complete';
      status: RunStatus;
      output: string;
      stopReason?: AnswerStop;
      /** What the agent and those it started spent (added by the swarm, which keeps the ledger). */
      spend?: { usage: Usage; costUsd: number; cacheHitRatio?: number };
    }
  /** A message joined the agent's conversation. */
  | { type: 'message'; message: ChatMessage }
  /** The agent's conversation was replaced (set_messages). */
  | { type: 'messages_replaced'; messages: ChatMessage[] }
  /** A model call ended: its answer (or failure), for the recording a replay answers from. */
  | {
      type: 'model_output';
      turn: number;
      /** Messages the model was sent. */
      inputMessages: number;
      content?: AssistantBlock[];
      stopReason?: StopReason;
      /** What the provider said about the stop (a refusal's category and explanation). */
      stopDetail?: string;
      usage?: Usage;
      failure?: ProviderFailure;
      /** On failure: the text shown before it. */
      text?: string;
    };
