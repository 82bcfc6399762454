/**
 * Finding and starting santra-server. Kept free of heavy imports: `santra -p` starts the server
 * before loading the rest of the client, so the two processes load side by side.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { extname, resolve } from 'node:path';

/** How to start the server: a program and its arguments. */
export interface ServerCommand {
  command: string;
  args: string[];
}

/** JavaScript and TypeScript servers run on this Node; anything else is executed directly. */
/**
 * A smaller young generation for the server: a fast stream allocates a short-lived object per
 * event, and V8 would otherwise grow its semi-spaces to 16 MB each; with 4 MB the server peaks
 * about 20-30 MB lower on a long answer, at the same speed (docs/performance.md).
 */
const SERVER_NODE_FLAGS = ['--max-semi-space-size=4'];

export function serverCommand(path: string): ServerCommand {
  return ['.js', '.mjs', '.cjs', '.ts', '.mts'].includes(extname(path))
    ? { command: process.execPath, args: [...SERVER_NODE_FLAGS, path] }
    : { command: path, args: [] };
}

/** The server to run: SANTRA_SERVER (a developer option) or the one installed beside santra. */
export function serverPathFor(
  defaultPath: string,
  env: NodeJS.ProcessEnv,
): { path: string; overridden: boolean } {
  const override = env.SANTRA_SERVER;
  return override !== undefined && override !== ''
    ? { path: resolve(override), overridden: true }
    : { path: defaultPath, overridden: false };
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Starts the server, or returns undefined when it or the workspace does not exist (reported later). */
/**
 * The server's arguments for these options. `--approve-all` is the server's `--auto-approve`: one
 * flag, one meaning. Allow-all is the server's state; it still asks about protected locations.
 * `--replay` is passed on, alone.
 */
export function serverArgs(options: { approveAll: boolean; replay?: string }): string[] {
  // A replay answers approvals as recorded (replay.ts), so the server must ask: --approve-all then
  // allows only what the recording has no answer for.
  if (options.replay !== undefined) return ['--replay', options.replay];
  return options.approveAll ? ['--auto-approve'] : [];
}

export function startServer(
  path: string,
  workspaceRoot: string,
  serverArgs: readonly string[] = [],
): ChildProcessWithoutNullStreams | undefined {
  if (!existsSync(path) || !isDirectory(workspaceRoot)) return undefined;
  const { command, args: base } = serverCommand(path);
  const args = [...base, ...serverArgs];
  // Its own process group: a Ctrl-C in the terminal reaches santra only, which cancels the run
  // through the protocol instead of letting the signal kill the server mid-write.
  return spawn(command, args, { cwd: workspaceRoot, stdio: 'pipe', detached: true });
}
