/**
 * grep_search skips files over 2 MB, and says so: "no match" must not read as "not there".
 * Both searchers (rg and the built-in one) report the same files.
 */
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { findRipgrep } from '../src/tools/grep/ripgrep.ts';
import { grepSearchTool } from '../src/tools/grep-search.ts';
import { tempWorkspace, testContext } from './helpers/tool-context.ts';

const roots: string[] = [];
after(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

const big = `${'x'.repeat(80)}\n`.repeat(30_000) + 'needle in a haystack\n';

async function workspace() {
  const root = await tempWorkspace();
  roots.push(root);
  await mkdir(join(root, 'logs'));
  await writeFile(join(root, 'logs/huge.log'), big);
  await writeFile(join(root, 'dump.sql'), big);
  await writeFile(join(root, 'small.txt'), 'nothing here\n');
  return root;
}

async function grep(root: string, args: Record<string, unknown>, useRipgrep: boolean) {
  const tool = grepSearchTool();
  const context = await testContext(root, { settings: { useRipgrep } });
  return tool.execute(tool.parameters.parse(args), context);
}

for (const useRipgrep of [false, true]) {
  const name = useRipgrep ? 'rg' : 'the built-in searcher';
  test(`${name}: files over 2 MB are named as skipped, with and without matches elsewhere`, async () => {
    assert.ok(findRipgrep() !== undefined, 'rg is installed where the tests run (.ci/run installs it)');
    const root = await workspace();
    const none = await grep(root, { pattern: 'needle' }, useRipgrep);
    assert.match(none.output, /^No lines match "needle" in the workspace\.\n/);
    assert.match(none.output, /\[2 files over 2 MB not searched: dump\.sql, logs\/huge\.log\. /);
    assert.equal(none.summary, 'no matches (2 large files skipped)');

    const some = await grep(root, { pattern: 'nothing' }, useRipgrep);
    assert.match(some.output, /^small\.txt:1: nothing here/);
    assert.match(some.output, /2 files over 2 MB not searched/);

    const filtered = await grep(root, { pattern: 'needle', filePattern: '*.log' }, useRipgrep);
    assert.match(filtered.output, /\[1 file over 2 MB not searched: logs\/huge\.log\./);

    const clean = await grep(root, { pattern: 'nothing', path: 'small.txt' }, useRipgrep);
    assert.doesNotMatch(clean.output, /not searched/);
  });
}
