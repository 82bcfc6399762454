/**
 * `santra` with no arguments on a terminal: the interactive UI. The first frame is drawn at once,
 * while the server starts beside it (typing is possible meanwhile; a message sent before the
 * server is ready waits for it). No alternate screen: the transcript lives in the terminal's own
 * scrollback.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { render } from 'ink';
import type { PermissionMode } from '#protocol';
import { createElement as h } from 'react';
import { findWorkplace, promptCwd } from '../client/project-root.ts';
import { App } from './components/app.ts';
import { loadMarkdown } from './components/entry-view.ts';
import { Controller } from './controller.ts';
import { corkedFrames, meteredFrames } from './frames.ts';
import type { HeldInput } from './typed-ahead.ts';

export interface InteractiveEnvironment {
  serverPath: string;
  clientVersion: string;
  /** The server, when bin.ts started it early. */
  server?: ChildProcessWithoutNullStreams;
  /** What was typed while santra started: given to the composer as it is drawn. */
  typedAhead?: HeldInput;
  /** A saved session to go on with (`--continue`, `--resume <id>`). */
  resume?: { latest: true } | { id: string };
  /** `--permission-mode`: the mode of the first message. */
  permissionMode?: PermissionMode;
}

/** Runs the UI until the user leaves; resolves with the exit code. */
export async function runInteractive(environment: InteractiveEnvironment): Promise<number> {
  const place = findWorkplace(process.cwd(), false);
  let early = environment.server;
  let done: (code: number) => void = () => {};
  const finished = new Promise<number>((resolve) => (done = resolve));
  const controller: Controller = new Controller({
    drawFrame: meteredFrames(
      process.env,
      process.stdout,
      corkedFrames(process.stdout),
      () => controller.getState().transcript.nextId - 1,
    ),
    workspaceRoot: place.root,
    ...(environment.permissionMode === undefined ? {} : { permissionMode: environment.permissionMode }),
    cwd: promptCwd(place),
    startDir: place.start,
    connect: async ({ interactions, onPhase }) => {
      const server = early;
      early = undefined; // a restart (after the setup) starts a new one
      const { startBackend } = await import('./backend.ts');
      return startBackend({
        serverPath: environment.serverPath,
        workspaceRoot: place.root,
        clientVersion: environment.clientVersion,
        interactions,
        onPhase,
        ...(server === undefined ? {} : { server }),
      });
    },
    clearScreen: () => {
      instance.clear();
      process.stdout.write('\u001b[2J\u001b[H');
    },
    // The scrollback too: the transcript is printed again, at the new width, after it.
    resetTerminal: () => {
      instance.clear();
      process.stdout.write('\u001b[2J\u001b[3J\u001b[H');
    },
    onExit: () => {
      instance.unmount();
      // How to come back: the session is saved, and this is the command that goes on with it.
      const sessionId = controller.getState().sessionId;
      if (sessionId !== undefined)
        process.stdout.write(`Resume this session: santra --resume ${sessionId}\n`);
      done(0);
    },
  });
  // Released as the UI is drawn: its composer reads what was typed first.
  environment.typedAhead?.release();
  const instance = render(h(App, { controller }), {
    // santra draws this UI only on a terminal; a CI or CONTINUOUS_INTEGRATION variable in the
    // user's environment must not make Ink hold every frame back until exit.
    interactive: process.stdout.isTTY === true,
    exitOnCtrlC: false,
    patchConsole: false,
    // Frames are paced by the controller (FRAME_MS); Ink's own throttle, shorter, then never holds
    // one back to a timer of its own, and keys echo at once.
    maxFps: 60,
    incrementalRendering: true,
  });
  void loadMarkdown();
  const resume = environment.resume;
  void controller.start().then(() => (resume === undefined ? undefined : controller.continueSession(resume)));
  return finished;
}
