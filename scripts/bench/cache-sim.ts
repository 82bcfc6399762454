/**
 * A simulation of Anthropic's prompt cache, run over request bodies as a fake provider recorded
 * them, to say what a real provider would have read from its cache and written to it. The rules
 * simulated (platform.claude.com's prompt-caching page):
 * - a request is a sequence of blocks — the tools, the system prompt's blocks, then every message's
 *   content blocks — and a cache entry is the prefix up to and including a block;
 * - entries are written at breakpoints only: the blocks carrying `cache_control`, and the last block
 *   when the request-level `cache_control` is set; a prefix under MIN_TOKENS is not cached;
 * - a breakpoint reads the longest cached prefix ending at it or at most LOOKBACK - 1 blocks before;
 *   the request reads the longest of its breakpoints' hits;
 * - tokens after the hit up to the last breakpoint are written; the rest is plain input;
 * - an entry lives TTL_MS after it was last written or read.
 * Tokens are estimated as characters / 4 of each block's JSON, markers removed.
 */
import { createHash } from 'node:crypto';

type Json = Record<string, unknown>;

export const MIN_TOKENS = 1_024;
export const LOOKBACK = 20;
export const TTL_MS = 5 * 60_000;

/** What one request would read, write and send uncached. */
export interface SimulatedUsage {
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

interface Block {
  /** Hash of the prefix ending with this block. */
  prefix: string;
  /** Tokens of the prefix ending with this block. */
  tokens: number;
  breakpoint: boolean;
}

const unmarked = (value: unknown): string =>
  JSON.stringify(value, (key, v: unknown) => (key === 'cache_control' ? undefined : v));

/** The blocks of an Anthropic request body, in the order the API reads them. */
export function blocksOf(body: Json): Block[] {
  const raw: Array<{ value: unknown; breakpoint: boolean }> = [];
  for (const tool of (body.tools ?? []) as Json[])
    raw.push({ value: tool, breakpoint: tool.cache_control !== undefined });
  for (const block of (body.system ?? []) as Json[])
    raw.push({ value: block, breakpoint: block.cache_control !== undefined });
  for (const message of (body.messages ?? []) as Json[]) {
    const content =
      typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : (message.content as Json[]);
    for (const block of content)
      raw.push({ value: { role: message.role, block }, breakpoint: block.cache_control !== undefined });
  }
  const last = raw.at(-1);
  if (body.cache_control !== undefined && last !== undefined) last.breakpoint = true;
  const blocks: Block[] = [];
  let hash = createHash('sha256').update(String(body.model));
  let tokens = 0;
  for (const { value, breakpoint } of raw) {
    const text = unmarked(value);
    hash = hash.copy().update('\0').update(text);
    tokens += Math.ceil(text.length / 4);
    blocks.push({ prefix: hash.copy().digest('hex'), tokens, breakpoint });
  }
  return blocks;
}

/** Anthropic's cache, fed requests in the order they were sent. */
export class AnthropicCacheSim {
  readonly #entries = new Map<string, number>();

  /** What `body`, sent at `atMs`, reads and writes; the cache then holds what it wrote. */
  send(body: Json, atMs: number): SimulatedUsage {
    const blocks = blocksOf(body);
    const total = blocks.at(-1)?.tokens ?? 0;
    const live = (prefix: string) => (this.#entries.get(prefix) ?? -Infinity) > atMs;
    let read = 0;
    let lastBreakpoint = 0;
    blocks.forEach((block, index) => {
      if (!block.breakpoint) return;
      lastBreakpoint = Math.max(lastBreakpoint, block.tokens);
      for (let back = index; back >= 0 && back > index - LOOKBACK; back--) {
        const candidate = blocks[back] as Block;
        if (live(candidate.prefix)) {
          read = Math.max(read, candidate.tokens);
          this.#entries.set(candidate.prefix, atMs + TTL_MS);
          break;
        }
      }
    });
    for (const block of blocks)
      if (block.breakpoint && block.tokens >= MIN_TOKENS) this.#entries.set(block.prefix, atMs + TTL_MS);
    const written = lastBreakpoint >= MIN_TOKENS ? Math.max(0, lastBreakpoint - read) : 0;
    return { cacheReadTokens: read, cacheWriteTokens: written, inputTokens: total - read - written };
  }
}

/** `body` as the planner before issue 25 sent it: breakpoints on the tools and the system prompt only. */
export function beforeThePlanner(body: Json): Json {
  const copy = structuredClone(body);
  delete copy.cache_control;
  for (const message of (copy.messages ?? []) as Json[])
    if (Array.isArray(message.content))
      for (const block of message.content as Json[]) delete block.cache_control;
  return copy;
}

/** Sums of simulated usage; the hit ratio is reads over every input token. */
export function total(usages: readonly SimulatedUsage[]): SimulatedUsage & { hitRatio: number } {
  const sum = usages.reduce(
    (acc, usage) => ({
      inputTokens: acc.inputTokens + usage.inputTokens,
      cacheReadTokens: acc.cacheReadTokens + usage.cacheReadTokens,
      cacheWriteTokens: acc.cacheWriteTokens + usage.cacheWriteTokens,
    }),
    { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
  );
  const all = sum.inputTokens + sum.cacheReadTokens + sum.cacheWriteTokens;
  return { ...sum, hitRatio: all === 0 ? 0 : sum.cacheReadTokens / all };
}
