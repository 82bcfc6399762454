/**
 * A session's state, folded from its records: the conversation to send the model, the counters,
 * and what session/list shows. One fold for every storage, so a session reads the same from a
 * file and from a shared store.
 */
import type { ImportFormat, SessionInfo, Usage } from '#protocol';
import type { ChatMessage } from '../providers/messages.ts';
import { addUsage, EMPTY_USAGE } from '../providers/stream.ts';
import type { SessionRecord } from './records.ts';
import { pairInterruptedCalls } from './interrupted-calls.ts';
import { eventMessage, type SessionEvent } from './events.ts';

export type FileChangeRecord = Extract<SessionRecord, { type: 'file_change' }>;

export interface SessionState {
  sessionId: string;
  workspaceRoot: string;
  createdAt: string;
  updatedAt: string;
  title: string;
  /** The name the user gave it (session/rename, names.ts); absent: none. */
  name?: string;
  /** The model of the last run, or the one model/set chose after it. */
  model?: string;
  /** The conversation as the next prompt sends it. */
  messages: ChatMessage[];
  usage: Usage;
  costUsd: number;
  lastSeq: number;
  /** File changes not undone, oldest first. */
  changes: FileChangeRecord[];
  /** Runs imported from another agent's transcript (session/import): from which, and its tokens. */
  imported?: { from: ImportFormat; usage: Usage };
}

export const TITLE_CHARS = 80;

/** One line of at most TITLE_CHARS characters. */
export function titleOf(text: string): string {
  const line = text.trim().split('\n')[0]?.trim() ?? '';
  return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line;
}

/**
 * Folds records into state. Returns undefined when the header is missing (not a session file).
 * `fallbackTime`: for `updatedAt` when no record carries a time (the file's modification time).
 */
export function foldSession(
  records: readonly SessionRecord[],
  fallbackTime?: string,
): SessionState | undefined {
  const header = records.find((record) => record.type === 'session');
  if (header?.type !== 'session') return undefined;
  const state: SessionState = {
    sessionId: header.sessionId,
    workspaceRoot: header.workspaceRoot,
    createdAt: header.createdAt,
    updatedAt: header.createdAt,
    title: '',
    messages: [],
    usage: EMPTY_USAGE,
    costUsd: 0,
    lastSeq: 0,
    changes: [],
  };
  // An imported run's model and usage are the other agent's (session/import): not the session's.
  const importedRuns = new Set<string>();
  // Events queued for a running prompt (their card is saved) that no message has carried yet.
  const queued = new Map<string, SessionEvent>();
  for (const record of records) {
    if ('at' in record && typeof record.at === 'string' && record.at > state.updatedAt)
      state.updatedAt = record.at;
    switch (record.type) {
      case 'session':
        break;
      case 'prompt':
        if (state.title === '') state.title = titleOf(record.text);
        if (record.imported === undefined) {
          state.model = record.model;
          break;
        }
        importedRuns.add(record.runId);
        state.imported = {
          from: record.imported.from,
          usage: addUsage(state.imported?.usage ?? EMPTY_USAGE, record.imported.usage ?? EMPTY_USAGE),
        };
        break;
      case 'message':
        state.messages.push(record.message);
        if (queued.size > 0)
          for (const eventId of queued.keys())
            if (carriesEvent(record.message, eventId)) queued.delete(eventId);
        break;
      case 'messages_replaced':
        state.messages = [...record.messages];
        break;
      case 'rewind':
        state.messages = [...record.messages];
        break;
      case 'compaction':
        state.messages = [record.summary, ...record.kept];
        state.usage = addUsage(state.usage, record.usage);
        state.costUsd += record.costUsd;
        break;
      case 'phase': {
        const { phase } = record;
        if (phase.seq > state.lastSeq) state.lastSeq = phase.seq;
        if (phase.type === 'event' && phase.delivery === 'queued')
          queued.set(phase.eventId, {
            eventId: phase.eventId,
            source: phase.source,
            text: phase.text,
            at: state.updatedAt,
          });
        break;
      }
      case 'run_end':
        state.usage = addUsage(state.usage, record.usage);
        state.costUsd += record.costUsd;
        if (!importedRuns.has(record.runId)) state.model = record.model;
        break;
      case 'spend':
        state.usage = addUsage(state.usage, record.usage);
        state.costUsd += record.costUsd;
        break;
      case 'model':
        state.model = record.model;
        break;
      case 'name':
        // A damaged value (not a string) counts as no name: a listing never shows garbage.
        if (typeof record.name === 'string' && record.name !== '') state.name = record.name;
        else delete state.name;
        break;
      case 'file_change':
        state.changes.push(record);
        break;
      case 'undo': {
        const undone = new Set(record.changeIds);
        state.changes = state.changes.filter((change) => !undone.has(change.changeId));
        break;
      }
      case 'model_output':
      case 'approval':
      case 'ask':
        break;
      default: {
        const exhaustive: never = record;
        throw new Error(`unknown record ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  // A run killed mid-call left calls without results: they are said to be interrupted, never run again.
  state.messages = pairInterruptedCalls(state.messages);
  // Events queued for a run that was killed before its model read them: the next prompt reads them.
  for (const event of queued.values()) state.messages.push(eventMessage(event));
  if (fallbackTime !== undefined && fallbackTime > state.updatedAt) state.updatedAt = fallbackTime;
  if (state.title === '') state.title = '(no prompt yet)';
  return state;
}

export function sessionInfo(state: SessionState): SessionInfo {
  return {
    sessionId: state.sessionId,
    title: state.title,
    ...(state.name === undefined ? {} : { name: state.name }),
    workspaceRoot: state.workspaceRoot,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    ...(state.model === undefined ? {} : { model: state.model }),
    messageCount: state.messages.length,
    usage: state.usage,
    costUsd: state.costUsd,
    lastSeq: state.lastSeq,
    ...(state.imported === undefined ? {} : { imported: state.imported }),
  };
}

/** Whether a message is the one that carried the event `eventId` to the model (events.ts frames it). */
function carriesEvent(message: ChatMessage, eventId: string): boolean {
  return (
    message.role === 'user' &&
    message.content.some((block) => block.type === 'text' && block.text.includes(`id="${eventId}"`))
  );
}
