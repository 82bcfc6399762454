/**
 * How a change of the UI's state becomes a frame on the terminal, and the benchmark's meter of it.
 *
 * A frame starts with a change of the controller's store. React renders the changes of one task
 * together, in a microtask it queues at the first; Ink lays the tree out, draws it and writes it in
 * React's commit (its throttle being shorter than the controller's frame). So a microtask queued
 * after the change runs once the frame is written.
 */
import { openSync, writeSync } from 'node:fs';

/** Runs a change of state; its frame is drawn in the microtasks after it. */
export type FrameDrawer = (change: () => void) => void;

/**
 * Writes each frame to the terminal at once. Ink writes a frame in three to five pieces (the
 * synchronized-output marks, the erase of the live part, new <Static> output, the frame), each
 * its own write(2) to the terminal; corked, they leave in one.
 */
export function corkedFrames(stdout: NodeJS.WriteStream): FrameDrawer {
  return (change) => {
    stdout.cork();
    try {
      change();
    } finally {
      queueMicrotask(() => stdout.uncork());
    }
  };
}

/**
 * The benchmark's meter (scripts/bench-tui.ts), off unless the environment names a file in
 * SANTRA_FRAME_STATS: around `draw`, each frame appends a line
 * `{"ms":…,"cpuMs":…,"bytes":…,"entries":…}` to the file: the time from the change to the written
 * frame, the main thread's CPU time in it (which a busy machine does not inflate as it does the
 * wall time), the bytes written to the terminal, and the transcript's entries then (`entries`).
 * Bytes written outside these frames (Ink's own redraws: keys echoed, a resize) come as a line
 * `{"outside":…}` before the next frame, so the benchmark can tell whether the frames are all.
 */
export function meteredFrames(
  env: NodeJS.ProcessEnv,
  stdout: NodeJS.WriteStream,
  draw: FrameDrawer,
  entries: () => number,
): FrameDrawer {
  const file = env.SANTRA_FRAME_STATS;
  if (file === undefined || file === '') return draw;
  const fd = openSync(file, 'a');
  let written = 0;
  let counted = 0;
  const write = stdout.write.bind(stdout);
  stdout.write = (chunk: string | Uint8Array, ...rest: never[]) => {
    written += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    return write(chunk, ...rest);
  };
  let measuring = false;
  return (change) => {
    if (measuring) {
      draw(change); // drawn in the frame already measured
      return;
    }
    measuring = true;
    const bytes = written;
    const start = performance.now();
    const cpu = process.threadCpuUsage();
    draw(change);
    // Queued after draw's own microtasks: the frame is written.
    queueMicrotask(() => {
      measuring = false;
      const ms = performance.now() - start;
      const used = process.threadCpuUsage(cpu);
      const lines: string[] = [];
      if (bytes > counted) lines.push(JSON.stringify({ outside: bytes - counted }));
      // Nothing written: the change showed nothing new, no frame.
      if (written > bytes) {
        const cpuMs = (used.user + used.system) / 1000;
        lines.push(
          JSON.stringify({
            ms: Number(ms.toFixed(3)),
            cpuMs: Number(cpuMs.toFixed(3)),
            bytes: written - bytes,
            entries: entries(),
          }),
        );
      }
      counted = written;
      if (lines.length > 0) writeSync(fd, `${lines.join('\n')}\n`);
    });
  };
}
