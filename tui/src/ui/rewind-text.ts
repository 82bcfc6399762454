/**
 * What /rewind and Esc Esc show: the list of earlier prompts to go back to, and the note that says
 * what the rewind did (§10.13). Pure: command-runner.ts does the work with the server.
 */
import type { ResultOf, RewindablePrompt } from '#protocol';
import { visibleText } from './live-text.ts';
import type { PickerState } from './ui-state.ts';

const LABEL_CHARS = 100;

/** The prompts, newest first (the one most often wanted), each by its first line. */
export function rewindPicker(
  prompts: readonly RewindablePrompt[],
  options: { restoreFiles: boolean; fork: boolean },
): PickerState {
  const how = [options.restoreFiles ? 'putting back the files' : '', options.fork ? 'as a new session' : '']
    .filter((part) => part !== '')
    .join(', ');
  return {
    purpose: 'rewind',
    title: `Go back to just before which prompt?${how === '' ? '' : ` (${how})`}`,
    items: prompts.toReversed().map((prompt) => ({
      label: oneLine(prompt.text),
      detail: prompt.at.slice(0, 16).replace('T', ' '),
      value: prompt.runId,
    })),
    rewind: options,
  };
}

function oneLine(text: string): string {
  const line = visibleText(text.trim().split('\n')[0] ?? '');
  return line.length > LABEL_CHARS ? `${line.slice(0, LABEL_CHARS - 1)}…` : line;
}

/** The note after a rewind: where the conversation is now, and the files put back or kept. */
export function rewindText(result: ResultOf<'session/rewind'>): string {
  const lines = [
    result.forkedFrom === undefined
      ? `Rewound to just before "${oneLine(result.text)}": the model no longer sees it or anything after it. It is back in the composer: edit it and press Enter, or write something else.`
      : `Forked a new session (${result.session.sessionId}) from just before "${oneLine(result.text)}"; the session you were in is kept as it was. The prompt is back in the composer.`,
  ];
  for (const change of result.changes) {
    lines.push(
      change.outcome === 'restored'
        ? `  put back: ${change.path}`
        : `  kept: ${change.path}${change.reason === undefined ? '' : ` (${change.reason})`}`,
    );
  }
  return lines.join('\n');
}
