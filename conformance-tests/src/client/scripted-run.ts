/**
 * What every scripted run is made of: its ids, the phases it streams (with `seq` counting up from
 * 1, as a new session's first run does) and the prompt result that ends it.
 */
import type { RunContext } from './scripted-peer.ts';

export const RUN = { runId: 'run_1', sessionId: 'ses_1' };

export const USAGE = { inputTokens: 120, outputTokens: 12, cacheReadTokens: 0, cacheWriteTokens: 0 };

export function result(status: string, output: string, extra: Record<string, unknown> = {}) {
  return {
    result: {
      ...RUN,
      status,
      output,
      usage: USAGE,
      costUsd: 0.0001,
      sessionUsage: USAGE,
      sessionCostUsd: 0.0001,
      ...extra,
    },
  };
}

/** Sends phases with `seq` counting up from 1, as a new session's first run does. */
export type Send = ReturnType<typeof phases>;

/** Ends the run: its `complete` phase, then the prompt's result (`extra` goes into both). */
export function ended(send: Send, status: string, output: string, extra: Record<string, unknown> = {}) {
  send('complete', { status, output, ...extra });
  return result(status, output, extra);
}

/** Streams `output` as the answer and ends the run with it. */
export function answered(send: Send, output: string) {
  send('text', { text: output });
  return ended(send, 'completed', output);
}

export function phases(run: RunContext) {
  let seq = 0;
  return (type: string, fields: Record<string, unknown>, agentId = 'orchestrator') =>
    run.notify('phase', { ...RUN, agentId, seq: ++seq, type, ...fields });
}

/** Resolves after `ms`, without keeping the process alive for it. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
