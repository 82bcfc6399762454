/**
 * Text cut into the rows the terminal shows. The live region must stay shorter than the terminal,
 * or Ink clears the screen and redraws the whole transcript every frame: its rows are counted
 * here, after wrapping to the width, so the count is exact whatever the lines hold, and the work
 * is bounded by what is shown: only the end of a long text is looked at.
 *
 * Lines are wrapped at spaces, the way Ink wraps the rest of the transcript, and a word is cut only
 * when it is longer than a row; a wrapped row never starts with the space it was cut at (Ink's own
 * wrapping keeps it), and a wrapped list item or indented line goes on under its text.
 */
import stringWidth from 'string-width';

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const PLAIN = /^[\u0020-\u007e]*$/;
/** An escape sequence as marked-terminal writes them: SGR styles and OSC 8 links. */
const ESCAPE = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?)?/g;
/** An escape sequence or one character, the pieces a word longer than a row is cut into. */
const PIECE = new RegExp(`${ESCAPE.source}|[\\s\\S]`, 'gu');
/** The start of a line a wrapped row goes on under: its indent and a list item's marker. */
const HANGING = /^ *(?:(?:[*+-]|\d{1,9}[.)]) +)?/;

/** Text as the terminal may show it: no escape sequences or other control characters; tabs as spaces. */
export function visibleText(text: string): string {
  return text.replaceAll('\t', '    ').replace(CONTROL, '');
}

/** Columns `text` takes; escape sequences take none. */
function columns(text: string): number {
  return PLAIN.test(text) ? text.length : stringWidth(text);
}

/**
 * `line` cut into rows of at most `width` columns, at spaces: only a word longer than a row is cut,
 * starting on a row of its own. A wrapped row starts `hang` columns in (when that leaves room for
 * half a row), never with the space it was cut at. Escape sequences take no room and stay with
 * their word.
 */
export function wrapLine(line: string, width: number, hang = 0): string[] {
  const w = Math.max(1, width);
  if (columns(line) <= w) return [line];
  const indent = hang > 0 && hang * 2 <= w ? ' '.repeat(hang) : '';
  const rows: string[] = [];
  /** The row being filled, the columns it takes, whether it holds only its indent. */
  let row = '';
  let used = 0;
  let fresh = true;
  /** Spaces met after the row's last word: written only if the next word goes on the same row. */
  let gap = 0;
  const newRow = () => {
    rows.push(row);
    row = indent;
    used = indent.length;
    fresh = true;
    gap = 0;
  };
  for (const [part] of line.matchAll(/ +|[^ ]+/g)) {
    if (part[0] === ' ') {
      // The line's own indent is kept; spaces between words wait for the next word.
      if (rows.length === 0 && fresh && used === 0 && part.length < w) {
        row += part;
        used = part.length;
      } else gap += part.length;
      continue;
    }
    const size = columns(part);
    if (size === 0) {
      row += part;
      continue;
    }
    if (fresh ? used + size <= w : used + gap + size <= w) {
      row += fresh ? part : ' '.repeat(gap) + part;
      used += (fresh ? 0 : gap) + size;
      fresh = false;
      gap = 0;
      continue;
    }
    if (!fresh) newRow();
    if (used + size <= w) {
      row += part;
      used += size;
      fresh = false;
      continue;
    }
    // Longer than a row: cut into pieces that fill the rows, escape sequences kept whole.
    if (PLAIN.test(part)) {
      for (let at = 0; at < part.length;) {
        if (used >= w) newRow();
        const take = Math.min(w - used, part.length - at);
        row += part.slice(at, at + take);
        used += take;
        at += take;
        fresh = false;
      }
      continue;
    }
    for (const [piece] of part.matchAll(PIECE)) {
      const cw = piece[0] === '\u001b' ? 0 : columns(piece);
      if (used + cw > w && !fresh) newRow();
      row += piece;
      used += cw;
      if (cw > 0) fresh = false;
    }
  }
  rows.push(row);
  return rows;
}

/**
 * Styled text (rendered Markdown) wrapped to `width`, ready for Ink to print as it is: each line is
 * cut at spaces, and its wrapped rows go on under its text (a list item's under the item's words).
 */
export function wrapStyled(text: string, width: number): string {
  return text
    .split('\n')
    .map((line) => {
      const visible = line.replace(ESCAPE, '');
      const hang = (HANGING.exec(visible) as RegExpExecArray)[0].length;
      return wrapLine(line, width, hang).join('\n');
    })
    .join('\n');
}

/**
 * The last `maxRows` rows of `text` wrapped to `width`, and whether rows came before them. A line
 * is wrapped from its start, so its rows stay put as it grows; only a line longer than the rows
 * could show is wrapped from a point that moves in whole steps of such a length.
 */
export function tailRows(text: string, width: number, maxRows: number): { rows: string[]; hidden: boolean } {
  if (maxRows <= 0) return { rows: [], hidden: text !== '' };
  // A row holds at most `width` characters, so the last `budget` characters make enough rows.
  const budget = maxRows * Math.max(1, width) + 1;
  let from = 0;
  if (text.length > budget) {
    const want = text.length - budget;
    const before = Math.max(0, want - budget);
    const newline = text.slice(before, want).lastIndexOf('\n');
    from = newline === -1 ? Math.max(before, Math.floor(want / budget) * budget) : before + newline + 1;
  }
  const rows: string[] = [];
  for (const line of visibleText(text.slice(from)).split('\n')) {
    rows.push(...wrapLine(line, width, (HANGING.exec(line) as RegExpExecArray)[0].length));
  }
  const hidden = from > 0 || rows.length > maxRows;
  return { rows: rows.length > maxRows ? rows.slice(-maxRows) : rows, hidden };
}
