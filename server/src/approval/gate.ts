/**
 * The approval gate, in the server so no client can forget it. For each gated action it applies
 * the policy (deny → ask → allow), the session's allow-all, and the protected paths, and
 * otherwise sends an `approve` request carrying exactly what will be written or run: the diff of
 * the file change (from the content the tool will write) or the command with control characters
 * made visible. The decision is bound to that payload: the file tools write only over the content
 * the diff was computed from, and run_command runs the string that was shown.
 */
import type { ApproveParams, ApproveResult } from '#protocol';
import type { ApprovalGate, FileChangeRequest, GateDecision } from '../tools/types.ts';
import { computeDiffAsync, visibleControlChars } from './diff.ts';
import type { PolicyVerdict, ToolPolicy } from './policy.ts';

export interface SessionApprovals {
  /** The user answered allow_all earlier in this session. */
  allowAll: boolean;
}

export interface GateOptions {
  /** Sends `approve`; undefined when the client declared it cannot answer approvals. */
  approve: ((params: ApproveParams, signal: AbortSignal) => Promise<ApproveResult>) | undefined;
  /** The server was started with --auto-approve: allow what would be asked, without a client. */
  autoApprove: boolean;
  session: SessionApprovals;
  policy: ToolPolicy;
  /** Santra's own config directory and `.git` internals: always asked, even under allow-all. */
  isProtected(absolute: string): boolean;
  runId: string;
  agentId: string;
  toolCallId: string;
  toolName: string;
  signal: AbortSignal;
}

export function createGate(options: GateOptions): ApprovalGate {
  const ids = {
    runId: options.runId,
    agentId: options.agentId,
    toolCallId: options.toolCallId,
    toolName: options.toolName,
  };

  async function decide(
    verdict: PolicyVerdict,
    protectedTarget: boolean,
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
    if (!protectedTarget && (verdict.decision === 'allow' || options.session.allowAll || options.autoApprove))
      return { allowed: true };
    if (options.approve === undefined) {
      return {
        allowed: false,
        reason: 'unavailable',
        message: protectedTarget
          ? `${what} touches a protected location (Santra's config or .git internals), which always needs the user's approval, and no client can give it here. Nothing was done.`
          : `${what} needs the user's approval, and this client cannot give approvals (it did not declare capabilities.approve; the server can be started with --auto-approve). Nothing was done.`,
      };
    }
    let result: ApproveResult;
    try {
      result = await options.approve(await params(), options.signal);
    } catch (error) {
      if (options.signal.aborted)
        return { allowed: false, reason: 'cancelled', message: 'The run was cancelled; nothing was done.' };
      return {
        allowed: false,
        reason: 'rejected',
        message: `${what} was not approved (the client did not answer: ${error instanceof Error ? error.message : String(error)}). Nothing was done.`,
      };
    }
    switch (result.decision) {
      case 'allow':
        return { allowed: true };
      case 'allow_all':
        options.session.allowAll = true;
        return { allowed: true };
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
      const protectedTarget =
        options.isProtected(request.path.absolute) || options.isProtected(target.absolute);
      const what =
        request.operation === 'move'
          ? `moving ${request.path.display} to ${target.display}`
          : `${request.operation === 'create' ? 'creating' : request.operation === 'delete' ? 'deleting' : 'changing'} ${request.path.display}`;
      return decide(options.policy.forTool(options.toolName), protectedTarget, what, async () => ({
        kind: 'file_change',
        ...ids,
        path:
          request.operation === 'move' ? `${request.path.display} → ${target.display}` : request.path.display,
        operation: request.operation,
        diff: await computeDiffAsync(request.path.display, request.oldContent, request.newContent),
      }));
    },
    command(request) {
      const command = visibleControlChars(request.command);
      return decide(options.policy.forCommand(request.command), false, `running \`${command}\``, () =>
        Promise.resolve({ kind: 'command', ...ids, command, cwd: request.cwd }),
      );
    },
  };
}
