/**
 * A recorded session as a timeline for the replay viewer (`santra replay FILE`): the transcript
 * events the live UI would have fed its reducer, each with how long to wait before it.
 *
 * The file is read as the published record format (client/session-records.ts): a session file or
 * what `session/export` with format json gives. Only `session`, `prompt`, `phase` and `run_end`
 * records matter; a damaged line and a record this client cannot parse are passed over (counted
 * in `skipped`).
 *
 * Timing: phases carry no time, so it comes from record order. A `prompt` and a `run_end` have
 * their `at`: the pause before a prompt is the recorded one (from the previous run's end, at most
 * MAX_GAP_MS), and a run's duration on its end line is the recorded one; the phases in between play
 * at a fixed pace, PHASE_MS each at 1x.
 */
import type { RunStatus } from '#protocol';
import { readSessionRecords } from '../client/session-records.ts';
import type { TranscriptEvent } from './transcript.ts';

export const PHASE_MS = 15;
export const MAX_GAP_MS = 2000;

export interface ReplayStep {
  event: TranscriptEvent;
  /** Recording time before this step, in ms at 1x. */
  waitMs: number;
}

export interface Recording {
  sessionId: string | undefined;
  workspaceRoot: string | undefined;
  /** The model of each run, in order (from its prompt record). */
  models: string[];
  steps: ReplayStep[];
  /** How many runs (prompt records) it has. */
  runs: number;
  /** Records and lines passed over. */
  skipped: number;
}

const STATUSES: ReadonlySet<string> = new Set<RunStatus>(['completed', 'cancelled', 'error', 'interrupted']);

/** The timeline of a recording's text. */
export function readRecording(text: string): Recording {
  const recording: Recording = {
    sessionId: undefined,
    workspaceRoot: undefined,
    models: [],
    steps: [],
    runs: 0,
    skipped: 0,
  };
  let lastAt: number | undefined;
  // Read as the published record format (protocol-spec, §10.9), not by hand.
  const { records, skipped } = readSessionRecords(text);
  recording.skipped = skipped;
  for (const record of records) {
    switch (record.type) {
      case 'session':
        recording.sessionId = record.sessionId;
        recording.workspaceRoot = record.workspaceRoot;
        break;
      case 'prompt': {
        const at = timeOf(record.at) ?? lastAt ?? 0;
        const gap = lastAt === undefined ? 0 : Math.min(MAX_GAP_MS, Math.max(0, at - lastAt));
        recording.steps.push({ event: { type: 'user', text: record.text }, waitMs: gap });
        recording.steps.push({ event: { type: 'run_start', at }, waitMs: 0 });
        recording.models.push(record.model ?? '');
        recording.runs++;
        lastAt = at;
        break;
      }
      case 'phase':
        recording.steps.push({ event: { type: 'phase', phase: record.phase }, waitMs: PHASE_MS });
        break;
      case 'run_end': {
        const at = timeOf(record.at) ?? lastAt ?? 0;
        const status = STATUSES.has(record.status) ? (record.status as RunStatus) : 'error';
        recording.steps.push({
          event: {
            type: 'run_end',
            at,
            status,
            ...(record.stopReason === 'max_tokens' || record.stopReason === 'refusal'
              ? { stopReason: record.stopReason }
              : {}),
            usage: record.usage,
            costUsd: record.costUsd,
          },
          waitMs: 0,
        });
        lastAt = at;
        break;
      }
      case 'message':
      case 'messages_replaced':
      case 'model_output':
      case 'approval':
      case 'ask':
      case 'file_change':
      case 'undo':
      case 'compaction':
      case 'model':
      case 'name':
      case 'rewind':
      case 'spend':
        // What the viewer has no use for: it plays the phases back.
        break;
      default: {
        const exhaustive: never = record;
        throw new Error(`unknown record ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  return recording;
}

function timeOf(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
