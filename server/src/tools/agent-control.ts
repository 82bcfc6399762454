/**
 * The agent-control tools: spawn_agent, spawn_agents, set_output and set_messages. They act on the
 * swarm through `context.agents`, which only agents running inside the swarm have.
 */
import * as z from 'zod';
import { type AgentControl, defineTool, type SpawnResult, type ToolContext, toolError } from './types.ts';

const SpawnRequest = z.object({
  agentId: z
    .string()
    .min(1)
    .describe('Which agent: file_picker, reader, executor, reviewer, thinker, or a custom agent id.'),
  task: z
    .string()
    .min(1)
    .describe(
      "The task. Besides it and `context`, the agent sees the conversation so far as text (the user's messages and what you wrote), but not your tool calls or their results: put what it needs from those in `context`.",
    ),
  context: z
    .string()
    .optional()
    .describe('What the agent needs to know: paths, findings so far, constraints.'),
});

function control(context: ToolContext): AgentControl | undefined {
  return context.agents;
}

const notInSwarm = () => toolError('not_available', 'This agent cannot control other agents here.');

function describe(result: SpawnResult): string {
  return `## ${result.agentId} (${result.role}): ${result.status}\n${result.output === '' ? '(no output)' : result.output}`;
}

export function spawnAgentTool() {
  return defineTool({
    name: 'spawn_agent',
    kind: 'agent',
    description:
      'Run one agent on a task and wait for its result; or, with `background: true`, start it and go on at once (then agent_status, agent_steer, agent_collect, agent_resume, agent_cancel with the id it returns).',
    parameters: SpawnRequest.extend({
      background: z
        .boolean()
        .optional()
        .describe(
          'Start it in the background and return its id at once, instead of waiting for its result. You cannot finish while it runs: collect or cancel it.',
        ),
    }),
    async execute({ background, ...request }, context) {
      const agents = control(context);
      if (agents === undefined) return notInSwarm();
      if (background === true) {
        if (agents.background === undefined)
          return toolError(
            'not_available',
            'This agent cannot run agents in the background (it lacks the agent_collect tools). Call spawn_agent without background.',
          );
        return agents.background.start(request);
      }
      const [result] = await agents.spawn([request]);
      if (result === undefined) return toolError('spawn_failed', 'The agent did not run.');
      return {
        output: describe(result),
        summary: `${result.agentId}: ${result.status}`,
        ...(result.status === 'completed' ? {} : { isError: true, errorType: `agent_${result.status}` }),
      };
    },
  });
}

export function spawnAgentsTool() {
  return defineTool({
    name: 'spawn_agents',
    kind: 'agent',
    description:
      'Run several agents on independent tasks in parallel; their results come back in the order given.',
    parameters: z.object({ agents: z.array(SpawnRequest).min(1).max(16) }),
    async execute(args, context) {
      const agents = control(context);
      if (agents === undefined) return notInSwarm();
      const results = await agents.spawn(args.agents);
      const failed = results.filter((result) => result.status !== 'completed').length;
      return {
        output: results.map(describe).join('\n\n'),
        summary: `${results.length - failed}/${results.length} completed`,
      };
    },
  });
}

export function setOutputTool() {
  return defineTool({
    name: 'set_output',
    kind: 'agent',
    description:
      'Set your output (what your parent agent or the user receives when you finish) without finishing yet.',
    parameters: z.object({ output: z.string().describe('The output.') }),
    execute(args, context) {
      const agents = control(context);
      if (agents === undefined) return Promise.resolve(notInSwarm());
      agents.setOutput(args.output);
      return Promise.resolve({ output: 'Output recorded.', summary: 'output set' });
    },
  });
}

export function setMessagesTool() {
  return defineTool({
    name: 'set_messages',
    kind: 'agent',
    description:
      'Replace your conversation history with a shorter one (e.g. a summary) from the next turn on, to free context. The last message should restate the task.',
    parameters: z.object({
      messages: z
        .array(z.object({ role: z.enum(['user', 'assistant']), content: z.string() }))
        .min(1)
        .describe('The new history, oldest first.'),
    }),
    execute(args, context) {
      const agents = control(context);
      if (agents === undefined) return Promise.resolve(notInSwarm());
      agents.setMessages(args.messages);
      return Promise.resolve({
        output: `History replaced with ${args.messages.length} messages.`,
        summary: 'history replaced',
      });
    },
  });
}

export function agentControlTools() {
  return [spawnAgentTool(), spawnAgentsTool(), setOutputTool(), setMessagesTool()];
}
