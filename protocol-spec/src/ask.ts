import * as z from 'zod';
import { named } from './registry.ts';

export const AskOption = named(
  'AskOption',
  'A choice offered to the user.',
  z.object({
    label: z.string().describe('What the user sees.'),
    value: z.string().describe('What is returned as `answer` when chosen.'),
  }),
);

/** §ask: the server asks the user a question on behalf of an agent. */
export const AskParams = named(
  'AskParams',
  'Params of `ask`.',
  z.object({
    sessionId: z.string().describe('The session of the run that asks (since 0.2.0).'),
    runId: z.string(),
    agentId: z.string(),
    toolCallId: z
      .string()
      .describe('The `ask_user` tool call this question answers (since 0.2.0), as in its `tool_call` phase.'),
    prompt: z.string().describe('The question.'),
    header: z.string().optional().describe('A short title shown above the question.'),
    options: z
      .array(AskOption)
      .optional()
      .describe('Choices. Clients SHOULD still allow a free-text answer.'),
    secret: z.boolean().optional().describe('Do not echo or record the answer (e.g. an API key).'),
  }),
);
export type AskParams = z.infer<typeof AskParams>;

export const AskResult = named(
  'AskResult',
  'Result of `ask`: the chosen option value or the typed text.',
  z.object({ answer: z.string() }),
);
export type AskResult = z.infer<typeof AskResult>;
