/**
 * The agent loop (ReAct): send the history and the tool definitions, stream the answer, execute
 * the tool calls, append their results, and repeat until the model stops calling tools or calls
 * `task_completed`, or a limit is hit. Every failure ends as data — an error event and a run
 * status — never as an exception.
 */
import type { AnswerStop, RunStatus, Usage } from '#protocol';
import * as z from 'zod';
import type { AssistantBlock, ChatMessage, ToolCallBlock, ToolResultBlock } from '../providers/messages.ts';
import {
  addUsage,
  EMPTY_USAGE,
  type ModelRequest,
  type ProviderFailure,
  type StopReason,
  type ToolDefinition,
} from '../providers/stream.ts';
import type { Tool } from '../tools/types.ts';
import type { AgentOutcome, AgentRun } from './agent-run.ts';
import type { FallbackChain, ModelChoice } from './fallback.ts';
import { RunToolCalls } from './tool-call-ids.ts';
import { executeCalls } from './tool-execution.ts';
import { ToolInputProgress } from './tool-input-progress.ts';

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
