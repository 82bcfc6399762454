/**
 * The replay viewer: a recording drawn as the live UI draws a session — finished entries printed
 * once into the scrollback (<Static>), the live part clipped below the terminal's height — with a
 * status line (position, run, speed, keys) and the ChromeBar instead of the composer.
 */
import { Box, Static, Text, useInput, useWindowSize } from 'ink';
import { createElement as h, type ReactNode, useSyncExternalStore } from 'react';
import { KEYS, pressed } from '../keybindings.ts';
import type { ReplayPlayer, ReplayState } from '../replay-player.ts';
import type { Entry } from '../transcript.ts';
import { ChromeBar } from './chrome-bar.ts';
import { EntryView } from './entry-view.ts';
import { LiveView } from './live-view.ts';

export interface ReplayAppProps {
  player: ReplayPlayer;
  project: string;
  sessionId: string | undefined;
  /** Keys are read (a terminal); without, the recording plays to its end. */
  interactive: boolean;
  onQuit: () => void;
  /** Overrides for tests (ink-testing-library's stdout has no rows). */
  size?: { columns: number; rows: number };
}

export function ReplayApp({
  player,
  project,
  sessionId,
  interactive,
  onQuit,
  size,
}: ReplayAppProps): ReactNode {
  const state = useSyncExternalStore(player.subscribe, player.getState);
  const window = useWindowSize();
  const columns = Math.max(20, size?.columns ?? (window.columns > 0 ? window.columns : 80));
  const rows = size?.rows ?? (window.rows > 0 ? window.rows : 24);

  useInput(
    (input, key) => {
      if (pressed(KEYS.replayQuit, input, key)) onQuit();
      else if (pressed(KEYS.replayPause, input, key)) player.togglePause();
      else if (pressed(KEYS.replayFaster, input, key)) player.faster();
      else if (pressed(KEYS.replaySlower, input, key)) player.slower();
      else if (pressed(KEYS.replayEnd, input, key)) player.toEnd();
    },
    { isActive: interactive },
  );

  return h(
    Box,
    { flexDirection: 'column' },
    h(Static<Entry>, {
      key: `static-${state.printed.key}`,
      items: state.printed.items,
      children: (entry: Entry) => h(EntryView, { key: entry.id, entry }),
    }),
    h(LiveView, {
      key: 'live',
      transcript: state.transcript,
      width: columns,
      // The status line, the ChromeBar and a spare row.
      maxRows: Math.max(0, rows - 3),
      cancelling: false,
      tips: false,
    }),
    h(Text, { key: 'status', wrap: 'truncate-end', color: 'cyan' }, statusLine(state, interactive)),
    h(ChromeBar, {
      key: 'chrome',
      project,
      model: state.model,
      sessionId,
      usage: state.usage,
      costUsd: state.costUsd,
      connection: 'ready',
      width: columns,
    }),
  );
}

/** "▶ replay 1x · 12/40 · run 1 of 2 · Space pause · +/- speed · End jump to the end · q quit" */
export function statusLine(state: ReplayState, interactive: boolean): string {
  const where = `${state.position}/${state.total} · run ${state.run} of ${state.runs}`;
  const keys = (...names: (keyof typeof KEYS)[]) =>
    interactive ? ` · ${names.map((name) => `${KEYS[name].keys} ${KEYS[name].does}`).join(' · ')}` : '';
  if (state.done) return `■ end of the recording · ${where}${keys('replayQuit')}`;
  const mark = state.paused ? '⏸ paused' : '▶ replay';
  return `${mark} ${state.speed}x · ${where}${keys('replayPause', 'replayFaster', 'replaySlower', 'replayEnd', 'replayQuit')}`;
}
