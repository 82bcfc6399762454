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

/** A custom agent file larger than this is refused: an agent is a few KB of prompt (§9.3). */
export const MAX_AGENT_FILE_BYTES = 256 * 1024;

/** What a custom agent's `id` must look like (§9.3). */
export const AGENT_ID_PATTERN = /^[a-z0-9_]{2,40}$/;

const agentText = (what: string) =>
  z
    .string()
    .regex(/\S/, `must not be empty (expected ${what})`)
    .describe(what[0]?.toUpperCase() + what.slice(1));

export const AgentFile = named(
  'AgentFile',
  'A custom agent: the one JSON object of a `.agents/<name>.json` file at the workspace root (§9.3). Comments and trailing commas are allowed (JSONC); a field not listed here makes the file invalid.',
  z.strictObject({
    id: z
      .string()
      .regex(
        AGENT_ID_PATTERN,
        'expected 2 to 40 lowercase letters, digits and underscores, such as "security_reviewer"',
      )
      .describe(
        'What prompts (`agent`) and spawn_agent name it: 2 to 40 lowercase letters, digits and underscores, not the id of a built-in agent.',
      ),
    name: agentText('a display name such as "Security reviewer"'),
    description: agentText('a sentence saying what the agent does, shown to agents that may spawn it'),
    systemPrompt: agentText('the instructions the agent runs with'),
    toolNames: z
      .array(z.string())
      .optional()
      .describe(
        "The tools it may call, by name (the server's tools: docs/tools.md for Santra). Default: every tool that only reads or searches, plus the ways to finish (task_completed, set_output).",
      ),
    canBeSpawned: z
      .boolean()
      .optional()
      .describe('Whether other agents may spawn it with spawn_agent. Default: true.'),
  }),
);
export type AgentFile = z.infer<typeof AgentFile>;

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
