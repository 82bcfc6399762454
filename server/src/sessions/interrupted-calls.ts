/**
 * Tool calls a run started but never saw end. A server killed mid-call (kill -9, a worker of the
 * fleet losing its machine) leaves the model's answer with its tool calls in the session and no
 * results after it. Every wire API refuses such a conversation, and running the calls again is
 * worse: a command may already have done its work. So the fold pairs each such call with a result
 * that says what is known — it started, its end was not seen — and the model decides, reading the
 * workspace, whether to do it again. Nothing here runs a tool.
 */
import type { ChatMessage, ToolResultBlock } from '../providers/messages.ts';

/** What the model reads in place of the result of a call whose end was never saved. */
export const INTERRUPTED_CALL_OUTPUT =
  'Interrupted: the process running this call stopped (it was killed or its machine went away) before its result was saved. The call was not run again. It may or may not have taken effect: check its effect (read the file, look at the state) before doing it again.';

/** The error type of such a result, as tool results carry one. */
export const INTERRUPTED_CALL_ERROR = 'interrupted';

/**
 * The conversation with a result for every tool call that has none: in the user message that
 * follows the call's answer when it holds tool results, else in a new user message right after
 * it. Always a new array, so the caller may append to it.
 */
export function pairInterruptedCalls(messages: readonly ChatMessage[]): ChatMessage[] {
  let paired: ChatMessage[] | undefined;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as ChatMessage;
    if (message.role !== 'assistant') continue;
    const calls = message.content.filter((block) => block.type === 'tool_call');
    if (calls.length === 0) continue;
    const next = messages[index + 1];
    const answered = new Set(
      next?.role === 'user'
        ? next.content.flatMap((block) => (block.type === 'tool_result' ? [block.toolCallId] : []))
        : [],
    );
    const missing = calls.filter((call) => !answered.has(call.id));
    if (missing.length === 0) continue;
    paired ??= [...messages];
    const results = missing.map((call): ToolResultBlock => ({
      type: 'tool_result',
      toolCallId: call.id,
      toolName: call.name,
      output: INTERRUPTED_CALL_OUTPUT,
      isError: true,
    }));
    // Positions in `paired` run ahead of `messages` by the messages inserted so far.
    const at = paired.indexOf(message);
    const following = paired[at + 1];
    if (following?.role === 'user' && following.content.some((block) => block.type === 'tool_result'))
      paired[at + 1] = { role: 'user', content: [...results, ...following.content] };
    else paired.splice(at + 1, 0, { role: 'user', content: results });
  }
  return paired ?? [...messages];
}
