import * as z from 'zod';
import { Usage } from './common.ts';
import { PermissionMode } from './prompt.ts';
import { named } from './registry.ts';
import { ImportFormat, SessionRecord } from './records.ts';

const sessionId = z.string().min(1).describe('The session, as `prompt` reported it (`ses_…`).');
const isoTime = z.string().describe('An ISO 8601 UTC time, e.g. "2026-11-23T14:02:11.204Z".');

export const SessionInfo = named(
  'SessionInfo',
  'A saved session, as `session/list` and `session/resume` describe it.',
  z.object({
    sessionId: z.string(),
    title: z.string().describe('The first prompt of the session, cut to one line of at most 80 characters.'),
    name: z
      .string()
      .optional()
      .describe(
        'The name the user gave the session (`session/rename`, §10.12), which `session/resume` takes in place of its id. Absent: not named. Since 0.3.0.',
      ),
    workspaceRoot: z.string().describe('The workspace the session was started in.'),
    createdAt: isoTime,
    updatedAt: isoTime.describe('When the session last saved something.'),
    model: z.string().optional().describe('The model of its last run, as `provider/model`.'),
    messageCount: z
      .number()
      .int()
      .nonnegative()
      .describe('Messages of the conversation sent to the model: prompts, answers, tool results.'),
    usage: Usage,
    costUsd: z.number().nonnegative().describe('Cost of every run of the session, in US dollars.'),
    lastSeq: z
      .number()
      .int()
      .nonnegative()
      .describe('The `seq` of its last phase; the next one continues from it.'),
    imported: z
      .object({
        from: ImportFormat,
        usage: Usage.describe('The tokens that agent recorded for the imported turns.'),
      })
      .optional()
      .describe(
        "Present when runs of the session were imported from another agent's transcript (`session/import`, §10.10): which agent, and the tokens it recorded. Those tokens are not part of `usage`, and the imported runs cost nothing here (`costUsd`). Since 0.3.0.",
      ),
  }),
);
export type SessionInfo = z.infer<typeof SessionInfo>;

/** §session/list */
/** §session/new */
export const SessionNewParams = named(
  'SessionNewParams',
  'Params of `session/new` (none yet; may be omitted).',
  z.object({}).optional(),
);

export const SessionNewResult = named(
  'SessionNewResult',
  "Result of `session/new`: an empty session, saved, that a `prompt` continues by its id. Clients that name a conversation before its first prompt (an editor's new thread) use it; a `prompt` without `sessionId` still starts one of its own.",
  z.object({ session: SessionInfo }),
);

export const SessionListParams = named(
  'SessionListParams',
  'Params of `session/list`. Every field is optional; the params may be omitted.',
  z
    .object({
      cursor: z
        .string()
        .min(1)
        .optional()
        .describe('`nextCursor` of the previous page. Absent: the first page (the newest sessions).'),
      limit: z.number().int().min(1).max(200).optional().describe('Sessions per page; default 50.'),
      allWorkspaces: z
        .boolean()
        .optional()
        .describe('List the sessions of every workspace in the store, not only this one. Default false.'),
    })
    .optional(),
);

export const SessionListResult = named(
  'SessionListResult',
  'Result of `session/list`: saved sessions, newest (by `updatedAt`) first.',
  z.object({
    sessions: z.array(SessionInfo),
    nextCursor: z.string().optional().describe('Present when there are more: pass it as `cursor`.'),
    warnings: z
      .array(z.string())
      .describe(
        'Problems met while listing (a damaged record skipped, an index rebuilt); the sessions listed are still whole.',
      ),
  }),
);

/** §session/resume */
export const SessionResumeParams = named(
  'SessionResumeParams',
  'Params of `session/resume`.',
  z.object({
    sessionId: z
      .string()
      .min(1)
      .describe(
        'The session: its id as `prompt` reported it (`ses_…`); since 0.3.0 also its name or the start of its id (§10.12). The result names the session by its id.',
      ),
    afterSeq: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe(
        'Send again, as `phase` notifications before the answer, every saved phase with a `seq` above this one: a client that reconnects catches up. Absent: none are sent.',
      ),
    otherWorkspace: z
      .boolean()
      .optional()
      .describe(
        'Resume a session started in another workspace (its tools then work on this workspace). Without it such a session is refused with SessionInOtherWorkspace.',
      ),
  }),
);

export const SessionResumeResult = named(
  'SessionResumeResult',
  'Result of `session/resume`: the session, ready for the next `prompt` with its `sessionId`, which sends the model its whole history.',
  z.object({
    session: SessionInfo,
    replayedPhases: z
      .number()
      .int()
      .nonnegative()
      .describe('How many `phase` notifications were sent again.'),
    warnings: z
      .array(z.string())
      .describe('Damaged records skipped while loading (at most the record being written when it stopped).'),
  }),
);

/** §session/export */
export const SessionExportParams = named(
  'SessionExportParams',
  'Params of `session/export`.',
  z.object({
    sessionId,
    format: z
      .enum(['markdown', 'json'])
      .describe('`markdown`: a transcript to read; `json`: the saved records, one per array entry.'),
  }),
);

export const SessionExportResult = named(
  'SessionExportResult',
  'Result of `session/export`.',
  z.object({
    format: z.enum(['markdown', 'json']),
    content: z.string().describe('The transcript or the JSON text. Secrets were redacted before saving.'),
    records: z
      .array(SessionRecord)
      .optional()
      .describe('With `json`: the saved records (§10.9), the same as `content` parsed, typed. Since 0.3.0.'),
  }),
);

/** §session/delete */
export const SessionDeleteParams = named(
  'SessionDeleteParams',
  'Params of `session/delete`.',
  z.object({ sessionId }),
);

export const SessionDeleteResult = named(
  'SessionDeleteResult',
  'Result of `session/delete`: the session is gone from the store.',
  z.object({ deleted: z.literal(true) }),
);

/** §session/rename */
export const SessionRenameParams = named(
  'SessionRenameParams',
  'Params of `session/rename` (§10.12). Since 0.3.0.',
  z.object({
    sessionId: z
      .string()
      .min(1)
      .describe('The session: its id, its current name, or the start of its id (§10.12).'),
    name: z
      .union([z.string(), z.null()])
      .describe(
        'The new name: at most 64 letters, digits, ".", "_" and "-", starting with a letter or digit, not starting with `ses_`, and not the name of another session of its workspace. null removes the name.',
      ),
  }),
);

export const SessionRenameResult = named(
  'SessionRenameResult',
  'Result of `session/rename`: the session as `session/list` now shows it, with its `name` (absent after a removal). Since 0.3.0.',
  z.object({ session: SessionInfo }),
);

/** §session/compact */
export const SessionCompactParams = named(
  'SessionCompactParams',
  'Params of `session/compact`.',
  z.object({
    sessionId,
    keepTurns: z
      .number()
      .int()
      .min(1)
      .max(50)
      .optional()
      .describe('User turns kept word for word at the end; default 2. Everything before is summarised.'),
  }),
);

export const SessionCompactResult = named(
  'SessionCompactResult',
  'Result of `session/compact`.',
  z.object({
    compacted: z.boolean().describe('False when there was too little before the kept turns to summarise.'),
    messagesBefore: z.number().int().nonnegative(),
    messagesAfter: z.number().int().nonnegative(),
    usage: Usage.describe('Tokens of the summarising model call.'),
    costUsd: z.number().nonnegative(),
  }),
);

/** §session/undo */
export const SessionUndoParams = named(
  'SessionUndoParams',
  'Params of `session/undo`.',
  z.object({
    sessionId,
    scope: z
      .enum(['change', 'run'])
      .optional()
      .describe(
        '`change`: the last file change not yet undone; `run`: every change of the last run that made one. Default `change`.',
      ),
  }),
);

export const UndoneChange = named(
  'UndoneChange',
  'A file change `session/undo` dealt with.',
  z.object({
    path: z
      .string()
      .describe(
        'Path of the file the change wrote (for a move: where it was moved from), relative to the workspace root (absolute outside it).',
      ),
    operation: z.enum(['create', 'modify', 'delete', 'move']),
    destination: z.string().optional().describe('For a move: where the file had been moved to.'),
    outcome: z
      .enum(['restored', 'kept'])
      .describe(
        '`restored`: the file is as it was before the change; `kept`: left as it is (the user declined, or it could not be restored — see `reason`).',
      ),
    reason: z.string().optional().describe('With `kept`: why, and what to do about it.'),
  }),
);
export type UndoneChange = z.infer<typeof UndoneChange>;

export const SessionUndoResult = named(
  'SessionUndoResult',
  'Result of `session/undo`: the changes undone, newest first. Empty when nothing is left to undo.',
  z.object({ changes: z.array(UndoneChange) }),
);

/** §session/prompts */
export const SessionPromptsParams = named(
  'SessionPromptsParams',
  'Params of `session/prompts` (§10.13). Since 0.3.0.',
  z.object({ sessionId }),
);

export const RewindablePrompt = named(
  'RewindablePrompt',
  'A prompt of the conversation as the model now sees it: a point `session/rewind` can go back to. Since 0.3.0.',
  z.object({
    runId: z.string().describe('The run the prompt started: what `session/rewind` takes.'),
    text: z.string().describe('What the user typed.'),
    at: isoTime,
  }),
);
export type RewindablePrompt = z.infer<typeof RewindablePrompt>;

export const SessionPromptsResult = named(
  'SessionPromptsResult',
  'Result of `session/prompts`: the prompts of the current conversation, oldest first (prompts a rewind went back past are not listed). Since 0.3.0.',
  z.object({ prompts: z.array(RewindablePrompt) }),
);

/** §session/event */
export const SessionEventParams = named(
  'SessionEventParams',
  'Params of `session/event` (§10.14): an event from outside (a CI failure, a file watcher, a chat bot) for a session. Since 0.3.0.',
  z.object({
    sessionId: z.string().min(1).describe('The session: its id, its name, or the start of its id (§10.12).'),
    text: z
      .string()
      .min(1)
      .max(16_000)
      .describe('The event, as text. The model reads it as untrusted data, never as instructions.'),
    source: z
      .string()
      .regex(
        /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,63}$/,
        'expected a name of at most 64 letters, digits and . _ : / - such as "ci"',
      )
      .optional()
      .describe('Who sends it, e.g. "ci" or "file-watcher"; default "external".'),
  }),
);

export const SessionEventResult = named(
  'SessionEventResult',
  'Result of `session/event`. Since 0.3.0.',
  z.object({
    eventId: z.string(),
    sessionId: z.string().describe('The session it went to, by its id.'),
    delivered: z
      .enum(['queued', 'started', 'saved', 'relayed'])
      .describe(
        '`queued`: the session runs a prompt here, whose model reads it at its next turn; `started`: the session was idle and allows events to start turns (`events.startTurns`): a run started with it; `saved`: it was added to the conversation, read with the next prompt; `relayed`: another server runs the session and got it over the live channel (§10.11), where it is delivered as here.',
      ),
  }),
);
export type SessionEventResult = z.infer<typeof SessionEventResult>;

/** §session/cancel */
export const SessionCancelParams = named(
  'SessionCancelParams',
  'Params of `session/cancel` (§10.14): stop the run a session is running in this server, whoever started it (a `prompt` of any client, or a turn an event started). Since 0.3.0.',
  z.object({
    sessionId: z.string().min(1).describe('The session: its id, its name, or the start of its id (§10.12).'),
  }),
);

export const SessionCancelResult = named(
  'SessionCancelResult',
  'Result of `session/cancel`. Since 0.3.0.',
  z.object({
    cancelled: z
      .boolean()
      .describe(
        'true: the run was told to stop; it ends as a cancelled `prompt` does (its root `complete` phase says `cancelled`, and its `prompt`, if a client sent one, is answered `cancelled`). false: the session runs no prompt in this server (it is idle, or busy with a compaction, an undo or a rewind, which end on their own).',
      ),
    runId: z.string().optional().describe('The run told to stop, when `cancelled`.'),
  }),
);
export type SessionCancelResult = z.infer<typeof SessionCancelResult>;

/** §session/close */
export const SessionCloseParams = named(
  'SessionCloseParams',
  'Params of `session/close` (§10.15): the client is done with a session — its user began another, or left. Since 0.3.0.',
  z.object({
    sessionId: z.string().min(1).describe('The session: its id, its name, or the start of its id (§10.12).'),
    reason: z
      .enum(['clear', 'exit', 'other'])
      .optional()
      .describe(
        "Why: `clear`, the user began another session (a TUI's `/clear`); `exit`, the user is leaving the client; `other` (the default), anything else. Santra gives it to SessionEnd hooks as `clear`, `prompt_input_exit` and `other`.",
      ),
  }),
);
export type SessionCloseParams = z.infer<typeof SessionCloseParams>;

export const SessionCloseResult = named(
  'SessionCloseResult',
  'Result of `session/close`. Since 0.3.0.',
  z.object({
    closed: z
      .boolean()
      .describe(
        'true: the session had begun in this server (a prompt ran in it here) and has now ended here — its SessionEnd hooks have run, and it is no longer offered on its live channel; a later `prompt` with it begins it again. false: it had not begun here, or was closed already; nothing was done.',
      ),
  }),
);
export type SessionCloseResult = z.infer<typeof SessionCloseResult>;

/** §session/setMode */
export const SessionSetModeParams = named(
  'SessionSetModeParams',
  "Params of `session/setMode` (§7.8): the session's permission mode, changed now. Since 0.3.0.",
  z.object({
    sessionId: z.string().min(1).describe('The session: its id, its name, or the start of its id (§10.12).'),
    permissionMode: PermissionMode,
  }),
);

export const SessionSetModeResult = named(
  'SessionSetModeResult',
  'Result of `session/setMode`. Since 0.3.0.',
  z.object({
    permissionMode: PermissionMode.describe("The session's mode now."),
    running: z
      .boolean()
      .describe(
        'true: a run of the session is going here, and every tool call of it from now on is gated in the new mode; false: the session is idle, and its next prompt runs in it (unless that prompt names another).',
      ),
  }),
);

/** §session/rewind */
export const SessionRewindParams = named(
  'SessionRewindParams',
  'Params of `session/rewind` (§10.13). Since 0.3.0.',
  z.object({
    sessionId,
    runId: z
      .string()
      .min(1)
      .describe(
        'The run of the prompt to go back to (from `session/prompts`): the conversation is then as it was just before that prompt.',
      ),
    restoreFiles: z
      .boolean()
      .optional()
      .describe(
        'Also put back the files the session changed since that prompt, newest first, as `session/undo` does (asking through `approve` where a file changed since). Default false.',
      ),
    fork: z
      .boolean()
      .optional()
      .describe(
        'Leave the session as it is and rewind a new session that starts with its history up to that prompt. Default false.',
      ),
  }),
);

export const SessionRewindResult = named(
  'SessionRewindResult',
  'Result of `session/rewind`. Since 0.3.0.',
  z.object({
    session: SessionInfo.describe(
      'The rewound session: the fork when `fork` was set, whose next `prompt` continues it.',
    ),
    text: z
      .string()
      .describe('The text of the prompt gone back to, for the client to put back where the user types.'),
    forkedFrom: z
      .string()
      .optional()
      .describe('With `fork`: the session the fork was made from, left unchanged.'),
    changes: z
      .array(UndoneChange)
      .describe('With `restoreFiles`: the file changes dealt with, newest first (empty without).'),
  }),
);

/** §session/import */
export const SessionImportParams = named(
  'SessionImportParams',
  "Params of `session/import`: another agent's transcript, as its text (`content`, what any client can send) or as a file on the server's machine (`path`, for one too large for a message). Exactly one of the two. Since 0.3.0.",
  z.object({
    format: ImportFormat,
    content: z.string().optional().describe("The transcript's text, JSON Lines as the agent wrote it."),
    path: z
      .string()
      .min(1)
      .optional()
      .describe('An absolute path of the transcript file on the machine the server runs on.'),
    name: z
      .string()
      .min(1)
      .optional()
      .describe(
        'What messages call the transcript, e.g. its file name. Default: `path`, or "the transcript".',
      ),
  }),
);

export const ImportCounts = named(
  'ImportCounts',
  'What `session/import` made of a transcript. Since 0.3.0.',
  z.object({
    runs: z.number().int().nonnegative().describe('Prompts imported, each a run.'),
    messages: z.number().int().nonnegative().describe('Messages added to the conversation.'),
    toolCalls: z.number().int().nonnegative().describe('Tool calls imported.'),
    mappedToolCalls: z
      .number()
      .int()
      .nonnegative()
      .describe("Of those, the calls of a tool that matches one of this server's, imported as a call of it."),
    textToolCalls: z
      .number()
      .int()
      .nonnegative()
      .describe(
        'The calls of a tool with no match here, imported as bounded text (so the model does not learn to call a tool it does not have).',
      ),
    skippedLines: z
      .number()
      .int()
      .nonnegative()
      .describe(
        "Lines that are not part of the conversation (the agent's bookkeeping, sub-agents' own conversations, other branches); they are kept with the original.",
      ),
  }),
);

export const SessionImportResult = named(
  'SessionImportResult',
  'Result of `session/import`: the imported session, which lists, resumes, exports and replays like any other. Since 0.3.0.',
  z.object({
    session: SessionInfo,
    outcome: z
      .enum(['created', 'appended', 'unchanged'])
      .describe(
        '`created`: a new session. `unchanged`: this transcript was imported before, as it is: the same session, nothing written. `appended`: it was imported before and has grown since: its new turns were added to the same session.',
      ),
    reason: z
      .string()
      .optional()
      .describe(
        'With `created` for a transcript imported before: why its session was not added to (it was continued here since, or the transcript changed other than by growing).',
      ),
    counts: ImportCounts.describe('What this import added (all zero with `unchanged`).'),
    warnings: z
      .array(z.string())
      .describe(
        'Lines left out that a reader may want to know about (a record type this server does not know), each naming its line.',
      ),
  }),
);

/** §session/subscribe */
export const SessionSubscribeParams = named(
  'SessionSubscribeParams',
  'Params of `session/subscribe` (§10.11): watch a session that runs elsewhere — in another server sharing the store — live, and answer its approvals and questions. Since 0.3.0.',
  z.object({
    sessionId,
    afterSeq: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe(
        'First send, as `phase` notifications, every saved phase with a `seq` above this one, then the live ones: each `seq` once, in order, without a gap. Default 0: the whole session.',
      ),
    answer: z
      .boolean()
      .optional()
      .describe(
        "Be sent the session's `approve` and `ask` requests too (only those the client declared it can answer, `capabilities.approve` / `capabilities.ask`). Default true; false only watches.",
      ),
  }),
);

export const SessionSubscribeResult = named(
  'SessionSubscribeResult',
  'Result of `session/subscribe`, sent when the subscription ends (`session/unsubscribe`). Cancelling the request also ends it. Since 0.3.0.',
  z.object({
    replayedPhases: z
      .number()
      .int()
      .nonnegative()
      .describe('Phases sent from the store, the ones the client had missed.'),
    livePhases: z.number().int().nonnegative().describe('Phases sent as the session ran.'),
    lastSeq: z
      .number()
      .int()
      .nonnegative()
      .describe('The `seq` of the last phase sent (`afterSeq` if none).'),
    answered: z
      .number()
      .int()
      .nonnegative()
      .describe("The session's approvals and questions this client's answer decided."),
  }),
);

/** §session/unsubscribe */
export const SessionUnsubscribeParams = named(
  'SessionUnsubscribeParams',
  'Params of `session/unsubscribe`. Since 0.3.0.',
  z.object({ sessionId }),
);

export const SessionUnsubscribeResult = named(
  'SessionUnsubscribeResult',
  'Result of `session/unsubscribe`: whether there was a subscription to end; its `session/subscribe` request is answered. Since 0.3.0.',
  z.object({ unsubscribed: z.boolean() }),
);
