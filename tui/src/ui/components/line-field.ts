/** A line of editable text with its cursor (drawn in inverse video), masked for secrets. */
import { Text } from 'ink';
import { createElement as h, type ReactNode } from 'react';
import type { EditorState } from '../line-editor.ts';

export interface LineFieldProps {
  /** The text of one line and the cursor's column in it (undefined: no cursor on this line). */
  text: string;
  column: number | undefined;
  mask?: boolean;
  placeholder?: string;
}

export function LineField({ text, column, mask = false, placeholder }: LineFieldProps): ReactNode {
  const shown = mask ? '•'.repeat([...text].length) : text;
  if (column === undefined) return h(Text, null, shown === '' ? ' ' : shown);
  if (shown === '' && placeholder !== undefined) {
    return h(
      Text,
      null,
      h(Text, { inverse: true }, placeholder.slice(0, 1)),
      h(Text, { dimColor: true }, placeholder.slice(1)),
    );
  }
  const at = mask ? [...text.slice(0, column)].length : column;
  const chars = [...shown.slice(at)];
  const under = chars[0] ?? ' ';
  return h(Text, null, shown.slice(0, at), h(Text, { inverse: true }, under), chars.slice(1).join(''));
}

/** A single-line field from an editor state. */
export function SingleLine({
  state,
  mask,
  placeholder,
}: {
  state: EditorState;
  mask?: boolean;
  placeholder?: string;
}) {
  return h(LineField, {
    text: state.text,
    column: state.cursor,
    ...(mask === undefined ? {} : { mask }),
    ...(placeholder === undefined ? {} : { placeholder }),
  });
}
