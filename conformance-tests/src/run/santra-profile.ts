/**
 * The Santra profile (spec §0.1.1): what the suite needs of a server, beyond the protocol, to
 * provoke what only an agent with tools shows — approvals, questions, files and commands through
 * the client, sub-agents, custom agents. These are the names of Santra's product: its environment
 * variables, its agents, its tools and their arguments. Every one the suite uses is here, so this
 * file is the profile.
 *
 * A scenario reaches it through `ctx.santra`, which only a scenario declared `profile: 'santra'`
 * may use; the other scenarios are the core, and check any implementation of the protocol.
 */
import { join } from 'node:path';
import type { FakeTurn } from '../fake-providers/index.ts';

/** The default model the profile's environment names. */
export const SANTRA_MODEL = 'anthropic/claude-sonnet-5-5';

/** The variables the profile adds to the core environment (§0.1): the server's own settings. */
export function santraEnvironment(home: string): NodeJS.ProcessEnv {
  // Memory's extraction after runs is a model call the scenarios do not script: off.
  return { SANTRA_HOME: join(home, 'santra'), SANTRA_MODEL, SANTRA_MEMORY_AUTO_EXTRACT: '0' };
}

/** Santra's tools, as a server of the profile offers them to its model. */
const TOOLS = {
  writeFile: 'write_file',
  moveFile: 'move_file',
  runCommand: 'run_command',
  readFile: 'read_file',
  strReplace: 'str_replace',
  askUser: 'ask_user',
  spawnAgent: 'spawn_agent',
  taskCompleted: 'task_completed',
  exitPlanMode: 'exit_plan_mode',
  loadSkill: 'load_skill',
} as const;

/** A model turn that calls one tool. */
function call(name: string, args: unknown): FakeTurn {
  return { toolCalls: [{ name, args, chunks: 1 }] };
}

export interface AskUserArgs {
  prompt: string;
  header?: string;
  options?: { label: string; value: string }[];
  secret?: boolean;
}

/**
 * Santra's agents: `executor`, whose tools are `write_file`, `move_file` and `run_command` (gated on
 * `approve` as file changes and commands), `read_file` and `str_replace`; `reader`, the sub-agent
 * `spawn_agent` starts.
 */
const AGENTS = { executor: 'executor', reader: 'reader' } as const;

export const SANTRA_PROFILE = {
  /** The model the profile's environment names, as `provider/model` (the fallback scenario's first). */
  model: SANTRA_MODEL,
  agents: AGENTS,
  tools: TOOLS,
  /** `prompt` params whose top agent is `executor`. */
  executor: (text: string, more: Record<string, unknown> = {}) => ({ text, agent: AGENTS.executor, ...more }),
  /** `prompt` params for the `agent_task` route without `agent`: a top agent with `ask_user` and `spawn_agent`. */
  agentTask: (text: string) => ({ text, mode: 'agent_task' }),
  /** A custom agent file (§9.3) that names the profile's tools; `.agents/<file>.json` in the workspace. */
  customAgent: {
    id: 'conformance_reviewer',
    name: 'Conformance reviewer',
    description: 'Reviews for the conformance suite.',
    systemPrompt: 'You review code.',
    toolNames: [TOOLS.readFile, TOOLS.taskCompleted],
  },
  // Model turns that call one tool, with the arguments the profile gives it. `content` may be left
  // out to make the call fail.
  writeFile: (args: { path: string; content?: string }) => call(TOOLS.writeFile, args),
  moveFile: (args: { from: string; to: string }) => call(TOOLS.moveFile, args),
  runCommand: (args: { command: string }) => call(TOOLS.runCommand, args),
  readFile: (args: { path: string }) => call(TOOLS.readFile, args),
  strReplace: (args: { path: string; oldStr: string; newStr: string }) => call(TOOLS.strReplace, args),
  askUser: (args: AskUserArgs) => call(TOOLS.askUser, args),
  spawnAgent: (args: { agentId: string; task: string }) => call(TOOLS.spawnAgent, args),
  /** The top agent of `agentTask` presents a plan (plan mode, §7.8). */
  exitPlanMode: (args: { plan: string }) => call(TOOLS.exitPlanMode, args),
  /** Loads a skill by name (§7.9); the executor has the tool when the workspace has a skill. */
  loadSkill: (args: { name: string }) => call(TOOLS.loadSkill, args),
  /** Where a project's skills are found (§7.9): `<workspace>/<skillsDir>/<name>/SKILL.md`. */
  skillsDir: '.santra/skills',
  /** The project memory file (§7.10), relative to the workspace. */
  projectMemory: '.santra/memory.md',
};

export type SantraProfile = typeof SANTRA_PROFILE;
