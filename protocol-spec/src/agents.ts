import * as z from 'zod';
import { named } from './registry.ts';

export const AgentInfo = named(
  'AgentInfo',
  'An agent the swarm can use: a built-in one or a custom one from .agents/*.json.',
  z.object({
    id: z.string().describe('What spawn_agent names, e.g. "reader".'),
    name: z.string(),
    description: z.string(),
    tools: z.array(z.string()).describe('Its tool whitelist.'),
    canBeSpawned: z.boolean().describe('Whether other agents may spawn it (the orchestrator may not be).'),
    source: z.string().describe('"builtin", or the file it came from, relative to the workspace root.'),
  }),
);

export const AgentProblem = named(
  'AgentProblem',
  'A custom agent file that was skipped, and why.',
  z.object({
    file: z.string().describe('Relative to the workspace root, e.g. ".agents/reviewer.json".'),
    field: z.string().optional().describe('The offending field, as a dotted path.'),
    message: z.string().describe('What is wrong and how to fix it.'),
  }),
);

/** §agents/list */
export const AgentsListParams = named(
  'AgentsListParams',
  'Params of `agents/list` (none).',
  z.object({}).optional(),
);

export const AgentsListResult = named(
  'AgentsListResult',
  'Result of `agents/list`: every agent, and the custom agent files that were skipped.',
  z.object({ agents: z.array(AgentInfo), problems: z.array(AgentProblem) }),
);
