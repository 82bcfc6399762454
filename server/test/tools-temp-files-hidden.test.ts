/**
 * The temp file of an atomic write — one in progress, or left by a killed process until the next
 * write removes it — is never shown by the tools that list or search the workspace.
 */
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { findFileTool } from '../src/tools/find-file.ts';
import { grepSearchTool } from '../src/tools/grep-search.ts';
import { findRipgrep } from '../src/tools/grep/ripgrep.ts';
import { listDirTool } from '../src/tools/list-dir.ts';
import type { Tool } from '../src/tools/types.ts';
import { tempWorkspace, testContext } from './helpers/tool-context.ts';

const roots: string[] = [];
after(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

const TEMPS = [
  '.notes.txt.santra-4242-0123456789ab.tmp',
  '.santra-4242-0123456789ab.tmp',
  '.old.txt.santra-0123456789ab.tmp',
];

async function workspace() {
  const root = await tempWorkspace();
  roots.push(root);
  await writeFile(join(root, 'notes.txt'), 'needle here\n');
  for (const name of TEMPS) await writeFile(join(root, name), 'needle in a temp file\n');
  return root;
}

async function run(tool: Tool, root: string, args: Record<string, unknown>, useRipgrep = false) {
  const context = await testContext(root, { settings: { useRipgrep } });
  return tool.execute(tool.parameters.parse(args), context);
}

test('list_dir, find_file and grep_search (both searchers) do not show atomic-write temp files', async () => {
  const root = await workspace();
  const listed = await run(listDirTool(), root, { path: '.' });
  assert.match(listed.output, /notes\.txt/);
  const found = await run(findFileTool(), root, { pattern: '*' });
  assert.match(found.output, /notes\.txt/);
  const searchers = [false, ...(findRipgrep() === undefined ? [] : [true])];
  assert.equal(searchers.length, 2, 'rg is installed where the tests run (.ci/run installs it)');
  for (const useRipgrep of searchers) {
    const grep = await run(grepSearchTool(), root, { pattern: 'needle' }, useRipgrep);
    assert.match(grep.output, /notes\.txt/, `rg: ${useRipgrep}`);
    for (const name of TEMPS)
      assert.ok(!grep.output.includes(name), `grep (rg: ${useRipgrep}) shows ${name}`);
  }
  for (const name of TEMPS) {
    assert.ok(!listed.output.includes(name), `list_dir shows ${name}`);
    assert.ok(!found.output.includes(name), `find_file shows ${name}`);
  }
});
