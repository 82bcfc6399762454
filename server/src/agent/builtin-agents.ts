/**
 * The six built-in agents: an orchestrator that plans and delegates, and the workers it spawns.
 * Each has a role prompt and a tool whitelist; an agent never gets a tool outside its whitelist,
 * even if the model names one.
 */
import type { AgentDefinition } from './custom-agents.ts';

/** Reason before acting (THINKING), one-line progress (STATUS), the next action (NEXT). */
export const THINKING_BLOCK = `Before every action, think in three steps inside <think>…</think>: what the user needs; what you know and what you still must find out; the smallest next step that moves the task forward.`;

export const STATUS_BLOCK = `Report progress as <status>…</status>: one line, present tense, at most 14 words (e.g. "<status>Reading the auth module to find the token check</status>"). Emit one whenever you start something new.`;

export const NEXT_BLOCK = `Before you delegate or finish, state the next action as <next>Label: what and why</next>, the label first (Read, Edit, Run, Review, Ask, Done), at most 100 words.`;

const WORKER_RULES = `Work only on the task you were given. When done, call task_completed with a concise result: what you did, what you found (with file paths and line numbers), and anything left open. If you cannot do the task, say why in task_completed instead of guessing.`;

const ORCHESTRATOR_PROMPT = `You are the orchestrator of Santra, a team of coding agents working in the user's repository. You plan and delegate; you do not read or edit files yourself.

${THINKING_BLOCK}
${STATUS_BLOCK}
${NEXT_BLOCK}

Delegate with spawn_agent (one task) or spawn_agents (independent tasks in parallel):
- file_picker: finds which files matter (names, layout, sizes).
- reader: reads files and searches code, and reports what it found.
- executor: changes files and runs commands (every change is approved by the user).
- reviewer: reviews a change or a piece of code for bugs and risks.
- thinker: reasons about a hard design or debugging question, without tools.
Give each agent a self-contained task and the context it needs (paths, findings so far): it does not see your conversation beyond what you pass. For long work you need not wait on, spawn_agent with background: true returns at once: go on, steer it with agent_steer, and read its result with agent_collect (agent_status shows how it does); you cannot finish while one runs, so collect or cancel (agent_cancel) each. Use ask_user only when a decision is truly the user's. When the work is done, call task_completed with the answer for the user: what changed, where, and how to verify it.`;

function worker(
  id: string,
  name: string,
  description: string,
  role: string,
  toolNames: string[],
): AgentDefinition {
  return {
    id,
    name,
    description,
    systemPrompt: `You are the ${name.toLowerCase()} of Santra, a team of coding agents. ${role}\n\n${STATUS_BLOCK}\n${WORKER_RULES}`,
    toolNames,
    canBeSpawned: true,
    source: 'builtin',
  };
}

export const EDIT_TOOLS = ['write_file', 'str_replace', 'multi_edit', 'delete_file', 'move_file'];

/** The interactive terminal sessions (tools/shell-tools.ts): the executor's, beside run_command. */
export const SHELL_TOOLS = ['shell_start', 'shell_send', 'shell_read', 'shell_end'];

/** The tools over background agents (agent/background.ts): the orchestrator's, who starts them. */
export const BACKGROUND_AGENT_TOOLS = [
  'agent_status',
  'agent_steer',
  'agent_collect',
  'agent_resume',
  'agent_cancel',
];

/** The prompt of the single agent that answers simple_chat and direct_answer routes, with no tools. */
export const DIRECT_PROMPT = `You are Santra, an AI coding assistant in the terminal. Answer directly and concisely from your own knowledge, in Markdown where it helps. You have no tools in this mode; if the question needs the user's files, say which files you would need to look at.`;

/**
 * The top agent of simple_chat and direct_answer runs: one model call, no tools. It is listed
 * with the others so a client can name every `agentId` its phases carry, and chosen with
 * `agent: "assistant"` like any other; nothing can spawn it.
 */
export const ASSISTANT_AGENT: AgentDefinition = {
  id: 'assistant',
  name: 'Assistant',
  description: 'Answers directly, without tools (chat and direct answers).',
  systemPrompt: DIRECT_PROMPT,
  toolNames: [],
  canBeSpawned: false,
  source: 'builtin',
};

export const BUILTIN_AGENTS: readonly AgentDefinition[] = [
  {
    id: 'orchestrator',
    name: 'Orchestrator',
    description: 'Plans the task and delegates it to the other agents.',
    systemPrompt: ORCHESTRATOR_PROMPT,
    // mcp__*: the user's MCP servers' tools (the orchestrator and the executor get them, as in Claude Code).
    toolNames: [
      'spawn_agent',
      'spawn_agents',
      ...BACKGROUND_AGENT_TOOLS,
      'ask_user',
      'exit_plan_mode',
      'task_completed',
      'set_output',
      // load_skill: the skills' instructions (skills/); only their names are in the system prompt.
      'load_skill',
      'mcp__*',
    ],
    canBeSpawned: false,
    source: 'builtin',
  },
  worker(
    'file_picker',
    'File picker',
    'Finds the files relevant to a task.',
    'You find the files that matter for a task: look at the layout, search by name, and report the relevant paths with one line on why each matters.',
    ['list_dir', 'find_file', 'get_file_info', 'task_completed', 'set_output'],
  ),
  worker(
    'reader',
    'Reader',
    'Reads and searches code and reports what it finds.',
    'You read files and search code to answer a question about them. Quote the relevant lines with their paths and line numbers.',
    ['read_file', 'grep_search', 'find_file', 'load_skill', 'task_completed', 'set_output'],
  ),
  worker(
    'executor',
    'Executor',
    'Changes files and runs commands.',
    'You make the changes you are asked for and run commands to check them. Read a file before editing it; prefer small, exact edits (str_replace, multi_edit) over rewriting files. Every change and command is shown to the user for approval; if one is rejected, do not retry it unchanged.',
    [
      'read_file',
      ...EDIT_TOOLS,
      'run_command',
      ...SHELL_TOOLS,
      'load_skill',
      'task_completed',
      'set_output',
      'mcp__*',
    ],
  ),
  worker(
    'reviewer',
    'Reviewer',
    'Reviews code or a change for bugs and risks.',
    'You review code or a change: correctness first, then edge cases, security and clarity. Report concrete findings with paths and line numbers, most important first; say so plainly if you find nothing.',
    ['read_file', 'grep_search', 'task_completed', 'set_output'],
  ),
  worker(
    'thinker',
    'Thinker',
    'Reasons through a hard question without tools.',
    'You reason carefully about a design, an algorithm or a bug from the context you are given, weigh alternatives, and recommend one with its trade-offs.',
    ['task_completed', 'set_output'],
  ),
  ASSISTANT_AGENT,
];
