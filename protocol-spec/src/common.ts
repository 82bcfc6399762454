import * as z from 'zod';
import { named } from './registry.ts';

/** A JSON-RPC request id. Santra peers use integers; strings are accepted as JSON-RPC allows. */
export const RequestId = named(
  'RequestId',
  'A JSON-RPC request id: an integer or a string. `null` is never a valid request id.',
  z.union([z.number().int(), z.string()]),
);
export type RequestId = z.infer<typeof RequestId>;

/** Parameters of a method that takes none: the field may be omitted or be an empty object. */
export const noParams = () => z.object({}).optional();

/** An absolute file-system path (POSIX `/…`, or a Windows drive or UNC path). */
export const AbsolutePath = z
  .string()
  .regex(/^(\/|[A-Za-z]:[\\/]|\\\\)/, 'expected an absolute path (starting with / or a drive letter)');

/** Token counts of one run or one session. */
export const Usage = named(
  'Usage',
  'Token counts reported by the provider (or estimated at 6 characters per token where it reports none).',
  z.object({
    inputTokens: z.number().int().nonnegative().describe('Prompt tokens billed at the full rate.'),
    outputTokens: z.number().int().nonnegative().describe('Generated tokens, thinking included.'),
    cacheReadTokens: z.number().int().nonnegative().describe('Prompt tokens read from the provider cache.'),
    cacheWriteTokens: z.number().int().nonnegative().describe('Prompt tokens written to the provider cache.'),
    reasoningTokens: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe(
        'Of `outputTokens`, those the model spent thinking, where the provider reports them (OpenAI). Since 0.3.0.',
      ),
    estimated: z
      .boolean()
      .optional()
      .describe('True when any count above was estimated rather than reported.'),
  }),
);
export type Usage = z.infer<typeof Usage>;

/** A spending limit in force and what has been spent against it (§7.6). */
export const BudgetStatus = named(
  'BudgetStatus',
  "A spending limit in force and what has been spent against it (§7.6): the run's (`maxBudgetUsd` of the prompt, or the server's per-run setting) or the session's. Since 0.3.0.",
  z.object({
    scope: z
      .enum(['run', 'session'])
      .describe("Whose limit: this run's, or the session's (every run and compaction of it)."),
    limitUsd: z.number().positive().describe('The limit, in US dollars.'),
    spentUsd: z.number().nonnegative().describe('Spent against it so far, in US dollars, unrounded.'),
  }),
);
export type BudgetStatus = z.infer<typeof BudgetStatus>;

/**
 * The share of a prompt read from the provider's cache: cache reads over all input tokens. A
 * fraction from 0 to 1.
 */
export const CacheHitRatio = z
  .number()
  .min(0)
  .max(1)
  .describe(
    "The share of the input tokens read from the provider's prompt cache: `cacheReadTokens` over `inputTokens + cacheReadTokens + cacheWriteTokens`, from 0 to 1; absent when nothing was sent. Since 0.3.0.",
  );
