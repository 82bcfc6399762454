/**
 * What every agent's system prompt ends with: where it works and when.
 */
/**
 * Where the agents work, and where the user is: tools take paths relative to the workspace root,
 * while a path the user mentions is relative to the directory they started in.
 */
export function workspaceNote(workspaceRoot: string, startDir?: string, now = new Date()): string {
  const user =
    startDir === undefined
      ? ''
      : ` The user is working in ${startDir}: a relative path they mention is relative to that directory (give tools the path from the project root).`;
  return `You work in the project at ${workspaceRoot} (paths are relative to it).${user} Today is ${now.toISOString().slice(0, 10)}.`;
}
