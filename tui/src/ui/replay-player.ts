/**
 * The replay viewer's state: a recording's timeline played through the same transcript reducer as
 * a live session (transcript.ts), so a recording looks as the run did. A virtual clock runs at the
 * chosen speed; each tick applies every step that is due, in one update (at most one a frame), and
 * sleeps until the next one is due — nothing runs while paused or at the end.
 */
import { addUsage } from '../client/usage.ts';
import type { Usage } from '#protocol';
import { type UiState, withPrinted } from './ui-state.ts';
import type { Recording } from './replay-recording.ts';
import { EMPTY_TRANSCRIPT, stepAll, type Transcript, type TranscriptEvent } from './transcript.ts';

export const SPEEDS = [0.5, 1, 2, 4, 8, 16] as const;
/**
 * The replay's frames: about 30 a second, finer than a live session's FRAME_MS, so the recorded
 * pace of 15 ms a phase shows (a replay streams no model, and its CPU is not the point).
 */
export const REPLAY_FRAME_MS = 33;
const DEFAULT_SPEED = 1;

export interface ReplayState {
  transcript: Transcript;
  printed: UiState['printed'];
  /** Steps applied so far, of `total`. */
  position: number;
  total: number;
  /** The run shown (1-based; 0 before the first prompt), of `runs`. */
  run: number;
  runs: number;
  model: string | undefined;
  speed: (typeof SPEEDS)[number];
  paused: boolean;
  done: boolean;
  usage: Usage | undefined;
  costUsd: number;
}

export interface PlayerClock {
  now: () => number;
  setTimer: (run: () => void, ms: number) => unknown;
  clearTimer: (timer: unknown) => void;
}

const realClock: PlayerClock = {
  now: () => performance.now(),
  setTimer: (run, ms) => setTimeout(run, ms),
  clearTimer: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

export class ReplayPlayer {
  readonly #recording: Recording;
  readonly #clock: PlayerClock;
  readonly #listeners = new Set<() => void>();
  /** Recording time (ms at 1x) at which each step is due. */
  readonly #due: number[];
  #state: ReplayState;
  #elapsed = 0;
  #since = 0;
  #timer: unknown;

  constructor(recording: Recording, clock: PlayerClock = realClock) {
    this.#recording = recording;
    this.#clock = clock;
    let due = 0;
    this.#due = recording.steps.map((step) => (due += step.waitMs));
    this.#state = {
      transcript: EMPTY_TRANSCRIPT,
      printed: { key: 0, items: [] },
      position: 0,
      total: recording.steps.length,
      run: 0,
      runs: recording.runs,
      model: undefined,
      speed: DEFAULT_SPEED,
      paused: false,
      done: recording.steps.length === 0,
      usage: undefined,
      costUsd: 0,
    };
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  readonly getState = (): ReplayState => this.#state;

  #set(patch: Partial<ReplayState>): void {
    this.#state = { ...this.#state, ...patch };
    for (const listener of this.#listeners) listener();
  }

  /** Starts playing from the beginning. */
  start(): void {
    this.#since = this.#clock.now();
    this.#tick();
  }

  /** Space: pause, or play on from where it stopped. */
  togglePause(): void {
    if (this.#state.done) return;
    if (this.#state.paused) {
      this.#since = this.#clock.now();
      this.#set({ paused: false });
      this.#tick();
    } else {
      this.#advanceClock();
      this.#cancel();
      this.#set({ paused: true });
    }
  }

  /** + and -: the next speed up or down (0.5x … 16x). */
  faster(): void {
    this.#changeSpeed(1);
  }

  slower(): void {
    this.#changeSpeed(-1);
  }

  /** End: everything that is left, at once. */
  toEnd(): void {
    this.#cancel();
    this.#apply(this.#state.total);
  }

  /** Stops the timer (q). */
  stop(): void {
    this.#cancel();
  }

  #changeSpeed(by: number): void {
    const index = SPEEDS.indexOf(this.#state.speed) + by;
    const speed = SPEEDS[Math.max(0, Math.min(SPEEDS.length - 1, index))] ?? DEFAULT_SPEED;
    if (speed === this.#state.speed) return;
    if (!this.#state.paused) this.#advanceClock();
    this.#set({ speed });
    if (!this.#state.paused && !this.#state.done) {
      this.#cancel();
      this.#schedule();
    }
  }

  #advanceClock(): void {
    const now = this.#clock.now();
    this.#elapsed += (now - this.#since) * this.#state.speed;
    this.#since = now;
  }

  #tick(): void {
    this.#timer = undefined;
    if (this.#state.paused || this.#state.done) return;
    this.#advanceClock();
    let end = this.#state.position;
    while (end < this.#due.length && (this.#due[end] ?? 0) <= this.#elapsed) end++;
    this.#apply(end);
    if (!this.#state.done) this.#schedule();
  }

  #schedule(): void {
    const next = this.#due[this.#state.position] ?? this.#elapsed;
    const wait = Math.max(REPLAY_FRAME_MS, (next - this.#elapsed) / this.#state.speed);
    this.#timer = this.#clock.setTimer(() => this.#tick(), wait);
  }

  #cancel(): void {
    if (this.#timer !== undefined) this.#clock.clearTimer(this.#timer);
    this.#timer = undefined;
  }

  /** Applies the steps up to `end` (exclusive) in one update. */
  #apply(end: number): void {
    const start = this.#state.position;
    if (end <= start) return;
    const events: TranscriptEvent[] = [];
    let { run, usage, costUsd } = this.#state;
    for (let index = start; index < end; index++) {
      const event = this.#recording.steps[index]?.event;
      if (event === undefined) continue;
      events.push(event);
      if (event.type === 'run_start') run++;
      if (event.type === 'run_end') {
        if (event.usage !== undefined) usage = addUsage(usage, event.usage);
        costUsd += event.costUsd ?? 0;
      }
    }
    const { state, entries } = stepAll(this.#state.transcript, events);
    if (this.#elapsed < (this.#due[end - 1] ?? 0)) this.#elapsed = this.#due[end - 1] ?? 0;
    this.#set({
      transcript: state,
      printed: withPrinted(this.#state.printed, entries),
      position: end,
      run,
      model: this.#recording.models[run - 1] || this.#state.model,
      usage,
      costUsd,
      done: end >= this.#state.total,
    });
  }
}
