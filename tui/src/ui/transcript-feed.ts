/**
 * The transcript's way onto the screen: transcript events (phases, the user's messages, notes) are
 * queued and applied together in frames paced by the FrameClock (frame-clock.ts), so a fast stream
 * costs one React update per frame, not one per delta. Finished entries are printed PRINT_CHARS at
 * most a frame, the rest in the next frames; all of them are kept, to print again at a new width
 * after a resize, and as Markdown, for /export when there is no saved session.
 */
import type { UiStore } from './store.ts';
import { entryMarkdown } from './export-markdown.ts';
import { FrameClock } from './frame-clock.ts';
import { type Entry, reflowEntries, stepAll, type TranscriptEvent } from './transcript.ts';
import { FRAME_MS, PRINT_CHARS, printedSize, TEXT_FRAME_MS, withPrinted } from './ui-state.ts';

/** A resize prints the transcript again once the terminal has kept its width this long. */
const REFLOW_MS = 150;

export interface TranscriptFeedOptions {
  store: UiStore;
  now: () => number;
  /**
   * Clears the screen and the scrollback, and forgets Ink's last frame: the transcript is then
   * printed again at the terminal's new width (a resize).
   */
  resetTerminal: (() => void) | undefined;
}

export class TranscriptFeed {
  readonly #store: UiStore;
  readonly #resetTerminal: (() => void) | undefined;
  readonly #clock: FrameClock;
  #pending: TranscriptEvent[] = [];
  /** Finished entries waiting for a frame to print them (a burst is printed over several). */
  #unprinted: Entry[] = [];
  /** Every finished entry of this UI, printed or not: what a resized terminal prints again. */
  #history: Entry[] = [];
  /** The finished entries of this session as Markdown: what /export writes without a saved one. */
  #exported: string[] = [];
  /** The width the transcript was last printed at, and the pending reprint at a new one. */
  #printedWidth: number | undefined;
  #reflowTimer: NodeJS.Timeout | undefined;

  constructor(options: TranscriptFeedOptions) {
    this.#store = options.store;
    this.#resetTerminal = options.resetTerminal;
    this.#clock = new FrameClock({
      now: options.now,
      frame: () => this.flush(),
      step: (now) => this.#store.set({ now }),
    });
  }

  /**
   * Queues a transcript event; it is applied with the others of its frame. Streamed text waits for
   * a frame of its own pace (TEXT_FRAME_MS); anything else brings the frame forward to FRAME_MS.
   */
  dispatch(event: TranscriptEvent): void {
    this.#pending.push(event);
    this.#clock.request(isStreamedText(event) ? TEXT_FRAME_MS : FRAME_MS);
  }

  note(text: string, tone: 'info' | 'warning' | 'error' = 'info'): void {
    this.dispatch({ type: 'note', text, tone });
  }

  /** Applies the queued events now (the clock does this; tests may too). */
  flush(): void {
    const now = this.#clock.drawing();
    if (this.#pending.length === 0 && this.#unprinted.length === 0) return;
    const events = this.#pending;
    this.#pending = [];
    const state = this.#store.state;
    const { state: transcript, entries } = stepAll(state.transcript, events);
    for (const entry of entries) {
      const text = entryMarkdown(entry);
      if (text !== undefined) this.#exported.push(text);
    }
    this.#unprinted.push(...entries);
    this.#history.push(...entries);
    this.#store.set({
      transcript,
      printed: withPrinted(state.printed, this.#takePrintable()),
      now,
    });
    if (this.#unprinted.length > 0) this.#clock.again();
    this.#clock.spin(transcript.running);
  }

  /**
   * The terminal's columns, from the view: answers are then printed row by row as they come. A
   * change of width (a resize) prints the transcript again at the new width once the resizing has
   * stopped for REFLOW_MS: the terminal's own rewrapping of the old frame leaves copies of it and
   * torn boxes in the scrollback, which only a clear and a fresh print remove.
   */
  setWidth(columns: number): void {
    if (columns !== this.#store.state.transcript.width) this.dispatch({ type: 'width', columns });
    if (this.#printedWidth === undefined) {
      this.#printedWidth = columns;
      return;
    }
    clearTimeout(this.#reflowTimer);
    if (columns === this.#printedWidth) return;
    this.#reflowTimer = setTimeout(() => this.reflow(columns), REFLOW_MS);
    this.#reflowTimer.unref?.();
  }

  /** Prints everything again at `columns` wide, after a clear of the screen and the scrollback. */
  reflow(columns: number): void {
    this.#reflowTimer = undefined;
    this.#printedWidth = columns;
    this.flush();
    // Nothing printed yet: Ink redraws its frame at the new width itself.
    if (this.#resetTerminal === undefined || this.#history.length === 0) return;
    this.#resetTerminal();
    this.#history = reflowEntries(this.#history);
    this.#unprinted = [...this.#history];
    const { printed, epoch } = this.#store.state;
    this.#store.set({
      printed: { key: printed.key + 1, items: this.#takePrintable() },
      epoch: epoch + 1,
    });
    if (this.#unprinted.length > 0) this.#clock.again();
  }

  /** What this screen showed of the session, as Markdown (everything queued applied first). */
  shownMarkdown(): string {
    this.flush();
    return `${this.#exported.join('\n')}\n`;
  }

  /** A new session (/clear): what /export writes starts here. */
  startOver(): void {
    this.#exported = [];
  }

  /** Stops the frames' timers, for good (the UI is leaving). */
  stop(): void {
    this.#clock.stop();
  }

  /** The entries this frame prints: PRINT_CHARS at most, and always at least one. */
  #takePrintable(): Entry[] {
    let count = 0;
    let size = 0;
    for (const entry of this.#unprinted) {
      size += printedSize(entry);
      if (count > 0 && size > PRINT_CHARS) break;
      count++;
    }
    return this.#unprinted.splice(0, count);
  }
}

/** A delta of an answer or of thinking being streamed: it only grows what is on screen. */
function isStreamedText(event: TranscriptEvent): boolean {
  return event.type === 'phase' && (event.phase.type === 'text' || event.phase.type === 'thinking');
}
