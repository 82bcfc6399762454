/**
 * What an approval says in an editor that has a line or two for it: the action, the path or the
 * command, and a compact +/- excerpt of the diff. The whole diff goes to the editor's log.
 */
import type { ApproveParams } from '#protocol';

/** Changed lines shown in the question itself; the rest is counted. */
const EXCERPT_LINES = 8;
const LINE_CHARS = 120;

export function approvalSummary(params: ApproveParams): string {
  const lines = [headline(params), ...excerpt(params)];
  if (params.protected === true) {
    lines.push(
      `Protected location${params.protectedReason === undefined ? '' : `: ${params.protectedReason}`}`,
    );
  }
  return lines.join('\n');
}

/** Everything the approval carries, for the log: the unified diff, or the command and its cwd. */
export function approvalDetail(params: ApproveParams): string {
  return params.kind === 'command'
    ? `${headline(params)}\n${params.cwd}$ ${params.command}`
    : `${headline(params)}\n${params.diff.unifiedDiff}`;
}

function headline(params: ApproveParams): string {
  if (params.kind === 'command') return `Santra wants to run: ${clip(params.command)} (in ${params.cwd})`;
  if (params.operation === 'move')
    return `Santra wants to move ${params.path} to ${params.destination ?? '?'}`;
  return `Santra wants to ${params.operation} ${params.path} (+${params.diff.added} -${params.diff.removed})`;
}

function excerpt(params: ApproveParams): string[] {
  if (params.kind === 'command') return [];
  const changed = params.diff.hunks
    .flatMap((hunk) => hunk.lines)
    .filter((line) => line.type !== 'context')
    .map((line) => `${line.type === 'added' ? '+' : '-'}${clip(line.text)}`);
  if (changed.length <= EXCERPT_LINES) return changed;
  return [...changed.slice(0, EXCERPT_LINES), `… ${changed.length - EXCERPT_LINES} more changed lines`];
}

function clip(text: string): string {
  return text.length > LINE_CHARS ? `${text.slice(0, LINE_CHARS - 1)}…` : text;
}
