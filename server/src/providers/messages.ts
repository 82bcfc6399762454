/**
 * The conversation as the agent loop keeps it: provider-neutral, converted to each wire API by
 * its provider file.
 */

export interface TextBlock {
  type: 'text';
  text: string;
}

/**
 * Model reasoning. `signature` (Anthropic's signature, or the OpenAI Responses API's
 * `encrypted_content`) must be sent back unchanged for multi-turn thinking.
 */
export interface ThinkingBlock {
  type: 'thinking';
  text: string;
  signature?: string;
  /** The OpenAI Responses API's id of the reasoning item (`rs_…`), sent back with it. */
  itemId?: string;
  /** Anthropic `redacted_thinking` data, sent back as is. */
  redactedData?: string;
  /**
   * What it was written under: the model, system prompt and tools (a key). Anthropic binds thinking
   * to its model and conversation and refuses it elsewhere, so it is sent back under the same only.
   */
  context?: string;
}

export interface ToolCallBlock {
  type: 'tool_call';
  id: string;
  name: string;
  /** The parsed arguments; `{}` when they could not be parsed (see `argsError`). */
  args: Record<string, unknown>;
  /** The raw argument text as the model wrote it. */
  argsText: string;
  /** Why the arguments cannot be used (invalid JSON, cut off mid-stream); the call is then not executed. */
  argsError?: string;
}

export interface ToolResultBlock {
  type: 'tool_result';
  toolCallId: string;
  toolName: string;
  output: string;
  isError: boolean;
}

export type AssistantBlock = TextBlock | ThinkingBlock | ToolCallBlock;
export type UserBlock = TextBlock | ToolResultBlock;

export type ChatMessage =
  { role: 'user'; content: UserBlock[] } | { role: 'assistant'; content: AssistantBlock[] };

export function userText(text: string): ChatMessage {
  return { role: 'user', content: [{ type: 'text', text }] };
}

const NOTE_OPEN = '<environment>\n';
const NOTE_CLOSE = '\n</environment>';

/**
 * A note on when and from where the user writes (agent/system-prompt.ts): a text block of its own
 * on a prompt's message. It says what cannot repeat (today's date), so a replay does not compare it.
 */
export function environmentNoteText(body: string): string {
  return `${NOTE_OPEN}${body}${NOTE_CLOSE}`;
}

/** Whether `text` is an environment note. */
export function isEnvironmentNote(text: string): boolean {
  return text.startsWith(NOTE_OPEN) && text.endsWith(NOTE_CLOSE);
}
