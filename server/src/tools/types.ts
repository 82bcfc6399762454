/**
 * The tool contract. Each tool lives in its own file and exports a factory returning a Tool: its
 * name, kind, description and zod parameters are what the model sees (the parameters as JSON
 * Schema); `execute` returns what the model reads and a short summary the user sees.
 */
import type * as z from 'zod';

/** Drives the approval policy and what may run in parallel. */
export type ToolKind = 'read' | 'edit' | 'execute' | 'search' | 'fetch' | 'agent' | 'interact';

export interface ToolContext {
  workspaceRoot: string;
  runId: string;
  agentId: string;
  /** Aborted when the run is cancelled. */
  signal: AbortSignal;
  /** Shows reasoning as a `thinking` phase (used by `think`). */
  showThinking(text: string): void;
}

export interface ToolResult {
  /** What the model reads. */
  output: string;
  /** One short line for the user, e.g. "120 lines" or "exit 1". */
  summary: string;
  isError?: boolean;
  /** A machine-readable error kind the model can act on, e.g. "not_found", "modified_since_read". */
  errorType?: string;
  /** Ends the agent's run with this output (task_completed). */
  final?: string;
}

export interface Tool<S extends z.ZodObject = z.ZodObject> {
  name: string;
  kind: ToolKind;
  description: string;
  parameters: S;
  /** Contract: resolves with a result, errors included (`isError`); a rejection is reported to the model as an internal tool error. */
  execute(args: z.output<S>, context: ToolContext): Promise<ToolResult>;
}

/** Erases the parameter type so tools of different shapes share one list. */
export function defineTool<S extends z.ZodObject>(tool: Tool<S>): Tool {
  return tool;
}
