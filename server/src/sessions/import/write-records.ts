/**
 * An imported conversation as session records (§10.9), the same kinds a run here writes, so the
 * session lists, resumes, exports and plays back like any other: per run a `prompt` (marked
 * `imported`, with the agent's model and tokens), its `message` records (what the model is sent
 * when the session goes on), `phase` records (what a client shows, played back by
 * `session/resume` and `santra replay`), a `compaction` where the agent compacted, and a
 * `run_end`. The runs cost nothing and add no usage here: the tokens are the other agent's
 * (`imported.usage`). There are no `model_output` records — no model call was made here — so a
 * re-execution (`santra -p --replay`) has nothing to answer from and says so.
 */
import { createHash } from 'node:crypto';
import type { ImportFormat, Phase } from '#protocol';
import { EMPTY_USAGE } from '../../providers/stream.ts';
import { SANTRA_VERSION } from '../../support/version.ts';
import { RECORD_FORMAT, type SessionRecord } from '../records.ts';
import type { ImportCounts, RunDraft } from './conversation.ts';

/** The agent id of an imported run's phases. */
export const IMPORTED_AGENT_IDS: Readonly<Record<ImportFormat, string>> = {
  claude: 'claude-code',
  codex: 'codex',
  pi: 'pi',
};

export function headerRecord(sessionId: string, workspaceRoot: string, createdAt: string): SessionRecord {
  return {
    type: 'session',
    format: RECORD_FORMAT,
    sessionId,
    workspaceRoot,
    createdAt,
    santraVersion: SANTRA_VERSION,
  };
}

export interface RunRecordOptions {
  sessionId: string;
  from: ImportFormat;
  /** Runs the session has from earlier imports: the run ids go on after them. */
  runsBefore: number;
  /** The session's last phase seq. */
  lastSeq: number;
  /** For a run whose transcript gives no time. */
  now: string;
}

/** The records of `runs`. */
export function runRecords(runs: readonly RunDraft[], options: RunRecordOptions): SessionRecord[] {
  const records: SessionRecord[] = [];
  const agentId = IMPORTED_AGENT_IDS[options.from];
  let seq = options.lastSeq;
  let when = options.now;
  for (const [index, run] of runs.entries()) {
    const runId = `run_imported_${options.runsBefore + index + 1}`;
    const at = run.at ?? when;
    const phase = (draft: object): SessionRecord => ({
      type: 'phase',
      phase: { ...draft, runId, sessionId: options.sessionId, agentId, seq: ++seq } as Phase,
    });
    records.push({
      type: 'prompt',
      runId,
      at,
      text: run.prompt,
      // Not the session's model: the fold passes over an imported run's (summary.ts).
      model: run.model ?? '',
      imported: {
        from: options.from,
        ...(run.model === undefined ? {} : { model: run.model }),
        ...(run.usage === undefined ? {} : { usage: run.usage }),
      },
    });
    for (const item of run.items) {
      if (item.type === 'compaction') {
        records.push({
          type: 'compaction',
          summary: item.summary,
          kept: [],
          usage: EMPTY_USAGE,
          costUsd: 0,
          at: item.at ?? at,
        });
        continue;
      }
      for (const draft of item.phases) records.push(phase(draft));
      records.push({ type: 'message', runId, message: item.message });
    }
    records.push(phase({ type: 'complete', status: 'completed', output: run.output }));
    when = run.lastAt ?? at;
    records.push({
      type: 'run_end',
      runId,
      status: 'completed',
      model: run.model ?? '',
      usage: EMPTY_USAGE,
      costUsd: 0,
      at: when,
    });
  }
  return records;
}

/** A hash of a run's conversation: the ledger tells a transcript that grew from one that changed. */
export function runHash(run: RunDraft): string {
  const conversation = run.items.map((item) => (item.type === 'message' ? item.message : item.summary));
  return createHash('sha256')
    .update(JSON.stringify([run.prompt, conversation]))
    .digest('hex');
}

/** What `runs` add to a conversation. */
export function countRuns(runs: readonly RunDraft[]): ImportCounts {
  const counts: ImportCounts = {
    runs: runs.length,
    messages: 0,
    toolCalls: 0,
    mappedToolCalls: 0,
    textToolCalls: 0,
  };
  for (const run of runs)
    for (const item of run.items) {
      if (item.type !== 'message') continue;
      counts.messages++;
      for (const phase of item.phases) {
        if (phase.type !== 'tool_call') continue;
        counts.toolCalls++;
        if (phase.kind === undefined) counts.textToolCalls++;
        else counts.mappedToolCalls++;
      }
    }
  return counts;
}
