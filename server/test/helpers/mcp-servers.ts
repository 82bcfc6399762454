/**
 * Real MCP servers for the tests, built on the SDK's server side. Run as a program it is a stdio
 * server whose behaviour the first argument picks:
 *
 * - `tools`: `echo` (returns its text), `add` (annotated readOnlyHint), `crash` (the process exits
 *   mid-call), `grow` (adds the tool `grown`, so the tools list changes), `big` (10 MB of text), `image` (a PNG part and structured content), `count` (an
 *   error result); the prompt `greet` and the resource `notes://today`.
 * - `hang`: reads stdin and never answers `initialize` (a server stuck at start).
 * - `many <n>`: n tools with realistic schemas (the context-bill benchmark).
 *
 * Every mode exits when its stdin closes, so a killed client leaves no process behind.
 * Imported, it starts the same `tools` server over Streamable HTTP on 127.0.0.1.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod';

export const MCP_SERVERS_SCRIPT = new URL(import.meta.url).pathname;

/** The `tools` server. `calls` records each call's name and arguments. */
export function toolsServer(calls: Array<{ tool: string; args: unknown }> = []): McpServer {
  const server = new McpServer({ name: 'santra-test-tools', version: '1.0.0' });
  let grown = false;
  server.registerTool(
    'echo',
    { description: 'Returns the text it is given.', inputSchema: { text: z.string() } },
    ({ text }) => {
      calls.push({ tool: 'echo', args: { text } });
      return { content: [{ type: 'text', text: `echo: ${text}` }] };
    },
  );
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers.',
      inputSchema: { a: z.number(), b: z.number() },
      annotations: { readOnlyHint: true },
    },
    ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  server.registerTool('crash', { description: 'Exits the server mid-call.' }, () => {
    process.exit(3);
  });
  // Adds the tool `grown`; the SDK then tells the client its tools changed (list_changed).
  server.registerTool('grow', { description: 'Adds the tool grown.' }, () => {
    if (!grown) {
      grown = true;
      server.registerTool('grown', { description: 'A tool added while connected.' }, () => ({
        content: [{ type: 'text', text: 'grown ran' }],
      }));
    }
    return { content: [{ type: 'text', text: 'grown added' }] };
  });
  server.registerTool('big', { description: 'Returns 10 MB of text.' }, () => ({
    // 10 MB (decimal): the SDK's stdio client refuses a message past 10 MiB (its ReadBuffer limit).
    content: [{ type: 'text', text: `BEGIN${'x'.repeat(10_000_000)}END` }],
  }));
  server.registerTool('image', { description: 'Returns an image and structured content.' }, () => ({
    content: [{ type: 'image', data: Buffer.alloc(3000).toString('base64'), mimeType: 'image/png' }],
    structuredContent: { width: 10, height: 20 },
  }));
  server.registerTool('count', { description: 'Always fails.' }, () => ({
    content: [{ type: 'text', text: 'count failed: the database is locked' }],
    isError: true,
  }));
  server.registerResource(
    'notes',
    'notes://today',
    { description: "Today's notes.", mimeType: 'text/plain' },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Remember the milk.' }] }),
  );
  server.registerPrompt(
    'greet',
    { description: 'Greets someone.', argsSchema: { who: z.string() } },
    ({ who }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${who}.` } }],
    }),
  );
  return server;
}

/** A server with `n` tools whose schemas look like a real API's (issue trackers, databases). */
export function manyToolsServer(n: number): McpServer {
  const server = new McpServer({ name: 'santra-test-many', version: '1.0.0' });
  const verbs = [
    'create',
    'get',
    'list',
    'update',
    'delete',
    'search',
    'close',
    'assign',
    'comment',
    'label',
  ];
  const nouns = [
    'issue',
    'pull_request',
    'repository',
    'branch',
    'commit',
    'release',
    'workflow',
    'team',
    'project',
    'milestone',
  ];
  for (let i = 0; i < n; i++) {
    const verb = verbs[i % verbs.length] ?? 'get';
    const noun = nouns[Math.floor(i / verbs.length) % nouns.length] ?? 'item';
    const name = `${verb}_${noun}${i >= 100 ? `_${i}` : ''}`;
    server.registerTool(
      name,
      {
        description: `${verb[0]?.toUpperCase()}${verb.slice(1)} a ${noun.replace('_', ' ')} in a repository. Use this when the user asks to ${verb} a ${noun.replace('_', ' ')}; it returns the ${noun.replace('_', ' ')} as JSON with its id, title, state, author, labels and timestamps.`,
        inputSchema: {
          owner: z.string().describe('The account owner of the repository (user or organisation).'),
          repo: z.string().describe('The name of the repository, without the owner.'),
          id: z
            .number()
            .int()
            .optional()
            .describe(`The number of the ${noun.replace('_', ' ')}.`),
          title: z.string().optional().describe('A title, for create and update.'),
          body: z.string().optional().describe('The body text in Markdown.'),
          labels: z.array(z.string()).optional().describe('Labels to apply.'),
          state: z.enum(['open', 'closed', 'all']).optional().describe('Filter or new state.'),
          page: z.number().int().min(1).optional().describe('Page number of the results (1-based).'),
          perPage: z.number().int().min(1).max(100).optional().describe('Results per page (max 100).'),
        },
      },
      (args) => ({ content: [{ type: 'text', text: JSON.stringify({ tool: name, args }) }] }),
    );
  }
  return server;
}

/** The `tools` server over Streamable HTTP on 127.0.0.1 (stateless: a server and transport per request). */
export async function startHttpToolsServer(
  calls: Array<{ tool: string; args: unknown }> = [],
): Promise<{ url: string; headers: IncomingHttpHeaders[]; close(): Promise<void> }> {
  const headers: IncomingHttpHeaders[] = [];
  const http: Server = createServer((req, res) => {
    headers.push(req.headers);
    if (req.url !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const server = toolsServer(calls);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    headers,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

async function main(mode: string, arg: string | undefined): Promise<void> {
  process.stdin.on('close', () => process.exit(0));
  process.stdin.on('end', () => process.exit(0));
  switch (mode) {
    case 'tools':
      await toolsServer().connect(new StdioServerTransport());
      return;
    case 'many':
      await manyToolsServer(Number(arg ?? '100')).connect(new StdioServerTransport());
      return;
    case 'hang':
      process.stdin.resume();
      return;
    default:
      process.stderr.write(`unknown mode ${mode}: expected tools, many <n> or hang\n`);
      process.exit(2);
  }
}

if (process.argv[1] === MCP_SERVERS_SCRIPT) await main(process.argv[2] ?? '', process.argv[3]);
