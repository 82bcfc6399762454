/**
 * State that key handlers read and change. Several keys often come in one chunk of stdin (tmux
 * send-keys, a fast key repeat, arrows held down): Ink calls a useInput handler once for each of
 * them before React renders again, so a handler that read the value of its render would see the
 * same value for every key of the chunk, and all keys but the last would be lost. This state lives
 * in a ref that every `set` changes at once: each key sees what the key before it did, and the
 * component renders after them.
 */
import { useCallback, useReducer, useRef } from 'react';

export interface KeyState<T> {
  /** The value when the component rendered. */
  readonly value: T;
  /** The value now: what key handlers must read. */
  get(): T;
  set(next: T): void;
}

export function useKeyState<T>(initial: T): KeyState<T> {
  const ref = useRef(initial);
  const [, rerender] = useReducer((count: number) => count + 1, 0);
  const get = useCallback(() => ref.current, []);
  const set = useCallback((next: T) => {
    if (Object.is(ref.current, next)) return;
    ref.current = next;
    rerender();
  }, []);
  return { value: ref.current, get, set };
}
