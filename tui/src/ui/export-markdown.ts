/**
 * The transcript as Markdown, for /export: each finished entry becomes its Markdown, as it is
 * printed, so the export needs no second pass over anything. Local notes (/help, /status) and
 * thinking are left out, as a reader of the conversation would want.
 */
import { type Entry, runEnd } from './transcript.ts';

const MARK = { ok: '✓', error: '✗', rejected: '⊘', cancelled: '◌' } as const;

/** The entry's Markdown, or undefined when it is not part of the exported conversation. */
export function entryMarkdown(entry: Entry): string | undefined {
  switch (entry.kind) {
    case 'user':
      return `## You\n\n${entry.text}\n`;
    case 'markdown':
      // Rows of a paragraph: the next entry continues it, one line down (a soft line break).
      if (entry.rows === true) return entry.depth === 0 ? entry.text : indent(entry.text, entry.depth);
      return entry.depth === 0 ? entry.text.replace(/\s+$/, '\n') : indent(entry.text, entry.depth);
    case 'tool':
      return `${'  '.repeat(entry.depth)}- ${MARK[entry.status]} \`${entry.summary}\` — ${entry.result}`;
    case 'section':
      return `${'  '.repeat(Math.max(0, entry.depth - 1))}- **${entry.title}**`;
    case 'agent_done':
      return `${'  '.repeat(entry.depth)}- ${entry.agentId} ${entry.status}`;
    case 'status':
      return `> ${entry.text}\n`;
    case 'error':
      return `> **Error:** ${entry.text}\n`;
    case 'run_end':
      return `_${runEnd(entry.status, entry.stopReason)}${entry.seconds > 0 ? ` in ${entry.seconds.toFixed(1)} s` : ''}_\n`;
    case 'thinking':
    case 'note':
    case 'block':
      return undefined;
    default: {
      const exhaustive: never = entry;
      throw new Error(`unknown entry ${JSON.stringify(exhaustive)}`);
    }
  }
}

function indent(text: string, depth: number): string {
  const pad = '  '.repeat(depth);
  return text
    .replace(/\s+$/, '')
    .split('\n')
    .map((line) => (line === '' ? '' : `${pad}${line}`))
    .join('\n');
}
