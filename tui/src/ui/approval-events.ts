/**
 * What the approvals and questions queue (interactions.ts) adds to the transcript: an answered
 * approval on its tool's row, and the whole diff or command the overlay's `p` prints. Pure: the
 * controller dispatches the events.
 */
import type { FileDiff } from '#protocol';
import type { Answered, Interaction } from './interactions.ts';
import type { TranscriptEvent } from './transcript.ts';
import { isOtherApproval, otherApprovalLines, otherApprovalTitle } from '../client/other-approvals.ts';

/** An approval answered: its feedback is shown with the tool's row, an allowed diff kept for Ctrl+O. */
export function approvalEvent({ params, result }: Answered): TranscriptEvent {
  const allowed = result.decision === 'allow' || result.decision === 'allow_all';
  return {
    type: 'approval',
    toolCallId: params.toolCallId ?? '',
    ...(result.decision === 'feedback' ? { feedback: result.feedback } : {}),
    ...(allowed && params.kind === 'file_change' && !('content' in result && result.content !== undefined)
      ? { diff: appliedDiff(params.diff, result.decision === 'allow' ? result.hunks : undefined) }
      : {}),
  };
}

/**
 * The diff Ctrl+O shows for an allowed change: the hunks that were applied (§7.3.2), not the ones
 * the user left out. (An edited version has no diff here: the tool's result says it was edited.)
 */
function appliedDiff(diff: FileDiff, hunks: readonly string[] | undefined): string[] {
  const lines = diff.unifiedDiff.split('\n');
  if (hunks === undefined) return lines;
  const out: string[] = [];
  let hunk = -1;
  for (const line of lines) {
    if (line.startsWith('@@ ')) hunk += 1;
    const id = diff.hunks[hunk]?.id;
    if (hunk < 0 || (id !== undefined && hunks.includes(id))) out.push(line);
  }
  return out;
}

/**
 * The approval overlay's `p`: the whole diff (or command), printed above into the scrollback;
 * undefined for a question, which has nothing more to show.
 */
export function printedInteraction(interaction: Interaction): TranscriptEvent | undefined {
  if (interaction.kind !== 'approve') return undefined;
  const { params } = interaction;
  const lines =
    params.kind === 'file_change'
      ? params.diff.unifiedDiff.split('\n')
      : isOtherApproval(params)
        ? otherApprovalLines(params)
        : [`$ ${params.command}`, `in ${params.cwd}`];
  return {
    type: 'entry',
    entry: {
      kind: 'block',
      title:
        params.kind === 'file_change'
          ? params.path
          : isOtherApproval(params)
            ? otherApprovalTitle(params)
            : 'command',
      lines,
      diff: params.kind === 'file_change',
    },
  };
}
