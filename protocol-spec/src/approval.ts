import * as z from 'zod';
import { named } from './registry.ts';

export const DiffLine = named(
  'DiffLine',
  'One line of a hunk. `oldLine`/`newLine` are 1-based line numbers on each side (absent on the side the line is not in).',
  z.object({
    type: z.enum(['context', 'added', 'removed']),
    text: z.string().describe('The line without its newline.'),
    oldLine: z.number().int().positive().optional(),
    newLine: z.number().int().positive().optional(),
  }),
);

export const DiffHunk = named(
  'DiffHunk',
  'A run of changed lines with context; unchanged runs between hunks are collapsed.',
  z.object({
    id: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Names this hunk in an `allow` answer with `hunks` (§7.3.2): unique within the request, and the same for the same change of the same file whenever it is asked. Sent by every server since 0.3.0; absent from an older server, which accepts no `hunks` answer.',
      ),
    oldStart: z.number().int().nonnegative(),
    oldLines: z.number().int().nonnegative(),
    newStart: z.number().int().nonnegative(),
    newLines: z.number().int().nonnegative(),
    lines: z.array(DiffLine),
  }),
);

export const FileDiff = named(
  'FileDiff',
  'The change a write would make, exactly as it would be written.',
  z.object({
    added: z.number().int().nonnegative().describe('Lines added.'),
    removed: z.number().int().nonnegative().describe('Lines removed.'),
    hunks: z.array(DiffHunk),
    unifiedDiff: z
      .string()
      .describe('The same change as unified diff text, for clients that do not render hunks.'),
    replacement: z
      .boolean()
      .describe('True when the diff was too costly to compute and is shown as a whole-file replacement.'),
  }),
);

const approvalBase = {
  sessionId: z
    .string()
    .describe(
      'The session of the run that asks (since 0.2.0): a client showing several sessions knows where the request belongs.',
    ),
  runId: z.string(),
  agentId: z.string(),
  toolCallId: z.string(),
  toolName: z.string(),
  protected: z
    .boolean()
    .optional()
    .describe(
      "True when the action touches a protected location (`.git/`, `.santra/`, `.agents/`, Santra's config directory, shell start-up files). A person must decide: the server asks even after `allow_all` or under an auto-approve flag, and a client MUST NOT answer it automatically (no remembered allow-all, no approve-everything option); a client with no person to ask MUST reject it. Absent means false.",
    ),
  protectedReason: z
    .string()
    .optional()
    .describe('With `protected`: why the location is protected, to show the user.'),
};

/** §approve: the server asks the user to allow a gated action. */
export type FileDiff = z.infer<typeof FileDiff>;

/** The OS sandbox profiles (§7.3.1), with Codex's names. */
export const SandboxProfile = named(
  'SandboxProfile',
  "How a command runs (§7.3.1): `read-only` (it can write nothing but a private temp dir), `workspace-write` (the workspace too, except protected locations), `danger-full-access` (no sandbox: the user's full rights). In every sandboxed profile Santra's config and sessions, the server's process, other users' homes and the network (beyond the domains the user allowed) are out of reach. Since 0.3.0.",
  z.enum(['read-only', 'workspace-write', 'danger-full-access']),
);
export type SandboxProfile = z.infer<typeof SandboxProfile>;

export const SandboxEscalation = named(
  'SandboxEscalation',
  'Why a command asks to run outside the OS sandbox (§7.3.1): it already ran inside, and the sandbox stopped it. Since 0.3.0.',
  z.object({
    reason: z
      .string()
      .describe(
        'What the sandbox blocked, with the output that shows it, e.g. "The OS sandbox blocked a network connection: curl: (6) Could not resolve host: example.com".',
      ),
  }),
);
export type SandboxEscalation = z.infer<typeof SandboxEscalation>;

/** What a `trust` request asks about (§7.7). */
export const TrustSubject = named(
  'TrustSubject',
  "What a project supplies that would run code on the user's machine (§7.7): `mcp_server` (a server in the project's `.mcp.json`), `hooks` (hooks in the project's `.santra/settings.json`). Since 0.3.0; a later minor version may add subjects.",
  z.enum(['mcp_server', 'hooks']),
);
export type TrustSubject = z.infer<typeof TrustSubject>;

export const ApproveParams = named(
  'ApproveParams',
  'Params of `approve`, discriminated by `kind`. What it shows is byte for byte what will be written or run.',
  z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('file_change'),
      ...approvalBase,
      path: z
        .string()
        .describe('Path relative to the workspace root; for a `move`, the file that is moved (its source).'),
      destination: z
        .string()
        .optional()
        .describe(
          'With operation `move` (and only then): where the file goes, relative to the workspace root. The diff shows the rename (`--- a/<path>`, `+++ b/<destination>`) and no content change.',
        ),
      operation: z.enum(['create', 'modify', 'delete', 'move']),
      diff: FileDiff,
    }),
    z.object({
      kind: z.literal('command'),
      ...approvalBase,
      command: z.string().describe('The exact command line, control characters made visible.'),
      cwd: z.string().describe('Absolute working directory.'),
      sandbox: SandboxProfile.optional().describe(
        'How the command will run (§7.3.1): inside the OS sandbox with this profile, or `danger-full-access` outside it. Absent: the server does not say (a server before 0.3.0). Since 0.3.0.',
      ),
      escalation: SandboxEscalation.optional().describe(
        "Present when the command already ran inside the OS sandbox and failed because of it: allowing runs it again outside the sandbox, with the user's full rights (`sandbox` is then `danger-full-access`). Always sent with `protected: true`, so no remembered allow-all or auto-approve answers it. Since 0.3.0.",
      ),
    }),
    z.object({
      kind: z.literal('trust'),
      sessionId: approvalBase.sessionId.optional(),
      runId: z.string().optional().describe('Present when a run is waiting on the answer.'),
      agentId: z.string().optional(),
      toolCallId: z.string().optional(),
      toolName: z.string().optional(),
      protected: z
        .literal(true)
        .describe(
          'Always true: trusting code a project supplies is for a person to decide (as `protected` above).',
        ),
      protectedReason: z.string().describe('Why a person must decide, to show the user.'),
      subject: TrustSubject,
      name: z.string().describe("Its name in the file: the MCP server's name, or the hooks' event."),
      source: z
        .string()
        .describe('The file that defines it, relative to the workspace root, e.g. `.mcp.json`.'),
      definition: z
        .string()
        .describe(
          'The exact definition as the file has it (JSON text, `${VAR}` references not expanded, so no secret is shown): what will run when it is trusted.',
        ),
      changed: z
        .boolean()
        .describe(
          'True when an earlier definition under this name was trusted and this one differs from it.',
        ),
    }),
    z.object({
      kind: z.literal('mcp_tool'),
      ...approvalBase,
      server: z.string().describe('The MCP server, as named in the config or `.mcp.json`.'),
      tool: z
        .string()
        .describe("The tool's name on that server (the model calls it `mcp__<server>__<tool>`)."),
      arguments: z
        .record(z.string(), z.unknown())
        .describe('The arguments the tool will be called with, exactly as they will be sent.'),
    }),
  ]),
);
export type ApproveParams = z.infer<typeof ApproveParams>;

export const ApprovalDecision = named(
  'ApprovalDecision',
  '`allow` this action; `allow_all` for the rest of the session; `reject` (the model is told, the run goes on); `feedback` (rejected, with text for the model).',
  z.enum(['allow', 'allow_all', 'reject', 'feedback']),
);

export const ApproveResult = named(
  'ApproveResult',
  'Result of `approve`. `feedback` is required with decision `feedback` and ignored otherwise. An `allow` carries at most one of `hunks`, `content` and `command` (since 0.3.0): the person accepted part of the change, or edited it.',
  z.discriminatedUnion('decision', [
    z.object({
      decision: z.literal('allow'),
      hunks: z
        .array(z.string())
        .optional()
        .describe(
          'For a `file_change` that creates or modifies a file: apply only the hunks with these `id`s, leave the others as they are (§7.3.2). An id the request did not carry makes the answer invalid: nothing is written. Since 0.3.0.',
        ),
      content: z
        .string()
        .optional()
        .describe(
          "For a `file_change` that creates or modifies a file: write this, the person's edited version, instead of the proposal (§7.3.2). Since 0.3.0.",
        ),
      command: z
        .string()
        .min(1)
        .optional()
        .describe(
          "For a `command` (not an escalation): run this, the person's edited command line, instead (§7.3.2). It is a new command: checked and, unless the policy allows it unasked, asked again before it runs. Since 0.3.0.",
        ),
    }),
    z.object({ decision: z.literal('allow_all') }),
    z.object({ decision: z.literal('reject') }),
    z.object({
      decision: z.literal('feedback'),
      feedback: z.string().min(1).describe('Why the user rejected it; passed to the model.'),
    }),
  ]),
);
export type ApproveResult = z.infer<typeof ApproveResult>;
