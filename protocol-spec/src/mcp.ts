import * as z from 'zod';
import { named } from './registry.ts';

/** How a server is reached (§7.7). */
export const McpTransport = named(
  'McpTransport',
  'How the server is reached: `stdio` (a local program), `http` (Streamable HTTP, falling back to the legacy SSE transport), `sse` (the legacy transport). Since 0.3.0.',
  z.enum(['stdio', 'http', 'sse']),
);

/** Where a server's state stands (§7.7). */
export const McpServerState = named(
  'McpServerState',
  "`connecting` (starting; its tools appear when it is ready), `connected`, `failed` (see `error`), `disabled` (the config says so), `needs_trust` (a project's server waiting for a person to trust its definition), `untrusted` (a person refused it, or no client could ask one), `needs_auth` (a remote server that wants an OAuth sign-in). Since 0.3.0; a later minor version may add states.",
  z.enum(['connecting', 'connected', 'failed', 'disabled', 'needs_trust', 'untrusted', 'needs_auth']),
);

export const McpToolInfo = named(
  'McpToolInfo',
  'A tool of an MCP server, as offered to the models.',
  z.object({
    name: z.string().describe('The name the model calls: `mcp__<server>__<tool>`.'),
    description: z.string().optional(),
    readOnly: z
      .boolean()
      .optional()
      .describe("The server annotates it `readOnlyHint` (a hint: trusted only from the user's own servers)."),
    policy: z.enum(['allow', 'ask', 'deny']).describe('What the config says of calling it.'),
  }),
);

export const McpServerInfo = named(
  'McpServerInfo',
  'One MCP server the server knows of, with its state (§7.7).',
  z.object({
    name: z.string(),
    scope: z
      .enum(['user', 'project'])
      .describe(
        "`user`: from the user's config (starts unasked); `project`: from the project's `.mcp.json` (needs trust).",
      ),
    source: z.string().describe('The file that defines it.'),
    transport: McpTransport,
    state: McpServerState,
    error: z.string().optional().describe('Why it failed or is not running, with what to do about it.'),
    authUrl: z
      .string()
      .optional()
      .describe(
        'With `needs_auth`: the OAuth authorization URL a person opens in a browser to sign in (the server listens for its redirect on 127.0.0.1). Since 0.3.0.',
      ),
    tools: z.array(McpToolInfo),
    prompts: z
      .array(z.string())
      .describe('Its prompts, as the slash commands that run them (`/mcp__<server>__<prompt>`).'),
    resources: z.number().int().nonnegative().describe('How many resources it lists.'),
  }),
);
export type McpServerInfo = z.infer<typeof McpServerInfo>;

export const McpListParams = named('McpListParams', 'Params of `mcp/list`: none.', z.object({}));

export const McpListResult = named(
  'McpListResult',
  'Result of `mcp/list` (§7.7): every configured server with its state, and what was wrong with the files that define them.',
  z.object({
    servers: z.array(McpServerInfo),
    problems: z
      .array(z.string())
      .describe('Problems with the definitions themselves (a `.mcp.json` that is not valid JSON…).'),
    toolSearch: z
      .boolean()
      .describe(
        "True when the tools' schemas are too large to offer up front: the models get `search_mcp_tools` and find them on demand.",
      ),
  }),
);
export type McpListResult = z.infer<typeof McpListResult>;

export const McpLogoutParams = named(
  'McpLogoutParams',
  'Params of `mcp/logout` (§7.7): the remote server whose sign-in to forget. Since 0.3.0.',
  z.object({ server: z.string().min(1).describe('Its name, as `mcp/list` shows it.') }),
);

export const McpLogoutResult = named(
  'McpLogoutResult',
  'Result of `mcp/logout`: the sign-in kept for the server (its tokens and the client registered for it) is gone, here and on disk, and its connection closed; the server is `needs_auth` until a person signs in again. Since 0.3.0.',
  z.object({
    server: McpServerInfo,
    signedOut: z.boolean().describe('false: it held no tokens (it was not signed in).'),
    revocation: z
      .object({
        revoked: z
          .boolean()
          .describe(
            'true: the authorization server revoked the tokens (RFC 7009): they stop working for anyone holding them. false: they were only forgotten here; they stay valid at the server until they expire.',
          ),
        why: z
          .string()
          .optional()
          .describe('Why they were not revoked (the server offers no revocation, refused, did not answer).'),
      })
      .optional()
      .describe('When it was signed in: what its authorization server did with the tokens. Since 0.3.0.'),
  }),
);
export type McpLogoutResult = z.infer<typeof McpLogoutResult>;
