/**
 * The approval gate, in the server so no client can forget it. For each gated action it applies
 * the policy (deny → ask → allow), the session's allow-all, and the protected paths, and
 * otherwise sends an `approve` request carrying exactly what will be written or run: the diff of
 * the file change (from the content the tool will write) or the command with control characters
 * made visible. The decision is bound to that payload: the file tools write only over the content
 * the diff was computed from, and run_command runs the string that was shown.
 */
import type { ApproveParams, ApproveResult, SandboxProfile } from '#protocol';
import type { ResolvedPath } from '../workspace/workspace.ts';
import type { CommandInspection } from './command-site.ts';
import { computeDiffAsync, visibleControlChars } from './diff.ts';
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
    }
  | {
      allowed: false;
      /** rejected/feedback: the user said no; denied: the policy; unavailable: no client can approve; cancelled: the run ended. */
      reason: 'rejected' | 'feedback' | 'denied' | 'unavailable' | 'cancelled';
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
}

export interface CommandRequest {
  command: string;
  cwd: string;
  inspection?: CommandInspection;
  /** How it will run (shown in the request); absent: not said. */
  sandbox?: SandboxProfile;
  /** It runs in `workspace-write` and the user let such commands run unasked (sandbox.autoRun). */
  sandboxAutoRun?: boolean;
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
   * action is sent to the client whatever allow-all or --auto-approve say, marked so that the
   * client cannot answer it automatically either.
   */
  async function decide(
    verdict: PolicyVerdict,
    protection: string | undefined,
    what: string,
    params: () => Promise<ApproveParams>,
  ): Promise<GateDecision> {
    if (verdict.decision === 'deny') {
      return {
        allowed: false,
        reason: 'denied',
        message: `Not allowed: ${verdict.reason} Do not retry it; find another way or ask the user.`,
      };
    }
    if (
      protection === undefined &&
      (verdict.decision === 'allow' || options.session.allowAll || options.autoApprove)
    )
      return { allowed: true };
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
    // An unprotected request is withdrawn when the user allows all while it waits (another agent's).
    const withdrawn = new AbortController();
    const unsubscribe =
      protection === undefined ? options.session.whileWaiting(() => withdrawn.abort()) : () => {};
    try {
      const shown = await params();
      if (options.session.allowAll && protection === undefined) return { allowed: true };
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
      case 'allow':
        return allowed;
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
      const target = request.destination ?? request.path;
      const protection = options.isProtected(request.path.absolute) ?? options.isProtected(target.absolute);
      const what =
        request.operation === 'move'
          ? `moving ${request.path.display} to ${target.display}`
          : `${request.operation === 'create' ? 'creating' : request.operation === 'delete' ? 'deleting' : 'changing'} ${request.path.display}`;
      return decide(options.policy.forTool(options.toolName), protection, what, async () => ({
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
            : await computeDiffAsync(request.path.display, request.oldContent, request.newContent),
      }));
    },
    command(request) {
      const command = visibleControlChars(request.command);
      const verdict = options.policy.forCommand(request.command, request.inspection, {
        sandboxAutoRun: request.sandboxAutoRun === true,
      });
      // Commands allowed as read-only may look at protected locations; anything else that may
      // write one is asked, a tool-level allow included. What run_command's inspection saw (the
      // words as the shell makes them, where they lead) counts for exactly the string inspected.
      const inspected = request.inspection?.command === request.command ? request.inspection : undefined;
      const protection =
        inspected?.allowedUnasked === true
          ? undefined
          : (inspected?.protection ?? options.isProtectedCommand?.(request.command));
      return decide(verdict, protection, `running \`${command}\``, () =>
        Promise.resolve({
          kind: 'command',
          ...ids,
          command,
          cwd: request.cwd,
          ...(request.sandbox === undefined ? {} : { sandbox: request.sandbox }),
        }),
      );
    },
    escalate(request) {
      const command = visibleControlChars(request.command);
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
  };
}
