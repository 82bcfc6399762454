/**
 * The tool policy's defaults and checks, derived from each tool's `kind`: read-only tools are
 * allowed without asking, and a `tools.policy` entry that names no tool, or says `ask` for a tool
 * that never asks, is reported instead of silently doing nothing.
 */
import { closest } from '../support/suggest.ts';
import { GATED_KINDS, READ_ONLY_KINDS, type Tool } from './types.ts';

export type ToolPolicySetting = 'allow' | 'ask' | 'deny';

/** The default policy: `allow` for every read-only tool; the rest ask. */
export function defaultToolPolicy(tools: readonly Tool[]): Record<string, ToolPolicySetting> {
  return Object.fromEntries(
    tools.filter((tool) => READ_ONLY_KINDS.has(tool.kind)).map((tool) => [tool.name, 'allow' as const]),
  );
}

/** What is wrong with the configured `tools.policy`, one sentence each, naming the file and the key. */
export function toolPolicyProblems(
  policy: Readonly<Record<string, ToolPolicySetting>>,
  tools: readonly Tool[],
  file: string,
): string[] {
  const problems: string[] = [];
  const names = tools.map((tool) => tool.name);
  for (const [name, setting] of Object.entries(policy)) {
    const tool = tools.find((candidate) => candidate.name === name);
    if (tool === undefined) {
      const guess = closest(name, names);
      problems.push(
        `tools.policy.${name} in ${file}: there is no tool "${name}"${guess === undefined ? '' : ` (did you mean ${guess}?)`}, so this setting does nothing. The tools: ${names.join(', ')}.`,
      );
    } else if (setting === 'ask' && !GATED_KINDS.has(tool.kind)) {
      problems.push(
        `tools.policy.${name} in ${file} is "ask", but ${name} never asks (it ${tool.kind === 'read' || tool.kind === 'search' ? 'only reads the workspace' : 'changes no file and runs no command'}); the setting does nothing. Use "deny" to withhold it.`,
      );
    }
  }
  return problems;
}
