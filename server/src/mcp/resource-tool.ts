/**
 * `read_mcp_resource`: the model reads a resource of a connected MCP server by its URI, or, given
 * only the server, gets the list of its resources. Offered while some connected server offers
 * resources. Reading is what resources are for (MCP: application-controlled data, no side
 * effects), and the server is one the user trusted, so it is not asked about; what it returns is
 * bounded like any tool output and may be hostile.
 */
import * as z from 'zod';
import { errorMessage } from '../support/errno.ts';
import { defineTool, type Tool, toolError } from '../tools/types.ts';

export const READ_RESOURCE_TOOL = 'read_mcp_resource';

/** The listing shown at most, in resources: a server may list thousands. */
const MAX_LISTED = 200;

/** What the tool needs of the manager. */
export interface ResourceSource {
  resourceServers(): string[];
  readResource(server: string, uri: string, limit: number, signal: AbortSignal): Promise<string>;
  listResources(
    server: string,
    signal: AbortSignal,
  ): Promise<Array<{ uri: string; name: string; description?: string; mimeType?: string }>>;
}

export function resourceTool(source: ResourceSource): Tool {
  const servers = source.resourceServers();
  return {
    ...defineTool({
      name: READ_RESOURCE_TOOL,
      kind: 'fetch',
      description: `Reads a resource of one of the user's MCP servers by its URI; without a URI, lists the server's resources. Servers with resources: ${servers.join(', ')}.`,
      parameters: z.object({
        server: z.string().min(1).describe('The MCP server, as named in mcp__<server>__… tool names.'),
        uri: z.string().min(1).optional().describe('The resource URI; absent: list the resources.'),
      }),
      async execute({ server, uri }, context) {
        try {
          if (uri !== undefined) {
            const text = await source.readResource(
              server,
              uri,
              context.settings.commandOutputLimit,
              context.signal,
            );
            return { output: text, summary: `${server} · ${uri}` };
          }
          const listed = await source.listResources(server, context.signal);
          const lines = listed
            .slice(0, MAX_LISTED)
            .map(
              (r) =>
                `${r.uri}  ${r.name}${r.mimeType === undefined ? '' : ` (${r.mimeType})`}${r.description === undefined ? '' : ` — ${r.description.slice(0, 200)}`}`,
            );
          if (listed.length > MAX_LISTED) lines.push(`… and ${listed.length - MAX_LISTED} more`);
          return {
            output: lines.length === 0 ? `The MCP server "${server}" lists no resources.` : lines.join('\n'),
            summary: `${server} · ${listed.length} resources`,
          };
        } catch (error) {
          if (context.signal.aborted)
            return toolError('cancelled', 'The run was cancelled while reading the resource.');
          return toolError(
            'mcp_error',
            `Could not read from the MCP server "${server}": ${errorMessage(error)}`,
          );
        }
      },
    }),
    // It only reads from servers the user trusted: plan mode lets it run.
    readOnlyHint: true,
  };
}
