/**
 * Bounding how long something may take. The timer never keeps the process alive: a bound exists
 * so that a stuck promise cannot hold up an exit, never to delay one.
 */

/** Settles as `promise` does, or rejects with `timedOut()` once `ms` have passed. */
export function withTimeout<T>(promise: Promise<T>, ms: number, timedOut: () => Error): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(timedOut()), ms);
    timer.unref();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
