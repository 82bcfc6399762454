/**
 * Control characters made visible, so that what an approval shows is what will be written or run:
 * an escape sequence in a diff line must not recolour or move the user's terminal, a lone CR must
 * not hide the start of a line, and a bidi override must not reorder what the user reads
 * ("Trojan Source", CVE-2021-42574).
 */

// C0 controls except tab, DEL, C1 controls, soft hyphen, the Arabic letter mark, zero-width space,
// the bidi marks, embeddings, overrides and isolates, the line and paragraph separators, the word
// joiner and the byte order mark: all invisible or layout-changing, none needed to read code.
const INVISIBLE =
  /[\0-\x08\n-\x1f\x7f-\x9f\xad\u061c\u200b\u200e\u200f\u2028-\u202e\u2060\u2066-\u2069\ufeff]/g;

function visible(char: string): string {
  const code = char.charCodeAt(0);
  // Unicode's Control Pictures block has one glyph per C0 control (␀…␟) and DEL (␡): one column
  // wide and recognisable, where "\u001b" would be six.
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * Makes control and invisible layout characters visible: C0 controls become their Control
 * Pictures (ESC → `␛`, CR → `␍`, LF → `␊`, NUL → `␀`), DEL becomes `␡`, and C1 controls, bidi
 * controls (U+202E → `\u202e`), U+2028/U+2029, zero-width space, word joiner, soft hyphen and the
 * BOM become `\uXXXX`. Tabs and everything else are left as they are. Apply it to one line at a
 * time where line breaks should stay line breaks.
 */
export function visibleControlChars(text: string): string {
  return text.replace(INVISIBLE, visible);
}
