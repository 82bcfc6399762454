import * as z from 'zod';
import { Usage } from './common.ts';
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
    sessionId,
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
