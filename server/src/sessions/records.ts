/**
 * A saved session is a list of records, appended as things happen and never rewritten: the
 * session file is one JSON record per line (JSON Lines). The same records are the recording a
 * replay re-executes (`model_output`) or plays back (`phase`), and what `session/export` writes.
 *
 * Records are facts, not state: the conversation is the `message` records in order, with a
 * `compaction` record standing for everything before it; usage and cost are the sum of the
 * `run_end` records. summary.ts folds them into the session's state. A record type a reader
 * does not know is skipped with a warning, so newer files still load in older servers.
 */
import {
  type ApproveParams,
  type ApproveResult,
  type ImportedRun,
  type Phase,
  type SessionRecord as PublishedRecord,
  SESSION_RECORD_FORMAT,
  type Usage,
} from '#protocol';
import type { AssistantBlock, ChatMessage } from '../providers/messages.ts';
import type { ProviderFailure, StopReason } from '../providers/stream.ts';

/** The version of the record format, in the header. A reader refuses files of a later major. */
export const RECORD_FORMAT = SESSION_RECORD_FORMAT;

export type SessionRecord =
  /** First record of every session file. */
  | {
      type: 'session';
      format: number;
      sessionId: string;
      workspaceRoot: string;
      createdAt: string;
      santraVersion: string;
    }
  /** A prompt starts a run. `text` is what the user typed. */
  | {
      type: 'prompt';
      runId: string;
      at: string;
      text: string;
      model: string;
      agent?: string;
      mode?: string;
      cwd?: string;
      /**
       * The run is another agent's, written by session/import (sessions/import/): its model and
       * usage are that agent's, not the session's.
       */
      imported?: ImportedRun;
    }
  /** Messages appended to the session's conversation (what the model is sent on the next prompt). */
  | { type: 'message'; runId: string; message: ChatMessage }
  /** The conversation is now exactly `messages` (an agent replaced it with set_messages). */
  | { type: 'messages_replaced'; runId: string; messages: ChatMessage[] }
  /** One model call's answer, as the provider stream delivered it: what a replay answers with. */
  | {
      type: 'model_output';
      runId: string;
      agentId: string;
      /** The n-th model call of this agent in this run, from 1. */
      turn: number;
      /** Messages the model was sent (the conversation length), to report where a replay diverges. */
      inputMessages: number;
      content?: AssistantBlock[];
      stopReason?: StopReason;
      /** What the provider said about the stop (a refusal's category and explanation). */
      stopDetail?: string;
      usage?: Usage;
      /** The call failed; `text` is what streamed before it did. */
      failure?: ProviderFailure;
      text?: string;
    }
  /** A `phase` notification as it was sent (after redaction). */
  | { type: 'phase'; phase: Phase }
  /** An approval the server asked for and the answer it got. */
  | {
      type: 'approval';
      runId: string;
      request: ApproveParams;
      /** Absent when the request failed (no client, cancelled): the action was not allowed. */
      answer?: ApproveResult;
      at: string;
    }
  /** A question put to the user; a `secret` answer is never saved. */
  | {
      type: 'ask';
      runId: string;
      agentId: string;
      prompt: string;
      secret: boolean;
      answer?: string;
      at: string;
    }
  /**
   * A file change the tools applied, with what it replaced: what `session/undo` restores. `before`
   * is null for a file the change created, `after` null for one it deleted; a move has the file's
   * content on both sides, or null on both when it was too large to read. sessions/file-changes.ts
   * writes and reads these fields.
   */
  | {
      type: 'file_change';
      runId: string;
      changeId: string;
      toolCallId: string;
      /** The agent whose tool call made it. */
      agentId?: string;
      /** The workspace the tool ran in: `path` and `destination` are relative to it. Absent: the session's. */
      workspaceRoot?: string;
      /** As the tools show it: relative to the workspace root, or absolute in an allowed directory. */
      path: string;
      operation: 'create' | 'modify' | 'delete' | 'move';
      before: string | null;
      after: string | null;
      /** For a move: where the file went. */
      destination?: string;
      /** `base64`: `before` and `after` are the bytes in base64 (a side was not UTF-8 text). Absent: UTF-8 text. */
      encoding?: 'base64';
      /**
       * SHA-256 (hex) of the exact bytes on each side. A saved file has secrets redacted, so `before`
       * is restored only while it still has this hash; `afterHash` tells whether the file changed since.
       */
      beforeHash?: string;
      afterHash?: string;
      at: string;
    }
  /** Changes undone by `session/undo`, by changeId. */
  | { type: 'undo'; changeIds: string[]; at: string }
  /** The conversation before this point is replaced by `summary`; `kept` messages follow it verbatim. */
  | {
      type: 'compaction';
      summary: ChatMessage;
      kept: ChatMessage[];
      usage: Usage;
      costUsd: number;
      at: string;
    }
  /** The session's model, chosen with model/set. */
  | { type: 'model'; model: string; at: string }
  /** The session was named (session/rename, names.ts); null: its name was removed. */
  | { type: 'name'; name: string | null; at: string }
  /**
   * The conversation went back to just before the prompt of `runId` (session/rewind, rewind.ts):
   * it is now `messages`. Later records stay in the file, so replay and export still show them.
   */
  | {
      type: 'rewind';
      runId: string;
      messages: ChatMessage[];
      /** The files changed since were put back first (the `undo` record just before says which). */
      restoreFiles?: boolean;
      forkedFrom?: string;
      at: string;
    }
  /**
   * A model call outside the run's agents, after the run `runId` ended: memory's extraction
   * (§7.10). Its tokens and cost count in the session's, like a run's.
   */
  | {
      type: 'spend';
      runId: string;
      purpose: 'memory';
      model: string;
      usage: Usage;
      costUsd: number;
      at: string;
    }
  /** A run ended. */
  | {
      type: 'run_end';
      runId: string;
      status: string;
      /** Why the root agent's model stopped its last answer (`AnswerStop`), when it wrote one. */
      stopReason?: string;
      model: string;
      usage: Usage;
      costUsd: number;
      at: string;
    };

export type RecordType = SessionRecord['type'];

/**
 * The records this server writes are the published format (protocol-spec/src/records.ts, §10.9):
 * a field added here that the format lacks, or typed otherwise, does not compile.
 */
export type Published<T extends PublishedRecord> = T;
export type CheckedRecord = Published<SessionRecord>;

/**
 * The agent (and run) id of a compaction's summary call and of its `model_output` record: a
 * replay answers summaries from these, in order, outside any run.
 */
export const COMPACTION_AGENT = 'compaction';

const TYPES: ReadonlySet<string> = new Set<RecordType>([
  'session',
  'prompt',
  'message',
  'messages_replaced',
  'model_output',
  'phase',
  'approval',
  'ask',
  'file_change',
  'undo',
  'compaction',
  'model',
  'name',
  'rewind',
  'spend',
  'run_end',
]);

/** Fields each record type must have, with their JSON type; checked on load. */
const REQUIRED: Record<RecordType, Record<string, 'string' | 'number' | 'object'>> = {
  session: { format: 'number', sessionId: 'string', workspaceRoot: 'string', createdAt: 'string' },
  prompt: { runId: 'string', text: 'string', at: 'string' },
  message: { runId: 'string', message: 'object' },
  messages_replaced: { runId: 'string', messages: 'object' },
  model_output: { runId: 'string', agentId: 'string', turn: 'number' },
  phase: { phase: 'object' },
  approval: { runId: 'string', request: 'object' },
  ask: { runId: 'string', prompt: 'string' },
  file_change: { runId: 'string', changeId: 'string', path: 'string', operation: 'string' },
  undo: { changeIds: 'object' },
  compaction: { summary: 'object', kept: 'object' },
  model: { model: 'string' },
  // `name` is a string or null, which the type check cannot say: summary.ts reads either.
  name: { at: 'string' },
  rewind: { runId: 'string', messages: 'object', at: 'string' },
  spend: { runId: 'string', usage: 'object', costUsd: 'number' },
  run_end: { runId: 'string', usage: 'object', costUsd: 'number' },
};

/** A parsed line as a record, or why it is not one. */
export function asRecord(value: unknown): SessionRecord | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string') return 'no "type"';
  if (!TYPES.has(type)) return `unknown record type "${type}"`;
  for (const [field, kind] of Object.entries(REQUIRED[type as RecordType])) {
    const actual = (value as Record<string, unknown>)[field];
    if (typeof actual !== kind || actual === null) return `a "${type}" record without its ${field} (${kind})`;
  }
  return value as SessionRecord;
}
