/**
 * The approval gate, in the server so no client can forget it. For each gated action it applies
 * the policy (deny → ask → allow), the session's allow-all, and the protected paths, and
 * otherwise sends an `approve` request carrying exactly what will be written or run: the diff of
 * the file change (from the content the tool will write) or the command with control characters
 * made visible. The decision is bound to that payload: the file tools write only over the content
 * the diff was computed from, and run_command runs the string that was shown.
 */
import { onlyEditsFiles } from './command-allowlist.ts';
import { isAbsolute } from 'node:path';
import type { ApproveParams, ApproveResult, SandboxProfile } from '#protocol';
import type { ResolvedPath } from '../workspace/workspace.ts';
import type { CommandInspection } from './command-site.ts';
import { computeDiffAsync, visibleControlChars } from './diff.ts';
import { type Editable, type EditedAnswer, readAllowAnswer, withHunkIds } from './hunks.ts';
import { type PermissionMode, planModeRefusal } from './permission-mode.ts';
import type { PolicyVerdict, ToolPolicy } from './policy.ts';

/** The outcome of asking the approval gate. Nothing gated happens unless `allowed`. */
export type GateDecision =
  | {
      allowed: true;
      /**
       * A person allowed it knowing it touches a protected location (the request said so): the
       * OS sandbox then leaves the protected locations writable for it, and nothing else.
       */
      protectedAllowed?: true;
      /**
       * The person allowed part of the change or their own version of it (§7.3.2): the tool
       * writes or runs that instead of what it proposed. Absent: exactly what was shown.
       */
      edited?: EditedAnswer;
    }
  | {
      allowed: false;
      /** rejected/feedback: the user said no; denied: the policy; plan_mode: the session is read-only; unavailable: no client can approve; cancelled: the run ended. */
      reason: 'rejected' | 'feedback' | 'denied' | 'plan_mode' | 'unavailable' | 'cancelled';
      /** What the model is told. */
      message: string;
    };

export interface FileChangeRequest {
  path: ResolvedPath;
  operation: 'create' | 'modify' | 'delete' | 'move';
  /** Current content; undefined when the file does not exist. */
  oldContent: string | undefined;
  /** Content to write; undefined for a deletion. */
  newContent: string | undefined;
  /** For a move: where the file goes. */
  destination?: ResolvedPath;
  /**
   * The tool can write part of the change or the person's version (hunks.ts): only a creation
   * or a modification, by a tool that applies `edited`. Absent: an allow that edits is invalid.
   */
  editable?: boolean;
}

/**
 * The approval gate. It lives in the server, so no client can forget it: it applies the policy
 * (deny → ask → allow, allow-all for the session, protected paths always asked), shows the exact
 * payload — the diff of the file change, the command and its cwd — and binds the decision to it.
 */
export interface ApprovalGate {
  fileChange(request: FileChangeRequest): Promise<GateDecision>;
  /** `inspection`: run_command's look at where the command runs; without it nothing runs unasked. */
  command(request: CommandRequest): Promise<GateDecision>;
  /**
   * A command that failed inside the OS sandbox because of it, to be run again outside: always
   * put to a person (like a protected location: not allow-all, not --auto-approve), never
   * allowed by policy. `reason` says what the sandbox blocked.
   */
  escalate(request: { command: string; cwd: string; reason: string }): Promise<GateDecision>;
  /** A call of an MCP server's tool: shows the server, the tool and the exact arguments (§7.7). */
  mcpTool(request: McpToolRequest): Promise<GateDecision>;
}

export interface McpToolRequest {
  server: string;
  /** Its name on the server (not `mcp__…`). */
  tool: string;
  arguments: Record<string, unknown>;
  /** What the config says of it (mcpServers.<server>.policy / .tools); allow-all and modes apply to `ask`. */
  policy: 'allow' | 'ask' | 'deny';
  /** Annotated `readOnlyHint` by a server from the user's own config: runs unasked, in plan mode too. */
  trustedReadOnly: boolean;
}

export interface CommandRequest {
  command: string;
  cwd: string;
  inspection?: CommandInspection;
  /** How it will run (shown in the request); absent: not said. */
  sandbox?: SandboxProfile;
  /** It runs in `workspace-write` and the user let such commands run unasked (sandbox.autoRun). */
  sandboxAutoRun?: boolean;
  /**
   * The inspection's `protection` is the whole answer for this string, not only what it adds to
   * the gate's own text rule: the interactive shells (tools/shell-tools.ts), whose input is not a
   * command line for /bin/sh and is judged by their own check.
   */
  inspectedProtection?: true;
}

/** What an escalation request says, instead of a protected location's reason. */
export const ESCALATION_REASON =
  'it runs again outside the OS sandbox, with all your rights, after the sandbox stopped it';

/**
 * What the user allowed for a whole session. Allow-all is the server's state: once given, later
 * gated actions are allowed without a request, and requests already waiting on the user (parallel
 * agents ask at once) are withdrawn and allowed — no client answers for the user.
 */
export class SessionApprovals {
  #allowAll = false;
  readonly #waiting = new Set<() => void>();
  /**
   * The session's permission mode (permission-mode.ts); undefined until a prompt or the config
   * sets it. Read at each decision, so a change (an approved plan) applies to the next call.
   */
  permissionMode: PermissionMode | undefined;

  /** The mode decisions use: the session's, or `default`. */
  get mode(): PermissionMode {
    return this.permissionMode ?? 'default';
  }

  /** The user answered allow_all earlier in this session. */
  get allowAll(): boolean {
    return this.#allowAll;
  }

  grantAll(): void {
    this.#allowAll = true;
    for (const withdraw of [...this.#waiting]) withdraw();
    this.#waiting.clear();
  }

  /** Calls `withdraw` if allow-all is given while a request waits; returns the unsubscribe. */
  whileWaiting(withdraw: () => void): () => void {
    this.#waiting.add(withdraw);
    return () => this.#waiting.delete(withdraw);
  }
}

export interface GateOptions {
  /** Sends `approve`; undefined when the client declared it cannot answer approvals. */
  approve: ((params: ApproveParams, signal: AbortSignal) => Promise<ApproveResult>) | undefined;
  /** The server was started with --auto-approve: allow what would be asked, without a client. */
  autoApprove: boolean;
  session: SessionApprovals;
  policy: ToolPolicy;
  /** Why a change to this path always needs a person, even under allow-all (protected-paths.ts). */
  isProtected(absolute: string): string | undefined;
  /**
   * Why a command that is not read-only always needs a person, from its words; undefined for
   * most. run_command's inspection adds what the file system shows (`protection`).
   */
  isProtectedCommand?(command: string): string | undefined;
  sessionId: string;
  runId: string;
  agentId: string;
  toolCallId: string;
  toolName: string;
  signal: AbortSignal;
  /** A PreToolUse hook said `allow` (allow what would be asked) or `ask` (ask even what would be allowed). */
  hookDecision?: 'allow' | 'ask';
}

/** What plan mode answers for an action that is not read-only (permission-mode.ts). */
function inPlanMode(what: string): GateDecision {
  return { allowed: false, reason: 'plan_mode', message: planModeRefusal(what) };
}

export function createGate(options: GateOptions): ApprovalGate {
  const ids = {
    sessionId: options.sessionId,
    runId: options.runId,
    agentId: options.agentId,
    toolCallId: options.toolCallId,
    toolName: options.toolName,
  };

  /**
   * `protection`: why a person must decide (a protected location), or undefined. A protected
   * action is sent to the client whatever allow-all, --auto-approve or the permission mode say,
   * marked so that the client cannot answer it automatically either. `modeAllows`: the session's
   * permission mode lets this action through unasked (bypassPermissions; acceptEdits for a file
   * change in the workspace).
   */
  async function decide(
    verdict: PolicyVerdict,
    protection: string | undefined,
    what: string,
    params: () => Promise<ApproveParams>,
    modeAllows = options.session.mode === 'bypassPermissions',
    editable: Editable = { file: false, command: false },
  ): Promise<GateDecision> {
    if (verdict.decision === 'deny') {
      return {
        allowed: false,
        reason: 'denied',
        message: `Not allowed: ${verdict.reason} Do not retry it; find another way or ask the user.`,
      };
    }
    const unasked =
      verdict.decision === 'allow' ||
      options.session.allowAll ||
      options.autoApprove ||
      modeAllows ||
      options.hookDecision === 'allow';
    if (protection === undefined && unasked && options.hookDecision !== 'ask') return { allowed: true };
    if (options.approve === undefined) {
      return {
        allowed: false,
        reason: 'unavailable',
        message:
          protection === ESCALATION_REASON
            ? `${what} needs a person's approval (${protection}), and no client can give it here (an auto-approve flag does not count). It was not run again.`
            : protection !== undefined
              ? `${what} touches a protected location (${protection}), which always needs the user's approval, and no client can give it here. Nothing was done.`
              : `${what} needs the user's approval, and this client cannot give approvals (it did not declare capabilities.approve; the server can be started with --auto-approve). Nothing was done.`,
      };
    }
    let result: ApproveResult;
    let shown: ApproveParams;
    // An unprotected request is withdrawn when the user allows all while it waits (another agent's).
    const withdrawn = new AbortController();
    const unsubscribe =
      protection === undefined ? options.session.whileWaiting(() => withdrawn.abort()) : () => {};
    try {
      shown = await params();
      if (options.session.allowAll && protection === undefined && options.hookDecision !== 'ask')
        return { allowed: true };
      result = await options.approve(
        protection === undefined ? shown : { ...shown, protected: true, protectedReason: protection },
        AbortSignal.any([options.signal, withdrawn.signal]),
      );
    } catch (error) {
      if (options.signal.aborted)
        return { allowed: false, reason: 'cancelled', message: 'The run was cancelled; nothing was done.' };
      if (withdrawn.signal.aborted) return { allowed: true };
      return {
        allowed: false,
        reason: 'rejected',
        message: `${what} was not approved (the client did not answer: ${error instanceof Error ? error.message : String(error)}). Nothing was done.`,
      };
    } finally {
      unsubscribe();
    }
    const allowed =
      protection === undefined
        ? { allowed: true as const }
        : { allowed: true as const, protectedAllowed: true as const };
    switch (result.decision) {
      case 'allow': {
        const edited = readAllowAnswer(result, shown, editable);
        if (edited === undefined) return allowed;
        if ('invalid' in edited) {
          return {
            allowed: false,
            reason: 'rejected',
            message: `${what} was not done: the client's answer was invalid (InvalidParams): ${edited.invalid}. Nothing was done; the client must answer with ids and fields of the request it was sent.`,
          };
        }
        return { ...allowed, edited };
      }
      case 'allow_all':
        options.session.grantAll();
        return allowed;
      case 'reject':
        return {
          allowed: false,
          reason: 'rejected',
          message: `The user rejected this: ${what}. Nothing was done. Do not repeat it unchanged; ask the user or take another approach.`,
        };
      case 'feedback':
        return {
          allowed: false,
          reason: 'feedback',
          message: `The user rejected this (${what}) with feedback: ${result.feedback}`,
        };
      default: {
        const exhaustive: never = result;
        throw new Error(`unknown decision ${JSON.stringify(exhaustive)}`);
      }
    }
  }

  return {
    fileChange(request: FileChangeRequest) {
      if (options.session.mode === 'plan') return Promise.resolve(inPlanMode('changing files'));
      const target = request.destination ?? request.path;
      const protection = options.isProtected(request.path.absolute) ?? options.isProtected(target.absolute);
      const what =
        request.operation === 'move'
          ? `moving ${request.path.display} to ${target.display}`
          : `${request.operation === 'create' ? 'creating' : request.operation === 'delete' ? 'deleting' : 'changing'} ${request.path.display}`;
      // A path shown absolute lies in an extra allowed directory, outside the workspace.
      const inWorkspace = !isAbsolute(request.path.display) && !isAbsolute(target.display);
      const mode = options.session.mode;
      const modeAllows = mode === 'bypassPermissions' || (mode === 'acceptEdits' && inWorkspace);
      return decide(
        options.policy.forTool(options.toolName),
        protection,
        what,
        async () => ({
          kind: 'file_change',
          ...ids,
          path: request.path.display,
          ...(request.operation === 'move' ? { destination: target.display } : {}),
          operation: request.operation,
          diff:
            request.operation === 'move'
              ? // A move changes no content (a file too large to load shows as empty); the header shows the rename.
                await computeDiffAsync(
                  request.path.display,
                  request.oldContent ?? '',
                  request.newContent ?? '',
                  {
                    newPath: target.display,
                  },
                )
              : withHunkIds(
                  await computeDiffAsync(request.path.display, request.oldContent, request.newContent),
                ),
        }),
        modeAllows,
        {
          file:
            request.editable === true && (request.operation === 'create' || request.operation === 'modify'),
          command: false,
        },
      );
    },
    command(request) {
      const command = visibleControlChars(request.command);
      const verdict = options.policy.forCommand(request.command, request.inspection, {
        sandboxAutoRun: request.sandboxAutoRun === true,
      });
      // Plan mode runs only what the read-only allowlist lets run (askCommands still ask).
      if (
        options.session.mode === 'plan' &&
        verdict.decision !== 'deny' &&
        !options.policy.readOnly(request.command, request.inspection)
      )
        return Promise.resolve(inPlanMode(`running \`${command}\` (it is not on the read-only allowlist)`));
      // Commands allowed as read-only may look at protected locations; anything else that may
      // write one is asked, a tool-level allow included. What run_command's inspection saw (the
      // words as the shell makes them, where they lead) counts for exactly the string inspected.
      const inspected = request.inspection?.command === request.command ? request.inspection : undefined;
      const protection =
        inspected?.allowedUnasked === true
          ? undefined
          : inspected !== undefined && request.inspectedProtection === true
            ? inspected.protection
            : (inspected?.protection ?? options.isProtectedCommand?.(request.command));
      // acceptEdits lets by what only makes, copies or moves files inside the workspace, as an
      // inspection of exactly this string found (every argument resolved inside it), unless the
      // user's own rule asks about it.
      const mode = options.session.mode;
      const modeAllows =
        mode === 'bypassPermissions' ||
        (mode === 'acceptEdits' &&
          verdict.askedByRule !== true &&
          inspected !== undefined &&
          inspected.findings.length === 0 &&
          onlyEditsFiles(request.command));
      return decide(
        verdict,
        protection,
        `running \`${command}\``,
        () =>
          Promise.resolve({
            kind: 'command',
            ...ids,
            command,
            cwd: request.cwd,
            ...(request.sandbox === undefined ? {} : { sandbox: request.sandbox }),
          }),
        modeAllows,
        { file: false, command: true },
      );
    },
    escalate(request) {
      const command = visibleControlChars(request.command);
      if (options.session.mode === 'plan')
        return Promise.resolve(inPlanMode(`running \`${command}\` outside the sandbox`));
      const tool = options.policy.forTool(options.toolName);
      const verdict: PolicyVerdict = tool.decision === 'deny' ? tool : { decision: 'ask', reason: '' };
      return decide(verdict, ESCALATION_REASON, `running \`${command}\` outside the sandbox`, () =>
        Promise.resolve({
          kind: 'command',
          ...ids,
          command,
          cwd: request.cwd,
          sandbox: 'danger-full-access',
          escalation: { reason: request.reason },
        }),
      );
    },
    mcpTool(request) {
      const what = `calling ${request.tool} on the MCP server ${request.server}`;
      if (request.policy === 'deny')
        return decide(
          {
            decision: 'deny',
            reason: `the configuration denies ${request.tool} of the MCP server ${request.server}.`,
          },
          undefined,
          what,
          () => Promise.reject(new Error('not asked')),
        );
      if (request.trustedReadOnly) return Promise.resolve({ allowed: true });
      if (options.session.mode === 'plan') return Promise.resolve(inPlanMode(what));
      return decide({ decision: request.policy, reason: '' }, undefined, what, () =>
        Promise.resolve({
          kind: 'mcp_tool',
          ...ids,
          server: request.server,
          tool: request.tool,
          arguments: request.arguments,
        }),
      );
    },
  };
}
