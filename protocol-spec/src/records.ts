/**
 * §10.9: the saved session record, the format of a session file and of `session/export` json, and
 * the recording a replay plays back or re-executes. A session file is one record per line (JSON
 * Lines), appended as things happen and never rewritten; the first record is `session`, whose
 * `format` is SESSION_RECORD_FORMAT. A reader skips a record type it does not know (a newer
 * server's), and refuses a file of a later format.
 */
import * as z from 'zod';
import { ApproveParams, ApproveResult } from './approval.ts';
import { Usage } from './common.ts';
import { PromptContext } from './context.ts';
import { Phase, RunErrorCode } from './prompt.ts';
import { named } from './registry.ts';

/** The version of the record format a session's first record carries. */
export const SESSION_RECORD_FORMAT = 1;

const at = z.string().describe('When it happened (ISO 8601).');
const runId = z.string().describe('The run it belongs to (a prompt), as in its phases.');

export const RecordedText = named(
  'RecordedText',
  'Text in a message: what the user typed, or what the model wrote.',
  z.object({ type: z.literal('text'), text: z.string() }),
);

export const RecordedThinking = named(
  'RecordedThinking',
  "The model's reasoning, with what must go back to its provider unchanged on the next turn.",
  z.object({
    type: z.literal('thinking'),
    text: z.string(),
    signature: z
      .string()
      .optional()
      .describe("Anthropic's signature, or the Responses API's encrypted content."),
    itemId: z.string().optional().describe("The Responses API's id of the reasoning item."),
    redactedData: z.string().optional().describe("Anthropic's redacted thinking."),
    context: z
      .string()
      .optional()
      .describe('What the thinking is bound to (model, prompt, tools): sent back under the same only.'),
  }),
);

export const RecordedToolCall = named(
  'RecordedToolCall',
  'A tool call the model made.',
  z.object({
    type: z.literal('tool_call'),
    id: z.string(),
    name: z.string(),
    args: z
      .record(z.string(), z.unknown())
      .describe('The parsed arguments; `{}` when they could not be parsed.'),
    argsText: z.string().describe('The argument text as the model wrote it.'),
    argsError: z.string().optional().describe('Why the arguments could not be used; the call was not run.'),
  }),
);

export const RecordedToolResult = named(
  'RecordedToolResult',
  'What a tool call gave the model.',
  z.object({
    type: z.literal('tool_result'),
    toolCallId: z.string(),
    toolName: z.string(),
    output: z.string(),
    isError: z.boolean(),
  }),
);

export const RecordedMessage = named(
  'RecordedMessage',
  'A message of the conversation a model is sent: the user side (text, tool results) or the assistant side (text, thinking, tool calls).',
  z.discriminatedUnion('role', [
    z.object({ role: z.literal('user'), content: z.array(z.union([RecordedText, RecordedToolResult])) }),
    z.object({
      role: z.literal('assistant'),
      content: z.array(z.union([RecordedText, RecordedThinking, RecordedToolCall])),
    }),
  ]),
);
export type RecordedMessage = z.infer<typeof RecordedMessage>;

export const RecordedFailure = named(
  'RecordedFailure',
  'A model call that failed, as the provider layer described it.',
  z.object({
    kind: RunErrorCode,
    provider: z.string(),
    status: z.number().int().optional().describe('The HTTP status, when there was one.'),
    message: z.string(),
    retryable: z.boolean(),
    retryAfterMs: z.number().nonnegative().optional(),
  }),
);

/** The agents whose transcripts `session/import` reads (§10.10). Since 0.3.0. */
export const ImportFormat = named(
  'ImportFormat',
  "The agent a transcript comes from: `claude` (Claude Code's `~/.claude/projects/…/<id>.jsonl`), `codex` (Codex's `~/.codex/sessions/…/rollout-*.jsonl`) or `pi` (pi's version-3 session file). Since 0.3.0.",
  z.enum(['claude', 'codex', 'pi']),
);
export type ImportFormat = z.infer<typeof ImportFormat>;

export const ImportedRun = named(
  'ImportedRun',
  "A run that was imported from another agent's transcript (`session/import`) rather than run here: its model and usage are that agent's, and are neither the session's model nor part of its usage or cost. Since 0.3.0.",
  z.object({
    from: ImportFormat,
    model: z.string().optional().describe('The model as the transcript names it.'),
    usage: Usage.optional().describe(
      'The tokens the transcript recorded for this turn, when it recorded any.',
    ),
  }),
);
export type ImportedRun = z.infer<typeof ImportedRun>;

const record = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.object({ type: z.literal(type), ...shape });

export const SessionRecord = named(
  'SessionRecord',
  'One line of a session file (and one entry of `session/export` json), discriminated by `type`.',
  z.discriminatedUnion('type', [
    record('session', {
      format: z.number().int().describe('The record format (SESSION_RECORD_FORMAT) the file is written in.'),
      sessionId: z.string(),
      workspaceRoot: z.string(),
      createdAt: z.string(),
      santraVersion: z.string().optional().describe('The version of the server that wrote the file.'),
    }).describe('The first record of every session file.'),
    record('prompt', {
      runId,
      at,
      text: z.string().describe('What the user typed.'),
      model: z.string().optional().describe('The model the run used (`provider/model`).'),
      agent: z.string().optional(),
      mode: z.string().optional(),
      cwd: z.string().optional(),
      context: PromptContext.optional().describe("The editor's context sent with the prompt."),
      imported: ImportedRun.optional().describe(
        "Present on the runs `session/import` wrote: the run is another agent's, imported. Since 0.3.0.",
      ),
    }).describe('A prompt starts a run.'),
    record('message', { runId, message: RecordedMessage }).describe(
      "A message joined the session's conversation (what the model is sent on the next prompt).",
    ),
    record('messages_replaced', { runId, messages: z.array(RecordedMessage) }).describe(
      'The conversation is now exactly `messages` (an agent replaced it).',
    ),
    record('model_output', {
      runId,
      agentId: z.string(),
      turn: z.number().int().positive().describe('The n-th model call of this agent in this run.'),
      inputMessages: z.number().int().nonnegative().describe('How many messages the model was sent.'),
      content: z.array(z.union([RecordedText, RecordedThinking, RecordedToolCall])).optional(),
      stopReason: z.enum(['end_turn', 'tool_use', 'max_tokens', 'refusal', 'other']).optional(),
      stopDetail: z.string().optional(),
      usage: Usage.optional(),
      failure: RecordedFailure.optional(),
      text: z.string().optional().describe('For a failed call: what streamed before it failed.'),
    }).describe("One model call's answer as the provider delivered it: what a replay answers with."),
    record('phase', { phase: Phase }).describe('A `phase` notification as it was sent.'),
    record('approval', { runId, request: ApproveParams, answer: ApproveResult.optional(), at }).describe(
      'An approval the server asked for, and the answer (absent: it was not allowed).',
    ),
    record('ask', {
      runId,
      agentId: z.string(),
      prompt: z.string(),
      secret: z.boolean(),
      answer: z.string().optional().describe('Never saved for a secret question.'),
      at,
    }).describe('A question put to the user.'),
    record('file_change', {
      runId,
      changeId: z.string(),
      toolCallId: z.string(),
      agentId: z.string().optional(),
      workspaceRoot: z.string().optional(),
      path: z.string(),
      operation: z.enum(['create', 'modify', 'delete', 'move']),
      before: z.union([z.string(), z.null()]),
      after: z.union([z.string(), z.null()]),
      destination: z.string().optional(),
      encoding: z.literal('base64').optional(),
      beforeHash: z.string().optional(),
      afterHash: z.string().optional(),
      at,
    }).describe('A file change the tools applied, with what it replaced: what `session/undo` restores.'),
    record('undo', { changeIds: z.array(z.string()), at }).describe('Changes `session/undo` undid.'),
    record('compaction', {
      summary: RecordedMessage,
      kept: z.array(RecordedMessage),
      usage: Usage,
      costUsd: z.number().nonnegative(),
      at,
    }).describe('The conversation before this point is replaced by `summary`; `kept` follows it verbatim.'),
    record('model', { model: z.string(), at }).describe("The session's model, chosen with `model/set`."),
    record('name', {
      name: z.string().nullable().describe('The new name; null: the name was removed.'),
      at,
    }).describe('The session was named with `session/rename` (§10.12). Since 0.3.0.'),
    record('rewind', {
      runId: z
        .string()
        .describe('The run of the prompt gone back to: the conversation is as it was just before it.'),
      messages: z
        .array(RecordedMessage)
        .describe(
          'The conversation from here on (before the prompt, uncompacted where a later compaction had summarised it).',
        ),
      restoreFiles: z
        .boolean()
        .optional()
        .describe('The files changed since were put back first; the `undo` record just before says which.'),
      forkedFrom: z
        .string()
        .optional()
        .describe(
          'In a fork: the session it was made from (its records before the prompt precede this one).',
        ),
      at,
    }).describe(
      'The conversation went back to just before a prompt (`session/rewind`, §10.13); what came after stays in the file but is no longer sent to the model. Since 0.3.0.',
    ),
    record('spend', {
      runId,
      purpose: z
        .enum(['memory'])
        .describe('What the call was for: `memory`, the extraction of facts after the run (§7.10).'),
      model: z.string(),
      usage: Usage,
      costUsd: z.number().nonnegative(),
      at,
    }).describe(
      "A model call outside the run's agents, made after the run `runId` ended; its tokens and cost count in the session's. Since 0.3.0.",
    ),
    record('run_end', {
      runId,
      status: z.string(),
      stopReason: z.string().optional(),
      model: z.string(),
      usage: Usage,
      costUsd: z.number().nonnegative(),
      at,
    }).describe('A run ended.'),
  ]),
);
export type SessionRecord = z.infer<typeof SessionRecord>;
