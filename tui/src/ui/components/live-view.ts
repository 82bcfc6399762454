/**
 * The live part of the transcript: each agent's unfinished text, the tool calls still running, and
 * a spinner with the latest status while a run goes on. It is drawn every frame, so it is kept to
 * `maxRows` rows (counted after wrapping); what it cannot show is already, or soon, in the
 * scrollback.
 *
 * Its height changes as seldom as it can: a live part that grows or shrinks by a row moves the
 * composer and the ChromeBar below it, which Ink then writes again whole, while a frame that moves
 * nothing writes only the rows that changed. So while an answer streams, its text has the rows a
 * paragraph being written may take (PARAGRAPH_LIVE_ROWS) from the start, and the live part
 * shrinks only when entries were printed above it (Ink writes the whole live part again then).
 */
import { Box, Text, useAnimation } from 'ink';
import { createElement as h, type ReactNode, useRef } from 'react';
import { tailRows, visibleText } from '../live-text.ts';
import { keyOf } from '../keybindings.ts';
import { PARAGRAPH_LIVE_ROWS } from '../markdown-blocks.ts';
import type { Transcript } from '../transcript.ts';
import { SPIN_MS } from '../ui-state.ts';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const TIPS = [
  `${keyOf('abort')} stops the run`,
  'messages typed now are sent when the run ends',
  `${keyOf('expandOutput')} prints the last tool output whole`,
  '/model switches the model',
  '/export writes the transcript to a file',
  '/resume continues an earlier session',
];
const TIP_MS = 8000;

export interface LiveViewProps {
  transcript: Transcript;
  width: number;
  /** Rows this view may use; it never draws more. */
  maxRows: number;
  cancelling: boolean;
  /** Rotating tips beside the spinner (false in the replay viewer, where they do not apply). */
  tips?: boolean;
  /**
   * The clock of the frame (UiState.now, the transcript's clock): the spinner moves with the
   * frames. Absent (the replay viewer), the spinner has a timer of its own.
   */
  now?: number;
}

export function LiveView({
  transcript,
  width,
  maxRows,
  cancelling,
  tips = true,
  now,
}: LiveViewProps): ReactNode {
  /** The most rows above the spinner since entries were last printed (transcript.nextId moved). */
  const tallest = useRef({ nextId: transcript.nextId, rows: 0 });
  if (!transcript.running || maxRows <= 0) return null;
  const rows: ReactNode[] = [];
  let budget = maxRows - 1; // the spinner's row
  const tools = [...transcript.tools.values()];
  const toolRows = Math.min(tools.length, Math.max(0, Math.floor(budget / 2)));
  budget -= toolRows;
  const text: { depth: number; line: string; thinking: boolean }[] = [];
  for (const agent of transcript.agents.values()) {
    const indent = agent.depth * 2;
    if (agent.thinking !== '' && agent.markdown.text === '') {
      const last = tailRows(agent.thinking, width - indent - 2, 1).rows[0] ?? '';
      text.push({ depth: agent.depth, line: `✻ ${last}`, thinking: true });
    }
    if (agent.markdown.text !== '') {
      for (const line of tailRows(agent.markdown.text, width - indent, budget).rows) {
        text.push({ depth: agent.depth, line, thinking: false });
      }
    }
  }
  for (const [index, row] of text.slice(-Math.max(0, budget)).entries()) {
    rows.push(
      h(
        Box,
        { key: `t${index}`, paddingLeft: row.depth * 2 },
        h(Text, { wrap: 'truncate-end', dimColor: row.thinking, italic: row.thinking }, row.line),
      ),
    );
  }
  const shownTools = tools.length > toolRows ? tools.slice(0, Math.max(0, toolRows - 1)) : tools;
  for (const tool of shownTools) {
    rows.push(
      h(
        Box,
        { key: `c${tool.toolCallId}`, paddingLeft: tool.depth * 2 },
        h(Text, { wrap: 'truncate-end' }, h(Text, { color: 'yellow' }, '… '), visibleText(tool.summary)),
      ),
    );
  }
  if (shownTools.length < tools.length && toolRows > 0) {
    rows.push(
      h(Text, { key: 'more', dimColor: true }, `  and ${tools.length - shownTools.length} more running`),
    );
  }
  if (tallest.current.nextId !== transcript.nextId) tallest.current = { nextId: transcript.nextId, rows: 0 };
  const streaming = text.some((row) => !row.thinking) ? PARAGRAPH_LIVE_ROWS : 0;
  const height = Math.min(maxRows - 1, Math.max(tallest.current.rows, rows.length, streaming));
  tallest.current.rows = height;
  while (rows.length < height) rows.push(h(Text, { key: `pad${rows.length}` }, ' '));
  const spinner = {
    key: 'spinner',
    status: transcript.status,
    notice: transcript.notice,
    cancelling,
    tips,
    width,
  };
  rows.push(
    now === undefined
      ? h(TimedSpinner, spinner)
      : h(Spinner, { ...spinner, time: Math.max(0, now - transcript.startedAt) }),
  );
  return h(Box, { flexDirection: 'column' }, ...rows);
}

interface SpinnerProps {
  status: string | undefined;
  /** A warning that replaces the status while it lasts (retries), drawn in yellow. */
  notice: string | undefined;
  cancelling: boolean;
  tips: boolean;
  width: number;
}

/** The spinner on a timer of its own (ms since it appeared). */
function TimedSpinner(props: SpinnerProps) {
  const { time } = useAnimation({ interval: SPIN_MS });
  return h(Spinner, { ...props, time });
}

/** The spinner at `time` ms into the run. */
function Spinner({ status, notice, cancelling, tips, width, time }: SpinnerProps & { time: number }) {
  const frame = Math.floor(time / SPIN_MS);
  const seconds = Math.floor(time / 1000);
  const tip = TIPS[Math.floor(time / TIP_MS) % TIPS.length] as string;
  const what = cancelling
    ? 'Stopping…'
    : notice !== undefined
      ? h(Text, { color: 'yellow' }, visibleText(notice))
      : status === undefined
        ? 'Working…'
        : visibleText(status);
  return h(
    Box,
    { width },
    h(
      Text,
      { wrap: 'truncate-end' },
      h(Text, { color: 'magenta' }, `${SPINNER[frame % SPINNER.length]} `),
      what,
      h(Text, { dimColor: true }, tips ? ` (${seconds}s · ${tip})` : ` (${seconds}s)`),
    ),
  );
}
