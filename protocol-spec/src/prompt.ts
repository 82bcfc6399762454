import * as z from 'zod';
import { BudgetStatus, CacheHitRatio, Usage } from './common.ts';
import { PromptContext } from './context.ts';
import { named } from './registry.ts';

/** How a prompt is routed. `auto` lets the server's classifier decide. */
export const PromptMode = named(
  'PromptMode',
  'Route of a prompt: `auto` (the server classifies it), `simple_chat`, `direct_answer` (one model call, no tools) or `agent_task` (the agent swarm).',
  z.enum(['auto', 'simple_chat', 'direct_answer', 'agent_task']),
);

/** The permission modes (§7.8), with Claude Code's names. */
export const PermissionMode = named(
  'PermissionMode',
  "What the approval gate lets happen unasked (§7.8), with Claude Code's names: `default` (file changes and commands are asked, read-only ones run), `acceptEdits` (file changes inside the workspace are allowed, commands still asked), `plan` (read-only: no file change, no command beyond the read-only allowlist, no tool that is not read-only; the agent ends by presenting a plan with `exit_plan_mode`), `bypassPermissions` (everything that would be asked is allowed). Protected locations are asked in every mode, and the configuration's `deny` rules hold in every mode. Since 0.3.0.",
  z.enum(['default', 'acceptEdits', 'plan', 'bypassPermissions']),
);
export type PermissionMode = z.infer<typeof PermissionMode>;

/** §prompt: start a run. */
export const PromptParams = named(
  'PromptParams',
  'Params of `prompt`.',
  z.object({
    text: z.string().describe('What the user typed.'),
    sessionId: z
      .string()
      .min(1)
      .optional()
      .describe('Session to continue. Absent: the server starts a new session and reports its id.'),
    agent: z
      .string()
      .min(1)
      .optional()
      .describe('Run the prompt with this agent (see agents/list) instead of routing it, e.g. "reviewer".'),
    mode: PromptMode.optional().describe(
      'Force a route instead of letting the classifier choose. Default `auto`.',
    ),
    model: z
      .string()
      .min(1)
      .optional()
      .describe('Model for this prompt only, as `provider/model` or a model id. Default: the session model.'),
    fallbackModels: z
      .array(z.string().min(1))
      .max(8)
      .optional()
      .describe(
        "Models to continue on, in order, when the prompt's model fails with an error another model can answer (§8.4), as `provider/model` or model ids. Instead of the server's configured list; `[]`: no fallback. Since 0.3.0.",
      ),
    cwd: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The directory the user is working in: an absolute path inside the workspace, or one relative to the workspace root. Relative paths in the prompt are read from it, and the agents are told both it and the workspace root. Default: the workspace root. Outside the workspace: InvalidParams.',
      ),
    context: PromptContext.optional().describe(
      "The editor's context: the files in view, the cursor, selections and diagnostics (§7.1.1). A path outside the workspace: InvalidParams. Since 0.3.0.",
    ),
    maxBudgetUsd: z
      .number()
      .positive()
      .optional()
      .describe(
        "The most this run may cost, in US dollars, its sub-agents included (§7.6): every model call reserves its worst case before it is made, and a call the rest cannot pay is not made. Instead of the server's per-run setting; the session's budget still applies. Since 0.3.0.",
      ),
    permissionMode: PermissionMode.optional().describe(
      "The session's permission mode from this prompt on (§7.8), its sub-agents included. Absent: the session keeps its mode (a new session starts in the configured `permissionMode`, default `default`). Since 0.3.0.",
    ),
  }),
);
export type PromptParams = z.infer<typeof PromptParams>;

/** How a run ended. */
export const RunStatus = named(
  'RunStatus',
  'How a run ended: `completed`; `cancelled` (by `$/cancelRequest` or shutdown); `error` (see the error phase); `interrupted` (the model stream broke after producing output, which is kept).',
  z.enum(['completed', 'cancelled', 'error', 'interrupted']),
);
export type RunStatus = z.infer<typeof RunStatus>;

/** Why the model stopped writing the answer (§7.1). */
export const AnswerStop = named(
  'AnswerStop',
  "Why the model stopped writing its last answer: `end_turn` (it finished); `max_tokens` (cut off at the output limit, or where the conversation filled the model's context window: the answer is incomplete); `refusal` (the model or the provider's safety system declined). For `max_tokens` and `refusal` the answer text ends with a notice saying so.",
  z.enum(['end_turn', 'max_tokens', 'refusal']),
);
export type AnswerStop = z.infer<typeof AnswerStop>;

/** What one model spent of a run (§8.4). */
export const ModelUsage = named(
  'ModelUsage',
  "One model's share of a run: its tokens and their cost at that model's prices (§8.4). Since 0.3.0.",
  z.object({
    model: z.string().describe('The model, as `provider/model`.'),
    usage: Usage,
    costUsd: z.number().nonnegative().describe('Their cost in US dollars, unrounded.'),
  }),
);
export type ModelUsage = z.infer<typeof ModelUsage>;

export const PromptResult = named(
  'PromptResult',
  'Result of `prompt`, sent after every `phase` of the run.',
  z.object({
    runId: z.string(),
    sessionId: z.string(),
    status: RunStatus,
    output: z.string().describe('The final answer text of the root agent.'),
    stopReason: AnswerStop.optional().describe(
      "Why the root agent's model stopped its last answer; absent when the run ended before any answer (error, cancelled). Since 0.3.0.",
    ),
    usage: Usage,
    costUsd: z
      .number()
      .nonnegative()
      .describe('Cost of the run in US dollars, unrounded (sub-cent precision).'),
    sessionUsage: Usage.describe('Tokens of the whole session so far, this run included.'),
    sessionCostUsd: z
      .number()
      .nonnegative()
      .describe('Cost of the whole session so far, in US dollars, unrounded.'),
    cacheHitRatio: CacheHitRatio.optional().describe(
      "Of the run's input tokens, the share read from the provider's prompt cache (0 to 1; §7.6); absent when the run sent nothing. Since 0.3.0.",
    ),
    sessionCacheHitRatio: CacheHitRatio.optional().describe(
      'The same for the whole session so far, this run included. Since 0.3.0.',
    ),
    budget: BudgetStatus.optional().describe(
      'The budget nearest to being spent at the end of the run, when one is in force (§7.6). Since 0.3.0.',
    ),
    permissionMode: PermissionMode.optional().describe(
      "The session's permission mode at the end of the run (§7.8): after a plan the user approved, the mode they chose to continue in. Since 0.3.0.",
    ),
    modelUsage: z
      .array(ModelUsage)
      .optional()
      .describe(
        "The run's tokens and cost per model, in the order the models were first called; present when a model other than the run's answered some of it (a fallback, §8.4). Since 0.3.0.",
      ),
  }),
);
export type PromptResult = z.infer<typeof PromptResult>;

/** What a tool does, which decides how it is asked about and drawn (§7.2). */
export const ToolKind = named(
  'ToolKind',
  "What a tool does: `read` and `search` only read the workspace (never asked about); `edit`, `delete` and `move` change files and `execute` runs a command (asked about, unless allowed); `fetch` reads the web; `agent` starts or ends an agent's work (spawn_agent, task_completed); `interact` puts something to the user (ask_user, the plan); `think` is the model's own reasoning. A client draws a call by its kind (an icon, a diff for an edit), without a table of Santra's tool names. Since 0.3.0.",
  z.enum(['read', 'search', 'edit', 'delete', 'move', 'execute', 'fetch', 'agent', 'interact', 'think']),
);
export type ToolKind = z.infer<typeof ToolKind>;

/** Why a run stopped with an error (§5, the `error` phase). */
export const RunErrorCode = named(
  'RunErrorCode',
  "The machine-readable kind of an `error` phase. From the model's provider: `rate_limit` (429), `overloaded`, `server` (5xx), `network` (no connection), `timeout`, `incomplete` (the stream ended early), `stream_error` (an error inside the stream), `auth` (a missing or rejected key), `permission` (403), `not_found` (the model or endpoint), `bad_request`, `billing` (a spent quota), `output_limit` (an answer past any sensible size), `unreadable` (an event of an unknown shape), `replay_divergence` (a replay asked for a call its recording lacks), `cancelled`. From the run: `max_turns` (its turn limit), `model_unavailable` (no model can be used), `budget` (the run's or the session's budget cannot pay the next model call, §7.6), `hook` (one of the user's hooks stopped it: a UserPromptSubmit hook blocked the prompt, §7.8). Since 0.3.0; a later minor version may add codes.",
  z.enum([
    'rate_limit',
    'overloaded',
    'server',
    'network',
    'timeout',
    'incomplete',
    'stream_error',
    'auth',
    'permission',
    'not_found',
    'bad_request',
    'billing',
    'output_limit',
    'unreadable',
    'replay_divergence',
    'cancelled',
    'max_turns',
    'model_unavailable',
    'budget',
    'hook',
  ]),
);
export type RunErrorCode = z.infer<typeof RunErrorCode>;

/** Every phase type, in the order a client typically meets them. */
export const PhaseType = named(
  'PhaseType',
  'The kind of a `phase` notification (`usage` and `event` since 0.3.0).',
  z.enum([
    'status',
    'text',
    'thinking',
    'tool_call',
    'tool_result',
    'section',
    'error',
    'usage',
    'complete',
    'event',
  ]),
);
export type PhaseType = z.infer<typeof PhaseType>;

const phaseBase = {
  runId: z.string().describe('The run this phase belongs to (one per `prompt`).'),
  sessionId: z.string(),
  agentId: z.string().describe('The agent that produced it; unique within the run.'),
  parentAgentId: z.string().optional().describe('For sub-agents: the agent that spawned it.'),
  agentRole: z.string().optional().describe('For sub-agents: the role, e.g. "reader".'),
  seq: z
    .number()
    .int()
    .nonnegative()
    .describe('Increases by one per phase within a session, so a client can detect a gap and resynchronise.'),
  replayed: z
    .literal(true)
    .optional()
    .describe(
      'Sent again from what the session saved, for a `session/subscribe` (§10.11), not as it happened: the order rules of a run and its `prompt` response (SANTRA-PROMPT-001, SANTRA-PHASE-004) are about the phases sent as they happen. Absent: sent as it happened. Since 0.3.0.',
    ),
};

const phase = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.object({ ...phaseBase, type: z.literal(type), ...shape });

/** §phase: what happens during a run, streamed from server to client. */
export const Phase = named(
  'Phase',
  'Params of the `phase` notification, discriminated by `type`.',
  z.discriminatedUnion('type', [
    phase('status', {
      text: z.string().describe('One present-tense line, e.g. "Reading the auth module".'),
      level: z
        .enum(['info', 'warning'])
        .optional()
        .describe(
          'Absent or `info`: progress a client may show or not. `warning`: something the user should see even when the client shows little — a retry and how long until Santra gives up, a wait for a slow provider, a file of theirs that was skipped and why.',
        ),
      key: z
        .string()
        .optional()
        .describe(
          'Present on a line that later lines of the same agent with the same key replace (a wait for the provider, then its retries): a client may show only the latest, in place, instead of one line each. Since 0.3.0.',
        ),
    }),
    phase('text', { text: z.string().describe('A delta of answer text; concatenate in `seq` order.') }),
    phase('thinking', { text: z.string().describe('A delta of the model reasoning.') }),
    phase('tool_call', {
      toolCallId: z.string(),
      toolName: z.string(),
      kind: ToolKind.optional().describe(
        'What the tool does (ToolKind); absent for a tool the server does not know (a misspelt name the model called). Since 0.3.0.',
      ),
      args: z
        .record(z.string(), z.unknown())
        .describe('The arguments as the model sent them, after validation.'),
      summary: z.string().optional().describe('A short line for the user, e.g. "read_file src/auth.ts".'),
    }),
    phase('tool_result', {
      toolCallId: z.string(),
      toolName: z.string(),
      status: z.enum(['ok', 'error', 'rejected', 'cancelled']),
      summary: z.string().describe('What the user sees, e.g. "120 lines" or "exit 1".'),
      output: z.string().optional().describe('What the model reads, possibly truncated.'),
    }),
    phase('section', {
      title: z
        .string()
        .describe('Human-readable title of a sub-agent, e.g. "Reader: analysing the auth module".'),
    }),
    phase('error', {
      message: z.string().describe('What went wrong and what to do about it.'),
      code: RunErrorCode.optional().describe(
        'Machine-readable kind (RunErrorCode), e.g. "rate_limit", "auth", "timeout".',
      ),
      provider: z.string().optional(),
      httpStatus: z.number().int().optional(),
      retryable: z.boolean(),
    }),
    phase('usage', {
      usage: Usage.describe('Tokens of the model call that just ended, of the agent the phase names.'),
      costUsd: z.number().nonnegative().describe("Its cost in US dollars, unrounded, at its model's prices."),
      model: z
        .string()
        .optional()
        .describe(
          "The model that made the call, as `provider/model`, when it is not the run's model: a fallback model (§8.4). Since 0.3.0.",
        ),
      runUsage: Usage.describe('Tokens of every model call of the run so far, every agent included.'),
      runCostUsd: z.number().nonnegative().describe('Their cost in US dollars, unrounded.'),
      sessionCostUsd: z
        .number()
        .nonnegative()
        .describe('Cost of the whole session so far, this run included, in US dollars, unrounded.'),
      cacheHitRatio: CacheHitRatio.optional().describe(
        "Of the run's input tokens so far, the share read from the provider's prompt cache (0 to 1).",
      ),
      budget: BudgetStatus.optional().describe(
        'The budget nearest to being spent, when one is in force (§7.6).',
      ),
    }),
    phase('event', {
      eventId: z.string().describe('The id `session/event` answered with.'),
      source: z
        .string()
        .describe(
          'Who sent it, as the sender named itself (e.g. "ci"); "external" when it did not. Untrusted.',
        ),
      text: z.string().describe('The event as it was sent: untrusted data, never instructions to follow.'),
      delivery: z
        .enum(['queued', 'started', 'saved'])
        .describe(
          '`queued`: the session runs a prompt, whose model reads the event at its next turn; `started`: it starts a turn of its own (`events.startTurns`); `saved`: it is in the conversation, read with the next prompt.',
        ),
    }).describe(
      "An external event delivered to the session (`session/event`, §10.14): a client shows it as a card, as the words of its sender, never as the agent's. Its `runId` and `agentId` are `event`: it belongs to no run. Since 0.3.0.",
    ),
    phase('complete', {
      status: RunStatus,
      output: z.string().describe('Final text of this agent.'),
      stopReason: AnswerStop.optional().describe(
        "Why this agent's model stopped its last answer; absent when the agent ended before any answer. Since 0.3.0.",
      ),
      usage: Usage.optional().describe(
        "Tokens of this agent's model calls and those of the sub-agents it started; for the root agent, the run's. Since 0.3.0.",
      ),
      costUsd: z
        .number()
        .nonnegative()
        .optional()
        .describe('Their cost in US dollars, unrounded. Since 0.3.0.'),
      cacheHitRatio: CacheHitRatio.optional().describe(
        "Of their input tokens, the share read from the provider's prompt cache (0 to 1). Since 0.3.0.",
      ),
    }),
  ]),
);
export type Phase = z.infer<typeof Phase>;
