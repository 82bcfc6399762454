/**
 * Keys typed while santra starts. Until the UI reads the terminal, what the user types piles up:
 * before the terminal is switched to raw mode the line discipline takes it in cooked mode (each
 * Enter a line feed), after that as raw keys (each Enter a carriage return). Read in one chunk by
 * the composer, two messages typed ahead would look like one pasted text with a line break in it.
 *
 * santra therefore switches to raw mode and bracketed paste first thing and holds what is typed
 * until the UI is drawn: each line ended with Enter is then sent as typed, in order (queued until
 * the server is ready), and the unfinished rest is left in stdin for the composer. A paste keeps
 * its line breaks.
 */
import type { ReadStream, WriteStream } from 'node:tty';

export interface TypedAhead {
  /** The lines the user ended with Enter, in order. */
  lines: string[];
  /** What followed the last Enter, not yet sent. */
  rest: string;
}

const PASTE_START = '\u001b[200~';
const PASTE_END = '\u001b[201~';
// An escape sequence (an arrow, a function key): not text.
const ESCAPE = /^\u001b(?:\[[0-9;?]*[ -/]*[@-~]|O.|.?)/;

/**
 * What was typed ahead, as lines and the rest: Enter (a line feed in cooked mode, a carriage
 * return in raw mode) ends a line; Backspace and Ctrl+U edit it, Ctrl+C drops it; a bracketed
 * paste is text, line breaks included; other keys are not text.
 */
export function readTypedAhead(input: string): TypedAhead {
  const lines: string[] = [];
  let line = '';
  let at = 0;
  while (at < input.length) {
    if (input.startsWith(PASTE_START, at)) {
      const end = input.indexOf(PASTE_END, at);
      const pasted = input.slice(at + PASTE_START.length, end === -1 ? undefined : end);
      line += pasted.replace(/\r\n?/g, '\n');
      at = end === -1 ? input.length : end + PASTE_END.length;
      continue;
    }
    const char = input[at] as string;
    if (char === '\u001b') {
      at += ESCAPE.exec(input.slice(at))?.[0].length ?? 1;
      continue;
    }
    at++;
    if (char === '\r' || char === '\n') {
      lines.push(line);
      line = '';
    } else if (char === '\u007f' || char === '\b') line = [...line].slice(0, -1).join('');
    else if (char === '\u0015' || char === '\u0003') line = '';
    else if (char === '\t' || char >= ' ') line += char;
  }
  return { lines: lines.filter((typed) => typed.trim() !== ''), rest: line };
}

export interface HeldInput {
  /** Stops holding: the lines typed so far, with the rest put back into stdin for the UI. */
  release(): string[];
}

/** Switches the terminal to raw mode and bracketed paste, and holds what is typed until `release`. */
export function holdTypedAhead(stdin: ReadStream, stdout: WriteStream): HeldInput {
  if (!stdin.isTTY) return { release: () => [] };
  stdin.setRawMode(true);
  stdout.write('\u001b[?2004h');
  // A failure before the UI takes the terminal over must not leave it raw, or in paste mode.
  process.once('exit', () => {
    if (stdin.isRaw) stdin.setRawMode(false);
    stdout.write('\u001b[?2004l');
  });
  const typed: Buffer[] = [];
  // Read in paused mode, as Ink reads: a stream once flowing and paused again would leave the
  // UI's own reads waiting.
  const hold = () => {
    for (let chunk: Buffer | null; (chunk = stdin.read() as Buffer | null) !== null;) typed.push(chunk);
  };
  stdin.on('readable', hold);
  return {
    release() {
      hold();
      stdin.off('readable', hold);
      // The terminal echoed what was typed before raw mode; an unfinished line of it would sit
      // where the UI starts drawing. (The line santra was started from ended with Enter, so
      // the current line holds nothing else.)
      if (typed.length > 0) stdout.write('\r\u001b[K');
      const { lines, rest } = readTypedAhead(Buffer.concat(typed).toString('utf8'));
      if (rest !== '') stdin.unshift(Buffer.from(rest, 'utf8'));
      return lines;
    },
  };
}
