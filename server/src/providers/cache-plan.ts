/**
 * Where a request's prompt-cache breakpoints go. Requests of one agent extend each other byte for
 * byte (the agent loop only appends), so a provider's cache can serve each one's prefix to the next;
 * a breakpoint marks a prefix worth keeping. The wire files apply the plan in their own terms:
 * anthropic.ts as `cache_control`, openai.ts and openai-responses.ts as `prompt_cache_breakpoint`
 * and `prompt_cache_key`.
 *
 * Anthropic (at most 4 breakpoints, each read back at most 20 blocks):
 * 1. the last tool: the tools alone, for when the system prompt changes and they do not;
 * 2. the system prompt: tools and system, the same for every request of a role;
 * 3. the anchor: where the agent's previous request ended (the last user message before its last
 *    answer), read exactly however many blocks were added since; on a sub-agent's first call, the
 *    end of the history it shares with its siblings instead, so the next sibling reads it;
 * 4. the end of the conversation, written for the next request: the request-level `cache_control`
 *    where the API takes it (`autoCacheControl`), else on the last block.
 *
 * OpenAI caches every prefix by itself, at the end of the conversation; `prompt_cache_key` keeps
 * one line of requests on the machines that hold it. From gpt-5.6 on a prefix is only matched at a
 * breakpoint, so the system prompt and the history siblings share are marked as well (assistant
 * messages cannot carry one).
 */
import { createHash } from 'node:crypto';

/** The breakpoints of an Anthropic request. */
export interface AnthropicCachePlan {
  /** On the last tool. */
  tools: boolean;
  /** On the system prompt. */
  system: boolean;
  /** Wire messages whose last block carries a breakpoint, in order. */
  messages: number[];
  /** The request-level `cache_control`: the API marks the last block. */
  auto: boolean;
}

export const NO_ANTHROPIC_CACHE: AnthropicCachePlan = {
  tools: false,
  system: false,
  messages: [],
  auto: false,
};

/**
 * The Anthropic plan for a request with `toolCount` tools and wire messages of `roles`;
 * `sharedPrefix` counts the leading wire messages other agents share.
 */
export function planAnthropicCache(options: {
  promptCaching: boolean;
  autoCacheControl: boolean;
  toolCount: number;
  roles: readonly string[];
  sharedPrefix?: number;
}): AnthropicCachePlan {
  if (!options.promptCaching) return NO_ANTHROPIC_CACHE;
  const last = options.roles.length - 1;
  const anchor = anchorIndex(options.roles, options.sharedPrefix);
  const messages = anchor !== undefined && anchor < last ? [anchor] : [];
  if (last >= 0 && !options.autoCacheControl) messages.push(last);
  return {
    tools: options.toolCount > 0,
    system: true,
    messages,
    auto: last >= 0 && options.autoCacheControl,
  };
}

/**
 * The message a request's anchor breakpoint goes on: the end of the history shared with siblings
 * while the agent has not answered yet, else the end of its previous request (the last user
 * message before its last answer). Undefined when there is neither.
 */
export function anchorIndex(roles: readonly string[], sharedPrefix?: number): number | undefined {
  const lastAnswer = roles.lastIndexOf('assistant');
  if (
    sharedPrefix !== undefined &&
    sharedPrefix > 0 &&
    sharedPrefix <= roles.length &&
    lastAnswer < sharedPrefix
  )
    return sharedPrefix - 1;
  for (let index = lastAnswer - 1; index >= 0; index--) if (roles[index] === 'user') return index;
  return undefined;
}

/**
 * The last message at or before `end` that can carry an OpenAI breakpoint (`markable`: a user,
 * tool or system message — never an assistant's), or undefined.
 */
export function lastMarkable(markable: readonly boolean[], end: number): number | undefined {
  for (let index = Math.min(end, markable.length - 1); index >= 0; index--) if (markable[index]) return index;
  return undefined;
}

/** OpenAI's breakpoint on a content part (gpt-5.6 and later). */
export const OPENAI_BREAKPOINT = { mode: 'explicit' as const };

/**
 * OpenAI's `prompt_cache_key` for a session's agents of one role: the same for every request they
 * make (siblings included, whose shared prefix then stays on one machine), different across
 * sessions, stable across a resume. Hashed: nothing of the session id leaves as it is.
 */
export function promptCacheKey(sessionId: string, role: string): string {
  const hash = createHash('sha256').update(sessionId).update('\0').update(role).digest('base64url');
  return `santra-${hash.slice(0, 32)}`;
}
