/**
 * The work a computation does, as the CPU time this thread spends on it: for bounds that catch a
 * runaway (a quadratic scan, a backtracking pattern) on pathological input. Unlike wall-clock time
 * it does not count the time the thread waits for a core, so a busy machine does not make it flake;
 * a bound far above the measured cost still fails on work that grows out of proportion. How fast
 * the same work runs is for the benchmarks in scripts/ (bench-*.ts), not for tests.
 */

type Usage = NodeJS.CpuUsage;

// process.threadCpuUsage came in Node 22.19 and 23.9; before it, the process's, which also counts
// its other threads (the GC's, libuv's), so it only errs on the safe side of a bound.
const usage: (previous?: Usage) => Usage =
  typeof process.threadCpuUsage === 'function'
    ? (previous) => process.threadCpuUsage(previous)
    : (previous) => process.cpuUsage(previous);

/** Runs `work` and returns its result with the CPU time, in ms, this thread spent meanwhile. */
export async function withCpuTime<T>(work: () => T | Promise<T>): Promise<{ result: T; cpuMs: number }> {
  const start = usage();
  const result = await work();
  const spent = usage(start);
  return { result, cpuMs: (spent.user + spent.system) / 1000 };
}
