/** Token counts added up, as the clients total a session's or a job's runs. */
import type { Usage } from '#protocol';

export const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

/** `total` and `more` added; either may be missing (nothing counted yet, a run without usage). */
export function addUsage(total: Usage | undefined, more: Usage | undefined): Usage {
  if (more === undefined) return total ?? ZERO_USAGE;
  if (total === undefined) return more;
  return {
    inputTokens: total.inputTokens + more.inputTokens,
    outputTokens: total.outputTokens + more.outputTokens,
    cacheReadTokens: total.cacheReadTokens + more.cacheReadTokens,
    cacheWriteTokens: total.cacheWriteTokens + more.cacheWriteTokens,
    ...(total.reasoningTokens === undefined && more.reasoningTokens === undefined
      ? {}
      : { reasoningTokens: (total.reasoningTokens ?? 0) + (more.reasoningTokens ?? 0) }),
    ...(total.estimated === true || more.estimated === true ? { estimated: true } : {}),
  };
}
