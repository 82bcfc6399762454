import { gitDiffTool } from '../git-diff.ts';
import { gitStatusTool } from '../git-status.ts';
import { runCommandTool } from '../run-command.ts';
import type { Tool } from '../types.ts';

/** The tools that run programs: run_command (gated) and the read-only git_status and git_diff. */
export function commandTools(): Tool[] {
  return [runCommandTool(), gitStatusTool(), gitDiffTool()];
}
