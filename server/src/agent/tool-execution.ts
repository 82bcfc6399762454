/**
 * The tool calls of one model response, as the agent loop runs them (loop.ts): each checked (its
 * arguments, a call made twice, plan mode), passed through the user's PreToolUse and PostToolUse
 * hooks, executed in the context the run builds for it, and shown as `tool_call` and `tool_result`
 * events. Reads run together; everything else one after another, in the order the model made them.
 * A failure is a result the model reads, never an exception.
 */
import { modeRefusal } from '../approval/permission-mode.ts';
import type { ToolCallBlock, ToolResultBlock } from '../providers/messages.ts';
import { PARALLEL_KINDS, type Tool, type ToolResult, UNLISTED_KINDS } from '../tools/types.ts';
import type { AgentRun } from './agent-run.ts';
import { type CallKey, callKey, type RunToolCalls } from './tool-call-ids.ts';

/**
 * Runs a response's calls and returns their results in the order they were made. A run of
 * consecutive calls whose tools only read (PARALLEL_KINDS) runs at once; anything else — an edit,
 * a command, a question, an agent — runs alone, in order, so writes never overlap each other or a
 * read the model placed after them.
 */
export async function executeCalls(
  run: AgentRun,
  calls: ToolCallBlock[],
  turn: number,
  toolCalls: RunToolCalls,
): Promise<{ results: ToolResultBlock[]; final?: string; finalIndex?: number; stoppedByHook?: true }> {
  const outcomes: ToolResult[] = [];
  const one = (call: ToolCallBlock, index: number): Promise<ToolResult> =>
    index >= run.limits.maxToolCallsPerResponse
      ? Promise.resolve(
          refused(
            `Not executed: at most ${run.limits.maxToolCallsPerResponse} tool calls are run per response. Make the remaining calls in your next response.`,
            'too_many_calls',
          ),
        )
      : executeCall(run, call, callKey(run.callScope ?? run.agentId, turn, index), toolCalls);
  const parallel = (index: number) => {
    const call = calls[index];
    const kind = run.tools.find((tool) => tool.name === call?.name)?.kind;
    return index < run.limits.maxToolCallsPerResponse && kind !== undefined && PARALLEL_KINDS.has(kind);
  };
  for (let index = 0; index < calls.length;) {
    let end = index + 1;
    if (parallel(index)) while (end < calls.length && parallel(end)) end++;
    const batch = calls.slice(index, end);
    outcomes.push(...(await Promise.all(batch.map((call, offset) => one(call, index + offset)))));
    index = end;
  }
  let final: string | undefined;
  let finalIndex: number | undefined;
  let stoppedByHook = false;
  const results = calls.map((call, index): ToolResultBlock => {
    const result = outcomes[index] as ToolResult;
    if (result.final !== undefined) {
      final = result.final;
      finalIndex = index;
      stoppedByHook ||= result.errorType === 'hook_stopped';
    }
    return {
      type: 'tool_result',
      toolCallId: call.id,
      toolName: call.name,
      output: result.output,
      isError: result.isError === true,
    };
  });
  if (final === undefined) return { results };
  return {
    results,
    final,
    ...(finalIndex === undefined ? {} : { finalIndex }),
    ...(stoppedByHook ? { stoppedByHook: true as const } : {}),
  };
}

function refused(output: string, errorType: string): ToolResult {
  return { output, summary: errorType.replaceAll('_', ' '), isError: true, errorType };
}

async function executeCall(
  run: AgentRun,
  call: ToolCallBlock,
  key: CallKey,
  toolCalls: RunToolCalls,
): Promise<ToolResult> {
  const tool = run.tools.find((candidate) => candidate.name === call.name);
  const summary = `${call.name} ${summarizeArgs(call.args)}`.trim();
  const listed = tool === undefined || !UNLISTED_KINDS.has(tool.kind);
  if (listed)
    run.emit({
      type: 'tool_call',
      toolCallId: call.id,
      toolName: call.name,
      ...(tool === undefined ? {} : { kind: tool.kind }),
      args: call.args,
      summary,
    });
  const result = await resultOf(run, tool, call, key, toolCalls);
  if (listed) {
    run.emit({
      type: 'tool_result',
      toolCallId: call.id,
      toolName: call.name,
      status: run.signal.aborted
        ? 'cancelled'
        : result.rejected
          ? 'rejected'
          : result.isError
            ? 'error'
            : 'ok',
      summary: result.summary,
      output: result.output,
    });
  }
  return result;
}

async function resultOf(
  run: AgentRun,
  tool: Tool | undefined,
  call: ToolCallBlock,
  key: CallKey,
  toolCalls: RunToolCalls,
): Promise<ToolResult> {
  // A call after one that saw the run cancelled (a question, an approval) never starts.
  if (run.signal.aborted)
    return refused('Not run: the run was cancelled before this call started.', 'cancelled');
  if (call.argsError !== undefined) return refused(call.argsError, 'invalid_arguments');
  if (tool === undefined) {
    return refused(
      `Unknown tool "${call.name}". Available tools: ${run.tools.map((t) => t.name).join(', ')}.`,
      'unknown_tool',
    );
  }
  const parsed = tool.parameters.safeParse(call.args);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(arguments)'}: ${issue.message}`,
    );
    return refused(
      `Invalid arguments for ${tool.name}: ${problems.join('; ')}. Call it again with corrected arguments.`,
      'invalid_arguments',
    );
  }
  if (!toolCalls.claim(key))
    return refused(`Not executed again: tool call ${call.id} has already run.`, 'duplicate_call');
  // Plan mode is the session's, read at each call: no agent of the run can step around it.
  const modeRefused = modeRefusal(run.approvals.mode, tool);
  if (modeRefused !== undefined) return refused(modeRefused, 'plan_mode');
  // The one place every tool call of every agent passes: the user's PreToolUse hooks here.
  let args = parsed.data;
  const before = run.hooks === undefined ? undefined : await run.hooks.beforeTool(call, args);
  if (before?.deny !== undefined) return refused(before.deny, 'hook_denied');
  if (before?.args !== undefined) {
    const again = tool.parameters.safeParse(before.args);
    if (!again.success)
      return refused(
        `A PreToolUse hook changed the input of ${tool.name} into invalid arguments (${again.error.issues.map((issue) => `${issue.path.join('.') || '(arguments)'}: ${issue.message}`).join('; ')}); the call was not run.`,
        'hook_invalid_input',
      );
    args = again.data;
  }
  if (run.signal.aborted)
    return refused('Not run: the run was cancelled before this call started.', 'cancelled');
  let result: ToolResult;
  try {
    const context = run.toolContext({
      sessionId: run.sessionId,
      runId: run.runId,
      agentId: run.agentId,
      call,
      signal: run.signal,
      approvals: run.approvals,
      emit: (event) => run.emit(event),
      ...(run.agents === undefined ? {} : { agents: run.agents }),
      ...(run.recorder === undefined ? {} : { recorder: run.recorder }),
      ...(before?.decision === undefined ? {} : { hookDecision: before.decision }),
    });
    result = await tool.execute(args, context);
  } catch (error) {
    result = refused(
      `The tool failed: ${error instanceof Error ? error.message : String(error)}`,
      'tool_failure',
    );
  }
  return withHooksAfter(run, call, args, result, before);
}

/** The call's result with what the hooks add: PreToolUse's context, PostToolUse's, a stop. */
async function withHooksAfter(
  run: AgentRun,
  call: ToolCallBlock,
  args: Record<string, unknown>,
  result: ToolResult,
  before: { context?: string; stop?: string } | undefined,
): Promise<ToolResult> {
  if (run.hooks === undefined) return result;
  const after = run.signal.aborted
    ? {}
    : await run.hooks.afterTool(call, args, { output: result.output, isError: result.isError === true });
  const notes = [before?.context, after.context].filter((text) => text !== undefined);
  const output =
    notes.length === 0
      ? result.output
      : `${result.output}\n\n${notes.map((note) => `Hook: ${note}`).join('\n')}`;
  const stop = before?.stop ?? after.stop;
  // `continue: false`: the agent ends here, its answer the hook's reason.
  return stop === undefined
    ? { ...result, output }
    : { ...result, output, final: stop, errorType: result.errorType ?? 'hook_stopped' };
}

function summarizeArgs(args: Record<string, unknown>): string {
  const first = Object.values(args).find((value) => typeof value === 'string');
  if (typeof first !== 'string') return '';
  const line = first.split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 60)}…` : line;
}
