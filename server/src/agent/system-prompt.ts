/**
 * What every agent's system prompt ends with: where it works and when.
 */
export function workspaceNote(workspaceRoot: string, now = new Date()): string {
  return `You work in the project at ${workspaceRoot} (paths are relative to it). Today is ${now.toISOString().slice(0, 10)}.`;
}
