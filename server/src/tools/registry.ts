/**
 * Every tool Santra offers, in the order the model sees them. The tools page in docs and the
 * snapshot of what the model reads (docs/tools.md, checked for drift) are generated from this list.
 */
import { agentBackgroundTools } from './agent-background.ts';
import { agentControlTools } from './agent-control.ts';
import { askUserTool } from './ask-user.ts';
import { exitPlanModeTool } from './exit-plan-mode.ts';
import { loadSkillTool } from './load-skill.ts';
import { commandTools } from './groups/commands.ts';
import { fileTools } from './groups/files.ts';
import { searchTools } from './groups/search.ts';
import { shellTools } from './shell-tools.ts';
import { taskCompletedTool } from './task-completed.ts';
import { thinkTool } from './think.ts';
import { todoWriteTool } from './todo-write.ts';
import type { Tool } from './types.ts';

export function allTools(): Tool[] {
  return [
    ...fileTools(),
    ...searchTools(),
    ...commandTools(),
    ...shellTools(),
    askUserTool(),
    thinkTool(),
    todoWriteTool(),
    loadSkillTool(),
    exitPlanModeTool(),
    taskCompletedTool(),
    ...agentControlTools(),
    ...agentBackgroundTools(),
  ];
}
