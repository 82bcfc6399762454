/**
 * An agent's question (`ask`): its options, chosen with the arrows and Enter, and always a free
 * answer too (the last row, or the only field when there are no options). A `secret` answer is
 * masked. Early keys are dropped, as in the approval overlay.
 */
import type { AskParams, AskResult } from '#protocol';
import { Box, Text, useInput, usePaste } from 'ink';
import { createElement as h, type ReactNode, useRef } from 'react';
import { KEYS, keyOf, pressed } from '../keybindings.ts';
import { edit, EMPTY_EDITOR, type EditorState, insert } from '../line-editor.ts';
import { visibleText } from '../live-text.ts';
import { GUARD_MS } from './approval-overlay.ts';
import { useKeyState } from './key-state.ts';
import { SingleLine } from './line-field.ts';

export interface QuestionOverlayProps {
  params: AskParams;
  position: number;
  queued: number;
  width: number;
  maxRows: number;
  onAnswer: (result: AskResult) => void;
  guardMs?: number;
  now?: () => number;
}

export function QuestionOverlay(props: QuestionOverlayProps): ReactNode {
  const { params, onAnswer, width, maxRows } = props;
  const options = params.options ?? [];
  const now = props.now ?? Date.now;
  const shownAt = useRef(now());
  const choice = useKeyState(0);
  const field = useKeyState<EditorState>(EMPTY_EDITOR);
  const cursor = choice.value;
  const answer = field.value;
  const typing = cursor === options.length; // the free-answer row
  const early = () => now() - shownAt.current < (props.guardMs ?? GUARD_MS);
  usePaste((text) => {
    if (!early() && choice.get() === options.length)
      field.set(insert(field.get(), text.replace(/[\r\n]+/g, ' ')));
  });
  useInput((input, key) => {
    if (early()) return;
    const at = choice.get();
    const text = field.get();
    const onFreeRow = at === options.length;
    if (pressed(KEYS.up, input, key)) choice.set(Math.max(0, at - 1));
    else if (pressed(KEYS.down, input, key)) choice.set(Math.min(options.length, at + 1));
    else if (pressed(KEYS.pick, input, key)) {
      if (!onFreeRow) onAnswer({ answer: (options[at] as { value: string }).value });
      else if (text.text.trim() !== '') onAnswer({ answer: text.text });
    } else if (onFreeRow) {
      const next = edit(text, input, key, false);
      if (next !== undefined) field.set(next);
    } else if (pressed(KEYS.option, input, key) && Number(input) <= options.length) {
      onAnswer({ answer: (options[Number(input) - 1] as { value: string }).value });
    }
  });

  const rows: ReactNode[] = [];
  const queue = props.queued > 1 ? ` · ${props.position} of ${props.queued} waiting` : '';
  rows.push(
    h(
      Text,
      { key: 'who', bold: true, wrap: 'truncate-end' },
      `${params.header === undefined ? 'Question' : visibleText(params.header)} · ${visibleText(params.agentId)}${queue}`,
    ),
  );
  const promptLines = visibleText(params.prompt).split('\n');
  const room = Math.max(1, maxRows - 2 - 1 - Math.min(options.length + 1, maxRows) - 1);
  for (const [index, line] of promptLines.slice(0, room).entries())
    rows.push(h(Text, { key: `p${index}` }, line));
  options.forEach((option, index) => {
    const active = index === cursor;
    rows.push(
      h(
        Text,
        { key: `o${index}`, wrap: 'truncate-end', color: active ? 'cyan' : undefined },
        `${active ? '›' : ' '} ${index + 1}. ${visibleText(option.label)}`,
      ),
    );
  });
  rows.push(
    h(
      Box,
      { key: 'answer' },
      h(
        Text,
        { color: typing ? 'cyan' : undefined },
        `${typing ? '›' : ' '} ${options.length > 0 ? 'Other: ' : 'Answer: '}`,
      ),
      typing
        ? h(SingleLine, { state: answer, mask: params.secret === true })
        : h(Text, { dimColor: true }, '(type an answer)'),
    ),
  );
  rows.push(
    h(
      Text,
      { key: 'keys', dimColor: true },
      `${options.length > 0 ? `${keyOf('up')}/${keyOf('down')} choose · ` : ''}${keyOf('pick')}: answer${params.secret === true ? ' · the answer is masked and never saved' : ''}`,
    ),
  );
  return h(
    Box,
    { flexDirection: 'column', borderStyle: 'round', borderColor: 'blue', paddingX: 1, width },
    ...rows,
  );
}
