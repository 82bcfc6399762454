import * as z from 'zod';
import { defineTool } from './types.ts';

/** `think {content}`: the model reasons out loud; the user sees it as a thinking phase, not a tool row. */
export function thinkTool() {
  return defineTool({
    name: 'think',
    kind: 'think',
    description:
      'Think step by step before acting: weigh options, plan the next steps, or check your work. The content is shown to the user as your reasoning; nothing else happens.',
    parameters: z.object({ content: z.string().min(1).describe('Your reasoning.') }),
    execute(args, context) {
      context.showThinking(args.content);
      return Promise.resolve({ output: 'Noted.', summary: 'thought' });
    },
  });
}
