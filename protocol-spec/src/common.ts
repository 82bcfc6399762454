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
