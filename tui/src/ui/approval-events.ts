/**
 * What the approvals and questions queue (interactions.ts) adds to the transcript: an answered
 * approval on its tool's row, and the whole diff or command the overlay's `e` prints. Pure: the
 * controller dispatches the events.
 */
import type { Answered, Interaction } from './interactions.ts';
import type { TranscriptEvent } from './transcript.ts';

/** An approval answered: its feedback is shown with the tool's row, an allowed diff kept for Ctrl+O. */
export function approvalEvent({ params, result }: Answered): TranscriptEvent {
  const allowed = result.decision === 'allow' || result.decision === 'allow_all';
  return {
    type: 'approval',
    toolCallId: params.toolCallId,
    ...(result.decision === 'feedback' ? { feedback: result.feedback } : {}),
    ...(allowed && params.kind === 'file_change' ? { diff: params.diff.unifiedDiff.split('\n') } : {}),
  };
}

/**
 * The approval overlay's `e`: the whole diff (or command), printed above into the scrollback;
 * undefined for a question, which has nothing more to show.
 */
export function printedInteraction(interaction: Interaction): TranscriptEvent | undefined {
  if (interaction.kind !== 'approve') return undefined;
  const { params } = interaction;
  const lines =
    params.kind === 'file_change'
      ? params.diff.unifiedDiff.split('\n')
      : [`$ ${params.command}`, `in ${params.cwd}`];
  return {
    type: 'entry',
    entry: {
      kind: 'block',
      title: params.kind === 'file_change' ? params.path : 'command',
      lines,
      diff: params.kind === 'file_change',
    },
  };
}
