/**
 * A recorded session as a timeline for the replay viewer (`santra replay FILE`): the transcript
 * events the live UI would have fed its reducer, each with how long to wait before it.
 *
 * The file is read here directly, as the client of print/replay.ts reads it: a session file
 * (`<SANTRA_HOME>/sessions/…/ses_*.jsonl`, one record a line), or what `session/export` with
 * format json gives (the array of records, or the whole result with the array as its `content`).
 * Only `session`, `prompt`, `phase` and `run_end` records matter; any other record, a damaged line
 * and a phase this client cannot parse are passed over (counted in `skipped`).
 *
 * Timing: phases carry no time, so it comes from record order. A `prompt` and a `run_end` have
 * their `at`: the pause before a prompt is the recorded one (from the previous run's end, at most
 * MAX_GAP_MS), and a run's duration on its end line is the recorded one; the phases in between play
 * at a fixed pace, PHASE_MS each at 1x.
 */
import type { RunStatus, Usage } from '#protocol';
import { parsePhase } from '../print/output.ts';
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

/** The records of a session file or a session/export json, in order; undefined entries are damaged lines. */
export function recordsOf(text: string): unknown[] {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    try {
      const whole: unknown = JSON.parse(text);
      if (Array.isArray(whole)) return whole;
      const content = (whole as { content?: unknown } | null)?.content;
      if (typeof content === 'string') return recordsOf(content);
      // One JSON object alone: a session file of one line.
      return [whole];
    } catch {
      // Not one JSON document: JSON Lines.
    }
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as unknown;
      } catch {
        return undefined;
      }
    });
}

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
  for (const raw of recordsOf(text)) {
    const record = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    switch (record.type) {
      case 'session':
        if (typeof record.sessionId === 'string') recording.sessionId = record.sessionId;
        if (typeof record.workspaceRoot === 'string') recording.workspaceRoot = record.workspaceRoot;
        break;
      case 'prompt': {
        if (typeof record.text !== 'string') {
          recording.skipped++;
          break;
        }
        const at = timeOf(record.at) ?? lastAt ?? 0;
        const gap = lastAt === undefined ? 0 : Math.min(MAX_GAP_MS, Math.max(0, at - lastAt));
        recording.steps.push({ event: { type: 'user', text: record.text }, waitMs: gap });
        recording.steps.push({ event: { type: 'run_start', at }, waitMs: 0 });
        recording.models.push(typeof record.model === 'string' ? record.model : '');
        recording.runs++;
        lastAt = at;
        break;
      }
      case 'phase': {
        const phase = parsePhase(record.phase);
        if (phase === undefined) recording.skipped++;
        else recording.steps.push({ event: { type: 'phase', phase }, waitMs: PHASE_MS });
        break;
      }
      case 'run_end': {
        const at = timeOf(record.at) ?? lastAt ?? 0;
        const status =
          typeof record.status === 'string' && STATUSES.has(record.status) ? record.status : 'error';
        recording.steps.push({
          event: {
            type: 'run_end',
            at,
            status: status as RunStatus,
            ...(record.stopReason === 'max_tokens' || record.stopReason === 'refusal'
              ? { stopReason: record.stopReason }
              : {}),
            ...(isUsage(record.usage) ? { usage: record.usage } : {}),
            ...(typeof record.costUsd === 'number' ? { costUsd: record.costUsd } : {}),
          },
          waitMs: 0,
        });
        lastAt = at;
        break;
      }
      case undefined:
        recording.skipped++;
        break;
      default:
        // A record the viewer has no use for (messages, model outputs, approvals, file changes…).
        break;
    }
  }
  return recording;
}

function timeOf(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

function isUsage(value: unknown): value is Usage {
  const usage = value as Partial<Record<keyof Usage, unknown>> | null;
  return (
    typeof usage === 'object' &&
    usage !== null &&
    typeof usage.inputTokens === 'number' &&
    typeof usage.outputTokens === 'number' &&
    typeof usage.cacheReadTokens === 'number' &&
    typeof usage.cacheWriteTokens === 'number'
  );
}
