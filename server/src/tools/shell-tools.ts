/**
 * The interactive shell tools: shell_start, shell_send, shell_read and shell_end. A PTY session
 * (shell-sessions.ts) for what run_command cannot do — a REPL, an interactive installer, a TUI —
 * read back screen-wise (shell-screen.ts). The session is started, and every keystroke that may
 * change something is typed, only after the approval gate allowed exactly those bytes (shown with
 * control characters made visible: `1+1␍`); the configuration's command rules apply to them as
 * to a command line. A session started where the OS sandbox works runs inside it, and everything
 * typed into it stays there. Plan mode refuses both. Sessions end with the run.
 */
import * as z from 'zod';
import type { CommandInspection } from '../approval/command-site.ts';
import { protectedReach } from '../approval/command-reach.ts';
import type { GateDecision } from '../approval/gate.ts';
import { planModeRefusal } from '../approval/permission-mode.ts';
import { shellQuote } from '../sandbox/sandbox.ts';
import { resolveDirectory } from './run-command.ts';
import { fromControlPictures, KEY_NAMES, keyBytes, onlyNavigation } from './shell-keys.ts';
import {
  endRunShells,
  MAX_SHELLS_PER_RUN,
  type ShellSession,
  shellsOf,
  spawnShell,
} from './shell-sessions.ts';
import { defineTool, refused, type ToolContext, toolError, type ToolResult } from './types.ts';

const DEFAULT_COLS = 100;
const DEFAULT_ROWS = 30;
/** How often the person may edit one request before the call gives up (each edit is asked anew). */
const MAX_EDITS = 5;

const Timeout = z
  .number()
  .positive()
  .max(300)
  .optional()
  .describe(
    'Seconds to wait at most for the output to settle (or for `waitFor` to appear). Default 2; at most 300.',
  );
const WaitFor = z
  .string()
  .min(1)
  .optional()
  .describe(
    'Wait until this text is on the screen (e.g. a prompt like ">>> " or "$ "), instead of until the output goes quiet.',
  );

export function shellStartTool() {
  return defineTool({
    name: 'shell_start',
    kind: 'execute',
    description:
      "Start an interactive terminal session (a PTY) running a program — a REPL (python3, node, psql), an interactive installer, a TUI — or, without `command`, the user's shell. " +
      'Returns its id and its first screen. Use shell_send to type and press keys, shell_read to look at the screen again, shell_end when done; sessions end with the run. ' +
      'The user approves the start like a command, and each input that may change something. Prefer run_command for anything that runs to completion without input.',
    parameters: z.object({
      command: z
        .string()
        .min(1)
        .optional()
        .describe('The program line, run with /bin/sh -c, e.g. "python3 -q". Default: the user\'s shell.'),
      cwd: z
        .string()
        .optional()
        .describe(
          'Directory to start in, relative to the workspace root; must be inside it. Default: the root.',
        ),
      cols: z.number().int().min(20).max(400).optional().describe(`Screen width. Default ${DEFAULT_COLS}.`),
      rows: z.number().int().min(5).max(200).optional().describe(`Screen height. Default ${DEFAULT_ROWS}.`),
      waitFor: WaitFor,
      timeout: Timeout,
    }),
    async execute(args, context) {
      if (context.signal.aborted) return cancelled();
      if (context.permissionMode?.get() === 'plan')
        return toolError('plan_mode', planModeRefusal('starting an interactive shell'));
      const shells = shellsOf(context.runId);
      if (shells.open >= MAX_SHELLS_PER_RUN)
        return toolError(
          'too_many_shells',
          `Not started: ${MAX_SHELLS_PER_RUN} shell sessions are open (${shells.ids().join(', ')}). End one with shell_end first.`,
        );
      const cwd = await resolveDirectory(args.cwd ?? '.', context);
      if ('error' in cwd) return cwd.error;
      const userShell = context.commandEnv.SHELL ?? '/bin/sh';
      const proposed = args.command ?? userShell;
      const sandbox = context.sandbox;
      const profile = sandbox === undefined ? undefined : await sandbox.effectiveProfile();
      const unavailable = await sandbox?.unavailableNotice();
      if (unavailable !== undefined) context.showStatus(unavailable);
      const approved = await withEdits(proposed, async (command) =>
        context.gate.command({
          command,
          cwd: cwd.absolute,
          ...(profile === undefined ? {} : { sandbox: profile }),
          inspection: await sessionInspection(command, command, cwd.absolute, context, [SHELL_INPUT]),
          inspectedProtection: true,
        }),
      );
      if ('output' in approved) return approved;
      if (context.signal.aborted) return cancelled();
      const command = approved.text;
      // The user's own shell is its path; a program line goes to /bin/sh -c like run_command's.
      const line = args.command === undefined && command === proposed ? shellQuote(userShell) : command;
      const env = { ...context.commandEnv, TERM: 'xterm-256color' };
      const cols = args.cols ?? DEFAULT_COLS;
      const rows = args.rows ?? DEFAULT_ROWS;
      let session: ShellSession;
      let wrapped: Awaited<ReturnType<NonNullable<typeof sandbox>['shellLine']>> | undefined;
      try {
        wrapped =
          sandbox === undefined || profile === undefined
            ? undefined
            : await sandbox.shellLine({ command: line, cwd: cwd.absolute, env }, profile);
        const inside =
          wrapped !== undefined && wrapped.wrapped.profile !== 'danger-full-access' ? wrapped : undefined;
        const sandboxed = inside !== undefined;
        session = await spawnShell(shells, {
          command,
          cwd: cwd.absolute,
          cwdDisplay: cwd.display,
          file: '/bin/sh',
          // Sandboxed, the terminal's interrupt keys must not signal the sandbox's launcher (it
          // would end the session): they are typed as bytes, and shell_send signals the programs.
          args: ['-c', inside === undefined ? line : `stty -isig 2>/dev/null; ${inside.command}`],
          sandboxed,
          env: wrapped?.env ?? env,
          cols,
          rows,
          ...(wrapped === undefined ? {} : { wrapped: wrapped.wrapped }),
        });
      } catch (error) {
        await wrapped?.wrapped.finish();
        return toolError(
          'spawn_failed',
          `Could not start a terminal session for \`${command}\` in ${cwd.display}: ${(error as Error).message}. Check the command and the directory.`,
        );
      }
      const settled = await session.settle({
        timeoutMs: seconds(args.timeout),
        ...(args.waitFor === undefined ? {} : { until: args.waitFor }),
        signal: context.signal,
      });
      const notes = approved.notes;
      if (profile !== undefined && profile !== 'danger-full-access')
        notes.push(`It runs in the OS sandbox (${profile}); so does everything typed into it.`);
      return {
        output: describe(session, settled, args.waitFor, notes),
        summary: `${session.id} started`,
        ...(session.exit === undefined ? {} : { isError: true, errorType: 'exited' }),
      };
    },
  });
}

export function shellSendTool() {
  return defineTool({
    name: 'shell_send',
    kind: 'execute',
    description:
      'Type into a terminal session started with shell_start: `text` is typed as it is (a newline in it is Enter), then each of `keys` is pressed in order ' +
      `(${KEY_NAMES.join(', ')}). ` +
      'Returns the screen once the output settles (or once `waitFor` is on it). Anything but arrow, Home/End and page keys alone is approved by the user like a command, exactly as typed.',
    parameters: z.object({
      id: z.string().min(1).describe('The session id shell_start returned, e.g. "sh-1".'),
      text: z.string().optional().describe('Text to type, e.g. "1+1". Add keys: ["Enter"] to submit it.'),
      keys: z
        .array(z.string().min(1))
        .max(32)
        .optional()
        .describe('Keys to press after the text, e.g. ["Enter"] or ["Ctrl-C"].'),
      waitFor: WaitFor,
      timeout: Timeout,
    }),
    async execute(args, context) {
      if (context.signal.aborted) return cancelled();
      const session = shellsOf(context.runId).get(args.id);
      if (session === undefined) return unknownSession(args.id, context);
      if (session.exit !== undefined)
        return toolError(
          'exited',
          `${describe(session, 'exited', undefined, [])}\nNothing was typed: the program has ended. Start a new session with shell_start.`,
        );
      const keys = args.keys ?? [];
      let bytes = (args.text ?? '').replace(/\r?\n/g, '\r');
      for (const key of keys) {
        const pressed = keyBytes(key);
        if (typeof pressed !== 'string') return toolError('unknown_key', pressed.error);
        bytes += pressed;
      }
      const readOnly = bytes === '' || ((args.text ?? '') === '' && onlyNavigation(keys));
      const notes: string[] = [];
      if (!readOnly) {
        if (context.permissionMode?.get() === 'plan')
          return toolError('plan_mode', planModeRefusal('typing into an interactive shell'));
        const approved = await withEdits(bytes, async (typed) =>
          context.gate.command({
            command: typed,
            cwd: session.cwd,
            inspection: await sessionInspection(typed, typedLines(typed), session.cwd, context, [
              SHELL_INPUT,
              NOT_SHELL,
            ]),
            inspectedProtection: true,
          }),
        );
        if ('output' in approved) return approved;
        bytes = approved.text;
        notes.push(...approved.notes);
      }
      if (context.signal.aborted) return cancelled();
      session.takeUnread();
      await session.write(bytes);
      const settled = await session.settle({
        timeoutMs: seconds(args.timeout),
        ...(args.waitFor === undefined ? {} : { until: args.waitFor }),
        signal: context.signal,
      });
      return {
        output: describe(session, settled, args.waitFor, notes),
        summary: `${session.id}: ${settled}`,
        ...(settled === 'timeout' && args.waitFor !== undefined
          ? { isError: true, errorType: 'timeout' }
          : {}),
      };
    },
  });
}

export function shellReadTool() {
  return defineTool({
    name: 'shell_read',
    kind: 'read',
    description:
      'Read the screen of a terminal session (what a person would see now), after waiting for its output to settle or for `waitFor` to appear. `scrollback: true` adds the lines that scrolled off the top.',
    parameters: z.object({
      id: z.string().min(1).describe('The session id, e.g. "sh-1".'),
      waitFor: WaitFor,
      timeout: Timeout,
      scrollback: z
        .boolean()
        .optional()
        .describe('Include the lines that scrolled off the top (the last ones, within the output limit).'),
    }),
    async execute(args, context) {
      const session = shellsOf(context.runId).get(args.id);
      if (session === undefined) return unknownSession(args.id, context);
      const settled = await session.settle({
        timeoutMs: seconds(args.timeout),
        ...(args.waitFor === undefined ? {} : { until: args.waitFor }),
        signal: context.signal,
      });
      const limit = context.settings.commandOutputLimit;
      return {
        output: describe(session, settled, args.waitFor, [], args.scrollback === true ? limit : undefined),
        summary: `${session.id}: ${settled}`,
        ...(settled === 'timeout' && args.waitFor !== undefined
          ? { isError: true, errorType: 'timeout' }
          : {}),
      };
    },
  });
}

export function shellEndTool() {
  return defineTool({
    name: 'shell_end',
    kind: 'execute',
    description:
      'End a terminal session: its program and everything it started are stopped (hang-up, then terminate, then kill). Returns its last screen.',
    parameters: z.object({ id: z.string().min(1).describe('The session id, e.g. "sh-1".') }),
    async execute(args, context) {
      const shells = shellsOf(context.runId);
      const session = shells.get(args.id);
      if (session === undefined) return unknownSession(args.id, context);
      const last = describe(session, session.exit === undefined ? 'quiet' : 'exited', undefined, []);
      await shells.end(args.id);
      return { output: `${last}\nThe session is ended.`, summary: `${args.id} ended` };
    },
  });
}

export function shellTools() {
  return [shellStartTool(), shellSendTool(), shellReadTool(), shellEndTool()];
}

/** Ends the run's sessions (the swarm calls it when the run ends). */
export { endRunShells };

/**
 * Asks the gate for `proposed` and follows the person's edits: their version is asked again
 * (the policy may deny it), and once allowed it is what is typed or run — control pictures they
 * left in (␍) as the control characters they show.
 */
async function withEdits(
  proposed: string,
  ask: (text: string) => Promise<GateDecision>,
): Promise<{ text: string; notes: string[] } | ToolResult> {
  let text = proposed;
  for (let edits = 0; ; edits++) {
    const decision = await ask(text);
    if (!decision.allowed) return refused(decision);
    if (decision.edited?.kind !== 'command') {
      const notes =
        text === proposed
          ? []
          : [
              `The user edited your input before it was used: \`${JSON.stringify(text)}\` instead of \`${JSON.stringify(proposed)}\`.`,
            ];
      return { text, notes };
    }
    if (edits === MAX_EDITS)
      return toolError(
        'rejected',
        `The input was edited ${MAX_EDITS + 1} times without being allowed as shown; nothing was done. Ask the user what to do.`,
      );
    text = fromControlPictures(decision.edited.command);
  }
}

/** The protected-location check's reason for a shell reading its commands from its input. */
const SHELL_INPUT = 'a shell reads its commands from its input';
/** Its reason for a line that is not shell it can read. */
const NOT_SHELL = 'the line cannot be read with certainty';

/**
 * What the gate knows of a session's start or of typed input: never run unasked as read-only (the
 * allowlist judges command lines, and this is not one it can judge), and whether a person must
 * decide even under allow-all — the protected-location check on `lines`, without the reasons
 * that do not hold here: a shell that reads its commands from its input (everything typed into it
 * is checked in turn) and, for typed input, a line that is not shell (a REPL's code: the program
 * it is typed into decides what it means). A typed line that writes a protected location
 * (`echo … >> ~/.bashrc` into a shell) is still put to a person, whatever allow-all says.
 */
async function sessionInspection(
  command: string,
  lines: string,
  cwd: string,
  context: ToolContext,
  dropped: readonly string[],
): Promise<CommandInspection> {
  const reach = await protectedReach(lines, {
    cwd,
    contains: (absolute) => context.workspace.contains(absolute),
    env: context.commandEnv,
  });
  const protection = dropped.some((reason) => reach?.startsWith(reason) === true) ? undefined : reach;
  return {
    command,
    findings: ['an interactive session'],
    allowedUnasked: false,
    ...(protection === undefined ? {} : { protection }),
  };
}

/** Typed bytes as the lines a shell would read: keys' escape sequences dropped, Enter a line break. */
function typedLines(typed: string): string {
  return typed
    .replace(/\x1b(?:\[[0-9;?]*[ -/]*[@-~]|O.|.)/g, '')
    .replace(/\r/g, '\n')
    .replace(/[\0-\x08\x0b-\x1f\x7f]/g, '');
}

/** A session's state and screen as the model reads it. */
function describe(
  session: ShellSession,
  settled: string,
  waitFor: string | undefined,
  notes: string[],
  scrollbackLimit?: number,
): string {
  const state =
    session.exit === undefined
      ? 'running'
      : `exited with ${session.exit.signal ? `signal ${session.exit.signal}` : `code ${session.exit.exitCode}`}`;
  const waited =
    settled === 'timeout'
      ? waitFor === undefined
        ? ' (output still coming; read again for more)'
        : ` ("${waitFor}" did not appear before the timeout)`
      : '';
  const { row, col } = session.screen.cursor;
  let body = scrollbackLimit === undefined ? session.screen.screen() : session.screen.history();
  if (scrollbackLimit !== undefined && body.length > scrollbackLimit)
    body = `[… ${body.length - scrollbackLimit} earlier characters not shown]\n${body.slice(-scrollbackLimit)}`;
  return [
    `[${session.id}: \`${session.command}\` in ${session.cwdDisplay}, ${state}${waited}; cursor at line ${row + 1}, column ${col + 1}]`,
    ...notes,
    body === '' ? '(the screen is empty)' : body,
  ].join('\n');
}

function unknownSession(id: string, context: ToolContext): ToolResult {
  const open = shellsOf(context.runId).ids();
  return toolError(
    'unknown_session',
    `There is no shell session "${id}" in this run. ${open.length === 0 ? 'None is open: start one with shell_start.' : `Open sessions: ${open.join(', ')}.`}`,
  );
}

function cancelled(): ToolResult {
  return toolError('cancelled', 'Not done: the run was cancelled.');
}

function seconds(timeout: number | undefined): number {
  return Math.round((timeout ?? 2) * 1000);
}
