import * as z from 'zod';
import type { PermissionMode } from '../approval/permission-mode.ts';
import { defineTool, type ToolContext, type ToolResult, toolError } from './types.ts';

/**
 * What the user may answer to a plan (the protocol's AskParams.plan): continue in a mode, on this
 * context or a fresh one. Any other answer is feedback, and the agent stays in plan mode.
 */
const CHOICES: ReadonlyArray<{ label: string; value: string; mode: PermissionMode; fresh: boolean }> = [
  { label: 'Yes, and auto-accept edits', value: 'acceptEdits', mode: 'acceptEdits', fresh: false },
  { label: 'Yes, and ask before each edit', value: 'default', mode: 'default', fresh: false },
  {
    label: 'Yes, on a fresh context, auto-accept edits',
    value: 'acceptEdits_fresh',
    mode: 'acceptEdits',
    fresh: true,
  },
  {
    label: 'Yes, on a fresh context, ask before edits',
    value: 'default_fresh',
    mode: 'default',
    fresh: true,
  },
];

/**
 * `exit_plan_mode {plan}`: how a run in plan mode ends (§7.8). The plan is put to the user,
 * who approves it — the session then continues in the mode they chose, on this conversation or
 * on a fresh one holding only the plan — or sends it back with feedback. Where no one can answer
 * (`santra -p`, a client without `ask`), the plan is the run's answer and nothing changes.
 */
export function exitPlanModeTool() {
  return defineTool({
    name: 'exit_plan_mode',
    kind: 'interact',
    description:
      'Only in plan mode: call when your plan is ready, to present it to the user for approval. `plan` is the complete plan in Markdown: what you will change, file by file, and how you will check it. If the user approves, you continue with the implementation; if they send it back, revise it from their feedback. Do not call it to ask a question (use ask_user) or outside plan mode.',
    parameters: z.object({
      plan: z.string().min(1).describe('The plan, in Markdown, concise and complete.'),
    }),
    async execute(args, context) {
      if (context.permissionMode?.get() !== 'plan') {
        return toolError(
          'not_in_plan_mode',
          'The session is not in plan mode, so there is nothing to exit: carry on with the task.',
        );
      }
      let answer: string;
      try {
        answer = await context.ask({
          // The plan is the question's text too, so a client that knows nothing of `plan` shows it.
          header: 'Plan: would you like to proceed?',
          prompt: args.plan,
          options: CHOICES.map(({ label, value }) => ({ label, value })),
          plan: args.plan,
        });
      } catch {
        // Nobody can approve it here: the plan is the answer, and the session stays read-only.
        return { output: 'The plan was presented to the user.', summary: 'plan presented', final: args.plan };
      }
      return approvedOrSentBack(args.plan, answer.trim(), context);
    },
  });
}

function approvedOrSentBack(plan: string, answer: string, context: ToolContext): ToolResult {
  const choice = CHOICES.find((candidate) => candidate.value === answer);
  if (choice === undefined) {
    return {
      output: `The user did not approve the plan and sent it back with this feedback: ${answer === '' ? '(none given)' : answer}\nYou are still in plan mode: revise the plan and present it again with exit_plan_mode.`,
      summary: 'plan sent back',
      rejected: true,
      isError: true,
      errorType: 'plan_rejected',
    };
  }
  context.permissionMode?.set(choice.mode);
  const mode =
    choice.mode === 'acceptEdits'
      ? 'acceptEdits mode: your file changes in the workspace are applied without asking; commands are still asked'
      : 'default mode: each file change and command is asked';
  if (choice.fresh && context.agents !== undefined) {
    context.agents.setMessages([
      {
        role: 'user',
        content: `Implement this plan, which I approved:\n\n${plan}\n\nYou are in ${mode}.`,
      },
    ]);
  }
  return {
    output: `The user approved your plan. You are now in ${mode}. Implement the plan now.`,
    summary: `plan approved (${choice.mode}${choice.fresh ? ', fresh context' : ''})`,
  };
}
