/**
 * A session as a document: Markdown to read (the prompts, the answers, the tool calls, the
 * agents), or its records as JSON. Both come from what was saved, so secrets redacted before
 * saving are absent here too.
 */
import type { Phase } from '#protocol';
import { AGENT_NAMES } from './import/transcript.ts';
import type { SessionRecord } from './records.ts';
import { foldSession } from './summary.ts';

export function exportJson(records: readonly SessionRecord[]): string {
  return `${JSON.stringify(records, null, 2)}\n`;
}

export function exportMarkdown(records: readonly SessionRecord[]): string {
  const state = foldSession(records);
  const lines: string[] = [];
  if (state !== undefined) {
    lines.push(
      `# ${state.title}`,
      '',
      `- Session: \`${state.sessionId}\``,
      `- Workspace: \`${state.workspaceRoot}\``,
      `- Started: ${state.createdAt}; last saved: ${state.updatedAt}`,
      ...(state.model === undefined ? [] : [`- Model: ${state.model}`]),
      `- Tokens: ${state.usage.inputTokens} in, ${state.usage.outputTokens} out; cost $${state.costUsd.toFixed(4)}`,
      ...(state.imported === undefined
        ? []
        : [
            `- Imported from ${AGENT_NAMES[state.imported.from]}, whose tokens are not counted above: ${state.imported.usage.inputTokens} in, ${state.imported.usage.outputTokens} out`,
          ]),
      '',
    );
  }
  let answer: { agentId: string; text: string } | undefined;
  const flush = () => {
    if (answer !== undefined && answer.text.trim() !== '') lines.push(answer.text.trim(), '');
    answer = undefined;
  };
  for (const record of records) {
    switch (record.type) {
      case 'prompt':
        flush();
        lines.push('## You', '', record.text.trim(), '', '## Santra', '');
        break;
      case 'phase':
        answer = phaseLines(record.phase, lines, answer, flush);
        break;
      case 'approval':
        flush();
        lines.push(
          `> Approval (${record.request.kind === 'command' ? 'command' : 'file change'}): ${record.answer?.decision ?? 'no answer'}`,
          '',
        );
        break;
      case 'compaction':
        flush();
        lines.push('> The conversation before this point was summarised to fit the model’s context.', '');
        break;
      case 'rewind':
        flush();
        lines.push(
          record.forkedFrom === undefined
            ? `> Rewound: the conversation went back to just before the prompt of run \`${record.runId}\`; what follows continues from there.`
            : `> Forked from session \`${record.forkedFrom}\` just before the prompt of run \`${record.runId}\`.`,
          '',
        );
        break;
      case 'undo':
        flush();
        lines.push(
          `> Undone: ${record.changeIds.length} file change${record.changeIds.length === 1 ? '' : 's'}.`,
          '',
        );
        break;
      case 'session':
      case 'message':
      case 'messages_replaced':
      case 'model_output':
      case 'ask':
      case 'file_change':
      case 'model':
      case 'name':
      case 'spend':
      case 'run_end':
        break;
      default: {
        const exhaustive: never = record;
        throw new Error(`unknown record ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  flush();
  return `${lines.join('\n').trimEnd()}\n`;
}

type Answer = { agentId: string; text: string } | undefined;

function phaseLines(phase: Phase, lines: string[], answer: Answer, flush: () => void): Answer {
  const indent = phase.parentAgentId === undefined ? '' : '  ';
  switch (phase.type) {
    case 'text':
      if (answer !== undefined && answer.agentId === phase.agentId) {
        answer.text += phase.text;
        return answer;
      }
      flush();
      return { agentId: phase.agentId, text: phase.text };
    case 'thinking':
    case 'usage':
      return answer;
    case 'status':
      if (phase.level !== 'warning') return answer;
      flush();
      lines.push(`${indent}> ⚠ ${phase.text}`, '');
      return undefined;
    case 'section':
      flush();
      lines.push(`### ${phase.title}`, '');
      return undefined;
    case 'tool_call':
      flush();
      lines.push(`${indent}- \`${phase.summary ?? phase.toolName}\``);
      return undefined;
    case 'tool_result':
      lines.push(`${indent}  → ${phase.status === 'ok' ? '' : `${phase.status}: `}${phase.summary}`, '');
      return undefined;
    case 'error':
      flush();
      lines.push(`${indent}> **Error:** ${phase.message}`, '');
      return undefined;
    case 'complete':
      flush();
      return undefined;
    case 'event':
      flush();
      lines.push(`> Event from ${phase.source} (untrusted): ${phase.text.replace(/\n/g, '\n> ')}`, '');
      return undefined;
    default: {
      const exhaustive: never = phase;
      throw new Error(`unknown phase ${JSON.stringify(exhaustive)}`);
    }
  }
}
