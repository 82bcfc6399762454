/**
 * A small terminal-screen model for the interactive shells (shell-tools.ts): what a PTY program
 * wrote, rendered as the lines a person would see on its screen, so the model reads a REPL's
 * prompt and answer rather than the escape sequences that drew them. No headless terminal
 * emulator is a dependency of Santra, so this implements the subset REPLs, shells, installers and
 * simple full-screen programs use: printable text with line wrap, CR/LF/BS/TAB, cursor movement
 * (CUU/CUD/CUF/CUB/CNL/CPL/CHA/CUP/HVP/VPA, save/restore), erase in display and line, insert and
 * delete of characters and lines, scroll regions, the alternate screen, and a scrollback of the
 * lines that scrolled off. Colours and other attributes (SGR), OSC titles and modes it does not
 * model are parsed and dropped, never shown as text.
 */

/** Lines kept above the screen once they scroll off. */
const SCROLLBACK_LINES = 2000;

type ParserState = 'text' | 'escape' | 'csi' | 'osc' | 'osc_escape' | 'charset';

export class TerminalScreen {
  #cols: number;
  #rows: number;
  #lines: string[][];
  #scrollback: string[] = [];
  #row = 0;
  #col = 0;
  /** The cursor is past the last column: the next printable character wraps first. */
  #pendingWrap = false;
  #saved = { row: 0, col: 0 };
  #top = 0;
  #bottom: number;
  #main: { lines: string[][]; row: number; col: number } | undefined;
  #state: ParserState = 'text';
  #params = '';

  constructor(cols: number, rows: number) {
    this.#cols = cols;
    this.#rows = rows;
    this.#bottom = rows - 1;
    this.#lines = Array.from({ length: rows }, () => this.#blank());
  }

  get cursor(): { row: number; col: number } {
    return { row: this.#row, col: this.#col };
  }

  /** Feeds what the program wrote (decoded text; sequences may be split across calls). */
  write(data: string): void {
    for (const char of data) this.#feed(char);
  }

  /** The screen as text: one line per row, trailing blanks and trailing empty rows removed. */
  screen(): string {
    const lines = this.#lines.map((line) => line.join('').trimEnd());
    while (lines.length > 0 && lines.at(-1) === '') lines.pop();
    return lines.join('\n');
  }

  /** The lines that scrolled off the top (oldest first), then the screen. */
  history(): string {
    const screen = this.screen();
    return [...this.#scrollback, ...(screen === '' ? [] : [screen])].join('\n');
  }

  resize(cols: number, rows: number): void {
    const lines = this.#lines.map((line) =>
      line.length >= cols ? line.slice(0, cols) : [...line, ...this.#blankOf(cols - line.length)],
    );
    while (lines.length > rows) this.#pushScrollback((lines.shift() as string[]).join('').trimEnd());
    while (lines.length < rows) lines.push(this.#blankOf(cols));
    this.#cols = cols;
    this.#rows = rows;
    this.#lines = lines;
    this.#top = 0;
    this.#bottom = rows - 1;
    this.#row = Math.min(this.#row, rows - 1);
    this.#col = Math.min(this.#col, cols - 1);
    this.#pendingWrap = false;
  }

  #blank(): string[] {
    return this.#blankOf(this.#cols);
  }

  #blankOf(count: number): string[] {
    return Array.from({ length: count }, () => ' ');
  }

  #feed(char: string): void {
    switch (this.#state) {
      case 'text':
        this.#text(char);
        return;
      case 'escape':
        this.#escape(char);
        return;
      case 'csi':
        // Parameters and intermediates until a final byte (0x40–0x7e).
        if (char >= '@' && char <= '~') {
          this.#state = 'text';
          this.#csi(char, this.#params);
        } else this.#params += char;
        return;
      case 'osc':
        if (char === '\x07') this.#state = 'text';
        else if (char === '\x1b') this.#state = 'osc_escape';
        return;
      case 'osc_escape':
        // ESC \ ends the string; anything else is dropped with it.
        this.#state = 'text';
        return;
      case 'charset':
        this.#state = 'text';
        return;
      default: {
        const exhaustive: never = this.#state;
        throw new Error(`unknown parser state ${String(exhaustive)}`);
      }
    }
  }

  #text(char: string): void {
    switch (char) {
      case '\x1b':
        this.#state = 'escape';
        return;
      case '\r':
        this.#col = 0;
        this.#pendingWrap = false;
        return;
      case '\n':
      case '\v':
      case '\f':
        this.#lineFeed();
        return;
      case '\b':
        if (this.#pendingWrap) this.#pendingWrap = false;
        else this.#col = Math.max(0, this.#col - 1);
        return;
      case '\t':
        this.#col = Math.min(this.#cols - 1, (Math.floor(this.#col / 8) + 1) * 8);
        return;
      default:
        // Other C0 controls (BEL, SI, SO…) and DEL draw nothing.
        if (char < ' ' || char === '\x7f') return;
        this.#print(char);
    }
  }

  #print(char: string): void {
    if (this.#pendingWrap) {
      this.#col = 0;
      this.#lineFeed();
      this.#pendingWrap = false;
    }
    (this.#lines[this.#row] as string[])[this.#col] = char;
    if (this.#col === this.#cols - 1) this.#pendingWrap = true;
    else this.#col++;
  }

  #lineFeed(): void {
    this.#pendingWrap = false;
    if (this.#row === this.#bottom) this.#scrollUp(1);
    else if (this.#row < this.#rows - 1) this.#row++;
  }

  #scrollUp(count: number): void {
    for (let i = 0; i < count; i++) {
      const [gone] = this.#lines.splice(this.#top, 1, ...[]);
      // Only what leaves the top of the whole main screen is history a person could scroll back to.
      if (this.#top === 0 && this.#main === undefined) this.#pushScrollback((gone ?? []).join('').trimEnd());
      this.#lines.splice(this.#bottom, 0, this.#blank());
    }
  }

  #scrollDown(count: number): void {
    for (let i = 0; i < count; i++) {
      this.#lines.splice(this.#bottom, 1);
      this.#lines.splice(this.#top, 0, this.#blank());
    }
  }

  #pushScrollback(line: string): void {
    this.#scrollback.push(line);
    if (this.#scrollback.length > SCROLLBACK_LINES) this.#scrollback.shift();
  }

  #escape(char: string): void {
    this.#state = 'text';
    switch (char) {
      case '[':
        this.#state = 'csi';
        this.#params = '';
        return;
      case ']':
      case 'P':
      case '_':
      case '^':
        // OSC, DCS, APC, PM: strings to the terminal, never text on the screen.
        this.#state = 'osc';
        return;
      case '(':
      case ')':
      case '*':
      case '+':
        this.#state = 'charset';
        return;
      case '7':
        this.#saved = { row: this.#row, col: this.#col };
        return;
      case '8':
        this.#moveTo(this.#saved.row, this.#saved.col);
        return;
      case 'D':
        this.#lineFeed();
        return;
      case 'E':
        this.#col = 0;
        this.#lineFeed();
        return;
      case 'M':
        if (this.#row === this.#top) this.#scrollDown(1);
        else this.#row = Math.max(0, this.#row - 1);
        return;
      case 'c':
        this.#reset();
        return;
      default:
        // Keypad modes (= >) and the rest change nothing this model draws.
        return;
    }
  }

  #csi(final: string, raw: string): void {
    // Private sequences (`?1049h`, `>c`) carry a leading marker.
    const marker = /^[?>=<]/.test(raw) ? (raw[0] as string) : '';
    const numbers = raw
      .slice(marker.length)
      .replace(/[^0-9;:]/g, '')
      .split(/[;:]/)
      .map((part) => (part === '' ? undefined : Number(part)));
    const n = (index: number, fallback = 1) => {
      const value = numbers[index];
      return value === undefined || value === 0 ? fallback : value;
    };
    if (marker === '?') {
      if (final === 'h' || final === 'l') this.#privateMode(numbers, final === 'h');
      return;
    }
    if (marker !== '') return;
    switch (final) {
      case 'A':
        this.#moveTo(Math.max(this.#row - n(0), this.#row >= this.#top ? this.#top : 0), this.#col);
        return;
      case 'B':
      case 'e':
        this.#moveTo(
          Math.min(this.#row + n(0), this.#row <= this.#bottom ? this.#bottom : this.#rows - 1),
          this.#col,
        );
        return;
      case 'C':
      case 'a':
        this.#moveTo(this.#row, this.#col + n(0));
        return;
      case 'D':
        this.#moveTo(this.#row, this.#col - n(0));
        return;
      case 'E':
        this.#moveTo(this.#row + n(0), 0);
        return;
      case 'F':
        this.#moveTo(this.#row - n(0), 0);
        return;
      case 'G':
      case '`':
        this.#moveTo(this.#row, n(0) - 1);
        return;
      case 'd':
        this.#moveTo(n(0) - 1, this.#col);
        return;
      case 'H':
      case 'f':
        this.#moveTo(n(0) - 1, n(1) - 1);
        return;
      case 'J':
        this.#eraseDisplay(numbers[0] ?? 0);
        return;
      case 'K':
        this.#eraseLine(numbers[0] ?? 0);
        return;
      case 'X':
        this.#fill(this.#row, this.#col, Math.min(this.#cols, this.#col + n(0)));
        return;
      case 'P': {
        const line = this.#lines[this.#row] as string[];
        line.splice(this.#col, Math.min(n(0), this.#cols - this.#col));
        while (line.length < this.#cols) line.push(' ');
        return;
      }
      case '@': {
        const line = this.#lines[this.#row] as string[];
        line.splice(this.#col, 0, ...this.#blankOf(Math.min(n(0), this.#cols - this.#col)));
        line.length = this.#cols;
        return;
      }
      case 'L':
        if (this.#row >= this.#top && this.#row <= this.#bottom)
          this.#withRegion(this.#row, () => this.#scrollDown(n(0)));
        return;
      case 'M':
        if (this.#row >= this.#top && this.#row <= this.#bottom)
          this.#withRegion(this.#row, () => this.#scrollUpInRegion(n(0)));
        return;
      case 'S':
        this.#scrollUpInRegion(n(0));
        return;
      case 'T':
        this.#scrollDown(n(0));
        return;
      case 'r': {
        const top = n(0) - 1;
        const bottom = (numbers[1] ?? this.#rows) - 1;
        if (top < bottom && bottom < this.#rows) {
          this.#top = top;
          this.#bottom = bottom;
          this.#moveTo(0, 0);
        }
        return;
      }
      case 's':
        this.#saved = { row: this.#row, col: this.#col };
        return;
      case 'u':
        this.#moveTo(this.#saved.row, this.#saved.col);
        return;
      default:
        // SGR (m), device status (n), modes (h/l) and the rest draw nothing.
        return;
    }
  }

  /** Scrolls the region without keeping history (lines deleted inside it are gone). */
  #scrollUpInRegion(count: number): void {
    for (let i = 0; i < count; i++) {
      this.#lines.splice(this.#top, 1);
      this.#lines.splice(this.#bottom, 0, this.#blank());
    }
  }

  /** Runs `action` with the region's top moved to `row` (insert and delete lines act from the cursor down). */
  #withRegion(row: number, action: () => void): void {
    const top = this.#top;
    this.#top = row;
    action();
    this.#top = top;
    this.#col = 0;
  }

  #privateMode(numbers: Array<number | undefined>, on: boolean): void {
    for (const mode of numbers) {
      if (mode !== 1049 && mode !== 1047 && mode !== 47) continue;
      if (on && this.#main === undefined) {
        this.#main = { lines: this.#lines, row: this.#row, col: this.#col };
        this.#lines = Array.from({ length: this.#rows }, () => this.#blank());
        this.#moveTo(0, 0);
      } else if (!on && this.#main !== undefined) {
        this.#lines = this.#main.lines;
        this.#moveTo(this.#main.row, this.#main.col);
        this.#main = undefined;
      }
    }
  }

  #moveTo(row: number, col: number): void {
    this.#row = Math.max(0, Math.min(this.#rows - 1, row));
    this.#col = Math.max(0, Math.min(this.#cols - 1, col));
    this.#pendingWrap = false;
  }

  #fill(row: number, from: number, to: number): void {
    const line = this.#lines[row] as string[];
    for (let col = from; col < to; col++) line[col] = ' ';
  }

  #eraseLine(mode: number): void {
    if (mode === 0) this.#fill(this.#row, this.#col, this.#cols);
    else if (mode === 1) this.#fill(this.#row, 0, this.#col + 1);
    else this.#fill(this.#row, 0, this.#cols);
  }

  #eraseDisplay(mode: number): void {
    if (mode === 0) {
      this.#eraseLine(0);
      for (let row = this.#row + 1; row < this.#rows; row++) this.#fill(row, 0, this.#cols);
    } else if (mode === 1) {
      this.#eraseLine(1);
      for (let row = 0; row < this.#row; row++) this.#fill(row, 0, this.#cols);
    } else {
      if (mode === 3) this.#scrollback = [];
      for (let row = 0; row < this.#rows; row++) this.#fill(row, 0, this.#cols);
    }
  }

  #reset(): void {
    this.#lines = Array.from({ length: this.#rows }, () => this.#blank());
    this.#main = undefined;
    this.#top = 0;
    this.#bottom = this.#rows - 1;
    this.#moveTo(0, 0);
  }
}
