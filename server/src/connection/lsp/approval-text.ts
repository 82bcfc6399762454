/**
 * What an approval says in an editor that has a few lines for it: the action, the path or the
 * command, and an excerpt of the diff as a reader of code wants it — the changed lines marked `-`
 * and `+`, a line or two of the code around them, and line numbers of the file as it is now (the
 * one open in the editor), so each can be looked up before answering. A line the change adds has
 * no number yet, except in a file it creates, whose lines are numbered as they will be. The whole
 * diff goes to the editor's log.
 */
import type { ApproveParams, FileDiff } from '#protocol';
import { isOtherApproval, otherApprovalLines, otherApprovalTitle } from '../other-approvals.ts';

/** Lines of the diff shown in the question itself (changed and context); the rest is counted. */
const EXCERPT_LINES = 12;
/** Unchanged lines shown on each side of a change. */
const CONTEXT_LINES = 2;
const LINE_CHARS = 120;
/** Stands for unchanged lines left out between two parts of the excerpt. */
const GAP = '⋯';

export function approvalSummary(params: ApproveParams): string {
  const lines = isOtherApproval(params)
    ? [otherApprovalTitle(params), ...otherApprovalLines(params, EXCERPT_LINES).map(clip)]
    : [headline(params), ...excerpt(params)];
  if (params.protected === true) {
    lines.push(
      `Protected location${params.protectedReason === undefined ? '' : `: ${params.protectedReason}`}`,
    );
  }
  return lines.join('\n');
}

/** Everything the approval carries, for the log: the unified diff, or the command and its cwd. */
export function approvalDetail(params: ApproveParams): string {
  if (isOtherApproval(params))
    return [otherApprovalTitle(params), ...otherApprovalLines(params, Number.POSITIVE_INFINITY)].join('\n');
  return params.kind === 'command'
    ? `${headline(params)}\n${params.cwd}$ ${params.command}`
    : `${headline(params)}\n${params.diff.unifiedDiff}`;
}

/** The approvals with a diff or a command; the others are other-approvals.ts's. */
type FileOrCommand = Extract<ApproveParams, { kind: 'file_change' | 'command' }>;

/** The `toolName` of the approvals santra.undo asks for (protocol §10.7). */
const UNDO_TOOL = 'session/undo';

/** The first line of the question: what Santra wants to do. */
function headline(params: FileOrCommand): string {
  if (params.kind === 'command') return `Santra wants to run: ${clip(params.command)} (in ${params.cwd})`;
  // An undo asks only about a file changed since Santra's change: putting it back loses that.
  const who = params.toolName === UNDO_TOOL ? 'santra.undo, on a file changed since, wants' : 'Santra wants';
  if (params.operation === 'move') return `${who} to move ${params.path} to ${params.destination ?? '?'}`;
  return `${who} to ${params.operation} ${params.path} (+${params.diff.added} -${params.diff.removed})`;
}

interface Numbered {
  /** Empty for a line that is not in the file yet. */
  line: string;
  mark: ' ' | '-' | '+';
  text: string;
}

/** The diff's changed lines with CONTEXT_LINES of context, numbered (see the top of the file). */
function excerpt(params: FileOrCommand): string[] {
  if (params.kind === 'command') return [];
  const parts = shownParts(params.diff, params.operation === 'create');
  const changed = parts.flat().filter((line) => line.mark !== ' ').length;
  const width = Math.max(0, ...parts.flat().map((line) => line.line.length));
  const out: string[] = [];
  let shownChanged = 0;
  for (const [index, part] of parts.entries()) {
    if (index > 0) out.push(GAP);
    for (const line of part) {
      if (out.length >= EXCERPT_LINES) break;
      out.push(`${line.line.padStart(width)} ${line.mark} ${clip(line.text)}`);
      if (line.mark !== ' ') shownChanged++;
    }
    if (out.length >= EXCERPT_LINES) break;
  }
  if (shownChanged < changed) out.push(`… ${changed - shownChanged} more changed lines`);
  return out;
}

/**
 * Runs of lines to show: each change with its context, a run broken where unchanged lines are
 * left out. `created`: there is no file yet, so lines are numbered as they will be.
 */
function shownParts(diff: FileDiff, created: boolean): Numbered[][] {
  const parts: Numbered[][] = [];
  for (const hunk of diff.hunks) {
    const lines = hunk.lines;
    const near = lines.map((_, index) =>
      lines
        .slice(Math.max(0, index - CONTEXT_LINES), index + CONTEXT_LINES + 1)
        .some((line) => line.type !== 'context'),
    );
    let part: Numbered[] = [];
    lines.forEach((line, index) => {
      if (!near[index]) {
        if (part.length > 0) parts.push(part);
        part = [];
        return;
      }
      const number = created ? line.newLine : line.oldLine;
      part.push({
        line: number === undefined ? '' : String(number),
        mark: line.type === 'added' ? '+' : line.type === 'removed' ? '-' : ' ',
        text: line.text,
      });
    });
    if (part.length > 0) parts.push(part);
  }
  return parts;
}

function clip(text: string): string {
  return text.length > LINE_CHARS ? `${text.slice(0, LINE_CHARS - 1)}…` : text;
}
