/**
 * Text editing as a pure function of the keys (Ink's useInput): the composer and the single-line
 * fields (feedback, answers, the API key) share it. Pasted text arrives whole, as one input or
 * through usePaste, and is inserted in one step, whatever its size.
 */
import type { Key } from 'ink';
import { KEYS, pressed } from './keybindings.ts';

export interface EditorState {
  readonly text: string;
  /** Offset in `text` (UTF-16 units, kept on code point boundaries). */
  readonly cursor: number;
}

export const EMPTY_EDITOR: EditorState = { text: '', cursor: 0 };

export function insert(state: EditorState, input: string): EditorState {
  const clean = input.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
  return {
    text: state.text.slice(0, state.cursor) + clean + state.text.slice(state.cursor),
    cursor: state.cursor + clean.length,
  };
}

/**
 * The state after an editing key, or undefined when the key is not an editing key (the caller
 * handles it: Enter, arrows up and down, Tab, Esc…). `multiline`: a pasted line break is kept.
 */
export function edit(
  state: EditorState,
  input: string,
  key: Key,
  multiline: boolean,
): EditorState | undefined {
  const { text, cursor } = state;
  if (pressed(KEYS.deleteBack, input, key)) {
    if (key.delete && cursor < text.length) {
      // Forward delete (the Delete key); Backspace arrives as `backspace`.
      return { text: text.slice(0, cursor) + text.slice(cursor + charLength(text, cursor)), cursor };
    }
    if (cursor === 0) return state;
    const before = previousLength(text, cursor);
    return { text: text.slice(0, cursor - before) + text.slice(cursor), cursor: cursor - before };
  }
  if (pressed(KEYS.cursorLeft, input, key)) return { text, cursor: cursor - previousLength(text, cursor) };
  if (pressed(KEYS.cursorRight, input, key)) return { text, cursor: cursor + charLength(text, cursor) };
  if (pressed(KEYS.lineStart, input, key)) return { text, cursor: text.lastIndexOf('\n', cursor - 1) + 1 };
  if (pressed(KEYS.lineEnd, input, key)) {
    const end = text.indexOf('\n', cursor);
    return { text, cursor: end === -1 ? text.length : end };
  }
  if (pressed(KEYS.clearLine, input, key)) return EMPTY_EDITOR;
  if (key.ctrl || key.escape || key.tab || key.upArrow || key.downArrow || key.return) return undefined;
  if (key.pageUp || key.pageDown || key.home || key.end) return undefined;
  if (input === '') return undefined;
  return insert(state, multiline ? input : input.replace(/[\r\n]+/g, ' '));
}

function charLength(text: string, at: number): number {
  if (at >= text.length) return 0;
  const code = text.charCodeAt(at);
  return code >= 0xd800 && code <= 0xdbff && at + 1 < text.length ? 2 : 1;
}

function previousLength(text: string, at: number): number {
  if (at <= 0) return 0;
  const code = text.charCodeAt(at - 1);
  return code >= 0xdc00 && code <= 0xdfff && at >= 2 ? 2 : 1;
}

/** The cursor's line and column (offsets within the line). */
export function cursorLine(state: EditorState): { line: number; column: number; lines: string[] } {
  const lines = state.text.split('\n');
  let offset = 0;
  for (let line = 0; line < lines.length; line++) {
    const length = (lines[line] as string).length;
    if (state.cursor <= offset + length) return { line, column: state.cursor - offset, lines };
    offset += length + 1;
  }
  return { line: lines.length - 1, column: (lines.at(-1) ?? '').length, lines };
}

/** Moves the cursor one line up (-1) or down (+1); undefined when there is no such line. */
export function moveLine(state: EditorState, direction: -1 | 1): EditorState | undefined {
  const { line, column, lines } = cursorLine(state);
  const target = line + direction;
  if (target < 0 || target >= lines.length) return undefined;
  let offset = 0;
  for (let i = 0; i < target; i++) offset += (lines[i] as string).length + 1;
  return { text: state.text, cursor: offset + Math.min(column, (lines[target] as string).length) };
}
