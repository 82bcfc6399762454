/**
 * The MCP servers an ACP editor passes with `session/new` (and `session/load`, `session/resume`):
 * the context servers the person configured in the editor (Zed's, JetBrains'…). They become MCP
 * servers of the session's Santra runtime in Santra's own definition format, as the person's own
 * servers (user scope: trusted, as the editor's settings are the person's), so their tools are
 * offered and approved like those of Santra's config. A name no tool name could carry is made one
 * (`my server` → `my_server`); a name the person's Santra config already uses keeps the config's.
 */
import type * as acp from '@agentclientprotocol/sdk';
import type { McpServerDefinition } from '../../runtime/contract.ts';

/** Santra's definitions of the editor's servers, by name. */
export function editorMcpServers(
  servers: readonly acp.McpServer[] | undefined,
): Record<string, McpServerDefinition> {
  const definitions: Record<string, McpServerDefinition> = {};
  for (const server of servers ?? []) {
    const name = toolSafeName(server.name, definitions);
    if ('type' in server && (server.type === 'http' || server.type === 'sse')) {
      definitions[name] = {
        type: server.type,
        url: server.url,
        ...(server.headers.length === 0
          ? {}
          : { headers: Object.fromEntries(server.headers.map((header) => [header.name, header.value])) }),
      };
    } else if ('command' in server) {
      definitions[name] = {
        command: server.command,
        args: [...server.args],
        ...(server.env.length === 0
          ? {}
          : { env: Object.fromEntries(server.env.map((variable) => [variable.name, variable.value])) }),
      };
    }
  }
  return definitions;
}

/** Letters, digits, `_` and `-` only (what `mcp__<name>__<tool>` may hold), and not taken yet. */
function toolSafeName(name: string, taken: Record<string, unknown>): string {
  const safe = name.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '') || 'editor';
  let unique = safe;
  for (let n = 2; Object.hasOwn(taken, unique); n++) unique = `${safe}_${n}`;
  return unique;
}
