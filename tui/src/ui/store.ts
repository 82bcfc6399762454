/**
 * The interactive UI's view model: one UiState the components read (useSyncExternalStore) and the
 * controller's parts change with `set`. Each change is drawn through the FrameDrawer (frames.ts),
 * so the frame that follows it can be metered and its writes corked together.
 */
import { basename } from 'node:path';
import type { PermissionMode } from '#protocol';
import type { FrameDrawer } from './frames.ts';
import { availableCommands } from './slash-commands.ts';
import { EMPTY_TRANSCRIPT } from './transcript.ts';
import type { UiState } from './ui-state.ts';

export class UiStore {
  readonly #listeners = new Set<() => void>();
  readonly #drawFrame: FrameDrawer | undefined;
  #state: UiState;

  constructor(initial: UiState, drawFrame?: FrameDrawer) {
    this.#state = initial;
    this.#drawFrame = drawFrame;
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  readonly getState = (): UiState => this.#state;

  get state(): UiState {
    return this.#state;
  }

  /** Changes the state; the listeners are told inside the frame drawer, when there is one. */
  set(patch: Partial<UiState>): void {
    this.#state = { ...this.#state, ...patch };
    const draw = this.#drawFrame;
    if (draw === undefined) this.#notify();
    else draw(() => this.#notify());
  }

  #notify(): void {
    for (const listener of this.#listeners) listener();
  }
}

/** The state before the server answered: nothing known but the project's name. */
export function initialState(
  workspaceRoot: string,
  now: number,
  permissionMode: PermissionMode = 'default',
): UiState {
  return {
    connection: 'starting',
    failure: undefined,
    project: basename(workspaceRoot) || workspaceRoot,
    model: undefined,
    sessionId: undefined,
    sessionUsage: undefined,
    sessionCostUsd: 0,
    permissionMode,
    lastRun: undefined,
    transcript: EMPTY_TRANSCRIPT,
    printed: { key: 0, items: [] },
    interactions: [],
    queued: [],
    picker: undefined,
    draft: undefined,
    setup: undefined,
    commands: availableCommands(undefined),
    history: [],
    cancelling: false,
    exitArmed: false,
    epoch: 0,
    now,
  };
}
