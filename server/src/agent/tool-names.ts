/**
 * Whether an agent's tool list names a tool. A list holds exact names, and, for MCP tools, the
 * globs Claude Code users write (`mcp__github__*`, `mcp__*`): an MCP server's tools are only known
 * once it has connected, so an agent names them by pattern, or by a name that may appear later.
 */
import picomatch from 'picomatch';

/** The prefix of every MCP tool's name (`mcp__<server>__<tool>`). */
export const MCP_TOOL_PREFIX = 'mcp__';

const matchers = new Map<string, (name: string) => boolean>();

/** Offered in place of the MCP tools' schemas when they are too large (mcp/tool-search.ts). */
export const MCP_SEARCH_TOOL = 'search_mcp_tools';

/** Reads the MCP servers' resources (mcp/resource-tool.ts). */
export const MCP_RESOURCE_TOOL = 'read_mcp_resource';

export function listsTool(toolNames: readonly string[], name: string): boolean {
  // An agent that may call MCP tools may look them up, and read the servers' resources.
  if (name === MCP_SEARCH_TOOL || name === MCP_RESOURCE_TOOL) return toolNames.some(namesMcpTools);
  return toolNames.some((entry) => entry === name || (entry.includes('*') && matcherOf(entry)(name)));
}

/** An entry that names MCP tools, connected or not: never reported as unknown. */
export function namesMcpTools(entry: string): boolean {
  return entry.startsWith(MCP_TOOL_PREFIX);
}

function matcherOf(pattern: string): (name: string) => boolean {
  let matcher = matchers.get(pattern);
  if (matcher === undefined) {
    matcher = picomatch(pattern, { dot: true });
    matchers.set(pattern, matcher);
  }
  return matcher;
}
