import type { RunStatus } from '#protocol';

/**
 * What an agent reports while it runs. One file (phase-stream.ts) maps these to `phase`
 * notifications; nothing else in the runtime knows the wire format.
 */
export type AgentEvent =
  /** A model turn begins: its first text delta is sent at once, not coalesced. */
  | { type: 'turn_start' }
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'status'; text: string; level?: 'info' | 'warning' }
  /** A sub-agent starts: the title a client shows for its branch of the tree. */
  | { type: 'section'; title: string }
  | {
      type: 'tool_call';
      toolCallId: string;
      toolName: string;
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
      code?: string;
      provider?: string;
      httpStatus?: number;
      retryable: boolean;
    }
  | { type: 'complete'; status: RunStatus; output: string };
