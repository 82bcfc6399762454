/**
 * `santra replay FILE`: a recorded session played in the terminal UI, with no server, no model and
 * no key — reading the file is all it needs (replay-recording.ts). On a terminal the keys of
 * keybindings.ts pause, change the speed, jump to the end and quit; without one it plays to the
 * end and leaves.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { render } from 'ink';
import { createElement as h } from 'react';
import { NewerRecordFormat } from '../client/session-records.ts';
import { loadMarkdown } from './components/entry-view.ts';
import { ReplayApp } from './components/replay-app.ts';
import { ReplayPlayer } from './replay-player.ts';
import { readRecording } from './replay-recording.ts';

/** Plays the recording until the user quits (or, without a terminal, to its end); resolves with the exit code. */
export async function runReplay(file: string): Promise<number> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    process.stderr.write(`santra: cannot read ${file}: ${(error as Error).message}\n`);
    return 1;
  }
  let recording: ReturnType<typeof readRecording>;
  try {
    recording = readRecording(text);
  } catch (error) {
    if (!(error instanceof NewerRecordFormat)) throw error;
    process.stderr.write(`santra: ${file}: ${error.message}\n`);
    return 1;
  }
  if (recording.steps.length === 0) {
    process.stderr.write(`santra: ${file} has no recorded run (a session file or a session/export json)\n`);
    return 1;
  }
  await loadMarkdown();
  const interactive = process.stdin.isTTY === true;
  const player = new ReplayPlayer(recording);
  let done: (code: number) => void = () => {};
  const finished = new Promise<number>((resolve) => (done = resolve));
  const quit = () => {
    player.stop();
    instance.unmount();
    done(0);
  };
  const instance = render(
    h(ReplayApp, {
      player,
      project: basename(recording.workspaceRoot ?? file),
      sessionId: recording.sessionId,
      interactive,
      onQuit: quit,
    }),
    {
      // A CI variable in the environment must not hold every frame back until exit (as in main.ts).
      interactive: process.stdout.isTTY === true,
      exitOnCtrlC: false,
      patchConsole: false,
      maxFps: 30,
      incrementalRendering: true,
    },
  );
  if (!interactive) {
    const unsubscribe = player.subscribe(() => {
      if (!player.getState().done) return;
      unsubscribe();
      setTimeout(quit, 50);
    });
  }
  player.start();
  return finished;
}

// Run from the sources (`node tui/src/ui/replay-main.ts FILE`) until bin.ts dispatches `santra replay`.
if (import.meta.main) {
  const file = process.argv[2];
  if (file === undefined) {
    process.stderr.write('usage: replay-main.ts FILE\n');
    process.exitCode = 2;
  } else {
    const code = await runReplay(file);
    process.stdout.write('', () => process.exit(code));
  }
}
