/**
 * The approval overlay: what an agent wants to change or run, and the keys to decide. A file
 * change shows its diff with line numbers and colours, cut to the rows there are ("… N more
 * lines"; PgUp/PgDn scroll it a page at a time, `e` prints the whole diff into the scrollback
 * above); a command shows exactly what runs
 * and where. Several requests (a swarm's agents) wait in one queue, each labelled with its agent.
 *
 * Keys that arrive in the first GUARD_MS after the overlay appears are dropped: they were typed
 * for what was on screen before, and must not answer a question the user has not seen.
 */
import type { ApproveParams, ApproveResult, FileDiff } from '#protocol';
import { Box, Text, useInput } from 'ink';
import { createElement as h, type ReactNode, useRef } from 'react';
import { KEYS, keyOf, pressed } from '../keybindings.ts';
import { edit, EMPTY_EDITOR, type EditorState } from '../line-editor.ts';
import { visibleText } from '../live-text.ts';
import { useKeyState } from './key-state.ts';
import { SingleLine } from './line-field.ts';

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
  /** `e`: print the whole diff above. */
  onPrint: () => void;
  guardMs?: number;
  now?: () => number;
}

interface DiffRow {
  text: string;
  colour?: string;
  dim?: boolean;
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
  const view = useRef({ room: 1, rows: 0 });
  const scroll = (by: number) =>
    scrolled.set(Math.max(0, Math.min(scrolled.get() + by, view.current.rows - view.current.room)));
  const early = () => now() - shownAt.current < (props.guardMs ?? GUARD_MS);
  const offered = offers(params);

  useInput((input, key) => {
    if (early()) return;
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
    if (pressed(KEYS.allow, input, key)) onAnswer({ decision: 'allow' });
    else if (offered.allowAll && pressed(KEYS.allowAll, input, key)) onAnswer({ decision: 'allow_all' });
    else if (pressed(KEYS.reject, input, key)) onAnswer({ decision: 'reject' });
    else if (offered.feedback && pressed(KEYS.feedback, input, key)) writing.set(EMPTY_EDITOR);
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
    body = diffRows(params.diff.hunks);
  } else {
    head.push(h(Text, { key: 'what' }, 'run a command'));
    body = [
      { text: `$ ${visibleText(params.command)}`, colour: 'yellow' },
      { text: `in ${visibleText(params.cwd)}`, dim: true },
    ];
  }
  const footer =
    feedback === undefined
      ? h(
          Text,
          { key: 'keys', wrap: 'truncate-end' },
          h(Text, { color: 'green' }, '[y]'),
          ' allow  ',
          offered.allowAll ? h(Text, { color: 'green' }, '[a]') : '',
          offered.allowAll ? ' allow all  ' : '',
          h(Text, { color: 'red' }, '[r/n]'),
          ' reject',
          offered.feedback ? h(Text, { color: 'yellow' }, '  [f]') : '',
          offered.feedback ? ' feedback' : '',
          params.kind === 'file_change' ? '  [e] whole diff' : '',
        )
      : h(
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
        );
  // Borders (2), the head, the footer (2 in feedback mode) and a "more" line.
  const room = Math.max(1, maxRows - 2 - head.length - (feedback === undefined ? 1 : 2) - 1);
  view.current = { room, rows: body.length };
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
    footer,
  );
}

/** The hunks as rows: old and new line numbers, the sign, the text; a gap between hunks. */
export function diffRows(hunks: FileDiff['hunks']): DiffRow[] {
  let widest = 1;
  for (const hunk of hunks)
    widest = Math.max(
      widest,
      String(Math.max(hunk.oldStart + hunk.oldLines, hunk.newStart + hunk.newLines)).length,
    );
  const number = (value: number | undefined) => (value === undefined ? '' : String(value)).padStart(widest);
  const rows: DiffRow[] = [];
  hunks.forEach((hunk, index) => {
    if (index > 0) rows.push({ text: '⋯', dim: true });
    for (const line of hunk.lines) {
      const sign = line.type === 'added' ? '+' : line.type === 'removed' ? '-' : ' ';
      const colour = line.type === 'added' ? 'green' : line.type === 'removed' ? 'red' : undefined;
      rows.push({
        text: `${number(line.oldLine)} ${number(line.newLine)} ${sign} ${visibleText(line.text)}`,
        ...(colour === undefined ? {} : { colour }),
      });
    }
  });
  return rows;
}
