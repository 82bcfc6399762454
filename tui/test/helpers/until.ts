/**
 * Waiting in a test for what it waits for, never for a stretch of time: a fixed sleep passes on a
 * fast machine and fails on a slow one (test-waits.test.ts keeps them out). `until` looks again
 * after each turn of the event loop, so promises and React's renders run between looks; the
 * deadline only bounds a wait that would otherwise hang, and its failure shows what was there.
 */

/** One turn of the event loop: the promises and React renders queued so far have run. */
export const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Waits for `check` to hold, calling `step` (e.g. the controller's flush) before each look; fails
 * after `ms` with `what`, and `state()` (e.g. the frame) to show what was there instead.
 */
export async function until(
  check: () => boolean,
  what: string,
  options: { step?: () => void; state?: () => string; ms?: number } = {},
): Promise<void> {
  const { step = () => {}, state = () => '', ms = 5000 } = options;
  const deadline = performance.now() + ms;
  for (;;) {
    step();
    if (check()) return;
    if (performance.now() > deadline) {
      throw new Error(`waited ${ms} ms for ${what}; it did not happen:\n${state()}`);
    }
    await turn();
  }
}

/**
 * Waits on what an ink-testing-library view draws: `shows` until its last frame has `pattern`,
 * `hides` until it no longer has it. Keys written to its stdin are handled in the write (Ink
 * holds only a lone Esc back, for a timer of its own), and their frame follows; a key that must
 * change nothing is checked by one after it that does, as keys are handled in order.
 */
export function frameWaits(view: { lastFrame: () => string | undefined }) {
  const frame = () => view.lastFrame() ?? '';
  const has = (pattern: RegExp | string) =>
    typeof pattern === 'string' ? frame().includes(pattern) : pattern.test(frame());
  return {
    frame,
    shows: (pattern: RegExp | string) =>
      until(() => has(pattern), `the frame to show ${String(pattern)}`, { state: frame }),
    hides: (pattern: RegExp | string) =>
      until(() => !has(pattern), `the frame to stop showing ${String(pattern)}`, { state: frame }),
    /** Waits until `check` holds, showing the frame if it never does. */
    until: (check: () => boolean, what: string) => until(check, what, { state: frame }),
  };
}
