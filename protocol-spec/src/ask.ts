import * as z from 'zod';
import { BudgetStatus } from './common.ts';
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
      .describe(
        "The `ask_user` tool call this question answers (since 0.2.0), as in its `tool_call` phase; for a question of the server's own (`budget`, since 0.3.0), an id of its own that no `tool_call` phase carries.",
      ),
    prompt: z.string().describe('The question.'),
    header: z.string().optional().describe('A short title shown above the question.'),
    options: z
      .array(AskOption)
      .optional()
      .describe('Choices. Clients SHOULD still allow a free-text answer.'),
    secret: z.boolean().optional().describe('Do not echo or record the answer (e.g. an API key).'),
    budget: BudgetStatus.extend({
      neededUsd: z
        .number()
        .positive()
        .describe('The worst case of the model call the budget cannot pay, in US dollars.'),
    })
      .optional()
      .describe(
        'Present when the server asks whether to raise a spent budget (§7.6): the budget, and what the next model call may cost. The options are a higher limit (`value`: the amount in US dollars, e.g. "2.00") and `stop`; a free-text amount raises the limit to it; anything else stops the run. Since 0.3.0.',
      ),
    plan: z
      .string()
      .optional()
      .describe(
        'Present when an agent in plan mode presents its plan (§7.8, the `exit_plan_mode` tool): the plan, as Markdown, for the user to approve. The options are `default` (approve and continue, file changes asked), `acceptEdits` (approve and continue, file changes in the workspace allowed), `default_fresh` and `acceptEdits_fresh` (the same on a fresh context that holds only the task and the plan); any other answer sends the plan back to the agent as feedback, and it stays in plan mode. Since 0.3.0.',
      ),
  }),
);
export type AskParams = z.infer<typeof AskParams>;

export const AskResult = named(
  'AskResult',
  'Result of `ask`: the chosen option value or the typed text.',
  z.object({ answer: z.string() }),
);
export type AskResult = z.infer<typeof AskResult>;
