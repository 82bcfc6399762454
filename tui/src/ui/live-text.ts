/**
 * Text for the live region, cut to what fits: the region must stay shorter than the terminal, or
 * Ink clears the screen and redraws the whole transcript every frame. Rows are counted here, after
 * wrapping to the width, so the count is exact whatever the lines hold. Work is bounded by what is
 * shown: only the end of a long text is looked at.
 */
import stringWidth from 'string-width';

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const PLAIN = /^[\u0020-\u007e]*$/;

/** Text as the terminal may show it: no escape sequences or other control characters; tabs as spaces. */
export function visibleText(text: string): string {
  return text.replaceAll('\t', '    ').replace(CONTROL, '');
}

/** `line` cut into rows of at most `width` columns. */
export function wrapLine(line: string, width: number): string[] {
  const w = Math.max(1, width);
  if (PLAIN.test(line)) {
    if (line.length <= w) return [line];
    const rows: string[] = [];
    for (let i = 0; i < line.length; i += w) rows.push(line.slice(i, i + w));
    return rows;
  }
  const rows: string[] = [];
  let row = '';
  let used = 0;
  for (const char of line) {
    const cw = stringWidth(char);
    if (used + cw > w && row !== '') {
      rows.push(row);
      row = '';
      used = 0;
    }
    row += char;
    used += cw;
  }
  rows.push(row);
  return rows;
}

/** The last `maxRows` rows of `text` wrapped to `width`, and how many rows came before them. */
export function tailRows(text: string, width: number, maxRows: number): { rows: string[]; hidden: boolean } {
  if (maxRows <= 0) return { rows: [], hidden: text !== '' };
  // Rows of `width` columns hold at least `width / 2` characters, so this much of the end is enough.
  const budget = maxRows * Math.max(1, width) + 1;
  const cut = text.length > budget;
  const end = visibleText(cut ? text.slice(-budget) : text);
  const rows: string[] = [];
  for (const line of end.split('\n')) rows.push(...wrapLine(line, width));
  const hidden = cut || rows.length > maxRows;
  return { rows: rows.length > maxRows ? rows.slice(-maxRows) : rows, hidden };
}
