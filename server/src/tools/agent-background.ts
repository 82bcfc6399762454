/**
 * The background-agent tools: agent_status, agent_steer, agent_collect, agent_resume and
 * agent_cancel, for the agents a parent started with `spawn_agent {background: true}`. They act
 * through `context.agents.background` (agent/background.ts), which only agents of the swarm have.
 */
import * as z from 'zod';
import { type BackgroundControl, defineTool, type ToolContext, toolError, type ToolResult } from './types.ts';

/** agent_collect waits at most this long in one call. */
const MAX_WAIT_SECONDS = 600;

const AgentId = z
  .string()
  .min(1)
  .describe('The background agent\'s id, as spawn_agent returned it (e.g. "reader-2").');

function background(context: ToolContext): BackgroundControl | undefined {
  return context.agents?.background;
}

const notHere = (): ToolResult =>
  toolError('not_available', 'This agent cannot run agents in the background here.');

export function agentStatusTool() {
  return defineTool({
    name: 'agent_status',
    kind: 'agent',
    description:
      'See how your background agents are doing: running (for how long, doing what) or ended (how, and whether you collected the result). Without `id`, every one you started.',
    parameters: z.object({ id: AgentId.optional() }),
    execute(args, context) {
      const agents = background(context);
      return Promise.resolve(agents === undefined ? notHere() : agents.status(args.id));
    },
  });
}

export function agentSteerTool() {
  return defineTool({
    name: 'agent_steer',
    kind: 'agent',
    description:
      'Send guidance to a running background agent: it reads it as a message from you before its next model call (a correction, a narrower scope, a finding of yours).',
    parameters: z.object({ id: AgentId, message: z.string().min(1).describe('The guidance.') }),
    execute(args, context) {
      const agents = background(context);
      return Promise.resolve(agents === undefined ? notHere() : agents.steer(args.id, args.message));
    },
  });
}

export function agentCollectTool() {
  return defineTool({
    name: 'agent_collect',
    kind: 'agent',
    description:
      "Get a background agent's result. If it is still running, waits up to `wait` seconds for it; if it is running after that, says so and returns what it has written so far.",
    parameters: z.object({
      id: AgentId,
      wait: z
        .number()
        .min(0)
        .max(MAX_WAIT_SECONDS)
        .optional()
        .describe(
          `Seconds to wait for it to finish; default 0 (answer at once), at most ${MAX_WAIT_SECONDS}.`,
        ),
    }),
    async execute(args, context) {
      const agents = background(context);
      if (agents === undefined) return notHere();
      return agents.collect(args.id, Math.round((args.wait ?? 0) * 1000), context.signal);
    },
  });
}

export function agentResumeTool() {
  return defineTool({
    name: 'agent_resume',
    kind: 'agent',
    description:
      'Continue a background agent that has ended, with new instructions: it keeps its conversation so far and runs in the background again (collect it as before).',
    parameters: z.object({ id: AgentId, task: z.string().min(1).describe('What to do next.') }),
    execute(args, context) {
      const agents = background(context);
      return Promise.resolve(agents === undefined ? notHere() : agents.resume(args.id, args.task));
    },
  });
}

export function agentCancelTool() {
  return defineTool({
    name: 'agent_cancel',
    kind: 'agent',
    description:
      'Stop a running background agent (its work so far is returned). Use it for agents whose result you no longer need: you cannot finish while one runs.',
    parameters: z.object({ id: AgentId }),
    async execute(args, context) {
      const agents = background(context);
      if (agents === undefined) return notHere();
      return agents.cancel(args.id);
    },
  });
}

export function agentBackgroundTools() {
  return [agentStatusTool(), agentSteerTool(), agentCollectTool(), agentResumeTool(), agentCancelTool()];
}
