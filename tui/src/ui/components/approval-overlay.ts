/**
 * The approval overlay: what an agent wants to change or run, and the keys to decide. A file
 * change shows its diff with line numbers and colours, cut to the rows there are ("… N more
 * lines"; PgUp/PgDn scroll it a page at a time, `p` prints the whole diff into the scrollback
 * above); a command shows exactly what runs
 * and where. Several requests (a swarm's agents) wait in one queue, each labelled with its agent.
 *
 * Approvals that edit (§7.3.2): a change of several hunks has a hunk cursor (↑/↓) and a toggle per
 * hunk (Space), and `y` then allows only the hunks kept; `e` opens the proposal (or the command)
 * in the user's editor and allows what they saved. The rules of the answer are in approval-edit.ts.
 *
 * Keys that arrive in the first GUARD_MS after the overlay appears are dropped: they were typed
 * for what was on screen before, and must not answer a question the user has not seen.
 */
import type { ApproveParams, ApproveResult, FileDiff } from '#protocol';
import { Box, Text, useInput } from 'ink';
import { createElement as h, type ReactNode, useRef } from 'react';
import { allowChosen, choosableHunks, editableAs } from '../approval-edit.ts';
import { editorCommand } from '../external-editor.ts';
import { KEYS, keyOf, pressed } from '../keybindings.ts';
import { edit, EMPTY_EDITOR, type EditorState } from '../line-editor.ts';
import { visibleText } from '../live-text.ts';
import { useKeyState } from './key-state.ts';
import { SingleLine } from './line-field.ts';
import { isOtherApproval, otherApprovalLines, otherApprovalTitle } from '../../client/other-approvals.ts';

export const GUARD_MS = 250;

/** The toolName of the approvals `session/undo` asks for (server: runtime/undo.ts). */
const UNDO_TOOL = 'session/undo';

/**
 * The answers that apply to a request: "allow all" never covers a protected location (it is asked
 * every time), and an undo's question is about putting a file back, with no agent to give
 * feedback to.
 */
export function offers(params: ApproveParams): { allowAll: boolean; feedback: boolean } {
  return { allowAll: params.protected !== true, feedback: params.toolName !== UNDO_TOOL };
}

export interface ApprovalOverlayProps {
  params: ApproveParams;
  /** Position in the queue (1-based) and its length. */
  position: number;
  queued: number;
  width: number;
  /** Rows the overlay may use. */
  maxRows: number;
  onAnswer: (result: ApproveResult) => void;
  /** `p`: print the whole diff above. */
  onPrint: () => void;
  /**
   * `e`: opens the proposal, with the `chosen` hunks (undefined: all), in the user's editor, and
   * resolves with the answer for what was saved, or a note saying why nothing was answered (the
   * overlay shows it and stays). Absent: `e` is not offered.
   */
  onEdit?: (chosen: ReadonlySet<string> | undefined) => Promise<ApproveResult | { note: string }>;
  guardMs?: number;
  now?: () => number;
}

interface DiffRow {
  text: string;
  colour?: string;
  dim?: boolean;
  bold?: boolean;
  /** The first row of a hunk (with a hunk choice): where the cursor scrolls to. */
  head?: boolean;
}

/** The hunk cursor and the hunks kept, when the change lets its hunks be chosen. */
export interface HunkChoice {
  cursor: number;
  kept: ReadonlySet<string>;
}

export function ApprovalOverlay(props: ApprovalOverlayProps): ReactNode {
  const { params, onAnswer, onPrint, width, maxRows } = props;
  const now = props.now ?? Date.now;
  const shownAt = useRef(now());
  const writing = useKeyState<EditorState | undefined>(undefined);
  const scrolled = useKeyState(0);
  const feedback = writing.value;
  const offset = scrolled.value;
  /** Set below, once the rows are known: the diff rows that fit, and how many there are. */
  const view = useRef<{ room: number; rows: number; heads: readonly number[] }>({
    room: 1,
    rows: 0,
    heads: [],
  });
  const scroll = (by: number) =>
    scrolled.set(Math.max(0, Math.min(scrolled.get() + by, view.current.rows - view.current.room)));
  const early = () => now() - shownAt.current < (props.guardMs ?? GUARD_MS);
  const offered = offers(params);
  const ids = choosableHunks(params);
  const choice = useKeyState<HunkChoice | undefined>(
    ids === undefined ? undefined : { cursor: 0, kept: new Set(ids) },
  );
  /** Set while the editor runs (keys wait), and the note left when an edit answered nothing. */
  const editing = useKeyState<'open' | { note: string } | undefined>(undefined);
  const canEdit = props.onEdit !== undefined && editableAs(params) !== undefined;
  const chosen = choice.value;
  const partial = chosen !== undefined && ids !== undefined && chosen.kept.size < ids.length;

  const moveTo = (cursor: number) => {
    const now = choice.get();
    if (now === undefined || ids === undefined) return;
    const next = Math.max(0, Math.min(cursor, ids.length - 1));
    choice.set({ ...now, cursor: next });
    // Bring the hunk's first row into view.
    const row = view.current.heads[next] ?? 0;
    if (row < scrolled.get() || row >= scrolled.get() + view.current.room) scrolled.set(row);
  };
  const toggle = () => {
    const now = choice.get();
    const id = ids?.[now?.cursor ?? -1];
    if (now === undefined || id === undefined) return;
    const kept = new Set(now.kept);
    if (kept.has(id)) kept.delete(id);
    else kept.add(id);
    choice.set({ ...now, kept });
  };
  const allow = () => {
    const now = choice.get();
    onAnswer(now === undefined || ids === undefined ? { decision: 'allow' } : allowChosen(ids, now.kept));
  };
  const openEditor = () => {
    if (props.onEdit === undefined) return;
    editing.set('open');
    const kept = choice.get()?.kept;
    void props.onEdit(kept).then(
      (outcome) => {
        if ('note' in outcome) editing.set({ note: outcome.note });
        else onAnswer(outcome);
      },
      (error: unknown) => editing.set({ note: `The editor failed: ${(error as Error).message}` }),
    );
  };

  useInput((input, key) => {
    if (early()) return;
    if (editing.get() === 'open') return;
    const text = writing.get();
    if (text !== undefined) {
      if (pressed(KEYS.back, input, key)) writing.set(undefined);
      else if (pressed(KEYS.submit, input, key)) {
        const said = text.text.trim();
        onAnswer(said === '' ? { decision: 'reject' } : { decision: 'feedback', feedback: said });
      } else {
        const next = edit(text, input, key, false);
        if (next !== undefined) writing.set(next);
      }
      return;
    }
    if (pressed(KEYS.pageUp, input, key)) return scroll(-view.current.room);
    if (pressed(KEYS.pageDown, input, key)) return scroll(view.current.room);
    if (key.ctrl || key.meta) return;
    if (editing.get() !== undefined) editing.set(undefined);
    const cursor = choice.get()?.cursor ?? 0;
    // "Allow all" applies every hunk: not offered while some are left out, so it cannot undo a choice.
    const allowAll = offered.allowAll && !(ids !== undefined && (choice.get()?.kept.size ?? 0) < ids.length);
    if (pressed(KEYS.allow, input, key)) allow();
    else if (allowAll && pressed(KEYS.allowAll, input, key)) onAnswer({ decision: 'allow_all' });
    else if (pressed(KEYS.reject, input, key)) onAnswer({ decision: 'reject' });
    else if (offered.feedback && pressed(KEYS.feedback, input, key)) writing.set(EMPTY_EDITOR);
    else if (ids !== undefined && pressed(KEYS.hunkNext, input, key)) moveTo(cursor + 1);
    else if (ids !== undefined && pressed(KEYS.hunkPrevious, input, key)) moveTo(cursor - 1);
    else if (ids !== undefined && pressed(KEYS.hunkToggle, input, key)) toggle();
    else if (canEdit && pressed(KEYS.editProposal, input, key)) openEditor();
    else if (pressed(KEYS.expandDiff, input, key)) onPrint();
  });

  const inner = Math.max(10, width - 4);
  const head: ReactNode[] = [];
  const undo = params.toolName === UNDO_TOOL;
  // An undo asks when the file changed since the agent's change (or is protected): say that, not
  // the method that asks.
  const who = undo
    ? params.protected === true
      ? 'Undo · put back a file in a protected location?'
      : 'Undo · this file changed since the agent wrote it: put it back anyway?'
    : params.kind === 'trust'
      ? 'Trust · a project wants to run code on your machine'
      : `Approval · ${visibleText(`${params.agentId} · ${params.toolName}`)}`;
  const queue = props.queued > 1 ? ` · ${props.position} of ${props.queued} waiting` : '';
  head.push(h(Text, { key: 'who', bold: true, wrap: 'truncate-end' }, `${who}${queue}`));
  if (params.kind === 'command' && params.escalation !== undefined) {
    head.push(
      h(
        Text,
        { key: 'escalation', color: 'yellow', wrap: 'wrap' },
        `! outside the sandbox, with your full rights: ${visibleText(params.escalation.reason)}`,
      ),
    );
  } else if (params.protected === true) {
    head.push(
      h(
        Text,
        { key: 'protected', color: 'yellow', wrap: 'truncate-end' },
        `! protected location (${visibleText(params.protectedReason ?? 'protected')}): asked every time`,
      ),
    );
  }
  let body: DiffRow[];
  if (params.kind === 'file_change') {
    const { added, removed, replacement } = params.diff;
    head.push(
      h(
        Text,
        { key: 'what', wrap: 'truncate-end' },
        `${params.operation} `,
        h(Text, { bold: true }, visibleText(params.path)),
        params.destination === undefined ? '' : ' → ',
        params.destination === undefined ? '' : h(Text, { bold: true }, visibleText(params.destination)),
        h(Text, { color: 'green' }, `  +${added}`),
        h(Text, { color: 'red' }, ` −${removed}`),
        replacement ? h(Text, { dimColor: true }, ' (whole file)') : '',
      ),
    );
    body = diffRows(params.diff.hunks, chosen);
  } else if (isOtherApproval(params)) {
    head.push(h(Text, { key: 'what', wrap: 'wrap' }, visibleText(otherApprovalTitle(params))));
    body = otherApprovalLines(params).map((line) => ({ text: visibleText(line) }));
  } else {
    head.push(h(Text, { key: 'what' }, 'run a command'));
    body = [
      { text: `$ ${visibleText(params.command)}`, colour: 'yellow' },
      { text: `in ${visibleText(params.cwd)}`, dim: true },
    ];
  }
  const footer: ReactNode[] =
    feedback === undefined
      ? answerKeys(params, { offered, partial, ids, chosen, canEdit })
      : [
          h(
            Box,
            { key: 'feedback', flexDirection: 'column' },
            h(
              Box,
              null,
              h(Text, { color: 'yellow' }, 'Feedback for the agent: '),
              h(SingleLine, { state: feedback }),
            ),
            h(
              Text,
              { dimColor: true },
              `${keyOf('submit')}: reject with this feedback · ${keyOf('back')}: back`,
            ),
          ),
        ];
  const state = editing.value;
  if (state !== undefined) {
    footer.unshift(
      h(
        Text,
        { key: 'note', color: 'yellow', wrap: 'wrap' },
        state === 'open' ? `Editing in ${editorName()}…` : visibleText(state.note),
      ),
    );
  }
  // Borders (2), the head, the footer (2 in feedback mode) and a "more" line.
  const footerRows = feedback === undefined ? footer.length : footer.length + 1;
  const room = Math.max(1, maxRows - 2 - head.length - footerRows - 1);
  const heads = body.flatMap((row, index) => (row.head === true ? [index] : []));
  view.current = { room, rows: body.length, heads };
  const first = Math.max(0, Math.min(offset, body.length - room));
  const shown = body.slice(first, first + room);
  const more = body.length - first - shown.length;
  const place = [first > 0 ? `↑ ${first} lines above` : '', more > 0 ? `… ${more} more lines` : ''].filter(
    (part) => part !== '',
  );
  return h(
    Box,
    {
      flexDirection: 'column',
      borderStyle: 'round',
      borderColor: params.protected === true ? 'yellow' : 'magenta',
      paddingX: 1,
      width,
    },
    ...head,
    ...shown.map((row, index) =>
      h(
        Text,
        {
          key: `d${index}`,
          wrap: 'truncate-end',
          ...(row.colour === undefined ? {} : { color: row.colour }),
          dimColor: row.dim === true,
          bold: row.bold === true,
        },
        row.text.length > inner * 2 ? row.text.slice(0, inner * 2) : row.text,
      ),
    ),
    place.length > 0
      ? h(
          Text,
          { key: 'more', dimColor: true, wrap: 'truncate-end' },
          `${place.join(' · ')} (${keyOf('pageUp')}/${keyOf('pageDown')}: scroll · ${keyOf('expandDiff')}: print the whole diff above)`,
        )
      : null,
    ...footer,
  );
}

/** The editor `e` runs, as the note while it is open names it. */
function editorName(): string {
  return editorCommand(process.env).split(/\s+/)[0] ?? 'vi';
}

/**
 * The key hints under the diff: the answers on the first row (`y` says how many hunks it allows
 * when some are left out, and `a` is not offered then), the hunk keys and `e` on a second row
 * when they apply.
 */
function answerKeys(
  params: ApproveParams,
  how: {
    offered: { allowAll: boolean; feedback: boolean };
    partial: boolean;
    ids: readonly string[] | undefined;
    chosen: HunkChoice | undefined;
    canEdit: boolean;
  },
): ReactNode[] {
  const { offered, partial, ids, chosen, canEdit } = how;
  const kept = ids === undefined || chosen === undefined ? 0 : ids.filter((id) => chosen.kept.has(id)).length;
  const allowAll = offered.allowAll && !partial;
  const allowWhat = !partial
    ? ' allow'
    : kept === 0
      ? ' allow no hunk (reject)'
      : ` allow ${kept} of ${ids?.length ?? 0} hunks`;
  const rows: ReactNode[] = [
    h(
      Text,
      { key: 'keys', wrap: 'truncate-end' },
      h(Text, { color: 'green' }, `[${keyOf('allow')}]`),
      `${allowWhat}  `,
      allowAll ? h(Text, { color: 'green' }, `[${keyOf('allowAll')}]`) : '',
      allowAll ? ' allow all  ' : '',
      h(Text, { color: 'red' }, '[r/n]'),
      ' reject',
      offered.feedback ? h(Text, { color: 'yellow' }, `  [${keyOf('feedback')}]`) : '',
      offered.feedback ? ' feedback' : '',
      ids === undefined && canEdit ? `  [${keyOf('editProposal')}] edit` : '',
      params.kind === 'file_change' && ids === undefined ? `  [${keyOf('expandDiff')}] whole diff` : '',
    ),
  ];
  if (ids !== undefined) {
    rows.push(
      h(
        Text,
        { key: 'hunk-keys', wrap: 'truncate-end', dimColor: true },
        `[${keyOf('hunkPrevious')}/${keyOf('hunkNext')}] hunk  [${keyOf('hunkToggle')}] apply or not`,
        canEdit ? `  [${keyOf('editProposal')}] edit` : '',
        `  [${keyOf('expandDiff')}] whole diff`,
      ),
    );
  }
  return rows;
}

/**
 * The hunks as rows: old and new line numbers, the sign, the text; a gap between hunks. With a
 * hunk choice, each hunk starts with a row that says whether it is applied (the cursor on it
 * marked), and the lines of a hunk left out are dimmed.
 */
export function diffRows(hunks: FileDiff['hunks'], choice?: HunkChoice): DiffRow[] {
  let widest = 1;
  for (const hunk of hunks)
    widest = Math.max(
      widest,
      String(Math.max(hunk.oldStart + hunk.oldLines, hunk.newStart + hunk.newLines)).length,
    );
  const number = (value: number | undefined) => (value === undefined ? '' : String(value)).padStart(widest);
  const rows: DiffRow[] = [];
  hunks.forEach((hunk, index) => {
    const kept = choice === undefined || choice.kept.has(hunk.id ?? '');
    if (choice !== undefined) {
      const here = choice.cursor === index;
      rows.push({
        text: `${here ? '›' : ' '} [${kept ? 'x' : ' '}] hunk ${index + 1}/${hunks.length}  @@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@${kept ? '' : '  (not applied)'}`,
        colour: 'cyan',
        bold: here,
        head: true,
      });
    } else if (index > 0) rows.push({ text: '⋯', dim: true });
    for (const line of hunk.lines) {
      const sign = line.type === 'added' ? '+' : line.type === 'removed' ? '-' : ' ';
      const colour = !kept
        ? undefined
        : line.type === 'added'
          ? 'green'
          : line.type === 'removed'
            ? 'red'
            : undefined;
      rows.push({
        text: `${number(line.oldLine)} ${number(line.newLine)} ${sign} ${visibleText(line.text)}`,
        ...(colour === undefined ? {} : { colour }),
        ...(kept ? {} : { dim: true }),
      });
    }
  });
  return rows;
}
