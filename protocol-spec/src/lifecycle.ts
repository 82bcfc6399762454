import * as z from 'zod';
import { SandboxProfile } from './approval.ts';
import { AbsolutePath, noParams, RequestId } from './common.ts';
import { named } from './registry.ts';
import { isProtocolVersion, MIN_MESSAGE_BYTES } from './version.ts';

const ProtocolVersion = z
  .string()
  .refine(isProtocolVersion, 'expected a protocol version MAJOR.MINOR.PATCH, e.g. "0.1.0"');

/** Who is on the other end. Shown in logs and recorded in sessions. */
export const PeerInfo = named(
  'PeerInfo',
  'Name and version of a client or server.',
  z.object({
    name: z.string().min(1).describe('Program name, e.g. "santra-tui" or "santra.nvim".'),
    version: z.string().optional().describe('Program version.'),
  }),
);

/** What the client can do. Every field is optional and false when absent. */
export const ClientCapabilities = named(
  'ClientCapabilities',
  'What the client can do. Absent fields mean "no". Servers MUST ignore unknown fields.',
  z.object({
    approve: z
      .boolean()
      .optional()
      .describe('The client answers `approve` requests (file changes and commands).'),
    ask: z.boolean().optional().describe('The client answers `ask` requests (questions to the user).'),
    diffs: z
      .boolean()
      .optional()
      .describe('The client renders structured diff hunks; otherwise it shows `unifiedDiff` text.'),
    fs: z
      .object({
        readTextFile: z
          .boolean()
          .optional()
          .describe(
            'The client answers `fs/readTextFile` with its buffers, unsaved changes included (§7.5, since 0.2.0).',
          ),
        writeTextFile: z
          .boolean()
          .optional()
          .describe(
            'The client answers `fs/writeTextFile`: it puts an approved change of an existing file into its buffer and saves it (§7.5, since 0.2.0).',
          ),
      })
      .optional()
      .describe('The editor lends the server its view of files (since 0.2.0).'),
    textIntervalMs: z
      .int()
      .min(0)
      .max(60_000)
      .optional()
      .describe(
        'The client draws streamed text at most this often, in milliseconds: the server MAY merge the later `text` and `thinking` deltas of a turn over up to this long (at most 100 ms), so the client is not woken for deltas it would draw together anyway (§7.2, since 0.2.0).',
      ),
    terminal: z
      .boolean()
      .optional()
      .describe(
        'The client answers `terminal/run`: it runs approved commands in a terminal the user can watch (§7.5, since 0.2.0).',
      ),
  }),
);
export type ClientCapabilities = z.infer<typeof ClientCapabilities>;

/** §initialize: the first request of every connection. */
export const InitializeParams = named(
  'InitializeParams',
  'Params of `initialize`.',
  z.object({
    protocolVersion: ProtocolVersion.describe('The protocol version the client speaks.'),
    clientInfo: PeerInfo,
    workspaceRoot: AbsolutePath.describe(
      'Absolute path of the project directory. Tools are confined to it; sessions are stored per root.',
    ),
    capabilities: ClientCapabilities,
    model: z
      .string()
      .min(1)
      .optional()
      .describe('Default model for this connection (`provider/model`); otherwise the configured default.'),
  }),
);
export type InitializeParams = z.infer<typeof InitializeParams>;

export const ModelInfo = named(
  'ModelInfo',
  'A model a provider offers.',
  z.object({
    id: z.string().describe('Model id as the provider names it.'),
    contextWindow: z.number().int().positive().optional().describe('Context window in tokens.'),
  }),
);

export const ProviderInfo = named(
  'ProviderInfo',
  'A model provider the server knows.',
  z.object({
    id: z.string().describe('Provider id, e.g. "anthropic", "openai", "groq".'),
    name: z.string().describe('Display name.'),
    configured: z.boolean().describe('Whether a key or base URL is configured, so prompts can use it.'),
    needsKey: z
      .boolean()
      .optional()
      .describe(
        'Whether the provider needs an API key (a local server such as Ollama does not): a first-run setup asks for one only then. Since 0.3.0.',
      ),
    defaultModel: z
      .string()
      .optional()
      .describe(
        'The model id used when this provider is chosen and no model is named (since 0.2.0); absent when there is none, e.g. an OpenAI-compatible endpoint that serves its own models.',
      ),
    models: z.array(ModelInfo),
  }),
);
export type ProviderInfo = z.infer<typeof ProviderInfo>;

export const ServerLimits = named(
  'ServerLimits',
  'Limits the server enforces on the connection.',
  z.object({
    maxMessageBytes: z
      .number()
      .int()
      .min(MIN_MESSAGE_BYTES)
      .describe(
        `Largest frame body accepted, in bytes; at least ${MIN_MESSAGE_BYTES} (§1.4). Larger frames get MessageTooLarge.`,
      ),
    maxConcurrentRequests: z
      .number()
      .int()
      .positive()
      .describe('Most client requests in flight at once. More get ServerBusy.'),
  }),
);

export const SandboxInfo = named(
  'SandboxInfo',
  "Whether the server's OS sandbox works on this machine (§7.3.1), and if not, why and what fixes it. Since 0.3.0.",
  z.object({
    available: z.boolean().describe('Commands run inside the OS sandbox.'),
    mechanism: z
      .enum(['bubblewrap', 'seatbelt'])
      .optional()
      .describe('What sandboxes them: bubblewrap (Linux) or Seatbelt (macOS). With `available`.'),
    profile: SandboxProfile.describe(
      'The profile commands run under: the configured one, or `danger-full-access` when there is no sandbox.',
    ),
    autoRun: z
      .boolean()
      .describe(
        'Commands the read-only allowlist does not cover run without asking, inside the sandbox (the user chose it; protected locations are still asked).',
      ),
    allowedDomains: z
      .array(z.string())
      .describe('Hosts sandboxed commands may reach through the filtering proxy; empty: no network.'),
    problem: z.string().optional().describe('Without `available`: why commands cannot be sandboxed here.'),
    fix: z.string().optional().describe('Without `available`: what to do about it.'),
    notes: z
      .array(z.string())
      .optional()
      .describe('Things that work less than configured, e.g. allowed domains without the relay program.'),
  }),
);
export type SandboxInfo = z.infer<typeof SandboxInfo>;

export const ServerCapabilities = named(
  'ServerCapabilities',
  'What the server implements.',
  z.object({
    methods: z.array(z.string()).describe('Every method this server handles or sends.'),
    phaseTypes: z
      .array(z.string())
      .describe(
        'Every `phase` type this server may send: the types of `PhaseType`, and from later minor versions types a client may not know, which it ignores (a client never refuses the list).',
      ),
    providers: z.array(ProviderInfo).describe('Model providers and their models.'),
    limits: ServerLimits,
    sandbox: SandboxInfo.optional().describe(
      'The OS sandbox around commands (§7.3.1); absent from a server that has none (before 0.3.0). Since 0.3.0.',
    ),
  }),
);
export type ServerCapabilities = z.infer<typeof ServerCapabilities>;

export const InitializeResult = named(
  'InitializeResult',
  'Result of `initialize`.',
  z.object({
    protocolVersion: ProtocolVersion.describe(
      'The protocol version the server will speak on this connection.',
    ),
    serverInfo: PeerInfo,
    capabilities: ServerCapabilities,
  }),
);
export type InitializeResult = z.infer<typeof InitializeResult>;

export const InitializedParams = named(
  'InitializedParams',
  'Params of `initialized` (none; an empty object or absent).',
  noParams(),
);

export const ShutdownParams = named('ShutdownParams', 'Params of `shutdown` (none).', noParams());
export const ShutdownResult = named('ShutdownResult', 'Result of `shutdown`: null.', z.null());
export const ExitParams = named('ExitParams', 'Params of `exit` (none).', noParams());

/** §$/cancelRequest, as in LSP. */
export const CancelParams = named(
  'CancelParams',
  'Params of `$/cancelRequest`: the id of the request to cancel.',
  z.object({ id: RequestId }),
);
export type CancelParams = z.infer<typeof CancelParams>;
