/**
 * Cuts streamed answer text into finished Markdown blocks as it arrives, so that each block is
 * parsed and highlighted once, when it is complete, and goes into the transcript's scrollback,
 * while only the unfinished tail is redrawn. Pure, and linear in the text: each delta is scanned
 * once, line by line, from where the previous scan stopped.
 *
 * A block ends before a line that follows a blank line and is not indented (an indented line after
 * a blank one continues a list item or an indented code block) nor an ordered list item, never
 * inside a fenced code block.
 * A long fenced block is cut into fenced pieces of FENCE_PIECE_LINES lines (each closed, the next
 * opened again with the same info string), and a long run of lines without a blank one is cut every
 * MAX_BLOCK_LINES lines, so the unfinished tail stays small whatever the model writes.
 */

const FENCE_PIECE_LINES = 40;
const MAX_BLOCK_LINES = 60;

interface OpenFence {
  /** The fence characters, e.g. "```" or "~~~~". */
  marker: string;
  /** The opening line, written again at the top of the next piece. */
  opening: string;
  /** Lines of code inside this piece so far. */
  lines: number;
}

/** The unfinished answer text of one agent. */
export interface MarkdownStream {
  /** Text not yet handed out as a block; it starts at the beginning of a line. */
  readonly text: string;
  /** Offset of the first line of `text` not yet examined (always the start of a line). */
  readonly scanned: number;
  readonly fence: OpenFence | undefined;
  /** The last examined line was blank (outside a fence). */
  readonly afterBlank: boolean;
  /** Complete lines in `text` (outside fences) since the block began. */
  readonly lines: number;
  /** The block holds an ordered list that a later item may continue. */
  readonly list: boolean;
}

export const EMPTY_STREAM: MarkdownStream = {
  text: '',
  scanned: 0,
  fence: undefined,
  afterBlank: false,
  lines: 0,
  list: false,
};

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
const ORDERED_ITEM = /^\d{1,9}[.)](?:\s|$)/;

/** Appends `delta`; returns the new stream and the blocks it finished, in order. */
export function feedMarkdown(
  stream: MarkdownStream,
  delta: string,
): { stream: MarkdownStream; blocks: string[] } {
  const blocks: string[] = [];
  let text = stream.text + delta;
  let pos = stream.scanned;
  let fence = stream.fence === undefined ? undefined : { ...stream.fence };
  let afterBlank = stream.afterBlank;
  let lines = stream.lines;
  let list = stream.list;
  const emit = (block: string) => {
    if (block.trim() !== '') blocks.push(block);
  };
  for (let nl = text.indexOf('\n', pos); nl !== -1; nl = text.indexOf('\n', pos)) {
    const line = text.slice(pos, nl);
    const next = nl + 1;
    if (fence !== undefined) {
      if (isClosingFence(line, fence.marker)) {
        fence = undefined;
        lines++;
      } else if (++fence.lines >= FENCE_PIECE_LINES) {
        emit(`${text.slice(0, next)}${fence.marker}\n`);
        text = `${fence.opening}\n${text.slice(next)}`;
        pos = fence.opening.length + 1;
        fence.lines = 0;
        lines = 1;
        continue;
      }
      pos = next;
      continue;
    }
    if (line.trim() === '') {
      afterBlank = true;
      pos = next;
      continue;
    }
    // An indented line continues a list item or an indented code block; an ordered item continues
    // its list (split, "2." would be numbered 1 again).
    const item = ORDERED_ITEM.test(line);
    const continues = /^[ \t]/.test(line) || (item && list);
    if ((afterBlank && !continues) || (lines >= MAX_BLOCK_LINES && !continues && !line.startsWith('|'))) {
      emit(text.slice(0, pos));
      text = text.slice(pos);
      pos = 0;
      lines = 0;
    }
    if (item) list = true;
    else if (!/^[ \t]/.test(line)) list = false;
    afterBlank = false;
    const open = FENCE_OPEN.exec(line);
    if (open !== null) fence = { marker: open[1] as string, opening: line, lines: 0 };
    lines++;
    pos = pos + line.length + 1;
  }
  // The first character of a line after a blank one already tells whether a block ended (unless
  // it may be a list's next item): the finished block need not wait for the line's end.
  const first = text[pos];
  if (fence === undefined && afterBlank && first !== undefined && first !== ' ' && first !== '\t') {
    if (!(list && /\d/.test(first))) {
      emit(text.slice(0, pos));
      text = text.slice(pos);
      pos = 0;
      lines = 0;
      afterBlank = false;
      list = false;
    }
  }
  return { stream: { text, scanned: pos, fence, afterBlank, lines, list }, blocks };
}

/** What is left when the agent's turn ends: the last block, or undefined when there is none. */
export function endMarkdown(stream: MarkdownStream): string | undefined {
  if (stream.text.trim() === '') return undefined;
  // An unclosed fence is closed, so the block renders as code rather than swallowing what follows.
  const closing =
    stream.fence === undefined ? '' : `${stream.text.endsWith('\n') ? '' : '\n'}${stream.fence.marker}\n`;
  return stream.text + closing;
}

function isClosingFence(line: string, marker: string): boolean {
  const trimmed = line.trim();
  const char = marker[0] as string;
  return trimmed.length >= marker.length && [...trimmed].every((c) => c === char);
}
