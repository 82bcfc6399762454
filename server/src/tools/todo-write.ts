import * as z from 'zod';
import { defineTool } from './types.ts';

const Todo = z.object({
  content: z.string().min(1).describe('What to do, as a short imperative line.'),
  status: z.enum(['pending', 'in_progress', 'completed']),
});

/**
 * `todo_write {todos}`: the agent's plan as a checklist. Each call replaces the list; the client
 * sees it as a status line (done/total and the item in progress) and the model reads it back.
 */
export function todoWriteTool() {
  return defineTool({
    name: 'todo_write',
    kind: 'interact',
    description:
      'Keep a checklist for tasks with three or more steps: send the whole list each time (it replaces the previous one), with exactly one item in_progress while you work and items marked completed as soon as they are done.',
    parameters: z.object({ todos: z.array(Todo).max(50).describe('The whole list, in order.') }),
    execute(args, context) {
      const done = args.todos.filter((todo) => todo.status === 'completed').length;
      const current = args.todos.find((todo) => todo.status === 'in_progress');
      const mark = { pending: '[ ]', in_progress: '[~]', completed: '[x]' } as const;
      const list = args.todos.map((todo) => `${mark[todo.status]} ${todo.content}`).join('\n');
      context.showStatus(
        `Plan ${done}/${args.todos.length} done${current === undefined ? '' : ` · ${current.content}`}`,
      );
      return Promise.resolve({
        output: `Checklist saved:\n${list}`,
        summary: `${done}/${args.todos.length} done`,
      });
    },
  });
}
