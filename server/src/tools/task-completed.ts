import * as z from 'zod';
import { defineTool } from './types.ts';

/** `task_completed {result}`: the agent is done; `result` becomes its output. */
export function taskCompletedTool() {
  return defineTool({
    name: 'task_completed',
    kind: 'agent',
    description:
      'Call when the task is finished. `result` is your final answer to the user (or to the agent that delegated the task): what you did, what you found, and anything left to do.',
    parameters: z.object({ result: z.string().describe('The final answer.') }),
    execute(args) {
      return Promise.resolve({
        output: 'Task marked as completed.',
        summary: 'completed',
        final: args.result,
      });
    },
  });
}
