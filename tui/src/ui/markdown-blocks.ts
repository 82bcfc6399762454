/**
 * Cuts streamed answer text into finished Markdown blocks as it arrives, so that each block is
 * parsed and highlighted once, when it is complete, and goes into the transcript's scrollback,
 * while only the unfinished tail is redrawn. Pure, and linear in the text: each delta is scanned
 * once, line by line, from where the previous scan stopped, and a line still being written is not
 * read again for each delta (not even a character of it: V8 would copy the line, which grows by
 * concatenation, into one string again each time), so a 200 KB line without a break streams in
 * time proportional to its length.
 *
 * A block ends before a line that follows a blank line and is not indented (an indented line after
 * a blank one continues a list item or an indented code block) nor an ordered list item, never
 * inside a fenced code block.
 * A long fenced block is cut into fenced pieces of FENCE_PIECE_LINES lines (each closed, the next
 * opened again with the same info string), and a long run of lines without a blank one is cut every
 * MAX_BLOCK_LINES lines, so the unfinished tail stays small whatever the model writes.
 *
 * Given the width of the rows, a paragraph's first line is also handed out row by row while it is
 * being written (`rows`), as long as those rows are plain text that Markdown would print as
 * written: only the row still filling stays live, so a long line does not keep the live region
 * (redrawn every frame) full, and its text is drawn once.
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
  /**
   * `text` is the first line of a paragraph that can give no rows (see plainRows) whatever follows
   * it: it is not looked at again while it grows.
   */
  readonly rowless: boolean;
}

export const EMPTY_STREAM: MarkdownStream = {
  text: '',
  scanned: 0,
  fence: undefined,
  afterBlank: false,
  lines: 0,
  list: false,
  rowless: false,
};

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
const ORDERED_ITEM = /^\d{1,9}[.)](?:\s|$)/;

/**
 * Appends `delta`; returns the new stream, the blocks it finished, in order, and then the finished
 * plain rows of the paragraph being written (only with `rowWidth`, see plainRows) with the text
 * they were cut from (`rowsSource`: the paragraph's start, to print again at another width).
 */
export function feedMarkdown(
  stream: MarkdownStream,
  delta: string,
  rowWidth?: number,
): { stream: MarkdownStream; blocks: string[]; rows: string[]; rowsSource: string } {
  const blocks: string[] = [];
  let text = stream.text + delta;
  let pos = stream.scanned;
  // The text after `scanned` holds no line break (the last scan stopped there): only the delta is
  // searched for one, so a long line arriving in many deltas is not scanned again for each.
  const from = delta.includes('\n') ? Math.max(pos, stream.text.length) : -1;
  let fence = stream.fence === undefined ? undefined : { ...stream.fence };
  let afterBlank = stream.afterBlank;
  let lines = stream.lines;
  let list = stream.list;
  const emit = (block: string) => {
    if (block.trim() !== '') blocks.push(block);
  };
  for (let nl = from === -1 ? -1 : text.indexOf('\n', from); nl !== -1; nl = text.indexOf('\n', pos)) {
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
  // (Read only after a blank line: a character of a long line being written would make V8 copy the
  // whole line, which grows by a delta at a time, into one string again for every delta.)
  const first = fence === undefined && afterBlank ? text[pos] : undefined;
  if (first !== undefined && first !== ' ' && first !== '\t') {
    if (!(list && /\d/.test(first))) {
      emit(text.slice(0, pos));
      text = text.slice(pos);
      pos = 0;
      lines = 0;
      afterBlank = false;
      list = false;
    }
  }
  const rows: string[] = [];
  let rowsSource = '';
  // A line that can give no rows is not looked at again while it only grows.
  let rowless = stream.rowless && text.length === stream.text.length + delta.length;
  if (rowWidth !== undefined && fence === undefined && pos === 0 && !afterBlank && !rowless) {
    for (
      let found = paragraphRows(text, rowWidth);
      found !== 'later';
      found = paragraphRows(text, rowWidth)
    ) {
      if (found === 'never') {
        rowless = true;
        break;
      }
      rows.push(...found.rows);
      rowsSource += text.slice(0, found.end);
      text = text.slice(found.end);
      list = false;
    }
  }
  return {
    stream: { text, scanned: pos, fence, afterBlank, lines, list, rowless },
    blocks,
    rows,
    rowsSource,
  };
}

/** Characters Markdown prints as written, in a paragraph: no inline syntax, entity, link or HTML. */
const PLAIN_PREFIX = /^[A-Za-z0-9 ,.;?'"()-]*/;
const STARTS_PARAGRAPH = /^[A-Za-z0-9]/;
/** Rows are handed out only while at least this many are finished (few, so short lines stay whole). */
const MIN_ROWS = 2;
/**
 * How much of a paragraph's first line is looked at for rows at a time (rows of the width): a
 * longer line gives its rows over several looks, each of them bounded.
 */
const SCAN_ROWS = 16;
/** The most rows a paragraph being written keeps live: MIN_ROWS finished ones and the one filling. */
export const PARAGRAPH_LIVE_ROWS = MIN_ROWS + 1;

/**
 * The finished rows of `line`, the unfinished first line of a paragraph, wrapped at spaces to
 * `width` columns (a word longer than a row is cut), and where the rest begins. Only rows of plain
 * text (PLAIN_PREFIX: printed the same whether Markdown renders them or not) made of complete
 * words (a space after the row's last word and after the next one) are finished, and the rest must
 * still read as a paragraph (it starts with a letter or a digit, and not as an ordered list item).
 * Undefined when fewer than MIN_ROWS are finished or the line does not start a paragraph. Only the
 * first SCAN_ROWS rows' worth of the line is looked at: call it again on the rest for more.
 */
export function plainRows(line: string, width: number): { rows: string[]; end: number } | undefined {
  const found = paragraphRows(line, width);
  return typeof found === 'string' ? undefined : found;
}

/**
 * plainRows, saying why there are none: `later` when more text may give some, `never` when no text
 * added to the end of `line` can (what decides it, the start of the line, is all there).
 */
function paragraphRows(line: string, width: number): { rows: string[]; end: number } | 'later' | 'never' {
  if (width < 20) return 'never';
  if (line.length < width * (MIN_ROWS + 1)) return 'later';
  if (!STARTS_PARAGRAPH.test(line) || ORDERED_ITEM.test(line)) return 'never';
  const window = width * SCAN_ROWS;
  const scan = line.length > window ? line.slice(0, window) : line;
  const plain = (PLAIN_PREFIX.exec(scan) as RegExpExecArray)[0];
  // The rows below depend on the plain text only: once a character that is not plain, or the end
  // of what is looked at, is followed by enough of the line, more text changes nothing.
  const settled = plain.length < line.length && line.length > plain.length + 12;
  // Only complete words: the text up to the last space, and GFM's autolinks ("www.") left out.
  const www = plain.search(/www\./i);
  const usable = plain.slice(0, Math.max(0, plain.lastIndexOf(' ', www === -1 ? plain.length : www)));
  const rows: string[] = [];
  const ends: number[] = [];
  let start = 0;
  for (;;) {
    if (usable.length - start <= width) break; // the last row may still grow
    const space = usable.lastIndexOf(' ', start + width);
    const cut = space > start ? space : start + width;
    rows.push(usable.slice(start, cut).trimEnd());
    // The next row starts at its first word, whatever number of spaces came before it.
    start = cut;
    while (usable[start] === ' ') start++;
    ends.push(start);
  }
  // The rest must start a paragraph too, and Markdown must not see a list item there.
  while (rows.length > 0) {
    const rest = line.slice(ends[ends.length - 1]);
    if (STARTS_PARAGRAPH.test(rest) && !ORDERED_ITEM.test(rest)) break;
    rows.pop();
    ends.pop();
  }
  if (rows.length < MIN_ROWS) return settled ? 'never' : 'later';
  return { rows, end: ends[ends.length - 1] as number };
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
