/**
 * The context bill of MCP tools. A server with a hundred tools sends a hundred JSON Schemas with
 * every model request; users of other agents report 30 % of the context gone before the first
 * word. When the MCP tools' schemas would take more than `mcp.toolSearchShare` of the model's
 * context window, the models get one tool, `search_mcp_tools`, whose description names every MCP
 * tool (a few tokens each), and which returns the schemas of the tools matching a query. A tool
 * it returned is "loaded": its schema is offered with every later request (this run's next turns
 * and later prompts), so the model calls it as any other tool. A tool not loaded may be called
 * too (its schema was shown in a search result): nothing the model could do is refused for it.
 *
 * Offering a loaded tool changes the tools of the request, so the provider's prompt cache is
 * written again from there: a search is worth it when it saves more than it costs, which is what
 * the share is for (scripts/bench-mcp.ts measures it).
 */
import * as z from 'zod';
import { defineTool, type Tool } from '../tools/types.ts';

/** Also in agent/tool-names.ts (which may not import this layer), where agents' tool lists name it. */
export const MCP_SEARCH_TOOL = 'search_mcp_tools';

/** JSON is dense: about 4 characters a token, a little pessimistic for prose, right for schemas. */
const CHARS_PER_TOKEN = 4;
const DEFAULT_RESULTS = 5;
const MAX_RESULTS = 20;
/** The most tool names the search tool's description lists; past it, servers with their counts. */
const MAX_NAMES_LISTED = 300;

/** What the model is sent of a tool, as the providers send it: name, description, schema. */
function definitionText(tool: Tool): string {
  return JSON.stringify({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema ?? z.toJSONSchema(tool.parameters, { io: 'input' }),
  });
}

/** The tokens the tools' definitions take in a request, estimated from their JSON. */
export function schemaTokens(tools: readonly Tool[]): number {
  const chars = tools.reduce((sum, tool) => sum + definitionText(tool).length, 0);
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** Whether `tools` would take more than `share` of `contextWindow` (share 0: always; 1: never). */
export function searchNeeded(tools: readonly Tool[], contextWindow: number, share: number): boolean {
  if (tools.length === 0 || share >= 1) return false;
  return share <= 0 || schemaTokens(tools) > share * contextWindow;
}

/** The tools a search loaded, by name: kept for the life of the server, since its sessions go on. */
export class LoadedTools {
  readonly #names = new Set<string>();

  has(name: string): boolean {
    return this.#names.has(name);
  }

  add(names: readonly string[]): void {
    for (const name of names) this.#names.add(name);
  }
}

/**
 * The MCP tools as offered when a search is needed: each one deferred (its schema not sent) until
 * a search loaded it, and the search tool first.
 */
export function withToolSearch(tools: readonly Tool[], loaded: LoadedTools): Tool[] {
  const deferred = tools.map((tool): Tool => ({ ...tool, deferred: () => !loaded.has(tool.name) }));
  return [searchTool(tools, loaded), ...deferred];
}

/** One tool's score for the query's words: its name counts most, then its server, then its description. */
function score(tool: Tool, words: readonly string[]): number {
  const name = tool.name.toLowerCase();
  const [, server = '', short = ''] = /^mcp__(.+?)__(.+)$/.exec(name) ?? [];
  const description = tool.description.toLowerCase();
  let total = 0;
  for (const word of words) {
    if (short === word || name === word) total += 10;
    else if (short.includes(word)) total += 4;
    if (server === word) total += 2;
    if (description.includes(word)) total += 1;
  }
  return total;
}

function wordsOf(query: string): string[] {
  return [
    ...new Set(
      query
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter((word) => word.length > 1),
    ),
  ];
}

/** The description lists what can be searched for: every tool's name, or the servers when too many. */
function searchDescription(tools: readonly Tool[]): string {
  const head =
    "Finds the user's MCP tools by what they do and loads them. Their schemas are not sent up front (there are too many); call this with words describing what you need (or `select:` and exact names, comma-separated), read the schemas it returns, then call the tools it found by name: from then on they are offered like any other tool.";
  if (tools.length <= MAX_NAMES_LISTED)
    return `${head}\nThe MCP tools: ${tools.map((tool) => tool.name).join(', ')}.`;
  const servers = new Map<string, number>();
  for (const tool of tools) {
    const server = /^mcp__(.+?)__/.exec(tool.name)?.[1] ?? tool.name;
    servers.set(server, (servers.get(server) ?? 0) + 1);
  }
  return `${head}\nThe MCP servers: ${[...servers].map(([server, count]) => `${server} (${count} tools)`).join(', ')}.`;
}

function searchTool(tools: readonly Tool[], loaded: LoadedTools): Tool {
  return defineTool({
    name: MCP_SEARCH_TOOL,
    kind: 'search',
    description: searchDescription(tools),
    parameters: z.object({
      query: z
        .string()
        .min(1)
        .describe(
          'Words for what the tool should do ("create issue github"), or "select:" and exact tool names, comma-separated.',
        ),
      limit: z
        .number()
        .int()
        .min(1)
        .max(MAX_RESULTS)
        .optional()
        .describe(`The most tools returned (default ${DEFAULT_RESULTS}).`),
    }),
    execute({ query, limit }) {
      const found = find(tools, query, limit ?? DEFAULT_RESULTS);
      if (found.length === 0)
        return Promise.resolve({
          output: `No MCP tool matches "${query}". Try other words, or "select:" with names from this tool's description.`,
          summary: `no match for ${query}`,
        });
      loaded.add(found.map((tool) => tool.name));
      const schemas = found.map((tool) => definitionText(tool)).join('\n');
      return Promise.resolve({
        output: `${found.length} MCP tool(s) loaded; call them by name from now on:\n${schemas}`,
        summary: `loaded ${found.map((tool) => tool.name).join(', ')}`,
      });
    },
  });
}

/** `select:a,b` by exact name; otherwise the best scores, ties in the servers' order. */
export function find(tools: readonly Tool[], query: string, limit: number): Tool[] {
  const select = /^\s*select:(.*)$/i.exec(query);
  if (select !== null) {
    const names = (select[1] ?? '').split(',').map((name) => name.trim());
    return tools.filter((tool) => names.includes(tool.name)).slice(0, MAX_RESULTS);
  }
  const words = wordsOf(query);
  return tools
    .map((tool, index) => ({ tool, index, score: score(tool, words) }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, limit)
    .map((entry) => entry.tool);
}
