/**
 * The approvals that are neither a file change nor a command — trusting what a project supplies
 * (`trust`) and calling an MCP server's tool (`mcp_tool`), protocol §7.7 — in words both front
 * ends (the overlay and `santra -p`) show: a title and the exact payload, so the person sees what
 * will run. Control characters are the callers' to make visible.
 */
import type { ApproveParams } from '#protocol';

export type OtherApproval = Extract<ApproveParams, { kind: 'trust' | 'mcp_tool' }>;

export function isOtherApproval(params: ApproveParams): params is OtherApproval {
  return params.kind === 'trust' || params.kind === 'mcp_tool';
}

/** One line: what Santra wants to do. */
export function otherApprovalTitle(params: OtherApproval): string {
  switch (params.kind) {
    case 'trust':
      return params.subject === 'mcp_server'
        ? `trust and start the MCP server "${params.name}" of ${params.source}${params.changed ? ' (its definition changed)' : ''}`
        : `trust the hooks for ${params.name} of ${params.source}${params.changed ? ' (their definition changed)' : ''}`;
    case 'mcp_tool':
      return `call ${params.tool} on the MCP server ${params.server}`;
    default: {
      const exhaustive: never = params;
      throw new Error(`unknown approval kind ${JSON.stringify(exhaustive)}`);
    }
  }
}

/** The exact payload: the definition as the file has it, or the arguments as they will be sent. */
export function otherApprovalLines(params: OtherApproval): string[] {
  return (params.kind === 'trust' ? params.definition : JSON.stringify(params.arguments, null, 2)).split(
    '\n',
  );
}
