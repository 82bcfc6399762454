/**
 * The interactive UI: finished entries printed once above (<Static>, the terminal's own
 * scrollback), and below them the live part — unfinished text and running tools, the overlay or
 * the composer, and the ChromeBar. The live part is sized from the terminal's rows so it always
 * stays shorter than the terminal: taller, Ink would clear the screen and redraw everything on
 * every frame.
 */
import { Box, Static, Text, useApp, useInput, useStdin, useWindowSize } from 'ink';
import {
  createElement as h,
  type ReactNode,
  useCallback,
  useEffect,
  useRef,
  useSyncExternalStore,
} from 'react';
import type { Controller } from '../controller.ts';
import type { Entry } from '../transcript.ts';
import { KEYS, keyOf, pressed } from '../keybindings.ts';
import { visibleText } from '../live-text.ts';
import { editApproval } from '../external-editor.ts';
import { ApprovalOverlay } from './approval-overlay.ts';
import { ChromeBar } from './chrome-bar.ts';
import { Composer } from './composer.ts';
import { EntryView } from './entry-view.ts';
import { LiveView } from './live-view.ts';
import { Picker } from './picker.ts';
import { QuestionOverlay } from './question-overlay.ts';
import { SetupFlow } from './setup-flow.ts';

const QUEUED_SHOWN = 3;
const SUGGESTION_ROWS = 6;

export interface AppProps {
  controller: Controller;
  /** Overrides for tests (ink-testing-library's stdout has no rows). */
  size?: { columns: number; rows: number };
  guardMs?: number;
}

export function App({ controller, size, guardMs }: AppProps): ReactNode {
  const state = useSyncExternalStore(controller.subscribe, controller.getState);
  const window = useWindowSize();
  const columns = size?.columns ?? (window.columns > 0 ? window.columns : 80);
  const rows = size?.rows ?? (window.rows > 0 ? window.rows : 24);
  const interaction = state.interactions[0];
  const modal = state.connection === 'setup' || state.picker !== undefined;

  const width = Math.max(20, columns);
  useEffect(() => controller.setWidth(width), [controller, width]);
  // The same function every frame, so the memoised Composer is not drawn again for it.
  const submit = useCallback((text: string) => controller.submit(text), [controller]);
  const openRewind = useCallback(() => void controller.openRewind(), [controller]);
  // The approval overlay's `e`: the terminal is handed to the user's editor meanwhile.
  const { suspendTerminal } = useApp();
  const { stdin } = useStdin();
  // Set from `e` until the editor has exited: keys typed for the editor before it has the terminal
  // (an Esc, a Ctrl+C) must not stop the run or leave santra.
  const editorOpen = useRef(false);

  useInput((input, key) => {
    if (editorOpen.current) return;
    if (pressed(KEYS.exit, input, key)) controller.interrupt();
    else if (pressed(KEYS.clearScreen, input, key)) controller.clearScreen();
    else if (pressed(KEYS.expandOutput, input, key)) controller.expandOutput();
    else if (!modal && pressed(KEYS.abort, input, key)) controller.abort();
    else if (!modal && state.interactions.length === 0 && pressed(KEYS.cycleMode, input, key))
      controller.cycleMode();
  });

  // While a run goes on, its `usage` phases say what the session has spent so far.
  const spend = state.transcript.running ? state.transcript.spend : undefined;
  const chrome = h(ChromeBar, {
    key: 'chrome',
    project: state.project,
    model: state.model,
    ...(spend?.model === undefined ? {} : { answeringModel: spend.model }),
    sessionId: state.sessionId,
    usage: state.sessionUsage,
    costUsd: spend?.sessionCostUsd ?? state.sessionCostUsd,
    budget: spend?.budget,
    permissionMode: state.permissionMode,
    connection: state.connection,
    hint: state.exitArmed ? `Press ${keyOf('exit')} again to exit` : undefined,
    width: columns,
  });
  const printed = h(Static<Entry>, {
    key: `static-${state.printed.key}`,
    items: state.printed.items,
    children: (entry: Entry) => h(EntryView, { key: entry.id, entry }),
  });
  if (state.connection === 'setup' && state.setup !== undefined) {
    return h(
      Box,
      { flexDirection: 'column' },
      printed,
      h(SetupFlow, {
        providers: state.setup.providers,
        ...(state.setup.error === undefined ? {} : { error: state.setup.error }),
        width: columns,
        maxRows: rows - 6,
        onDone: (choice) => void controller.finishSetup(choice),
      }),
    );
  }

  // Rows: one for the ChromeBar and one spare, so the frame never reaches the terminal's height.
  const available = Math.max(4, rows - 2);
  const queuedRows =
    Math.min(state.queued.length, QUEUED_SHOWN) + (state.queued.length > QUEUED_SHOWN ? 1 : 0);
  let bottom: ReactNode;
  let liveRows: number;
  if (interaction !== undefined) {
    liveRows = 1;
    const common = {
      key: `i${interaction.id}`,
      position: 1,
      queued: state.interactions.length,
      width,
      maxRows: available - liveRows - queuedRows,
      ...(guardMs === undefined ? {} : { guardMs }),
    };
    bottom =
      interaction.kind === 'approve'
        ? h(ApprovalOverlay, {
            ...common,
            params: interaction.params,
            onAnswer: interaction.answer,
            onPrint: () => controller.printInteraction(interaction),
            onEdit: async (chosen) => {
              editorOpen.current = true;
              try {
                return await editApproval(interaction.params, chosen, controller.workspaceRoot, {
                  env: process.env,
                  suspend: (task) => suspendTerminal(task),
                  stdin,
                });
              } finally {
                editorOpen.current = false;
              }
            },
          })
        : h(QuestionOverlay, { ...common, params: interaction.params, onAnswer: interaction.answer });
  } else if (state.picker !== undefined) {
    const picker = state.picker;
    liveRows = 1;
    bottom = h(Picker, {
      key: `p${picker.purpose}`,
      title: picker.title,
      items: picker.items,
      ...(picker.selected === undefined ? {} : { selected: picker.selected }),
      width,
      maxRows: available - liveRows - queuedRows,
      onPick: (value) => void controller.pick(picker, value),
      onClose: () => controller.closePicker(),
    });
  } else {
    const composerRows = Math.max(1, Math.min(8, Math.floor(rows / 5)));
    // The composer: its lines, two borders, two "more lines" marks, and the suggestions.
    liveRows = Math.max(0, available - queuedRows - (composerRows + 4 + SUGGESTION_ROWS));
    const rewinds =
      !state.transcript.running &&
      state.queued.length === 0 &&
      state.commands.some((command) => command.name === 'rewind');
    bottom = h(Composer, {
      // A new draft (a rewound prompt) is a composer that starts with it.
      key: `composer-${state.draft?.id ?? 0}`,
      ...(state.draft === undefined ? {} : { draft: state.draft.text }),
      ...(rewinds ? { onRewind: openRewind } : {}),
      commands: state.commands,
      history: state.history,
      onSubmit: submit,
      isActive: true,
      width,
      maxRows: composerRows,
      placeholder: state.transcript.running
        ? `Type to queue a message; ${keyOf('abort')} stops the run`
        : 'Ask santra, or /help',
    });
  }
  const queued = state.queued
    .slice(0, QUEUED_SHOWN)
    .map((text, index) =>
      h(
        Text,
        { key: `q${index}`, wrap: 'truncate-end', dimColor: true },
        `⏳ queued: ${visibleText(text.replace(/\s+/g, ' '))}`,
      ),
    );
  if (state.queued.length > QUEUED_SHOWN) {
    queued.push(
      h(Text, { key: 'qmore', dimColor: true }, `   and ${state.queued.length - QUEUED_SHOWN} more`),
    );
  }
  return h(
    Box,
    { flexDirection: 'column' },
    printed,
    h(LiveView, {
      key: 'live',
      transcript: state.transcript,
      width,
      maxRows: liveRows,
      cancelling: state.cancelling,
      now: state.now,
    }),
    ...queued,
    bottom,
    chrome,
  );
}
