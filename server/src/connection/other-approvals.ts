/**
 * The approvals that are neither a file change nor a command — trusting what a project supplies
 * (`trust`) and calling an MCP server's tool (`mcp_tool`), protocol §7.7 — as the text an editor
 * adapter (ACP, LSP) shows: a title line and the exact payload, so the person sees what runs.
 */
import type { ApproveParams } from '#protocol';

export type OtherApproval = Extract<ApproveParams, { kind: 'trust' | 'mcp_tool' }>;

/** Lines of a definition or of arguments shown; the rest is counted (the log has it whole). */
const SHOWN_LINES = 40;

export function isOtherApproval(params: ApproveParams): params is OtherApproval {
  return params.kind === 'trust' || params.kind === 'mcp_tool';
}

/** One line: what Santra wants to do. */
export function otherApprovalTitle(params: OtherApproval): string {
  switch (params.kind) {
    case 'trust':
      return params.subject === 'mcp_server'
        ? `Trust and start the MCP server "${params.name}" of ${params.source}${params.changed ? ' (its definition changed)' : ''}?`
        : `Trust the hooks for ${params.name} of ${params.source}${params.changed ? ' (their definition changed)' : ''}?`;
    case 'mcp_tool':
      return `Call the tool ${params.tool} of the MCP server ${params.server}`;
    default: {
      const exhaustive: never = params;
      throw new Error(`unknown approval kind ${JSON.stringify(exhaustive)}`);
    }
  }
}

/** The exact payload: the definition as the file has it, or the arguments as they will be sent. */
export function otherApprovalLines(params: OtherApproval, limit = SHOWN_LINES): string[] {
  const text = params.kind === 'trust' ? params.definition : JSON.stringify(params.arguments, null, 2);
  const lines = text.split('\n');
  if (lines.length <= limit) return lines;
  return [...lines.slice(0, limit), `… ${lines.length - limit} more lines`];
}
