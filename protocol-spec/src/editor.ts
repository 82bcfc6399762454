import * as z from 'zod';
import { AbsolutePath } from './common.ts';
import { named } from './registry.ts';

/**
 * §7.5: an editor lends the server its view of files and its terminals. The server still decides
 * everything (workspace confinement, approvals, what is recorded for undo); the client only reads
 * its buffers, saves an approved text into them, and runs an approved command where the user can
 * watch it.
 */

export const FsReadTextFileParams = named(
  'FsReadTextFileParams',
  'Params of `fs/readTextFile` (since 0.2.0).',
  z.object({
    sessionId: z.string().describe('The session of the run that reads.'),
    path: AbsolutePath.describe(
      'The file, inside the workspace, symbolic links resolved. It exists on disk.',
    ),
  }),
);
export type FsReadTextFileParams = z.infer<typeof FsReadTextFileParams>;

export const FsReadTextFileResult = named(
  'FsReadTextFileResult',
  'Result of `fs/readTextFile`.',
  z.object({
    text: z
      .string()
      .nullable()
      .describe(
        "The file's text as the editor holds it, unsaved changes included; null when the editor has no buffer of it (the server then reads the disk).",
      ),
  }),
);
export type FsReadTextFileResult = z.infer<typeof FsReadTextFileResult>;

export const FsWriteTextFileParams = named(
  'FsWriteTextFileParams',
  'Params of `fs/writeTextFile` (since 0.2.0).',
  z.object({
    sessionId: z.string().describe('The session of the run that writes.'),
    path: AbsolutePath.describe('The file: an existing file inside the workspace, symbolic links resolved.'),
    text: z.string().describe("The file's whole new text, as the user approved it."),
  }),
);
export type FsWriteTextFileParams = z.infer<typeof FsWriteTextFileParams>;

export const FsWriteTextFileResult = named(
  'FsWriteTextFileResult',
  'Result of `fs/writeTextFile`: the file holds `text`, in the editor and on disk.',
  z.object({}),
);
export type FsWriteTextFileResult = z.infer<typeof FsWriteTextFileResult>;

export const TerminalRunParams = named(
  'TerminalRunParams',
  'Params of `terminal/run` (since 0.2.0).',
  z.object({
    sessionId: z.string(),
    runId: z.string(),
    agentId: z.string(),
    toolCallId: z.string().describe('The `run_command` call this runs, as in its `tool_call` phase.'),
    command: z
      .string()
      .min(1)
      .describe(
        "The command line to run as `/bin/sh -c command`: the one the user approved, or — with `approvedCommand` — the OS sandbox's launcher around it (§7.3.1).",
      ),
    approvedCommand: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Present when the server runs the command in its OS sandbox (§7.3.1): the command line the user approved, which `command` wraps. A client shows it as what runs, and runs `command`. Since 0.3.0.',
      ),
    cwd: AbsolutePath.describe('The directory to run it in, inside the workspace.'),
    env: z
      .record(z.string(), z.string())
      .describe(
        "Variables to set on top of the client's environment, e.g. git settings that make a read-only command safe.",
      ),
    unsetEnv: z
      .array(z.string())
      .describe(
        'Variables that MUST NOT reach the command (provider keys and other secrets): removed, or set empty where the client cannot remove them.',
      ),
    timeoutMs: z.number().int().positive().describe('Kill the command and what it started after this long.'),
    outputByteLimit: z
      .number()
      .int()
      .positive()
      .describe('Bytes of output to return at most; the client keeps the end and cuts the start.'),
  }),
);
export type TerminalRunParams = z.infer<typeof TerminalRunParams>;

export const TerminalRunResult = named(
  'TerminalRunResult',
  'Result of `terminal/run`: how the command ended and what it printed.',
  z.object({
    output: z.string().describe('stdout and stderr as the terminal showed them, interleaved.'),
    truncated: z.boolean().describe('True when the start of the output was cut to `outputByteLimit`.'),
    exitCode: z.number().int().nullable().describe('The exit code; null when a signal ended it.'),
    signal: z.string().nullable().describe('The signal that ended it, e.g. "SIGKILL"; null when it exited.'),
    timedOut: z.boolean().describe('True when the client killed it after `timeoutMs`.'),
  }),
);
export type TerminalRunResult = z.infer<typeof TerminalRunResult>;
