import { stat } from 'node:fs/promises';
import * as z from 'zod';
import { type CommandInspection, inspectCommand } from '../approval/command-site.ts';
import { visibleControlChars } from '../approval/diff.ts';
import type { GateDecision } from '../approval/gate.ts';
import { PathError, type ResolvedPath } from '../workspace/workspace.ts';
import { unaskedGitEnvironment } from '../approval/git-hazards.ts';
import { describeDenials, findDenials, type SandboxDenial } from '../sandbox/denials.ts';
import type { CommandSandbox, SandboxedSpawn, WrapOptions } from '../sandbox/sandbox.ts';
import type { CapturedText } from './commands/output-capture.ts';
import { type ProcessOutcome, runProcess } from './commands/run-process.ts';
import type { SandboxProfile, TerminalRunResult } from '#protocol';
import {
  defineTool,
  type EditorAccess,
  refused,
  type ToolContext,
  toolError,
  type ToolResult,
} from './types.ts';

/**
 * `run_command {command, cwd?, timeout?}`: runs a shell command line in the workspace, after the
 * approval gate allowed exactly that command in exactly that directory. What the words cannot
 * show (symlinks, globs, the repository's git configuration) is inspected first, and the gate
 * decides with that inspection; a command allowed unasked as read-only runs with git's
 * program-running settings overridden. Every command runs inside the OS sandbox where there is
 * one (sandbox/); when the sandbox stops it (a write outside, a network call), the user is asked
 * whether it may run again outside the sandbox.
 */
export function runCommandTool() {
  return defineTool({
    name: 'run_command',
    kind: 'execute',
    description:
      'Run a shell command line with /bin/sh -c (a POSIX shell: do not rely on bash features) and return its exit code, stdout and stderr. ' +
      'Use it to build, test, run scripts and use tools like git; prefer the file tools for reading, searching and editing files. ' +
      'The user may have to approve the command. There is no terminal and no input (stdin is empty), so interactive programs fail or hang: ' +
      'pass flags such as --yes or --no-pager. Output beyond the configured limit is cut in the middle (the start and the end are kept). ' +
      'On timeout the command and everything it started are killed; background processes (&) are stopped when the command ends, ' +
      'so do not use it to start servers that must keep running. ' +
      'It usually runs in an OS sandbox: it can write in the workspace and the temp dir but not elsewhere, and has no network unless the user allowed domains; ' +
      'if the sandbox stops it, the user is asked whether to run it outside.',
    parameters: z.object({
      command: z.string().min(1).describe('The command line, e.g. "npm test -- --grep parser".'),
      cwd: z
        .string()
        .optional()
        .describe(
          'Directory to run in, relative to the workspace root; must be inside the workspace. Default: the workspace root.',
        ),
      timeout: z
        .number()
        .positive()
        .optional()
        .describe(
          'Seconds before the command is killed. Default and maximum are set by the user; a larger value is reduced to the maximum.',
        ),
    }),
    async execute(args, context) {
      if (context.signal.aborted) return cancelledBeforeStart();
      const cwd = await resolveDirectory(args.cwd ?? '.', context);
      if ('error' in cwd) return cwd.error;

      const { settings } = context;
      const requestedMs =
        args.timeout === undefined ? settings.commandTimeoutMs : Math.ceil(args.timeout * 1000);
      const timeoutMs = Math.min(requestedMs, settings.maxCommandTimeoutMs);
      const notes: string[] = [];
      if (requestedMs > timeoutMs) {
        notes.push(
          `The timeout of ${seconds(requestedMs)} was reduced to the maximum, ${seconds(timeoutMs)}.`,
        );
      }

      const sandbox = context.sandbox;
      // Plan mode runs its read-only commands in the read-only profile where the sandbox works.
      const planned =
        context.permissionMode?.get() === 'plan' &&
        sandbox !== undefined &&
        (await sandbox.status()).available;
      const profile = planned
        ? 'read-only'
        : sandbox === undefined
          ? undefined
          : await sandbox.effectiveProfile();
      const unavailable = await sandbox?.unavailableNotice();
      if (unavailable !== undefined) context.showStatus(unavailable);
      // The command shown, then each version the person edits it into: a new command each time,
      // inspected and decided from scratch (§7.3.2).
      const approve = async (command: string): Promise<Approval> => {
        const inspection = await inspectCommand(command, {
          cwd: cwd.absolute,
          contains: (absolute) => context.workspace.contains(absolute),
          env: context.commandEnv,
        });
        const decision = await context.gate.command({
          command,
          cwd: cwd.absolute,
          inspection,
          ...(profile === undefined ? {} : { sandbox: profile }),
          ...(profile === 'workspace-write' && sandbox?.settings.autoRun === true
            ? { sandboxAutoRun: true }
            : {}),
        });
        return { command, inspection, decision };
      };
      const approved = await approveWithEdits(args.command, approve, notes);
      if ('output' in approved) return approved;
      const { inspection, decision } = approved;
      if (context.signal.aborted) return cancelledBeforeStart();

      const env = inspection.allowedUnasked ? unaskedGitEnvironment(context.commandEnv) : context.commandEnv;
      const run: CommandRun = {
        command: approved.command,
        cwd,
        env,
        timeoutMs,
        notes,
        wrap: { protectedWritable: decision.protectedAllowed === true },
        ...(profile === undefined ? {} : { profile }),
      };
      const runInEditor = context.editor?.runCommand;
      const first =
        runInEditor !== undefined
          ? await inEditorTerminal(runInEditor, run, context, sandbox)
          : await inProcess(run, context, sandbox);
      if (first.denials.length === 0) return first.result;
      return escalated(first, run, context, runInEditor);
    },
  });
}

/** A command and what the gate decided for it. */
interface Approval {
  command: string;
  inspection: CommandInspection;
  decision: GateDecision;
}

/** How often the person may edit one command before the call gives up (each edit is asked anew). */
const MAX_COMMAND_EDITS = 5;

/**
 * Asks for `proposed` and follows the person's edits (§7.3.2): an allow that carries a command
 * of theirs approves nothing yet — their command goes through inspection and the gate like any
 * other, and is asked again unless the policy lets it run unasked. What finally runs, when it is
 * not the proposal, is said in `notes` for the model. Returns the refusal as a result.
 */
async function approveWithEdits(
  proposed: string,
  approve: (command: string) => Promise<Approval>,
  notes: string[],
): Promise<(Approval & { decision: Extract<GateDecision, { allowed: true }> }) | ToolResult> {
  let current = await approve(proposed);
  for (let edits = 0; ; edits++) {
    const { decision } = current;
    if (!decision.allowed) return refused(decision);
    if (decision.edited?.kind !== 'command') {
      if (current.command !== proposed) {
        notes.unshift(
          `The user edited your command before it ran: it ran as \`${visibleControlChars(current.command)}\`, not \`${visibleControlChars(proposed)}\` as you proposed.`,
        );
      }
      return { ...current, decision };
    }
    if (edits === MAX_COMMAND_EDITS) {
      return toolError(
        'rejected',
        `The command was edited ${MAX_COMMAND_EDITS + 1} times without being allowed as shown; nothing was run. Ask the user which command to run.`,
      );
    }
    current = await approve(decision.edited.command);
  }
}

interface CommandRun {
  command: string;
  cwd: ResolvedPath;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  notes: string[];
  wrap: WrapOptions;
  /** The sandbox profile it runs under; absent: the configured one. */
  profile?: SandboxProfile;
}

/** A finished run: what the model reads, and what the sandbox stopped (none: not stopped by it). */
interface Ran {
  result: ToolResult;
  denials: SandboxDenial[];
}

/** Runs the command here, in the sandbox when there is one (a spawn failure is a result too). */
async function inProcess(
  run: CommandRun,
  context: ToolContext,
  sandbox: CommandSandbox | undefined,
): Promise<Ran> {
  const spec = { file: '/bin/sh', args: ['-c', run.command], cwd: run.cwd.absolute, env: run.env };
  let wrapped: SandboxedSpawn | undefined;
  let outcome: ProcessOutcome;
  try {
    wrapped =
      sandbox === undefined
        ? undefined
        : await sandbox.wrap(spec, run.profile ?? sandbox.settings.profile, run.wrap);
    const spawn = wrapped ?? spec;
    outcome = await runProcess({
      ...spawn,
      timeoutMs: run.timeoutMs,
      signal: context.signal,
      outputLimit: context.settings.commandOutputLimit,
      extraInputs: wrapped?.extraInputs ?? [],
    });
  } catch (error) {
    await wrapped?.finish();
    return {
      result: toolError(
        'spawn_failed',
        `Could not start ${wrapped === undefined || wrapped.profile === 'danger-full-access' ? '/bin/sh' : `the sandbox (${wrapped.file})`} in ${run.cwd.display}: ${(error as Error).message}. Check that the directory still exists.`,
      ),
      denials: [],
    };
  }
  const { blocked } = (await wrapped?.finish()) ?? { blocked: [] };
  const notes = [...run.notes, ...(wrapped?.notes ?? []), ...outcome.notes];
  const result = commandResult(outcome, run.cwd, run.timeoutMs, notes, [
    ['stdout', outcome.stdout],
    ['stderr', outcome.stderr],
  ]);
  const failed = outcome.ended === 'exited' && outcome.exitCode !== 0;
  const denials =
    wrapped !== undefined && wrapped.profile !== 'danger-full-access' && failed
      ? findDenials(`${outcome.stdout.text}\n${outcome.stderr.text}`, {
          noNetwork: wrapped.noNetwork,
          blocked,
        })
      : [];
  return { result, denials };
}

/**
 * A command the sandbox stopped: the user is asked whether it may run again outside the
 * sandbox (an `approve` with `escalation`, always put to a person); if so it does, else the model
 * reads the sandboxed run's result and what the sandbox blocked.
 */
async function escalated(
  first: Ran,
  run: CommandRun,
  context: ToolContext,
  runInEditor: EditorAccess['runCommand'],
): Promise<ToolResult> {
  const reason = describeDenials(first.denials);
  const decision = await context.gate.escalate({ command: run.command, cwd: run.cwd.absolute, reason });
  if (!decision.allowed) {
    const why =
      decision.reason === 'rejected' || decision.reason === 'feedback'
        ? `The user did not allow running it outside the sandbox${decision.reason === 'feedback' ? ` (${decision.message})` : ''}.`
        : decision.message;
    return {
      ...first.result,
      output: `${first.result.output}\n${reason}\n${why} Work within the sandbox (write inside the workspace, use no network), or ask the user.`,
      summary: 'blocked by the sandbox',
      isError: true,
      errorType: 'sandbox_denied',
    };
  }
  const again: CommandRun = {
    ...run,
    notes: [
      ...run.notes,
      `${reason}. The user allowed running it again outside the sandbox; this is that run.`,
    ],
  };
  const second =
    runInEditor !== undefined
      ? await inEditorTerminal(runInEditor, again, context, undefined)
      : await inProcess(again, context, undefined);
  return second.result;
}

/**
 * Runs the approved command in the client's terminal (§7.5), where the user watches it. The
 * terminal is the editor's process on this machine, so the sandbox comes along as a command
 * line (bubblewrap around `/bin/sh -c`). A failure of the editor is an error for the model, never
 * a second run here: it may have started it.
 */
async function inEditorTerminal(
  runInTerminal: NonNullable<EditorAccess['runCommand']>,
  command: CommandRun,
  context: ToolContext,
  sandbox: CommandSandbox | undefined,
): Promise<Ran> {
  const started = performance.now();
  const line =
    sandbox === undefined
      ? undefined
      : await sandbox.shellLine(
          { command: command.command, cwd: command.cwd.absolute, env: command.env },
          command.profile ?? sandbox.settings.profile,
          command.wrap,
        );
  let result: TerminalRunResult;
  try {
    result = await runInTerminal({
      command: line?.command ?? command.command,
      ...(line === undefined ? {} : { approvedCommand: command.command }),
      cwd: command.cwd.absolute,
      env: line?.env ?? command.env,
      timeoutMs: command.timeoutMs,
      outputByteLimit: context.settings.commandOutputLimit,
    });
  } catch (error) {
    await line?.wrapped.finish();
    if (context.signal.aborted) {
      return {
        result: toolError(
          'cancelled',
          "The run was cancelled while the command ran in the editor's terminal; the editor was told to kill it.",
        ),
        denials: [],
      };
    }
    return {
      result: toolError(
        'terminal_failed',
        `The editor could not run the command in its terminal (${(error as Error).message}). It may or may not have run: check its effects before running it again.`,
      ),
      denials: [],
    };
  }
  const { blocked } = (await line?.wrapped.finish()) ?? { blocked: [] };
  const totalBytes = Buffer.byteLength(result.output);
  const notes = [...command.notes, ...(line?.wrapped.notes ?? []), "It ran in the editor's terminal."];
  if (result.truncated) notes.push(`The start of the output was cut; the last ${totalBytes} bytes are kept.`);
  const outcome = {
    ended: result.timedOut ? 'timeout' : 'exited',
    exitCode: result.exitCode,
    exitSignal: result.signal,
    durationMs: performance.now() - started,
  } as const;
  const sandboxed = line !== undefined && line.wrapped.profile !== 'danger-full-access';
  return {
    result: commandResult(outcome, command.cwd, command.timeoutMs, notes, [
      ['output', { text: result.output, totalBytes, cutBytes: 0 }],
    ]),
    denials:
      sandboxed && !result.timedOut && result.exitCode !== 0
        ? findDenials(result.output, { noNetwork: line.wrapped.noNetwork, blocked })
        : [],
  };
}

/** The working directory: inside the workspace (the boundary cannot be widened through cwd) and a directory. */
export async function resolveDirectory(
  input: string,
  context: ToolContext,
): Promise<ResolvedPath | { error: ToolResult }> {
  let resolved: ResolvedPath;
  try {
    resolved = await context.workspace.resolveForRead(input);
  } catch (error) {
    if (error instanceof PathError) return { error: toolError(error.kind, error.message) };
    throw error;
  }
  const info = await stat(resolved.absolute).catch(() => undefined);
  if (info === undefined) {
    return {
      error: toolError(
        'not_found',
        `The directory ${resolved.display} does not exist. Give an existing directory as cwd, or omit it to run in the workspace root.`,
      ),
    };
  }
  if (!info.isDirectory()) {
    return {
      error: toolError(
        'not_a_directory',
        `${resolved.display} is a file, not a directory. Give its directory as cwd.`,
      ),
    };
  }
  return resolved;
}

function commandResult(
  outcome: Pick<ProcessOutcome, 'ended' | 'exitCode' | 'durationMs'> & { exitSignal: string | null },
  cwd: ResolvedPath,
  timeoutMs: number,
  notes: string[],
  streams: Array<[name: string, captured: CapturedText]>,
): ToolResult {
  const where = cwd.display === '.' ? '' : ` in ${cwd.display}`;
  const took = seconds(outcome.durationMs);
  let status: string;
  let summary: string;
  let errorType: string | undefined;
  switch (outcome.ended) {
    case 'timeout':
      status = `Timed out after ${seconds(timeoutMs)}${where}: the command and every process it started were killed. Give a larger timeout, or run something that finishes sooner.`;
      summary = 'timed out';
      errorType = 'timeout';
      break;
    case 'cancelled':
      status = `Cancelled after ${took}${where}: the run was cancelled, so the command and every process it started were killed.`;
      summary = 'cancelled';
      errorType = 'cancelled';
      break;
    case 'exited':
      if (outcome.exitCode !== null) {
        status = `Exit code ${outcome.exitCode} after ${took}${where}.`;
        summary = `exit ${outcome.exitCode}`;
        errorType = outcome.exitCode === 0 ? undefined : 'nonzero_exit';
      } else {
        status = `Killed by signal ${outcome.exitSignal ?? 'unknown'} after ${took}${where}.`;
        summary = `killed (${outcome.exitSignal ?? 'signal'})`;
        errorType = 'signal';
      }
      break;
    default: {
      const _exhaustive: never = outcome.ended;
      throw new Error(`unexpected outcome ${String(_exhaustive)}`);
    }
  }
  const sections = [status, ...notes, ...streams.map(([name, captured]) => section(name, captured))].filter(
    (part) => part !== '',
  );
  if (streams.every(([, captured]) => captured.totalBytes === 0)) sections.push('(no output)');
  const output = sections.join('\n');
  return errorType === undefined ? { output, summary } : { output, summary, isError: true, errorType };
}

function section(name: string, captured: CapturedText): string {
  if (captured.totalBytes === 0) return '';
  const text = captured.text.endsWith('\n') ? captured.text : `${captured.text}\n`;
  return `<${name}>\n${text}</${name}>`;
}

function cancelledBeforeStart(): ToolResult {
  return toolError('cancelled', 'The run was cancelled before the command started; nothing ran.');
}

function seconds(ms: number): string {
  const value = ms / 1000;
  const digits = value < 1 ? 2 : value < 10 ? 1 : 0;
  return `${Number(value.toFixed(digits))} s`;
}
