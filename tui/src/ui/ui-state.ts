/**
 * The shape of the interactive UI's state, which the controller changes and the components (and
 * the replay viewer) read, and how <Static> takes printed entries.
 */
import type { ModelEntry, Usage } from '#protocol';
import type { Interaction } from './interactions.ts';
import type { SlashCommand } from './slash-commands.ts';
import type { Entry, Transcript } from './transcript.ts';

export const FLUSH_MS = 8;
/** About 30 frames a second at most. */
export const FRAME_MS = 33;
/** <Static> starts a fresh list past this many entries, so printed entries are not kept. */
const STATIC_WINDOW = 200;

export interface PickerItem {
  label: string;
  detail?: string;
  value: string;
  group?: string;
}

export interface PickerState {
  purpose: 'model' | 'resume';
  title: string;
  items: PickerItem[];
}

export interface SetupState {
  providers: { id: string; models: ModelEntry[] }[];
  error?: string;
}

export interface UiState {
  connection: 'starting' | 'setup' | 'ready' | 'failed';
  failure: string | undefined;
  project: string;
  model: string | undefined;
  sessionId: string | undefined;
  sessionUsage: Usage | undefined;
  sessionCostUsd: number;
  transcript: Transcript;
  /** What <Static> prints: entries are printed once, when they first appear under a key. */
  printed: { key: number; items: Entry[] };
  interactions: readonly Interaction[];
  queued: readonly string[];
  picker: PickerState | undefined;
  setup: SetupState | undefined;
  commands: readonly SlashCommand[];
  history: readonly string[];
  cancelling: boolean;
  exitArmed: boolean;
  /** Changes when the screen was cleared, so the frame is drawn again. */
  epoch: number;
}

/** What <Static> prints after these new entries (the same list, or a fresh one past STATIC_WINDOW). */
export function withPrinted(printed: UiState['printed'], entries: Entry[]): UiState['printed'] {
  if (entries.length === 0) return printed;
  return printed.items.length + entries.length > STATIC_WINDOW
    ? { key: printed.key + 1, items: entries }
    : { key: printed.key, items: [...printed.items, ...entries] };
}
