/**
 * Going back to just before a prompt (session/rewind, runtime/rewind-handler.ts), read from the
 * session's records alone, so a session rewinds the same in any server sharing the store.
 *
 * The conversation before a prompt is the fold of the records written before its `prompt` record:
 * a compaction that came later is not in that prefix, so a rewind past it gives back the history
 * word for word, as the model saw it then. Nothing is removed from the file: a `rewind` record
 * says from where the conversation goes on, so replay and export still show what came after, and
 * say that it was rewound.
 */
import type { RewindablePrompt } from '#protocol';
import type { ChatMessage } from '../providers/messages.ts';
import { ProtocolFault } from '../support/protocol-fault.ts';
import { SANTRA_VERSION } from '../support/version.ts';
import { pairInterruptedCalls } from './interrupted-calls.ts';
import { RECORD_FORMAT, type SessionRecord } from './records.ts';
import { foldSession } from './summary.ts';

type PromptRecord = Extract<SessionRecord, { type: 'prompt' }>;

/**
 * The prompts of the conversation as it now stands, oldest first: a rewind drops the prompts from
 * the one it went back to. Each with where its record is, for the fold of what came before.
 */
function currentPrompts(records: readonly SessionRecord[]): { record: PromptRecord; index: number }[] {
  let prompts: { record: PromptRecord; index: number }[] = [];
  records.forEach((record, index) => {
    if (record.type === 'prompt') prompts.push({ record, index });
    else if (record.type === 'rewind') {
      const back = prompts.findIndex((prompt) => prompt.record.runId === record.runId);
      if (back >= 0) prompts = prompts.slice(0, back);
    }
  });
  return prompts;
}

/** What `session/prompts` lists: the points a rewind can go back to. */
export function rewindablePrompts(records: readonly SessionRecord[]): RewindablePrompt[] {
  return currentPrompts(records).map(({ record }) => ({
    runId: record.runId,
    text: record.text,
    at: record.at,
  }));
}

export interface RewindPoint {
  /** The prompt gone back to. */
  prompt: PromptRecord;
  /** The conversation just before it. */
  messages: ChatMessage[];
  /** The records before the prompt: a fork's history. */
  before: SessionRecord[];
  /** Ids of the file changes recorded from the prompt on: what restoreFiles puts back. */
  changeIdsSince: ReadonlySet<string>;
}

/**
 * Where a rewind to `runId` goes back to. Refuses (InvalidParams) a run that is not a prompt of
 * the current conversation, listing the ones that are.
 */
export function rewindPoint(
  records: readonly SessionRecord[],
  sessionId: string,
  runId: string,
): RewindPoint {
  const prompts = currentPrompts(records);
  const found = prompts.find(({ record }) => record.runId === runId);
  if (found === undefined) {
    const known = prompts.map(({ record }) => JSON.stringify(record.runId));
    const message = `${JSON.stringify(runId)} is not a prompt of session ${sessionId}'s conversation${
      known.length === 0
        ? ': it has no prompts to go back to.'
        : `. session/prompts lists the ones it has: ${known.join(', ')}.`
    }`;
    throw new ProtocolFault('InvalidParams', `Invalid params for session/rewind: params.runId: ${message}`, {
      issues: [{ path: 'params.runId', message }],
    });
  }
  const before = records.slice(0, found.index);
  const state = foldSession(before);
  const changeIdsSince = new Set<string>();
  for (const record of records.slice(found.index))
    if (record.type === 'file_change') changeIdsSince.add(record.changeId);
  return {
    prompt: found.record,
    messages: pairInterruptedCalls(state?.messages ?? []),
    before,
    changeIdsSince,
  };
}

/**
 * The records of a fork: a header of its own, the original's history before the prompt (with its
 * `name` records: a name follows its line of sessions, names.ts), and the `rewind` record that
 * says where it came from.
 */
export function forkRecords(
  point: RewindPoint,
  fork: { sessionId: string; workspaceRoot: string; from: string; at: string },
): SessionRecord[] {
  return [
    {
      type: 'session',
      format: RECORD_FORMAT,
      sessionId: fork.sessionId,
      workspaceRoot: fork.workspaceRoot,
      createdAt: fork.at,
      santraVersion: SANTRA_VERSION,
    },
    ...point.before.filter((record) => record.type !== 'session'),
    {
      type: 'rewind',
      runId: point.prompt.runId,
      messages: point.messages,
      forkedFrom: fork.from,
      at: fork.at,
    },
  ];
}
