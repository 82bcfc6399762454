/** Running the file tools directly in tests, and writing fixture files. */
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileTools } from '../../src/tools/groups/files.ts';
import type { ToolResult } from '../../src/tools/types.ts';
import type { TestContext } from './tool-context.ts';

/** The file tools by name. */
export const tools = new Map(fileTools().map((tool) => [tool.name, tool]));

/** Runs file tool `name` with `args` validated as the loop would. */
export function run(context: TestContext, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const tool = tools.get(name);
  assert.ok(tool, `no tool ${name}`);
  return tool.execute(tool.parameters.parse(args), context);
}

/** Writes `content` at `path` under `root`, creating directories; returns the absolute path. */
export async function put(root: string, path: string, content: string | Uint8Array): Promise<string> {
  const absolute = join(root, path);
  await mkdir(join(absolute, '..'), { recursive: true });
  await writeFile(absolute, content);
  return absolute;
}
