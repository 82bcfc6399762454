/**
 * The hooks of one agent's run, as the agent loop calls them at its one dispatch point: every
 * tool call of every agent — the root and each sub-agent — passes `beforeTool` and `afterTool`
 * there, and each agent's end passes `stop` (Stop for the root agent, SubagentStop for the
 * others). Tool names and inputs are shown to hooks as Claude Code names them (tool-names.ts).
 */
import type { HookEvent } from '../config/hooks-schema.ts';
import type { HookOutcome, Hooks, HookScope } from './hooks.ts';
import { argsFromHookInput, hookToolInput, hookToolName, hookToolNames } from './tool-names.ts';

export interface AgentHookScope {
  sessionId: string;
  runId: string;
  agentId: string;
  /** The session's record, where the hook may read the conversation ('' when not in a file). */
  transcriptPath: string;
  /** The session's mode now (it may change during the run). */
  permissionMode(): string;
  /** A sub-agent: its end is SubagentStop. */
  subAgent: boolean;
  signal: AbortSignal;
  /** Tells the user something (a hook's error or systemMessage): a warning status line. */
  warn(text: string): void;
}

/** What PreToolUse decided about a call. */
export interface BeforeTool {
  /** Do not run it; the model reads this. */
  deny?: string;
  /** Run it with these arguments instead (Santra's names), to be validated again. */
  args?: Record<string, unknown>;
  /** `allow`: the gate does not ask (protected locations still are); `ask`: it asks whatever else allows it. */
  decision?: 'allow' | 'ask';
  /** For the model, with the tool's result. */
  context?: string;
  /** `continue: false`: the agent ends after this call, with this for the user. */
  stop?: string;
}

/** What PostToolUse added to a call's result. */
export interface AfterTool {
  /** For the model, after the result: `additionalContext`, and a block's reason. */
  context?: string;
  stop?: string;
}

export interface AgentHooks {
  beforeTool(call: { id: string; name: string }, args: Record<string, unknown>): Promise<BeforeTool>;
  afterTool(
    call: { id: string; name: string },
    args: Record<string, unknown>,
    result: { output: string; isError: boolean },
  ): Promise<AfterTool>;
  /** The agent is about to end: a reason to go on instead (a Stop hook blocked it), or undefined. */
  stop(stopHookActive: boolean): Promise<string | undefined>;
}

export function agentHooks(hooks: Hooks, scope: AgentHookScope): AgentHooks {
  const root = hooks.workspaceRoot;
  const hookScope = (toolCallId: string, toolName: string): HookScope => ({
    sessionId: scope.sessionId,
    transcriptPath: scope.transcriptPath,
    permissionMode: scope.permissionMode(),
    signal: scope.signal,
    run: { sessionId: scope.sessionId, runId: scope.runId, agentId: scope.agentId, toolCallId, toolName },
  });
  /** Errors and system messages are the user's; the rest is returned. */
  const told = (event: HookEvent, outcome: HookOutcome): HookOutcome => {
    if (outcome.error !== undefined && outcome.failedClosed !== true) scope.warn(outcome.error);
    if (outcome.systemMessage !== undefined) scope.warn(`${event} hook: ${outcome.systemMessage}`);
    if (outcome.stop !== undefined) scope.warn(`${event} hook stopped the agent: ${outcome.stop}`);
    return outcome;
  };
  return {
    async beforeTool(call, args) {
      const input = hookToolInput(call.name, args, root);
      const outcome = told(
        'PreToolUse',
        await hooks.run(
          'PreToolUse',
          hookToolNames(call.name),
          { tool_name: hookToolName(call.name), tool_input: input, tool_use_id: call.id },
          hookScope(call.id, call.name),
        ),
      );
      const before: BeforeTool = {};
      if (outcome.permission === 'deny' || outcome.block !== undefined) {
        before.deny = `A PreToolUse hook blocked this call: ${outcome.permissionReason ?? outcome.block ?? 'no reason given'}`;
        return before;
      }
      if (outcome.permission === 'allow' || outcome.permission === 'ask')
        before.decision = outcome.permission;
      if (outcome.permission !== undefined && outcome.permissionReason !== undefined)
        scope.warn(`PreToolUse hook (${outcome.permission}): ${outcome.permissionReason}`);
      if (outcome.updatedInput !== undefined) {
        before.args = argsFromHookInput(call.name, outcome.updatedInput, input, root);
        scope.warn(`A PreToolUse hook changed the input of ${call.name}.`);
      }
      if (outcome.additionalContext !== undefined) before.context = outcome.additionalContext;
      if (outcome.stop !== undefined) before.stop = outcome.stop;
      return before;
    },
    async afterTool(call, args, result) {
      const outcome = told(
        'PostToolUse',
        await hooks.run(
          'PostToolUse',
          hookToolNames(call.name),
          {
            tool_name: hookToolName(call.name),
            tool_input: hookToolInput(call.name, args, root),
            tool_response: { output: result.output, success: !result.isError },
            tool_use_id: call.id,
          },
          hookScope(call.id, call.name),
        ),
      );
      const context = [outcome.block, outcome.additionalContext]
        .filter((text) => text !== undefined)
        .join('\n');
      return {
        ...(context === '' ? {} : { context }),
        ...(outcome.stop === undefined ? {} : { stop: outcome.stop }),
      };
    },
    async stop(stopHookActive) {
      const event = scope.subAgent ? 'SubagentStop' : 'Stop';
      const outcome = told(
        event,
        await hooks.run(
          event,
          undefined,
          { stop_hook_active: stopHookActive, ...(scope.subAgent ? { agent_id: scope.agentId } : {}) },
          {
            sessionId: scope.sessionId,
            transcriptPath: scope.transcriptPath,
            permissionMode: scope.permissionMode(),
            signal: scope.signal,
          },
        ),
      );
      return outcome.stop === undefined ? outcome.block : undefined;
    },
  };
}
