/**
 * Connecting to one MCP server with the official SDK's client: a local program over stdio, or a
 * remote server over Streamable HTTP, falling back to the legacy SSE transport when the server
 * does not speak it (the SDK's documented pattern: a 4xx to the first POST means an older server).
 *
 * A stdio server gets the SDK's default environment (PATH, HOME, USER…) plus the variables its
 * definition names — not Santra's whole environment, which holds the user's provider keys. What
 * it writes to stderr goes to Santra's log, bounded, since a chatty server must not fill it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { McpServerDefinition } from '../config/mcp-schema.ts';
import { errorMessage } from '../support/errno.ts';
import type { Logger } from '../support/log.ts';
import { SANTRA_VERSION } from '../support/version.ts';

export type { Client };

/** stderr kept per server for the log: a server that writes more is cut. */
const STDERR_LOG_BYTES = 64 * 1024;

export interface ConnectOptions {
  name: string;
  /** Expanded (no `${VAR}` left). */
  definition: McpServerDefinition;
  /** Where a stdio server runs when its definition names no `cwd`: the workspace root. */
  cwd: string;
  signal: AbortSignal;
  timeoutMs: number;
  log: Logger;
  /** For a remote server that asks for OAuth. */
  authProvider?: OAuthClientProvider;
  /** Called when the connection ends without Santra closing it (a crash, a dropped stream). */
  onClose: () => void;
}

/** Connects and initializes; rejects with a message that says what failed and how to fix it. */
export async function connectServer(options: ConnectOptions): Promise<Client> {
  const { definition } = options;
  if ('command' in definition) return connectStdio(options, definition);
  const url = parseUrl(definition.url, options.name);
  const init: RequestInit = definition.headers === undefined ? {} : { headers: definition.headers };
  const auth = options.authProvider === undefined ? {} : { authProvider: options.authProvider };
  if (definition.type === 'sse')
    return initialize(options, new SSEClientTransport(url, { requestInit: init, ...auth }));
  try {
    return await initialize(options, new StreamableHTTPClientTransport(url, { requestInit: init, ...auth }));
  } catch (error) {
    if (options.signal.aborted || !looksLikeOldServer(error)) throw error;
    options.log.debug(`MCP ${options.name}: no Streamable HTTP (${errorMessage(error)}); trying SSE`);
    return initialize(options, new SSEClientTransport(url, { requestInit: init, ...auth }));
  }
}

async function connectStdio(
  options: ConnectOptions,
  definition: Extract<McpServerDefinition, { command: string }>,
): Promise<Client> {
  const transport = new StdioClientTransport({
    command: definition.command,
    args: definition.args ?? [],
    env: { ...getDefaultEnvironment(), ...definition.env },
    cwd: definition.cwd ?? options.cwd,
    stderr: 'pipe',
  });
  let logged = 0;
  transport.stderr?.on('data', (chunk: Buffer) => {
    if (logged >= STDERR_LOG_BYTES) return;
    const text = chunk.subarray(0, STDERR_LOG_BYTES - logged).toString('utf8');
    logged += chunk.length;
    options.log.debug(`MCP ${options.name} stderr: ${text.trimEnd()}`);
    if (logged >= STDERR_LOG_BYTES) options.log.debug(`MCP ${options.name}: more stderr, not logged`);
  });
  try {
    return await initialize(options, transport);
  } catch (error) {
    if (/ENOENT/.test(errorMessage(error)))
      throw new Error(
        `the program "${definition.command}" was not found: install it, or give its full path in the server's "command"`,
        { cause: error },
      );
    throw error;
  }
}

type AnyTransport = StdioClientTransport | StreamableHTTPClientTransport | SSEClientTransport;

async function initialize(options: ConnectOptions, transport: AnyTransport): Promise<Client> {
  const client = new Client({ name: 'santra', version: SANTRA_VERSION }, { capabilities: {} });
  let closedByUs = false;
  client.onclose = () => {
    if (!closedByUs) options.onClose();
  };
  client.onerror = (error) => options.log.debug(`MCP ${options.name}: ${errorMessage(error)}`);
  try {
    await client.connect(transport, { signal: options.signal, timeout: options.timeoutMs });
  } catch (error) {
    closedByUs = true;
    await client.close().catch(() => {});
    if (options.signal.aborted && !/timed out/i.test(errorMessage(error)))
      throw new Error('the connection was cancelled', { cause: error });
    throw new Error(describeFailure(error, options.timeoutMs), { cause: error });
  }
  const close = client.close.bind(client);
  client.close = async () => {
    closedByUs = true;
    await close();
  };
  return client;
}

function describeFailure(error: unknown, timeoutMs: number): string {
  const message = errorMessage(error);
  if (/timed out|timeout/i.test(message))
    return `it did not finish starting within ${Math.round(timeoutMs / 1000)} s (raise startupTimeoutSeconds in its definition if it is just slow)`;
  if (/closed/i.test(message)) return `it exited while starting (${message}); its stderr is in Santra's log`;
  return message;
}

/** The errors by which an old (HTTP+SSE) server refuses a Streamable HTTP POST. */
function looksLikeOldServer(error: unknown): boolean {
  return /\b(400|404|405)\b/.test(errorMessage(error));
}

function parseUrl(url: string, name: string): URL {
  try {
    return new URL(url);
  } catch {
    throw new Error(
      `its url is not a valid URL (server "${name}"); expected e.g. "https://mcp.example.com/mcp"`,
    );
  }
}
