/**
 * The composer: multi-line input with history (↑ on the first line, ↓ on the last), slash-command
 * suggestions as you type (Tab completes, ↑/↓ choose), and paste of any size in one step.
 * Enter sends; Alt+Enter, Ctrl+J or a trailing backslash start a new line. It shows at most
 * `maxRows` lines, around the cursor.
 */
import { Box, Text, useInput, usePaste } from 'ink';
import { createElement as h, memo, type ReactNode, useRef } from 'react';
import { KEYS, pressed } from '../keybindings.ts';
import { cursorLine, edit, EMPTY_EDITOR, type EditorState, insert, moveLine } from '../line-editor.ts';
import { type SlashCommand, suggestions as suggest } from '../slash-commands.ts';
import { useKeyState } from './key-state.ts';
import { LineField } from './line-field.ts';

const MAX_SUGGESTIONS = 6;
/** How soon a second Esc must follow the first to be Esc Esc (the rewind list). */
const DOUBLE_ESCAPE_MS = 800;

export interface ComposerProps {
  commands: readonly SlashCommand[];
  history: readonly string[];
  onSubmit: (text: string) => void;
  isActive: boolean;
  width: number;
  /** Lines of text shown at most. */
  maxRows: number;
  placeholder?: string;
  /** The text it starts with (a rewound prompt to edit). */
  draft?: string;
  /** Esc Esc on an empty composer; absent while that is not offered (a run goes on). */
  onRewind?: () => void;
}

interface ComposerState {
  editor: EditorState;
  /** While ↑/↓ walk the history: where, and the text that was being written before. */
  browsing: { index: number; draft: string } | undefined;
  /** The suggestion Enter and Tab take. */
  chosen: number;
}

const EMPTY_COMPOSER: ComposerState = { editor: EMPTY_EDITOR, browsing: undefined, chosen: 0 };

/** Drawn again only when its props or its own state change, not with every frame of an answer. */
export const Composer = memo(function Composer(props: ComposerProps): ReactNode {
  const { commands, history, onSubmit, isActive, maxRows } = props;
  const state = useKeyState<ComposerState>(
    props.draft === undefined
      ? EMPTY_COMPOSER
      : { ...EMPTY_COMPOSER, editor: { text: props.draft, cursor: props.draft.length } },
  );
  const lastEscape = useRef(0);
  const suggested = (text: string) => suggest(text, commands).slice(0, MAX_SUGGESTIONS);
  const selectedOf = (current: ComposerState, count: number) =>
    Math.min(current.chosen, Math.max(0, count - 1));
  const { editor } = state.value;
  const matches = suggested(editor.text);
  const selected = selectedOf(state.value, matches.length);

  const update = (next: EditorState) => state.set({ ...state.get(), editor: next, chosen: 0 });
  const submit = (text: string) => {
    state.set(EMPTY_COMPOSER);
    onSubmit(text);
  };
  const recall = (direction: -1 | 1): boolean => {
    const { browsing, editor: current } = state.get();
    const index = (browsing?.index ?? history.length) + direction;
    if (index < 0 || index > history.length || history.length === 0) return false;
    const text = index === history.length ? (browsing?.draft ?? '') : (history[index] as string);
    state.set({
      editor: { text, cursor: text.length },
      browsing: index === history.length ? undefined : { index, draft: browsing?.draft ?? current.text },
      chosen: 0,
    });
    return true;
  };

  usePaste((text) => update(insert(state.get().editor, text)), { isActive });
  useInput(
    (input, key) => {
      const current = state.get();
      const { editor } = current;
      const matches = suggested(editor.text);
      const selected = selectedOf(current, matches.length);
      if (pressed(KEYS.exit, input, key)) {
        update(EMPTY_EDITOR);
        return;
      }
      if (props.onRewind !== undefined && editor.text === '' && pressed(KEYS.rewind, input, key)) {
        const now = Date.now();
        if (key.meta || now - lastEscape.current < DOUBLE_ESCAPE_MS) {
          lastEscape.current = 0;
          props.onRewind();
        } else lastEscape.current = now;
        return;
      }
      if (pressed(KEYS.newline, input, key)) {
        update(insert(editor, '\n'));
        return;
      }
      if (pressed(KEYS.submit, input, key)) {
        const command = matches[selected];
        if (command !== undefined && editor.text !== `/${command.name}`) {
          submit(`/${command.name}`);
          return;
        }
        // A backslash before Enter means a new line, as in a shell.
        if (editor.text.slice(0, editor.cursor).endsWith('\\')) {
          update(
            insert(
              {
                text: editor.text.slice(0, editor.cursor - 1) + editor.text.slice(editor.cursor),
                cursor: editor.cursor - 1,
              },
              '\n',
            ),
          );
          return;
        }
        submit(editor.text);
        return;
      }
      if (pressed(KEYS.complete, input, key)) {
        const command = matches[selected];
        if (command !== undefined) update({ text: `/${command.name} `, cursor: command.name.length + 2 });
        return;
      }
      if (pressed(KEYS.historyPrevious, input, key) || pressed(KEYS.historyNext, input, key)) {
        const direction = key.upArrow ? -1 : 1;
        if (matches.length > 1) {
          state.set({ ...current, chosen: (selected + direction + matches.length) % matches.length });
          return;
        }
        const moved = moveLine(editor, direction);
        if (moved !== undefined) state.set({ ...current, editor: moved });
        else recall(direction);
        return;
      }
      // Keys typed faster than they are read come in one chunk. A paste comes marked (bracketed
      // paste is on while the composer reads), so a carriage return here is an Enter: each line
      // it ends is sent, as if typed one after the other, and the rest stays in the editor.
      if (input.length > 1 && !key.ctrl && !key.meta && input.includes('\r')) {
        const lines = input.replace(/\r\n/g, '\r').split('\r');
        let typed = editor;
        for (const line of lines.slice(0, -1)) {
          typed = insert(typed, line);
          // A backslash before Enter means a new line, as above.
          if (typed.text.slice(0, typed.cursor).endsWith('\\')) {
            const at = typed.cursor - 1;
            typed = insert(
              { text: typed.text.slice(0, at) + typed.text.slice(typed.cursor), cursor: at },
              '\n',
            );
            continue;
          }
          submit(typed.text);
          typed = EMPTY_EDITOR;
        }
        update(insert(typed, lines.at(-1) ?? ''));
        return;
      }
      const next = edit(editor, input, key, true);
      if (next !== undefined) update(next);
    },
    { isActive },
  );

  const { line, column, lines } = cursorLine(editor);
  const shown = Math.max(1, maxRows);
  const first = Math.max(0, Math.min(line - Math.floor(shown / 2), lines.length - shown));
  const visible = lines.slice(first, first + shown);
  const rows: ReactNode[] = [];
  if (first > 0) rows.push(h(Text, { key: 'above', dimColor: true }, `  … ${first} lines above`));
  visible.forEach((text, index) => {
    const at = first + index;
    rows.push(
      h(
        Box,
        { key: at },
        h(Text, { color: 'cyan' }, at === 0 ? '› ' : '  '),
        h(LineField, {
          text,
          column: isActive && at === line ? column : undefined,
          ...(at === 0 && props.placeholder !== undefined ? { placeholder: props.placeholder } : {}),
        }),
      ),
    );
  });
  const below = lines.length - first - visible.length;
  if (below > 0) rows.push(h(Text, { key: 'below', dimColor: true }, `  … ${below} lines below`));
  return h(
    Box,
    { flexDirection: 'column' },
    h(
      Box,
      { flexDirection: 'column', borderStyle: 'round', borderColor: isActive ? 'cyan' : 'gray', paddingX: 1 },
      ...rows,
    ),
    ...matches.map((command, index) =>
      h(
        Text,
        { key: command.name, wrap: 'truncate-end', color: index === selected ? 'cyan' : undefined },
        `  ${index === selected ? '›' : ' '} /${command.name}${command.args === '' ? '' : ` ${command.args}`}`,
        h(Text, { dimColor: true }, `  ${command.does}`),
      ),
    ),
  );
});
