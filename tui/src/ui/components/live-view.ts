/**
 * The live part of the transcript: each agent's unfinished text, the tool calls still running, and
 * a spinner with the latest status while a run goes on. It is drawn every frame, so it is kept to
 * `maxRows` rows (counted after wrapping); what it cannot show is already, or soon, in the
 * scrollback.
 */
import { Box, Text, useAnimation } from 'ink';
import { createElement as h, type ReactNode } from 'react';
import { tailRows, visibleText } from '../live-text.ts';
import type { Transcript } from '../transcript.ts';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const TIPS = [
  'Esc stops the run',
  'messages typed now are sent when the run ends',
  'Ctrl+O prints the last tool output whole',
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
}

export function LiveView({ transcript, width, maxRows, cancelling, tips = true }: LiveViewProps): ReactNode {
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
  rows.push(h(Spinner, { key: 'spinner', status: transcript.status, cancelling, tips, width }));
  return h(Box, { flexDirection: 'column' }, ...rows);
}

function Spinner({
  status,
  cancelling,
  tips,
  width,
}: {
  status: string | undefined;
  cancelling: boolean;
  tips: boolean;
  width: number;
}) {
  const { frame, time } = useAnimation({ interval: 100 });
  const seconds = Math.floor(time / 1000);
  const tip = TIPS[Math.floor(time / TIP_MS) % TIPS.length] as string;
  const what = cancelling ? 'Stopping…' : status === undefined ? 'Working…' : visibleText(status);
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
