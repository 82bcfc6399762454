/**
 * The shape of the interactive UI's state, which the controller changes and the components (and
 * the replay viewer) read, and how <Static> takes printed entries.
 */
import type { ModelEntry, PermissionMode, Usage } from '#protocol';
import type { Interaction } from './interactions.ts';
import type { SlashCommand } from './slash-commands.ts';
import type { Entry, Transcript } from './transcript.ts';

export const FLUSH_MS = 8;
/**
 * 30 frames a second at most (issue 12). A frame costs santra 1 to 1.5 ms of CPU whatever changed
 * (React, Ink's layout and its drawing of the whole live part, the write): at 30 a second, about
 * two thirds of santra's CPU while an answer streams (docs/performance.md).
 */
export const FRAME_MS = 33;
/**
 * Frames that only grow streamed text come 20 a second at most: a reader sees no difference from
 * 30 (a frame adds about 40 characters at 200 tokens/s instead of 27), and santra's CPU while an
 * answer streams falls by about a quarter. Keys, overlays, tool rows and status still come at
 * FRAME_MS.
 */
export const TEXT_FRAME_MS = 50;
/** The spinner's step: while a run goes on, a frame comes at least this often. */
export const SPIN_MS = 100;
/**
 * Characters of finished entries printed in one frame at most (about 100 rows of 120 columns); a
 * burst waits for the next frames. Ink draws a frame's new <Static> entries into one grid of
 * cells, all at once: a 190,000-character answer printed in two frames peaked at 250-300 MB.
 */
export const PRINT_CHARS = 12_000;
/** <Static> starts a fresh list past this many entries, so printed entries are not kept. */
const STATIC_WINDOW = 200;

export interface PickerItem {
  label: string;
  detail?: string;
  value: string;
  group?: string;
}

export interface PickerState {
  purpose: 'model' | 'resume' | 'rewind';
  title: string;
  items: PickerItem[];
  /** The item the cursor starts on (the current model). */
  selected?: string;
  /** A rewind's options (`/rewind files fork`), for when a prompt is picked. */
  rewind?: { restoreFiles: boolean; fork: boolean };
}

/** Text put in the composer for the user to edit (a rewound prompt); `id` tells one from the next. */
export interface ComposerDraft {
  id: number;
  text: string;
}

export interface SetupState {
  /**
   * Each provider's models, the one to offer first (its default model, when known), and whether
   * it needs a key (a local server does not: ProviderInfo.needsKey).
   */
  providers: { id: string; models: ModelEntry[]; defaultModel?: string; needsKey: boolean }[];
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
  /** The permission mode sent with each message (Shift+Tab; a run may change it: an approved plan). */
  permissionMode: PermissionMode;
  /** The tokens and cost of the session's last run in this UI (/cost, /status). */
  lastRun: { usage: Usage; costUsd: number } | undefined;
  transcript: Transcript;
  /** What <Static> prints: entries are printed once, when they first appear under a key. */
  printed: { key: number; items: Entry[] };
  interactions: readonly Interaction[];
  queued: readonly string[];
  picker: PickerState | undefined;
  /** What the composer starts with when next drawn (a rewound prompt); cleared by a submit. */
  draft: ComposerDraft | undefined;
  setup: SetupState | undefined;
  commands: readonly SlashCommand[];
  history: readonly string[];
  cancelling: boolean;
  exitArmed: boolean;
  /** Changes when the screen was cleared, so the frame is drawn again. */
  epoch: number;
  /**
   * The clock (ms) when the frame was made: the spinner and the run's seconds are drawn from it,
   * so they move with the frames the answer makes anyway, not with frames of their own.
   */
  now: number;
}

/** What <Static> prints after these new entries (the same list, or a fresh one past STATIC_WINDOW). */
export function withPrinted(printed: UiState['printed'], entries: Entry[]): UiState['printed'] {
  if (entries.length === 0) return printed;
  return printed.items.length + entries.length > STATIC_WINDOW
    ? { key: printed.key + 1, items: entries }
    : { key: printed.key, items: [...printed.items, ...entries] };
}

/** Roughly how many characters `entry` prints: what PRINT_CHARS counts. */
export function printedSize(entry: Entry): number {
  switch (entry.kind) {
    case 'user':
    case 'markdown':
    case 'thinking':
    case 'status':
    case 'error':
    case 'note':
      return entry.text.length;
    case 'block':
      return entry.lines.reduce((sum, line) => sum + line.length + 1, 0);
    case 'tool':
      return entry.summary.length + entry.result.length;
    case 'section':
    case 'agent_done':
    case 'run_end':
      return 80;
    default: {
      const exhaustive: never = entry;
      throw new Error(`unknown entry ${JSON.stringify(exhaustive)}`);
    }
  }
}
