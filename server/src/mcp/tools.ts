/**
 * An MCP server's tool as a Santra tool, named `mcp__<server>__<tool>` as in Claude Code (so
 * permission rules, hook matchers and agents' tool lists carry over). The model sees the
 * server's own JSON Schema; the server validates the arguments. Every call goes through the
 * approval gate's `mcpTool`, which shows the server, the tool and the exact arguments; the
 * result is rendered and bounded like run_command's output (result.ts).
 */
import * as z from 'zod';
import { defineTool, refused, type Tool, toolError } from '../tools/types.ts';
import { errorMessage } from '../support/errno.ts';
import { boundOutput, type McpCallResult, renderResult } from './result.ts';

/** A tool as the server lists it (the SDK's Tool, reduced to what is used). */
export interface McpToolSpec {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; title?: string };
}

/** What a tool needs of its server while it runs. */
export interface McpToolHost {
  server: string;
  /** From the user's own config: only then is `readOnlyHint` believed. */
  trusted: boolean;
  policy(tool: string): 'allow' | 'ask' | 'deny';
  /** Calls the tool; rejects when the server is gone, the call times out or is cancelled. */
  call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult>;
}

/** The longest tool description offered to the model: a server's prose may be hostile or huge. */
const MAX_DESCRIPTION = 2_000;

export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`;
}

/** A tool name the providers accept: letters, digits, `_` and `-`, at most 64 (Anthropic's and OpenAI's rule). */
export function validToolName(name: string): boolean {
  return /^[A-Za-z0-9_-]{1,64}$/.test(name);
}

export function mcpTool(host: McpToolHost, spec: McpToolSpec): Tool {
  const name = mcpToolName(host.server, spec.name);
  const readOnly = spec.annotations?.readOnlyHint === true;
  const description = (spec.description ?? spec.title ?? spec.annotations?.title ?? '').slice(
    0,
    MAX_DESCRIPTION,
  );
  return {
    ...defineTool({
      name,
      // `fetch`: it reaches outside the workspace, may run in parallel only when it only reads.
      kind: readOnly ? 'fetch' : 'execute',
      description: `${description || `The tool ${spec.name}`} (MCP server "${host.server}")`,
      parameters: z.looseObject({}),
      async execute(args, context) {
        const decision = await context.gate.mcpTool({
          server: host.server,
          tool: spec.name,
          arguments: args,
          policy: host.policy(spec.name),
          trustedReadOnly: readOnly && host.trusted,
        });
        if (!decision.allowed) return refused(decision);
        let result: McpCallResult;
        try {
          result = await host.call(spec.name, args, context.signal);
        } catch (error) {
          if (context.signal.aborted)
            return toolError('cancelled', 'The run was cancelled during the MCP call.');
          return toolError(
            'mcp_error',
            `The MCP server "${host.server}" failed to run ${spec.name}: ${errorMessage(error)}`,
          );
        }
        const bounded = boundOutput(renderResult(result), context.settings.commandOutputLimit);
        const summary = `${host.server} · ${spec.name}${result.isError === true ? ' · error' : ''}${bounded.cutBytes > 0 ? ' · cut' : ''}`;
        return result.isError === true
          ? { output: bounded.text, summary, isError: true, errorType: 'tool_error' }
          : { output: bounded.text, summary };
      },
    }),
    inputSchema: objectSchema(spec.inputSchema),
    ...(readOnly && host.trusted ? { readOnlyHint: true } : {}),
  };
}

/** Providers want an object schema at the top; a server that sends none gets an empty one. */
function objectSchema(schema: Record<string, unknown>): Record<string, unknown> {
  return schema.type === 'object' ? schema : { type: 'object', properties: {} };
}
