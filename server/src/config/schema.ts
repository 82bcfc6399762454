/**
 * The shape of `config.json`, and the translation of a validation failure into a message a user
 * can act on: the file, the field path, what was expected — and never a value from the file, since
 * the file holds API keys.
 */
import * as z from 'zod';
import { lineOf } from './jsonc.ts';
import { findPreset } from '../providers/presets.ts';
import { EFFORTS } from '../providers/types.ts';
import { closest } from '../support/suggest.ts';
import { ConfigError } from './config-error.ts';
import { HooksSchema } from './hooks-schema.ts';
import { McpServersSchema, McpSettingsSchema } from './mcp-schema.ts';

const httpUrl = z.url({
  protocol: /^https?$/,
  error: 'expected an http(s) URL such as "http://127.0.0.1:11434/v1"',
});

/** A shared session store (sessions.store); the schemes are those sessions/keyv-connection.ts opens. */
const storeUrl = z.url({
  protocol: /^(redis|rediss|postgres|postgresql)$/,
  error:
    'expected the URL of a shared session store such as "redis://127.0.0.1:6379" or "postgres://santra@db.example/santra" (redis, rediss, postgres or postgresql); remove it to keep sessions in files',
});

const CompatSchema = z
  .strictObject({
    nativeTools: z.boolean(),
    reasoning: z.enum(['anthropic_thinking', 'reasoning_content', 'think_tags', 'reasoning_items', 'none']),
    streamUsage: z.boolean(),
    maxTokensField: z.enum(['max_tokens', 'max_completion_tokens']),
    systemRole: z.enum(['system', 'developer']),
    parallelToolCalls: z.boolean(),
    promptCaching: z.boolean(),
    autoCacheControl: z.boolean(),
    promptCacheKey: z.boolean(),
    cacheControlParts: z.boolean(),
    thinkingMode: z.enum(['budget', 'adaptive']),
  })
  .partial();

const ProviderSchema = z.strictObject({
  name: z.string().min(1, 'expected a non-empty name').optional(),
  /** Required for a custom provider; must match the preset's for a built-in one. */
  api: z.enum(['anthropic', 'openai', 'openai-responses']).optional(),
  baseUrl: httpUrl.optional(),
  apiKey: z.string().min(1, 'expected a non-empty key').optional(),
  /** An environment variable to read the key from instead of keeping it in the file. */
  keyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name such as "MYBOX_API_KEY"')
    .optional(),
  models: z.array(z.string().min(1, 'expected a non-empty model id')).optional(),
  compat: CompatSchema.optional(),
});

/** An amount of US dollars a budget may be: more than nothing, less than absurd. */
const budgetUsd = z
  .number({ error: 'expected an amount of US dollars such as 5 or 0.50; remove it for no limit' })
  .gt(0, 'expected an amount of US dollars greater than 0, such as 5 or 0.50; remove it for no limit')
  .max(1_000_000, 'expected an amount of US dollars of at most 1000000; remove it for no limit');

const providerId = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
    'expected a provider id of letters, digits, ".", "_" and "-" (a "/" separates provider and model)',
  );

/** The schema of `config.json`. Defaults are applied by `loadConfig`, not here. */
export const ConfigSchema = z
  .strictObject({
    /** Lets editors find a JSON Schema; ignored. */
    $schema: z.string().optional(),
    model: z.string().min(1, 'expected a model such as "anthropic/claude-sonnet-5-5"').optional(),
    /** Models a run continues on, in order, when its model fails in a way another can answer (agent/fallback.ts). */
    fallbackModels: z
      .array(z.string().min(1, 'expected a model such as "openai/gpt-5.1" (an empty string names none)'))
      .max(8, 'expected at most 8 fallback models; a longer chain only delays a failure')
      .optional(),
    providers: z.record(providerId, ProviderSchema).optional(),
    agent: z
      .strictObject({
        maxToolCallsPerResponse: z.int().min(1).max(256),
        maxTurnsPerRun: z.int().min(1).max(10_000),
        /** Output tokens per model call (capped by the model's own limit). */
        maxOutputTokens: z.int().min(256).max(1_000_000),
        /** Extended thinking budget for models that support it (Anthropic); 0 turns thinking off. */
        thinkingBudgetTokens: z.int().min(0).max(1_000_000),
        /** How hard adaptive-thinking models work (Anthropic `output_config.effort`); unset: the model's default. */
        effort: z.enum(EFFORTS),
        /** How deep agents may spawn agents (the orchestrator is depth 0). */
        maxDepth: z.int().min(1).max(10),
        /** Sub-agents of one spawn_agents call running at once. */
        maxParallelAgents: z.int().min(1).max(32),
        /** A sub-agent running longer is stopped and reported to its parent as failed. */
        subAgentTimeoutSeconds: z
          .int()
          .min(1)
          .max(24 * 3600),
        /** Share of the model's context window at which a prompt compacts the conversation first. */
        compactAt: z.number().gt(0).max(1),
      })
      .partial()
      .optional(),
    /** Spending limits: every model call reserves its worst case first (agent/budget-ledger.ts). */
    budget: z
      .strictObject({
        /** The most one prompt's run may cost; `santra -p --max-budget-usd` overrides it. */
        perRunUsd: budgetUsd,
        /** The most a session may cost in all, its compactions included. */
        perSessionUsd: budgetUsd,
      })
      .partial()
      .optional(),
    stream: z
      .strictObject({ coalesceMs: z.int().min(0).max(1_000) })
      .partial()
      .optional(),
    workspace: z
      .strictObject({
        /** Directories outside the workspace root that tools may read and write. */
        allowedDirs: z.array(z.string().min(1, 'expected a directory path')),
      })
      .partial()
      .optional(),
    sessions: z
      .strictObject({
        /** Where sessions are kept: a Redis or PostgreSQL URL shared by a team. Absent: files. */
        store: storeUrl,
        /**
         * Seals the live channel's messages over a shared store (sessions/live-seal.ts): only servers
         * holding the same token answer approvals or send events. SANTRA_LIVE_TOKEN takes its place.
         */
        liveToken: z
          .string()
          .min(
            16,
            'expected a secret of at least 16 characters, such as the output of `openssl rand -hex 32`',
          ),
      })
      .partial()
      .optional(),
    /** The OS sandbox around commands (docs/configuration.md#the-sandbox). */
    sandbox: z
      .strictObject({
        /** What commands may do; `danger-full-access` runs them unsandboxed. */
        profile: z.enum(['read-only', 'workspace-write', 'danger-full-access']),
        /** Hosts commands may reach through the filtering proxy: "example.com", "*.example.com", "host:443". */
        allowedDomains: z.array(
          z
            .string()
            .regex(
              /^(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/,
              'expected a host such as "registry.npmjs.org", "*.github.com" or "127.0.0.1:8080"',
            ),
        ),
        /** In workspace-write, commands off the read-only allowlist run unasked (still sandboxed). */
        autoRun: z.boolean(),
      })
      .partial()
      .optional(),
    /** The permission mode a new session starts in (approval/permission-mode.ts); default `default`. */
    permissionMode: z
      .enum(['default', 'acceptEdits', 'plan', 'bypassPermissions'], {
        error: 'expected one of "default", "acceptEdits", "plan", "bypassPermissions"',
      })
      .optional(),
    /** Hooks in Claude Code's schema (docs/hooks.md). */
    hooks: HooksSchema.optional(),
    /** The user's MCP servers, in Claude Code's `.mcp.json` shape (docs/mcp.md); they start without asking. */
    mcpServers: McpServersSchema.optional(),
    /** The MCP client's settings (docs/mcp.md). */
    mcp: McpSettingsSchema.optional(),
    /** An erroring PreToolUse hook (crash, timeout, bad output) blocks the call instead of being reported only. */
    hooksFailClosed: z.boolean().optional(),
    /** The memory files (docs/memory.md). */
    memory: z
      .strictObject({
        /** After each run, one small model call proposes facts for the project memory file. */
        autoExtract: z.boolean(),
        /** The model of that call ("provider/model"); default: the run's own model. */
        model: z.string().min(1, 'expected a model such as "anthropic/claude-haiku-4-5"'),
      })
      .partial()
      .optional(),
    /** Events sent into a session (`session/event`, `santra send`; docs/sessions.md). */
    events: z
      .strictObject({
        /** An event to an idle session starts a turn with it; off: it waits for the next prompt. */
        startTurns: z.boolean(),
      })
      .partial()
      .optional(),
    tools: z
      .strictObject({
        /** Per tool: allow (no approval), ask, or deny. */
        policy: z.record(
          z.string().regex(/^[a-z_]+$/, 'expected a tool name such as "run_command"'),
          z.enum(['allow', 'ask', 'deny']),
        ),
        denyCommands: z.array(z.string().min(1)),
        askCommands: z.array(z.string().min(1)),
        /** Read-only commands run without asking; replaces the built-in list. */
        readOnlyCommands: z.array(z.string().min(1)),
        commandTimeoutSeconds: z.int().min(1).max(3_600),
        commandOutputLimitBytes: z.int().min(1_000).max(10_000_000),
        /** Environment variables passed to commands even though their names look secret. */
        allowEnv: z.array(
          z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name'),
        ),
        webFetch: z.strictObject({ allowPrivateNetwork: z.boolean() }).partial(),
        webSearch: z.discriminatedUnion('provider', [
          z.strictObject({ provider: z.literal('searxng'), url: httpUrl }),
          z.strictObject({ provider: z.literal('brave'), apiKey: z.string().min(1) }),
          z.strictObject({ provider: z.literal('tavily'), apiKey: z.string().min(1) }),
        ]),
      })
      .partial()
      .optional(),
  })
  .superRefine((config, ctx) => {
    for (const [id, provider] of Object.entries(config.providers ?? {})) {
      const preset = findPreset(id);
      if (preset !== undefined) {
        // An OpenAI-compatible built-in may be told to use the Responses API for all its models.
        const allowed = preset.api === 'openai' ? ['openai', 'openai-responses'] : [preset.api];
        if (provider.api !== undefined && !allowed.includes(provider.api)) {
          ctx.addIssue({
            code: 'custom',
            path: ['providers', id, 'api'],
            message: `expected ${allowed.map((api) => `"${api}"`).join(' or ')}: ${id} is a built-in provider; remove "api" or choose another provider id`,
          });
        }
        continue;
      }
      if (provider.api === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['providers', id, 'api'],
          message: `is required for the custom provider ${id} (expected "anthropic", "openai" for Chat Completions, or "openai-responses" for the Responses API)`,
        });
      }
      if (provider.baseUrl === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['providers', id, 'baseUrl'],
          message: `is required for the custom provider ${id} (expected an http(s) URL)`,
        });
      }
    }
  });

/** The parsed config file. */
export type SantraConfig = z.output<typeof ConfigSchema>;

/**
 * Validates a parsed JSON value as the config file; a failure is a ConfigError naming every field,
 * with its line when the file's text (`source`) is given.
 */
export function validateConfig(raw: unknown, file: string, source?: string): SantraConfig {
  const parsed = ConfigSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.flatMap((issue) => describeIssue(issue));
  const at = (path: readonly PropertyKey[]) => {
    const line = source === undefined ? undefined : lineOf(source, path);
    return line === undefined ? '' : ` (line ${line})`;
  };
  const lines = problems.map(
    ({ field, message, path }) => `${field === '' ? '(top level)' : field}${at(path)}: ${message}`,
  );
  const text =
    lines.length === 1
      ? `Invalid config file ${file}: ${lines[0] ?? ''}`
      : `Invalid config file ${file}:\n${lines.map((line) => `  - ${line}`).join('\n')}`;
  throw new ConfigError(file, scrubSecrets(text, raw), problems[0]?.field || undefined);
}

/**
 * What of `raw` can be used while it fails validation: the top-level sections without a problem
 * (a typo in `agent` leaves `sessions` and `providers` usable). Listing sessions and models goes on
 * with them; prompts wait for the file to be fixed.
 */
export function salvageConfig(raw: unknown): SantraConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return {};
  let kept: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  for (let round = 0; round < 4; round++) {
    const parsed = ConfigSchema.safeParse(kept);
    if (parsed.success) return parsed.data;
    const broken = new Set(parsed.error.issues.map((issue) => String(issue.path[0] ?? '')));
    // A problem at the top level itself (unknown sections) names them in its keys.
    for (const issue of parsed.error.issues)
      if (issue.code === 'unrecognized_keys' && issue.path.length === 0)
        for (const key of issue.keys) broken.add(key);
    if (broken.has('')) return {};
    kept = Object.fromEntries(Object.entries(kept).filter(([key]) => !broken.has(key)));
  }
  return {};
}

interface Problem {
  field: string;
  message: string;
  path: readonly PropertyKey[];
}

function describeIssue(issue: z.core.$ZodIssue): Problem[] {
  const field = fieldPath(issue.path);
  const path = issue.path;
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      field: fieldPath([...issue.path, key]),
      message: unknownFieldMessage(key, knownKeys(issue.path)),
      path: [...issue.path, key],
    }));
  }
  if (issue.code === 'invalid_key')
    return [{ field, message: issue.issues[0]?.message ?? 'invalid provider id', path }];
  if (issue.code === 'invalid_type' && issue.message.endsWith('received undefined')) {
    return [{ field, message: `is required (expected ${issue.expected})`, path }];
  }
  return [{ field, message: issue.message.replace(/^Invalid (input|option): /, ''), path }];
}

function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) => {
    if (typeof key === 'number') return `${acc}[${key}]`;
    return acc === '' ? String(key) : `${acc}.${String(key)}`;
  }, '');
}

function unknownFieldMessage(key: string, known: readonly string[]): string {
  const guess = closest(key, known);
  if (guess !== undefined) return `unknown field, did you mean "${guess}"?`;
  const expected = known.filter((name) => !name.startsWith('$'));
  return expected.length > 0 ? `unknown field (expected one of: ${expected.join(', ')})` : 'unknown field';
}

/** The field names the schema allows at `path`, found by walking the schema itself. */
function knownKeys(path: readonly PropertyKey[]): string[] {
  let schema: z.core.$ZodType | undefined = ConfigSchema;
  for (const key of path) {
    schema = unwrap(schema);
    if (schema instanceof z.ZodObject) schema = (schema.shape as Record<string, z.ZodType>)[String(key)];
    else if (schema instanceof z.ZodRecord) schema = schema._zod.def.valueType;
    else return [];
  }
  schema = unwrap(schema);
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

function unwrap(schema: z.core.$ZodType | undefined): z.core.$ZodType | undefined {
  let current = schema;
  while (current instanceof z.ZodOptional) current = current.unwrap();
  return current;
}

/**
 * Belt and braces: no message above quotes a value, but should a future one, every string found
 * under an `apiKey` field is masked before the message leaves.
 */
export function scrubSecrets(message: string, raw: unknown): string {
  let text = message;
  for (const secret of secretsIn(raw)) text = text.split(secret).join('…');
  return text;
}

function secretsIn(value: unknown, key?: string): string[] {
  if (typeof value === 'string') return key === 'apiKey' && value.length >= 4 ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((item) => secretsIn(item, key));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([name, item]) => secretsIn(item, name));
  }
  return [];
}
