/**
 * Keys typed while santra starts. Until the terminal is switched to raw mode, the line discipline
 * takes what the user types in cooked mode: it echoes it, applies its editing keys, and turns each
 * Enter into a line feed, which the composer would read as Ctrl+J, a new line. santra therefore
 * switches to raw mode (and bracketed paste) first thing, holds what is typed until the UI is drawn,
 * and gives it back to the UI with each line feed as the carriage return a raw Enter sends. The
 * composer then reads it as any keys that came together: each Enter sends its line, in order.
 */
import type { ReadStream, WriteStream } from 'node:tty';

/** Keys typed in cooked mode as the same keys in raw mode: a line feed there was an Enter. */
export function cookedAsRaw(text: string): string {
  return text.replaceAll('\n', '\r');
}

export interface HeldInput {
  /** Stops holding: what was typed goes back into stdin, for the UI to read first. */
  release(): void;
}

/** Switches the terminal to raw mode and bracketed paste, and holds what is typed until `release`. */
export function holdTypedAhead(stdin: ReadStream, stdout: WriteStream): HeldInput {
  if (!stdin.isTTY) return { release: () => {} };
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
      if (typed.length === 0) return;
      // The terminal echoed what was typed before raw mode; an unfinished line of it would sit
      // where the UI starts drawing. (The line santra was started from ended with Enter, so
      // the current line holds nothing else.)
      stdout.write('\r\u001b[K');
      stdin.unshift(Buffer.from(cookedAsRaw(Buffer.concat(typed).toString('utf8')), 'utf8'));
    },
  };
}
