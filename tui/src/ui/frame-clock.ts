/**
 * When the interactive UI draws its next frame. Transcript events wait for a frame: streamed text
 * TEXT_FRAME_MS after the last one, anything else FRAME_MS, never sooner than FLUSH_MS after the
 * event (so a burst lands in one frame); a sooner request moves a later one forward. While a run
 * goes on, the spinner steps every SPIN_MS when no frame did; nothing runs while nothing happens.
 */
import { FLUSH_MS, SPIN_MS } from './ui-state.ts';

export class FrameClock {
  readonly #now: () => number;
  /** Draws the frame that was asked for. */
  readonly #frame: () => void;
  /** Moves the spinner in a frame of its own, at this time. */
  readonly #step: (now: number) => void;
  #timer: NodeJS.Timeout | undefined;
  /** When the timer fires (Infinity: it is not set). */
  #due = Infinity;
  #last = -Infinity;
  #spinner: NodeJS.Timeout | undefined;

  constructor(options: { now: () => number; frame: () => void; step: (now: number) => void }) {
    this.#now = options.now;
    this.#frame = options.frame;
    this.#step = options.step;
  }

  /** Asks for a frame `pace` ms after the last one, and FLUSH_MS from now at the soonest. */
  request(pace: number): void {
    const now = this.#now();
    this.#schedule(Math.max(now + FLUSH_MS, this.#last + pace), now);
  }

  /** Asks for another frame FLUSH_MS from now, unless one is coming (more to print). */
  again(): void {
    if (this.#timer === undefined) this.#schedule(this.#now() + FLUSH_MS, this.#now());
  }

  /** A frame is being drawn now: whatever was scheduled is done. Returns the frame's time. */
  drawing(): number {
    this.#cancel();
    this.#last = this.#now();
    return this.#last;
  }

  /** Starts or stops the spinner's steps as a run starts or ends. */
  spin(running: boolean): void {
    if (running && this.#spinner === undefined) {
      this.#spinner = setInterval(() => {
        const now = this.#now();
        // A frame moved it recently, or one is coming: that will again.
        if (now - this.#last < SPIN_MS / 2 || this.#timer !== undefined) return;
        this.#last = now;
        this.#step(now);
      }, SPIN_MS);
      // It only moves a picture: it never keeps santra (or a test) running by itself.
      this.#spinner.unref();
    } else if (!running && this.#spinner !== undefined) {
      clearInterval(this.#spinner);
      this.#spinner = undefined;
    }
  }

  /** Stops every timer, for good. */
  stop(): void {
    this.#cancel();
    this.spin(false);
  }

  #schedule(due: number, now: number): void {
    if (this.#timer !== undefined) {
      if (due >= this.#due) return;
      clearTimeout(this.#timer);
    }
    this.#due = due;
    this.#timer = setTimeout(() => this.#frame(), due - now);
  }

  #cancel(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#due = Infinity;
  }
}
