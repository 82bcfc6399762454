/**
 * Named keys for shell_send: what a terminal sends for each key a person presses, so the model
 * can press Enter, Ctrl-C or Up in a REPL or a TUI by name rather than writing escape bytes. The
 * bytes are those of xterm in its normal cursor mode (what node-pty's default TERM, xterm-256color,
 * promises programs).
 */

const NAMED: Readonly<Record<string, string>> = {
  Enter: '\r',
  Tab: '\t',
  Escape: '\x1b',
  Backspace: '\x7f',
  Space: ' ',
  Up: '\x1b[A',
  Down: '\x1b[B',
  Right: '\x1b[C',
  Left: '\x1b[D',
  Home: '\x1b[H',
  End: '\x1b[F',
  PageUp: '\x1b[5~',
  PageDown: '\x1b[6~',
  Delete: '\x1b[3~',
  Insert: '\x1b[2~',
  F1: '\x1bOP',
  F2: '\x1bOQ',
  F3: '\x1bOR',
  F4: '\x1bOS',
  F5: '\x1b[15~',
  F6: '\x1b[17~',
  F7: '\x1b[18~',
  F8: '\x1b[19~',
  F9: '\x1b[20~',
  F10: '\x1b[21~',
  F11: '\x1b[23~',
  F12: '\x1b[24~',
};

/**
 * Keys that only move or scroll: pressed alone they commit nothing (a menu's choice, a pager's
 * page, a shell's recalled line waits for Enter), so a send of these alone is not asked about.
 */
const NAVIGATION: ReadonlySet<string> = new Set([
  'Up',
  'Down',
  'Left',
  'Right',
  'Home',
  'End',
  'PageUp',
  'PageDown',
]);

/** The names shell_send accepts, for its description and its errors. */
export const KEY_NAMES: readonly string[] = [...Object.keys(NAMED), 'Ctrl-A … Ctrl-Z'];

/** A key's bytes, or an error naming what was wrong and the keys there are. */
export function keyBytes(name: string): string | { error: string } {
  const trimmed = name.trim();
  const named = Object.entries(NAMED).find(([key]) => key.toLowerCase() === trimmed.toLowerCase());
  if (named !== undefined) return named[1];
  const control = /^(?:ctrl|control|c)[-+]([a-z@[\\\]^_])$/i.exec(trimmed);
  if (control !== null) {
    const letter = (control[1] as string).toUpperCase();
    return String.fromCharCode(letter.charCodeAt(0) - 64);
  }
  return {
    error: `Unknown key "${name}". Keys: ${KEY_NAMES.join(', ')}. Send text as \`text\`, not as a key.`,
  };
}

/** True when every key only moves or scrolls (see NAVIGATION). */
export function onlyNavigation(keys: readonly string[]): boolean {
  return keys.every((key) => [...NAVIGATION].some((name) => name.toLowerCase() === key.trim().toLowerCase()));
}

/**
 * Text as the person edited it in an approval back into bytes: the approval showed control
 * characters as their Control Pictures (␍ for Enter, ␛ for Escape, ␃ for Ctrl-C), so a picture
 * left in the edit means that control character.
 */
export function fromControlPictures(text: string): string {
  return text.replace(/[\u2400-\u241f\u2421]/g, (picture) => {
    const code = picture.charCodeAt(0);
    return code === 0x2421 ? '\x7f' : String.fromCharCode(code - 0x2400);
  });
}
