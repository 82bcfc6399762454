/**
 * One finished transcript entry, as <Static> prints it once into the scrollback. Markdown is
 * rendered here, the one time the entry is drawn.
 */
import { Box, Text, useWindowSize } from 'ink';
import { createElement as h, type ReactNode } from 'react';
import { visibleText, wrapStyled } from '../live-text.ts';
import { cachedShare, formatCost, formatTokens } from '../command-text.ts';
import { type Entry, runEnd, type ToolStatus } from '../transcript.ts';

export const TOOL_MARK: Record<ToolStatus, { mark: string; color: string }> = {
  ok: { mark: '✓', color: 'green' },
  error: { mark: '✗', color: 'red' },
  rejected: { mark: '⊘', color: 'yellow' },
  cancelled: { mark: '◌', color: 'gray' },
};

const THINKING_LINES = 3;

let renderMarkdown: ((text: string) => string) | undefined;

/**
 * Loads the Markdown renderer (marked, marked-terminal, highlight.js: the largest part of the UI),
 * after the first frame rather than before it. Until it is loaded, answers print as plain text.
 */
export async function loadMarkdown(): Promise<void> {
  renderMarkdown ??= (await import('../markdown.ts')).renderMarkdown;
}

const indented = (depth: number, child: ReactNode) => h(Box, { paddingLeft: depth * 2 }, child);

export function EntryView({ entry }: { entry: Entry }): ReactNode {
  switch (entry.kind) {
    case 'user':
      return h(
        Box,
        { marginTop: 1 },
        h(Text, { color: 'cyan', bold: true }, '› '),
        h(Text, { bold: true }, visibleText(entry.text)),
      );
    case 'markdown':
      // Rows of a paragraph still being written: plain text, already cut to the width.
      if (entry.rows === true) return indented(entry.depth, h(Text, null, entry.text));
      return h(MarkdownBlock, { depth: entry.depth, text: entry.text });
    case 'thinking': {
      const lines = visibleText(entry.text.trim()).split('\n');
      const more = lines.length > THINKING_LINES ? `\n… ${lines.length - THINKING_LINES} more lines` : '';
      return indented(
        entry.depth,
        h(Text, { dimColor: true, italic: true }, `✻ ${lines.slice(0, THINKING_LINES).join('\n  ')}${more}`),
      );
    }
    case 'tool': {
      const { mark, color } = TOOL_MARK[entry.status];
      return indented(
        entry.depth,
        h(
          Text,
          { wrap: 'truncate-end' },
          h(Text, { color }, `${mark} `),
          visibleText(entry.summary),
          h(Text, { dimColor: true }, ` — ${visibleText(entry.result)}`),
        ),
      );
    }
    case 'section':
      return indented(
        Math.max(0, entry.depth - 1),
        h(Text, { color: 'magenta', bold: true }, `▸ ${visibleText(entry.title)}`),
      );
    case 'agent_done':
      return indented(entry.depth, h(Text, { dimColor: true }, `└ ${entry.agentId} ${entry.status}`));
    case 'status':
      return indented(entry.depth, h(Text, { color: 'yellow' }, `! ${visibleText(entry.text)}`));
    case 'error':
      return indented(entry.depth, h(Text, { color: 'red' }, `✗ ${visibleText(entry.text)}`));
    case 'run_end': {
      const parts = [runEnd(entry.status, entry.stopReason)];
      if (entry.seconds > 0) parts.push(`${entry.seconds.toFixed(1)} s`);
      if (entry.usage !== undefined) {
        const { inputTokens, cacheReadTokens, cacheWriteTokens, outputTokens } = entry.usage;
        const share = cachedShare(entry.usage);
        parts.push(
          `${formatTokens(inputTokens + cacheReadTokens + cacheWriteTokens)} in${share === '' ? '' : ` (${share})`}, ${formatTokens(outputTokens)} out`,
        );
      }
      if (entry.costUsd !== undefined) parts.push(formatCost(entry.costUsd));
      const whole = entry.status === 'completed' && entry.stopReason === undefined;
      const color = whole
        ? undefined
        : entry.status === 'cancelled' || entry.status === 'completed'
          ? 'yellow'
          : 'red';
      return h(Text, { dimColor: color === undefined, color }, `── ${parts.join(' · ')}`);
    }
    case 'note':
      return h(
        Text,
        { color: entry.tone === 'error' ? 'red' : entry.tone === 'warning' ? 'yellow' : 'blue' },
        visibleText(entry.text),
      );
    case 'block':
      return h(
        Box,
        { flexDirection: 'column', borderStyle: 'single', borderColor: 'gray', paddingX: 1 },
        h(Text, { bold: true }, visibleText(entry.title)),
        entry.diff
          ? entry.lines.map((line, index) =>
              h(Text, { key: index, color: diffColour(line) }, visibleText(line)),
            )
          : h(Text, null, visibleText(entry.lines.join('\n'))),
      );
    default: {
      const exhaustive: never = entry;
      throw new Error(`unknown entry ${JSON.stringify(exhaustive)}`);
    }
  }
}

/**
 * A finished block of answer text, rendered and wrapped here rather than by Ink, whose wrapping
 * starts a row with the space it cut at and a wrapped list item at the row's start. <Static> lays
 * it out at the terminal's width, which is the window's.
 */
function MarkdownBlock({ depth, text }: { depth: number; text: string }): ReactNode {
  const { columns } = useWindowSize();
  const rendered = renderMarkdown?.(text) ?? visibleText(text.replace(/\s+$/, ''));
  return h(
    Box,
    { paddingLeft: depth * 2, marginBottom: 1 },
    h(Text, null, wrapStyled(rendered, (columns > 0 ? columns : 80) - depth * 2)),
  );
}

/** The colour of a line of unified diff text. */
export function diffColour(line: string): string | undefined {
  if (line.startsWith('+++') || line.startsWith('---')) return undefined;
  if (line.startsWith('+')) return 'green';
  if (line.startsWith('-')) return 'red';
  if (line.startsWith('@@')) return 'cyan';
  return undefined;
}
