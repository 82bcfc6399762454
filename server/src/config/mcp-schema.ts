/**
 * The shape of an MCP server's definition, as Claude Code writes it in `.mcp.json` and as Santra
 * takes it under `mcpServers` in its own config: `{command, args, env}` for a local server over
 * stdio, `{type: "http" | "sse", url, headers}` for a remote one. Santra's additions (policy,
 * per-tool policy, timeouts, `disabled`) are optional, so a Claude Code file works unchanged.
 * Values may hold `${VAR}` / `${VAR:-default}` references, expanded when the server starts
 * (mcp/definitions.ts), never before: what is shown and hashed for trust is the text as written.
 */
import * as z from 'zod';

const decision = z.enum(['allow', 'ask', 'deny'], {
  error: 'expected "allow" (no approval), "ask" or "deny"',
});

/** What Santra adds to a definition; all optional. */
const santraFields = {
  /** Every tool of the server: allow (no approval), ask (the default) or deny (not offered). */
  policy: decision.optional(),
  /** Per tool, by its name on the server (not `mcp__…`): overrides `policy`. */
  tools: z.record(z.string().min(1, 'expected a tool name'), decision).optional(),
  /** Not started at all. */
  disabled: z.boolean().optional(),
  /** How long connecting (and listing its tools) may take before the server counts as failed. */
  startupTimeoutSeconds: z.number().gt(0).max(600).optional(),
  /** How long one tool call may take before it is cancelled and reported to the model. */
  toolTimeoutSeconds: z.number().gt(0).max(3_600).optional(),
};

const envRecord = z.record(
  z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name such as "GITHUB_TOKEN"'),
  z.string({ error: 'expected a string (numbers and booleans must be quoted)' }),
);

const StdioServer = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1, 'expected the program that starts the server, e.g. "npx"'),
  args: z.array(z.string({ error: 'expected every argument to be a string' })).optional(),
  env: envRecord.optional(),
  /** Where the program runs; default: the workspace root. */
  cwd: z.string().min(1).optional(),
  ...santraFields,
});

const RemoteServer = z.strictObject({
  type: z.enum(['http', 'sse'], {
    error: 'expected "stdio", "http" (Streamable HTTP, falling back to SSE) or "sse"',
  }),
  url: z
    .string()
    .regex(/^(https?:\/\/|\$\{)/, 'expected an http(s) URL such as "https://mcp.example.com/mcp"'),
  headers: z.record(z.string().min(1), z.string({ error: 'expected a string' })).optional(),
  /** OAuth is used when the server asks for it; these pin the client (else dynamic registration). */
  oauth: z
    .strictObject({
      clientId: z.string().min(1),
      clientSecret: z.string().min(1).optional(),
      scope: z.string().optional(),
      /** The port of the loopback redirect, for a client registered with a fixed redirect URI. */
      callbackPort: z
        .number({ error: 'expected a port number such as 8765' })
        .int()
        .min(1024, 'expected a port from 1024 to 65535')
        .max(65535, 'expected a port from 1024 to 65535'),
    })
    .partial()
    .optional(),
  ...santraFields,
});

/** One server's definition. */
export const McpServerSchema = z.union([StdioServer, RemoteServer], {
  error:
    'expected {"command": …, "args": […]} for a local server or {"type": "http", "url": …} for a remote one',
});
export type McpServerDefinition = z.output<typeof McpServerSchema>;

/** A server's name: what its tools are prefixed with (`mcp__<name>__<tool>`). */
export const mcpServerName = z
  .string()
  .regex(
    /^[A-Za-z0-9_-]{1,64}$/,
    'expected a server name of letters, digits, "_" and "-" (it becomes part of tool names, mcp__<name>__<tool>)',
  );

export const McpServersSchema = z.record(mcpServerName, McpServerSchema);

/** `.mcp.json`, Claude Code's project file. */
export const McpJsonSchema = z.looseObject({ mcpServers: McpServersSchema.optional() });

/** Settings of the MCP client as a whole (`mcp` in the config). */
export const McpSettingsSchema = z
  .strictObject({
    /**
     * When the tools' schemas would take more than this share of the model's context window, one
     * `search_mcp_tools` tool is offered instead of all of them (0 always, 1 never).
     */
    toolSearchShare: z.number().min(0).max(1),
    /** Read the project's `.mcp.json` at all (its servers still need trust). */
    projectServers: z.boolean(),
  })
  .partial();
