/**
 * Which tool-call ids each wire API takes back. The runtime keeps a provider's id where the API that
 * made it accepts it (agent/tool-call-ids.ts) — Kimi's `functions.add:0`, Mistral's nine
 * characters — because some models read meaning into their own ids. A conversation that moves to
 * an API with stricter rules (a session switched from Groq to Anthropic) has its ids rewritten
 * there, the same way for a call and its result.
 */
import { createHash } from 'node:crypto';
import type { WireApi } from './types.ts';

/**
 * Anthropic requires `^[a-zA-Z0-9_-]+$`; OpenAI caps ids at 40 characters, and compatible servers
 * send `.` and `:` (Kimi, Hugging Face's router) and take them back.
 */
export const TOOL_CALL_ID: Readonly<Record<WireApi, RegExp>> = {
  anthropic: /^[A-Za-z0-9_-]{1,40}$/,
  openai: /^[A-Za-z0-9_.:-]{1,40}$/,
  'openai-responses': /^[A-Za-z0-9_.:-]{1,40}$/,
};

/**
 * `id` as Anthropic takes it: unchanged when it is usable, otherwise its usable characters and a
 * short hash of the whole, so two ids that differ only in refused characters stay two ids.
 */
export function anthropicToolCallId(id: string): string {
  if (TOOL_CALL_ID.anthropic.test(id)) return id;
  const hash = createHash('sha256').update(id).digest('hex').slice(0, 8);
  return `${id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 30)}_${hash}`;
}
