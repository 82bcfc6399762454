/**
 * The approval overlay's answers that edit (protocol §7.3.2): which hunks were chosen, the text of
 * the proposal for `$EDITOR`, and the answer a choice or a saved edit makes. Pure, so the overlay
 * only draws and the rules (SANTRA-APPROVE-027: every hunk is a plain allow, none a reject, an
 * unchanged text a plain allow) are tested without a terminal.
 *
 * The `approve` request carries the diff, not the proposed file: the proposal is rebuilt from the
 * file on disk and the hunks. Every context and removed line of the diff is checked against the
 * file first, so a file that changed since the diff was made (or whose lines the diff shows with
 * control characters made visible) is never rebuilt into something the agent did not propose.
 */
import type { ApproveParams, ApproveResult, FileDiff } from '#protocol';

type FileChange = Extract<ApproveParams, { kind: 'file_change' }>;
type Hunk = FileDiff['hunks'][number];

/**
 * The hunk ids a person may choose among: a created or modified file of more than one hunk, every
 * hunk with an id (a server before 0.3.0 sends none and takes no `hunks` answer). Undefined: the
 * change is allowed or rejected as a whole.
 */
export function choosableHunks(params: ApproveParams): readonly string[] | undefined {
  if (params.kind !== 'file_change') return undefined;
  if (params.operation !== 'modify' && params.operation !== 'create') return undefined;
  const ids = params.diff.hunks.map((hunk) => hunk.id);
  if (ids.length < 2 || ids.some((id) => id === undefined)) return undefined;
  return ids as string[];
}

/** What `e` opens: a created or modified file's proposed text, or a command line (not an escalation). */
export function editableAs(params: ApproveParams): 'file' | 'command' | undefined {
  if (params.kind === 'file_change')
    return params.operation === 'modify' || params.operation === 'create' ? 'file' : undefined;
  if (params.kind === 'command') return params.escalation === undefined ? 'command' : undefined;
  return undefined;
}

/**
 * The answer to allow the `chosen` hunks of `ids` (SANTRA-APPROVE-027): every hunk is a plain
 * allow, none a reject (nothing would be written), a strict subset an allow with `hunks`.
 */
export function allowChosen(ids: readonly string[], chosen: ReadonlySet<string>): ApproveResult {
  const picked = ids.filter((id) => chosen.has(id));
  if (picked.length === ids.length) return { decision: 'allow' };
  if (picked.length === 0) return { decision: 'reject' };
  return { decision: 'allow', hunks: picked };
}

/** The file on disk no longer matches the diff: the proposal cannot be rebuilt from it. */
export class ProposalMismatch extends Error {}

/**
 * The text of `oldText` with the hunks of `diff` that `applies` accepts applied (all of them by
 * default). Throws ProposalMismatch, naming the line, when a context or removed line of the diff is
 * not the file's line there.
 */
export function applyDiff(
  oldText: string,
  diff: FileDiff,
  path: string,
  applies: (hunk: Hunk) => boolean = () => true,
): string {
  const old = splitLines(oldText);
  // A file with CRLF line ends and no bare LF is shown without the CRs; its new lines get CRLF too.
  const eol =
    old.length > 0 &&
    old.every((line) => !line.endsWith('\n') || line.endsWith('\r\n')) &&
    old.some((line) => line.endsWith('\r\n'))
      ? '\r\n'
      : '\n';
  const bare = (line: string) => line.replace(eol === '\r\n' ? /\r?\n$/ : /\n$/, '');
  const out: string[] = [];
  let at = 0;
  for (const hunk of diff.hunks) {
    // An empty side starts after the line it names (unified diff); a non-empty one at it.
    const from = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1;
    if (from < at || from + hunk.oldLines > old.length) {
      throw new ProposalMismatch(`${path} is shorter than the diff says (it may have changed on disk)`);
    }
    out.push(...old.slice(at, from));
    let cursor = from;
    const kept = applies(hunk);
    for (const line of hunk.lines) {
      if (line.type === 'added') {
        if (kept) out.push(`${line.text}${eol}`);
        continue;
      }
      const actual = old[cursor] ?? '';
      if (bare(actual) !== line.text) {
        throw new ProposalMismatch(
          `line ${cursor + 1} of ${path} is not what the diff shows (the file changed on disk, or the line has characters the diff shows escaped)`,
        );
      }
      if (line.type === 'context' || !kept) out.push(actual);
      cursor += 1;
    }
    at = cursor;
  }
  out.push(...old.slice(at));
  const text = out.join('');
  // The diff marks a last added line without a newline ("\ No newline at end of file").
  return noNewlineAtEnd(diff) && text.endsWith(eol) && endsInAddedLine(diff, out.length, applies)
    ? text.slice(0, -eol.length)
    : text;
}

/** The lines of `text`, each with its line end. */
function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function noNewlineAtEnd(diff: FileDiff): boolean {
  return /\n\+[^\n]*\n\\ No newline at end of file\n?$/.test(diff.unifiedDiff);
}

/** Whether the new file ends in the last hunk's added line (so the marker is about that line). */
function endsInAddedLine(diff: FileDiff, lines: number, applies: (hunk: Hunk) => boolean): boolean {
  const last = diff.hunks.at(-1);
  if (last === undefined || !applies(last) || last.lines.at(-1)?.type !== 'added') return false;
  return last.newStart + last.newLines - 1 === lines;
}

/** What `e` opens in the editor, and how the saved text becomes an answer. */
export interface EditProposal {
  /** The text opened: the proposal with the chosen hunks, or the command line. */
  text: string;
  /** The name the temporary file gets (the file's own, so the editor knows its language). */
  name: string;
  /** The answer for the text the person saved. */
  answer(saved: string): ApproveResult;
}

/**
 * What `e` opens for `params`, with the `chosen` hunks (all when the change has no choice). `read`
 * gives the file's current text, undefined when it does not exist. Throws ProposalMismatch when the
 * file no longer matches the diff.
 */
export function editProposal(
  params: ApproveParams,
  chosen: ReadonlySet<string> | undefined,
  read: (path: string) => string | undefined,
): EditProposal {
  if (params.kind === 'command') {
    const shown = params.command;
    return {
      text: `${shown}\n`,
      name: 'command.sh',
      answer: (saved) => {
        const command = saved.replace(/\s+$/, '').replace(/^\s+/, '');
        return command === '' || command === shown ? { decision: 'allow' } : { decision: 'allow', command };
      },
    };
  }
  if (params.kind !== 'file_change' || editableAs(params) !== 'file') {
    throw new Error(`${params.kind} approvals cannot be edited`);
  }
  return fileProposal(params, chosen, read);
}

function fileProposal(
  params: FileChange,
  chosen: ReadonlySet<string> | undefined,
  read: (path: string) => string | undefined,
): EditProposal {
  const oldText = params.operation === 'create' ? '' : read(params.path);
  if (oldText === undefined) throw new ProposalMismatch(`${params.path} no longer exists`);
  const ids = choosableHunks(params);
  const all = applyDiff(oldText, params.diff, params.path);
  const partial = ids !== undefined && chosen !== undefined && ids.some((id) => !chosen.has(id));
  const text = partial
    ? applyDiff(oldText, params.diff, params.path, (hunk) => chosen.has(hunk.id ?? ''))
    : all;
  return {
    text,
    name: params.path.split('/').pop() || 'proposal',
    answer: (saved) => {
      if (saved === all) return { decision: 'allow' };
      // Saved as opened with some hunks left out: the same as answering with those hunks.
      if (partial && saved === text) return allowChosen(ids, chosen);
      return { decision: 'allow', content: saved };
    },
  };
}
