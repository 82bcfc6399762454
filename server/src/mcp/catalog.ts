/**
 * What a connected MCP server offers, read page by page (a server may page its lists), and its
 * tools as Santra offers them: named `mcp__<server>__<tool>`, with the user's policy for each, and
 * those whose names no provider accepts left out (and named, for the log).
 */
import type { McpServerInfo } from '#protocol';
import type { Tool } from '../tools/types.ts';
import type { Client } from './connect.ts';
import type { McpPromptSpec } from './prompts.ts';
import { mcpTool, type McpToolHost, mcpToolName, type McpToolSpec, validToolName } from './tools.ts';

/** Pages of tools, prompts or resources read from one server at most: a hostile server could page forever. */
const MAX_PAGES = 50;

/** Every item of a paged list: `page(cursor)` gives one page and the next cursor. */
export async function allPages<T>(
  page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let count = 0; count < MAX_PAGES; count++) {
    const listed = await page(cursor);
    items.push(...listed.items);
    cursor = listed.nextCursor;
    if (cursor === undefined) break;
  }
  return items;
}

export interface ServerCatalog {
  tools: McpToolSpec[];
  /** Its prompts whose names fit a tool name; undefined: it offers none. */
  prompts: McpPromptSpec[] | undefined;
  /** How many resources it lists; undefined: it offers none. */
  resources: number | undefined;
}

/** The tools, prompts and resources `client`'s server offers (`server`: its name in the config). */
export async function readCatalog(
  server: string,
  client: Client,
  signal: AbortSignal,
): Promise<ServerCatalog> {
  const tools = await allPages(async (cursor) => {
    const listed = await client.listTools(cursor === undefined ? {} : { cursor }, { signal });
    return { items: listed.tools, nextCursor: listed.nextCursor };
  });
  const capabilities = client.getServerCapabilities();
  let prompts: McpPromptSpec[] | undefined;
  if (capabilities?.prompts !== undefined) {
    const listed = await client.listPrompts({}, { signal }).catch(() => ({ prompts: [] }));
    prompts = (listed.prompts as McpPromptSpec[]).filter((prompt) =>
      validToolName(mcpToolName(server, prompt.name)),
    );
  }
  let resources: number | undefined;
  if (capabilities?.resources !== undefined) {
    const listed = await client.listResources({}, { signal }).catch(() => ({ resources: [] }));
    resources = listed.resources.length;
  }
  return { tools, prompts, resources };
}

/** The tools to offer of `specs` (those the policy denies are listed, not offered), and what /mcp shows. */
export function offeredTools(
  host: McpToolHost,
  specs: readonly McpToolSpec[],
): { tools: Tool[]; infos: McpServerInfo['tools']; skipped: string[] } {
  const tools: Tool[] = [];
  const infos: McpServerInfo['tools'] = [];
  const skipped: string[] = [];
  for (const spec of specs) {
    const name = mcpToolName(host.server, spec.name);
    if (!validToolName(name)) {
      skipped.push(spec.name);
      continue;
    }
    const decision = host.policy(spec.name);
    infos.push({
      name,
      ...(spec.description === undefined ? {} : { description: spec.description.slice(0, 500) }),
      ...(spec.annotations?.readOnlyHint === undefined ? {} : { readOnly: spec.annotations.readOnlyHint }),
      policy: decision,
    });
    if (decision !== 'deny') tools.push(mcpTool(host, spec));
  }
  return { tools, infos, skipped };
}
