import * as z from 'zod';
import { defineTool, toolError } from './types.ts';

/** `ask_user {prompt, header?, options?, secret?}`: a question to the user, answered through the client. */
export function askUserTool() {
  return defineTool({
    name: 'ask_user',
    kind: 'interact',
    description:
      'Ask the user a question when you cannot proceed without their decision or information (e.g. which of two approaches, a missing requirement). Offer options when the answer is a choice. Do not ask for things you can find out with your tools.',
    parameters: z.object({
      prompt: z.string().min(1).describe('The question, complete and self-contained.'),
      header: z.string().optional().describe('A short title shown above the question.'),
      options: z
        .array(z.object({ label: z.string().min(1), value: z.string().min(1) }))
        .optional()
        .describe('Choices; the answer is the chosen value, or free text.'),
      secret: z
        .boolean()
        .optional()
        .describe(
          'True for a password, token or key: the answer is typed hidden and never shown or saved; you read it only in this result.',
        ),
    }),
    async execute(args, context) {
      try {
        const answer = await context.ask({
          prompt: args.prompt,
          ...(args.header === undefined ? {} : { header: args.header }),
          ...(args.options === undefined ? {} : { options: args.options }),
          ...(args.secret === true ? { secret: true } : {}),
        });
        return {
          output: `The user answered: ${answer}`,
          summary:
            args.secret === true
              ? 'answered (secret)'
              : `answered: ${answer.length > 40 ? `${answer.slice(0, 40)}…` : answer}`,
        };
      } catch (error) {
        return toolError(
          'no_answer',
          `The question could not be asked or was not answered: ${error instanceof Error ? error.message : String(error)}. Proceed on your best judgement and say what you assumed.`,
        );
      }
    },
  });
}
