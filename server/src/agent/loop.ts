/**
 * The agent loop (ReAct): send the history and the tool definitions, stream the answer, execute
 * the tool calls, append their results, and repeat until the model stops calling tools or calls
 * `task_completed`, or a limit is hit. Every failure ends as data — an error event and a run
 * status — never as an exception.
 */
import type { AnswerStop, RunStatus, Usage } from '#protocol';
import * as z from 'zod';
import {
  addUsage,
  type CacheHints,
  EMPTY_USAGE,
  type ModelRequest,
  type ProviderFailure,
  type StopReason,
  type StreamFn,
  type ToolDefinition,
} from '../providers/stream.ts';
import type { Effort, ModelSpec, ProviderEndpoint } from '../providers/types.ts';
import type { SessionApprovals } from '../approval/gate.ts';
import { modeRefusal } from '../approval/permission-mode.ts';
import type { AgentHooks } from '../hooks/agent-hooks.ts';
import {
  type AgentControl,
  PARALLEL_KINDS,
  type Tool,
  type ToolCallRecorder,
  type ToolContextSource,
  type ToolResult,
  UNLISTED_KINDS,
} from '../tools/types.ts';
import type { AgentInbox } from './background.ts';
import type { BudgetAccount } from './budget-ledger.ts';
import type { FallbackChain, ModelChoice } from './fallback.ts';
import type { AgentEvent } from './events.ts';
import type { AssistantBlock, ChatMessage, ToolCallBlock, ToolResultBlock } from '../providers/messages.ts';
import { type CallKey, callKey, RunToolCalls } from './tool-call-ids.ts';
import { ToolInputProgress } from './tool-input-progress.ts';

export interface AgentLimits {
  maxToolCallsPerResponse: number;
  maxTurns: number;
  maxOutputTokens: number;
  /** Extended thinking budget; 0 for none. */
  thinkingBudget: number;
  /** How hard adaptive-thinking models work; unset: their default. */
  effort?: Effort;
}

export interface AgentRun {
  agentId: string;
  sessionId: string;
  runId: string;
  /** Builds the context a tool call runs in (workspace, approval gate, client questions…). */
  toolContext: ToolContextSource;
  /** What the user allowed for the session (allow-all). */
  approvals: SessionApprovals;
  /** The swarm's control of agents, for the agent tools; absent outside a swarm. */
  agents?: AgentControl;
  /** Where tool calls' approvals and questions are saved. */
  recorder?: ToolCallRecorder;
  endpoint: ProviderEndpoint;
  model: ModelSpec;
  system: string;
  /** The conversation so far, ending with the new user message. The loop appends to it. */
  messages: ChatMessage[];
  tools: readonly Tool[];
  stream: StreamFn;
  limits: AgentLimits;
  signal: AbortSignal;
  emit(event: AgentEvent): void;
  /** The run's tool calls (shared by the agents of a swarm): their ids, and which have run. */
  toolCalls?: RunToolCalls;
  /** Set by set_output and set_messages while the agent runs. */
  control?: { output?: string; messages?: ChatMessage[] };
  /** The agent's account in the run's spend ledger: each model call reserves its worst case first. */
  budget?: BudgetAccount;
  /** For the provider's prompt cache: the agent's line of requests, the history it shares. */
  cache?: CacheHints;
  /** The user's hooks around each tool call and at the agent's end (hooks/agent-hooks.ts). */
  hooks?: AgentHooks;
  /**
   * The run's model fallback chain (fallback.ts): each turn starts on the model it picks, and a
   * failed turn the user saw nothing of is made again on the next model. Absent: the model only.
   */
  fallback?: FallbackChain;
  /**
   * What reaches the agent between turns (background.ts): guidance sent while it works (a user
   * message before its next model call), and why it may not end yet (agents it started still
   * run), which sends it back to work like a Stop hook. Absent: nothing.
   */
  inbox?: AgentInbox;
  /**
   * Names this run's calls where the agent id does not tell them apart, for "a call runs at most
   * once" (tool-call-ids.ts): a resumed background agent's later runs. Default: the agent id.
   */
  callScope?: string;
}

export interface AgentOutcome {
  status: RunStatus;
  output: string;
  /** Why the model stopped its last answer; absent when the agent ended before one. */
  stopReason?: AnswerStop;
  usage: Usage;
  turns: number;
  /** Why the agent ended with an error of the run's own (a spent budget), for its parent to read. */
  failure?: string;
}

/** The key of the status lines about one model call (waiting, retrying): each replaces the last. */
const MODEL_CALL_KEY = 'model-call';

/** A tool's definition never changes; its zod schema is converted once. */
const definitionCache = new WeakMap<Tool, ToolDefinition>();

export function toolDefinitions(tools: readonly Tool[]): ToolDefinition[] {
  return tools.map((tool) => {
    let definition = definitionCache.get(tool);
    if (definition === undefined) {
      definition = {
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema ?? z.toJSONSchema(tool.parameters, { io: 'input' }),
      };
      definitionCache.set(tool, definition);
    }
    return definition;
  });
}

export async function runAgent(run: AgentRun): Promise<AgentOutcome> {
  const toolCalls = run.toolCalls ?? new RunToolCalls();
  toolCalls.reserveHistory(run.messages);
  // Asked again before each call: a tool found on demand (search_mcp_tools) is offered from then on.
  const definitions = () => toolDefinitions(run.tools.filter((tool) => tool.deferred?.() !== true));
  let usage = EMPTY_USAGE;
  /** A Stop hook already sent the agent back to work (Claude Code's `stop_hook_active`). */
  let stopHookActive = false;
  let current = run.fallback === undefined ? undefined : startingChoice(run, run.fallback);
  for (let turn = 1; turn <= run.limits.maxTurns; turn++) {
    if (run.signal.aborted) return finish(run, 'cancelled', '', usage, turn - 1);
    if (run.fallback !== undefined && current !== undefined) {
      const picked = run.fallback.pick();
      if (picked.ref !== current.ref) {
        run.emit({ type: 'status', level: 'warning', text: run.fallback.resumeNotice(current, picked) });
        current = useModel(run, picked);
      }
    }
    for (const text of run.inbox?.take() ?? []) append(run, userText(text));
    const inputMessages = run.messages.length;
    const result = await paidTurn(run, modelRequest(run, definitions(), turn), toolCalls);
    if ('refused' in result) {
      if (result.cancelled || run.signal.aborted) return finish(run, 'cancelled', '', usage, turn - 1);
      run.emit({ type: 'error', message: result.refused, code: 'budget', retryable: false });
      return finish(run, 'error', '', usage, turn - 1, undefined, result.refused);
    }
    usage = addUsage(usage, result.usage);
    run.emit({
      type: 'model_output',
      turn,
      inputMessages,
      ...(result.failure === undefined
        ? {
            content: result.content,
            stopReason: result.stopReason,
            ...(result.stopDetail === undefined ? {} : { stopDetail: result.stopDetail }),
            usage: result.usage,
          }
        : { failure: result.failure, text: result.shown }),
    });
    // A failed turn the user saw nothing of is made again on the next model of the chain.
    const fallback =
      result.failure !== undefined && result.shown === '' && current !== undefined && !run.signal.aborted
        ? run.fallback?.after(current, result.failure)
        : undefined;
    if (fallback !== undefined) {
      run.emit({ type: 'status', level: 'warning', text: fallback.notice });
      current = useModel(run, fallback.next);
      turn--;
      continue;
    }
    if (result.failure === undefined && current !== undefined) run.fallback?.succeeded(current);
    if (result.failure !== undefined) {
      if (result.shown !== '')
        append(run, { role: 'assistant', content: [{ type: 'text', text: result.shown }] });
      if (result.failure.kind === 'cancelled' || run.signal.aborted)
        return finish(run, 'cancelled', result.shown, usage, turn);
      run.emit({
        type: 'error',
        message: result.failure.message,
        code: result.failure.kind,
        provider: result.failure.provider,
        ...(result.failure.status === undefined ? {} : { httpStatus: result.failure.status }),
        retryable: result.failure.retryable,
      });
      return finish(run, result.shown === '' ? 'error' : 'interrupted', result.shown, usage, turn);
    }
    append(run, { role: 'assistant', content: result.content });
    const calls = result.content.filter((block): block is ToolCallBlock => block.type === 'tool_call');
    if (calls.length === 0) {
      // A Stop hook may send the agent back to work, with its reason as the next message.
      const goOn = result.stopReason === 'end_turn' ? await run.hooks?.stop(stopHookActive) : undefined;
      if (goOn !== undefined && !run.signal.aborted) {
        stopHookActive = true;
        append(run, { role: 'user', content: [{ type: 'text', text: `Stop hook feedback: ${goOn}` }] });
        continue;
      }
      const held = result.stopReason === 'end_turn' ? run.inbox?.holdFinish() : undefined;
      if (held !== undefined && !run.signal.aborted) {
        append(run, userText(held));
        continue;
      }
      const stop = answerStop(result.stopReason);
      const notice = stopNotice(stop, result.stopDetail, run, result.shown.trim() !== '');
      // The notice is for the people and agents who read the answer; the model's history keeps
      // what it wrote.
      if (notice !== '') run.emit({ type: 'text', text: notice });
      return finish(run, 'completed', result.shown + notice, usage, turn, stop);
    }
    const executed = await executeCalls(run, calls, turn, toolCalls);
    const { results } = executed;
    let { final } = executed;
    // An agent ending with a final answer (task_completed) passes its Stop hook too.
    const goOn =
      final !== undefined && executed.finalIndex !== undefined && !executed.stoppedByHook
        ? await run.hooks?.stop(stopHookActive)
        : undefined;
    if (goOn !== undefined && executed.finalIndex !== undefined) {
      stopHookActive = true;
      const ended = results[executed.finalIndex] as ToolResultBlock;
      results[executed.finalIndex] = {
        ...ended,
        output: `Not finished: a Stop hook sent you back to work: ${goOn}`,
        isError: true,
      };
      final = undefined;
    }
    const held =
      final !== undefined && executed.finalIndex !== undefined && !executed.stoppedByHook
        ? run.inbox?.holdFinish()
        : undefined;
    if (held !== undefined && executed.finalIndex !== undefined) {
      const ended = results[executed.finalIndex] as ToolResultBlock;
      results[executed.finalIndex] = { ...ended, output: held, isError: true };
      final = undefined;
    }
    append(run, { role: 'user', content: results });
    const replacement = run.control?.messages;
    if (replacement !== undefined && run.control !== undefined) {
      run.messages.splice(0, run.messages.length, ...replacement);
      run.control.messages = undefined;
      run.emit({ type: 'messages_replaced', messages: [...replacement] });
    }
    if (run.signal.aborted) return finish(run, 'cancelled', result.shown, usage, turn);
    if (final !== undefined) {
      // task_completed's result is the answer, whatever set_output said before.
      if (run.control !== undefined) run.control.output = undefined;
      return finish(run, 'completed', final, usage, turn, 'end_turn');
    }
  }
  run.emit({
    type: 'error',
    message: `Stopped after ${run.limits.maxTurns} model turns without finishing. The session keeps what was done: a next prompt in it can continue; or raise agent.maxTurnsPerRun in the config.`,
    code: 'max_turns',
    retryable: false,
  });
  return finish(run, 'error', '', usage, run.limits.maxTurns);
}

/** The chain's entry for the model the agent was started on (its first), or the chain's first. */
function startingChoice(run: AgentRun, chain: FallbackChain): ModelChoice {
  return (
    chain.choices.find(
      (choice) => choice.model.id === run.model.id && choice.endpoint.id === run.endpoint.id,
    ) ?? (chain.choices[0] as ModelChoice)
  );
}

/** Makes the agent's next calls on `choice`. */
function useModel(run: AgentRun, choice: ModelChoice): ModelChoice {
  run.model = choice.model;
  run.endpoint = choice.endpoint;
  return choice;
}

function userText(text: string): ChatMessage {
  return { role: 'user', content: [{ type: 'text', text }] };
}

/** Adds a message to the agent's conversation, and says so (the session saves the root agent's). */
function append(run: AgentRun, message: ChatMessage): void {
  run.messages.push(message);
  run.emit({ type: 'message', message });
}

function finish(
  run: AgentRun,
  status: RunStatus,
  text: string,
  usage: Usage,
  turns: number,
  stopReason?: AnswerStop,
  failure?: string,
): AgentOutcome {
  const output = run.control?.output ?? text;
  const stop = stopReason === undefined ? {} : { stopReason };
  run.emit({ type: 'complete', status, output, ...stop });
  return { status, output, usage, turns, ...stop, ...(failure === undefined ? {} : { failure }) };
}

/**
 * The agent's next model call: its conversation so far, its tools, its limits, and what the
 * provider's cache needs to know.
 */
function modelRequest(run: AgentRun, tools: ToolDefinition[], turn: number): ModelRequest {
  return {
    model: run.model,
    system: run.system,
    messages: run.messages,
    tools,
    // A provider that thinks out of max_tokens adds room for it (providers/request-size.ts).
    maxOutputTokens: Math.min(run.limits.maxOutputTokens, run.model.maxOutputTokens),
    ...(run.limits.thinkingBudget > 0 ? { thinkingBudget: run.limits.thinkingBudget } : {}),
    ...(run.limits.effort === undefined ? {} : { effort: run.limits.effort }),
    signal: run.signal,
    caller: { runId: run.runId, agentId: run.agentId, turn },
    ...(run.cache === undefined ? {} : { cache: run.cache }),
  };
}

/** How an answer without tool calls ended, in the protocol's terms. */
function answerStop(stopReason: StopReason): AnswerStop {
  return stopReason === 'max_tokens' || stopReason === 'refusal' ? stopReason : 'end_turn';
}

/**
 * The line that ends an answer the model did not finish: cut off at the output limit, or refused.
 * Empty for a finished one. After text (`answered`) it starts on a line of its own.
 */
function stopNotice(
  stop: AnswerStop,
  detail: string | undefined,
  run: Pick<AgentRun, 'limits' | 'model' | 'endpoint'>,
  answered: boolean,
): string {
  const because = detail === undefined ? '' : ` (${detail})`;
  const start = answered ? '\n\n' : '';
  switch (stop) {
    case 'end_turn':
      return '';
    case 'max_tokens': {
      const limit = Math.min(run.limits.maxOutputTokens, run.model.maxOutputTokens);
      const why =
        detail ?? `${run.model.id} reached its output limit of ${limit.toLocaleString('en-US')} tokens`;
      return answered
        ? `${start}[Answer cut off: ${why}. The answer above is incomplete; ask to continue, or raise agent.maxOutputTokens in the config.]`
        : `[Answer cut off: ${why} before it wrote any answer. Ask again with a smaller task, or raise agent.maxOutputTokens in the config.]`;
    }
    case 'refusal':
      return `${start}[${run.endpoint.name} declined to answer${because}. Rephrase the request, or try another model.]`;
    default: {
      const exhaustive: never = stop;
      throw new Error(`unknown stop ${String(exhaustive)}`);
    }
  }
}

/**
 * The usage of a turn that ended without the provider's count (cancelled, failed mid-stream):
 * estimated at 6 characters per token, as the protocol's Usage type says (§6.2). A turn that
 * streamed nothing counts as zero — the provider may never have accepted the request.
 */
function unreportedUsage(
  request: { system: string; messages: readonly ChatMessage[] },
  generated: number,
): Usage {
  if (generated === 0) return EMPTY_USAGE;
  return {
    inputTokens: Math.ceil((JSON.stringify(request.messages).length + request.system.length) / 6),
    outputTokens: Math.ceil(generated / 6),
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    estimated: true,
  };
}

interface TurnResult {
  content: AssistantBlock[];
  stopReason: StopReason;
  stopDetail?: string;
  /** The answer text as the user saw it (markup removed; kept in history when the turn fails). */
  shown: string;
  usage: Usage;
  failure?: ProviderFailure;
}

/**
 * One model turn paid from the agent's budget: its worst case reserved first (the request may come
 * back with a lower output cap), then streamed, then settled at what it cost, which a `usage` event
 * says. Refused when the budget cannot pay it. Without a budget, just the turn.
 */
async function paidTurn(
  run: AgentRun,
  request: ModelRequest,
  toolCalls: RunToolCalls,
): Promise<TurnResult | { refused: string; cancelled: boolean }> {
  const reservation = await run.budget?.reserve(request, run.signal);
  if (reservation?.ok === false) return { refused: reservation.message, cancelled: reservation.cancelled };
  let result: TurnResult | undefined;
  try {
    result = await streamTurn(run, reservation?.request ?? request, toolCalls);
    return result;
  } finally {
    const spend = reservation?.settle(result?.usage ?? EMPTY_USAGE);
    if (spend !== undefined) run.emit({ type: 'usage', spend });
  }
}

/** Streams one model turn, forwarding text, thinking and status as they arrive. */
async function streamTurn(
  run: AgentRun,
  request: ModelRequest,
  toolCalls: RunToolCalls,
): Promise<TurnResult> {
  run.emit({ type: 'turn_start' });
  let shown = '';
  /** Characters the model generated this turn (text, thinking, tool arguments). */
  let generated = 0;
  const progress = new ToolInputProgress((event) => run.emit(event));
  for await (const event of run.stream(run.endpoint, request)) {
    switch (event.type) {
      case 'text_delta':
        shown += event.text;
        generated += event.text.length;
        run.emit({ type: 'text', text: event.text });
        break;
      case 'thinking_delta':
        generated += event.text.length;
        run.emit({ type: 'thinking', text: event.text });
        break;
      case 'status':
        run.emit({ type: 'status', text: event.text });
        break;
      case 'tool_call_delta':
        generated += event.argsDelta.length;
        progress.add(event.id, event.name, event.argsDelta);
        break;
      case 'waiting':
        run.emit({
          type: 'status',
          level: 'warning',
          key: MODEL_CALL_KEY,
          text: `${run.endpoint.name} has not answered yet (${Math.round(event.elapsedMs / 1000)} s); waiting up to ${Math.round(event.limitMs / 1000)} s for a first response, then retrying.`,
        });
        break;
      case 'retrying':
        run.emit({
          type: 'status',
          level: 'warning',
          key: MODEL_CALL_KEY,
          // What happens next first: a client that shows one line cuts the end.
          text: `Retrying in ${Math.ceil(event.delayMs / 1000)} s (attempt ${event.attempt + 1} of ${event.maxAttempts}; giving up within ${formatDuration(event.giveUpWithinMs)} if it keeps failing) — ${sentence(event.failure.message)}`,
        });
        break;
      case 'error':
        return {
          content: [],
          stopReason: 'other',
          shown,
          usage: unreportedUsage(request, generated),
          failure: event.failure,
        };
      case 'done':
        // Ids are made unique before anything (phases, approvals, history) uses them.
        return {
          content: toolCalls.assign(event.content, run.model.api),
          stopReason: event.stopReason,
          ...(event.stopDetail === undefined ? {} : { stopDetail: event.stopDetail }),
          shown,
          usage: event.usage,
        };
      default: {
        const exhaustive: never = event;
        throw new Error(`unknown stream event ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  return {
    content: [],
    stopReason: 'other',
    shown,
    usage: unreportedUsage(request, generated),
    failure: {
      kind: 'incomplete',
      provider: run.endpoint.id,
      retryable: false,
      message: `${run.endpoint.name}: the stream ended without a result.`,
    },
  };
}

/**
 * Runs a response's calls and returns their results in the order they were made. A run of
 * consecutive calls whose tools only read (PARALLEL_KINDS) runs at once; anything else — an edit,
 * a command, a question, an agent — runs alone, in order, so writes never overlap each other or a
 * read the model placed after them.
 */
async function executeCalls(
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

/** 75_000 → "1 min 15 s". */
function formatDuration(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const rest = seconds % 60;
  return `${Math.floor(seconds / 60)} min${rest === 0 ? '' : ` ${rest} s`}`;
}

/** `text` ending as a sentence does, so what follows it does not run on (a provider's message may lack the stop). */
function sentence(text: string): string {
  return /[.!?)]$/.test(text.trimEnd()) ? text : `${text.trimEnd()}.`;
}
