/**
 * A scripted turn normalised into what every wire encoder needs: the exact deltas, the tool calls'
 * argument pieces, the resolved usage and stop reason. Encoders only choose the vocabulary.
 */
import type { FakeTurn, RecordedRequest } from './types.ts';

export interface PlannedToolCall {
  /** `null`: the call is sent without an id. */
  id: string | null;
  name: string;
  /** The whole argument text, as the model would send it. */
  argsText: string;
  /** `argsText` cut into the deltas to send; they join back to `argsText`. */
  argsChunks: string[];
}

export interface TurnPlan {
  /** `msg_fake_N` / `chatcmpl-fake-N` / `resp_fake_N` style ordinal, unique per provider. */
  ordinal: number;
  /** The model the request named, echoed back as real APIs do. */
  model: string;
  thinking: string[];
  signature: string;
  /** Explicit text deltas; the generated tokens (see `generatedTokens`) follow them. */
  text: string[];
  generatedTokens: number;
  toolCalls: PlannedToolCall[];
  toolCallWire: 'openai' | 'repeat_header' | 'no_index';
  usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number };
  /** Whether the client asked for cache write counts to be reported (they were scripted). */
  reportsCacheWrite: boolean;
  stopReason: 'end_turn' | 'tool_use' | 'max_tokens';
  omitUsage: boolean;
}

/** A stream event on the wire, with whether it is a generated token that `tokensPerSecond` paces. */
export interface WireEvent {
  data: string;
  paced: boolean;
}

export const FAKE_SIGNATURE = 'ZmFrZS1wcm92aWRlci1zaWduYXR1cmU=';

/** Splits `text` into `count` pieces of nearly equal length without cutting a surrogate pair. */
export function splitIntoChunks(text: string, count: number): string[] {
  const chars = Array.from(text);
  const pieces = Math.max(1, Math.min(Math.floor(count), chars.length));
  const size = Math.ceil(chars.length / pieces);
  const chunks: string[] = [];
  for (let start = 0; start < chars.length; start += size)
    chunks.push(chars.slice(start, start + size).join(''));
  return chunks.length > 0 ? chunks : [''];
}

/** The n-th generated token (1-based), e.g. `tok7 `. */
export function generatedToken(n: number): string {
  return `tok${n} `;
}

/** The full text of a plan, generated tokens included (for non-streaming answers). */
export function fullText(plan: TurnPlan): string {
  let text = plan.text.join('');
  for (let n = 1; n <= plan.generatedTokens; n++) text += generatedToken(n);
  return text;
}

function chunksOf(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return typeof value === 'string' ? splitIntoChunks(value, Math.max(1, Math.ceil(value.length / 8))) : value;
}

function isRaw(args: unknown): args is { raw: string } {
  return typeof args === 'object' && args !== null && typeof (args as { raw?: unknown }).raw === 'string';
}

/** A rough token estimate, good enough for defaults that no test should depend on. */
function estimateTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

/** The share of the output tokens reported as reasoning: half of them when the turn thought. */
export function reasoningTokens(plan: TurnPlan): number {
  return plan.thinking.length > 0 ? Math.ceil(plan.usage.outputTokens / 2) : 0;
}

/** Builds the plan for serving `turn` to `request` as the `ordinal`-th answer of a provider. */
export function planTurn(
  turn: FakeTurn,
  request: RecordedRequest,
  ordinal: number,
  toolIdPrefix: string,
): TurnPlan {
  const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<
    string,
    unknown
  >;
  const thinking = chunksOf(turn.thinking);
  const text = chunksOf(turn.text);
  const toolCalls = (turn.toolCalls ?? []).map((call, index): PlannedToolCall => {
    const argsText = isRaw(call.args) ? call.args.raw : JSON.stringify(call.args ?? {});
    return {
      id: call.id === undefined ? `${toolIdPrefix}${ordinal}_${index + 1}` : call.id,
      name: call.name,
      argsText,
      argsChunks: splitIntoChunks(argsText, call.chunks ?? 3),
    };
  });
  const generatedTokens = Math.max(0, Math.floor(turn.generate?.tokens ?? 0));
  const outputChars =
    thinking.join('').length +
    text.join('').length +
    toolCalls.reduce((sum, c) => sum + c.argsText.length, 0);
  const usage = turn.usage ?? {};
  return {
    ordinal,
    model: typeof body.model === 'string' ? body.model : 'fake-model',
    thinking,
    signature: turn.signature ?? FAKE_SIGNATURE,
    text,
    generatedTokens,
    toolCalls,
    toolCallWire: turn.toolCallWire ?? 'openai',
    usage: {
      inputTokens:
        usage.inputTokens ??
        Math.max(1, estimateTokens(JSON.stringify(body.messages ?? body.input ?? '').length)),
      outputTokens: usage.outputTokens ?? Math.max(1, generatedTokens + estimateTokens(outputChars)),
      cacheReadTokens: usage.cacheReadTokens ?? 0,
      cacheWriteTokens: usage.cacheWriteTokens ?? 0,
    },
    reportsCacheWrite: usage.cacheWriteTokens !== undefined,
    stopReason: turn.stopReason ?? (toolCalls.length > 0 ? 'tool_use' : 'end_turn'),
    omitUsage: turn.omitUsage ?? false,
  };
}
