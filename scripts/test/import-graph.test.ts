import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadSources } from '../dependency-rules.ts';
import { importGraph, renderGraph, splice } from '../import-graph.ts';
import { tempDir } from '../temp-dirs.ts';

const SCRIPT = fileURLToPath(new URL('../import-graph.ts', import.meta.url));

async function graphOf(files: Record<string, string>): Promise<ReturnType<typeof importGraph>> {
  const dir = tempDir('santra-graph-');
  for (const [path, content] of Object.entries({ 'package.json': '{}', ...files })) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return importGraph(await loadSources(dir, ['server/src']));
}

describe('import graph', () => {
  test('counts files, median sizes and imports per folder, and marks the imports against the layers', async () => {
    const graph = await graphOf({
      'server/src/agent/loop.ts': [
        "import { stream } from '../providers/stream.ts';",
        "import type { Message } from '../providers/messages.ts';",
        "import { ids } from './ids.ts';",
        'export const loop = 1;',
        '',
      ].join('\n'),
      'server/src/agent/ids.ts': 'export const ids = 1;\n',
      'server/src/agent/swarm.ts': "import { loop } from './loop.ts';\nexport const a = 1;\n",
      'server/src/providers/stream.ts': "import { ids } from '../agent/ids.ts';\nexport const stream = 1;\n",
      'server/src/providers/messages.ts': 'export type Message = string;\n',
      'server/src/log.ts': "import { ids } from './agent/ids.ts';\n",
      'server/test/loop.test.ts': "import { loop } from '../src/agent/loop.ts';\n",
    });
    assert.deepEqual(
      graph.folders.map(({ folder, layer, files, medianLines, totalLines, internal }) => ({
        folder,
        layered: layer !== undefined,
        files,
        medianLines,
        totalLines,
        internal,
      })),
      [
        { folder: 'agent', layered: true, files: 3, medianLines: 2, totalLines: 7, internal: 2 },
        { folder: 'providers', layered: true, files: 2, medianLines: 1.5, totalLines: 3, internal: 0 },
        { folder: '(top level)', layered: false, files: 1, medianLines: 1, totalLines: 1, internal: 0 },
      ],
    );
    assert.deepEqual(
      graph.edges.map(({ from, to, imports, typeOnly, against, unlayered, offenders }) => ({
        edge: `${from} -> ${to}`,
        imports,
        typeOnly,
        against,
        unlayered,
        offenders,
      })),
      [
        { edge: 'agent -> providers', imports: 2, typeOnly: 1, against: 0, unlayered: false, offenders: [] },
        {
          edge: 'providers -> agent',
          imports: 1,
          typeOnly: 0,
          against: 1,
          unlayered: false,
          offenders: ['providers/stream.ts:1 → ../agent/ids.ts'],
        },
        { edge: '(top level) -> agent', imports: 1, typeOnly: 0, against: 0, unlayered: true, offenders: [] },
      ],
    );
    const report = renderGraph(graph, 'abc1234');
    assert.match(
      report,
      /^server\/src at abc1234: 6 files in 3 folders, 4 imports between folders \(3 edges\)/,
    );
    assert.match(report, /\| providers\/ \| agent\/ \| 1 \| {2}\| \*\*✗ 1\*\* \|/);
    assert.match(report, /\| \(top level\) \| agent\/ \| 1 \| {2}\| no layer \|/);
    assert.match(report, /```mermaid\ngraph TD\n {2}agent\["agent\/ · 3 files"\]/);
    assert.match(report, /\n {2}linkStyle 1 stroke:#d00/);
    assert.match(report, /\n {2}linkStyle 2 stroke:#888/);
    assert.match(report, /\n {2}class top_level nolayer\n/);
  });

  test('writes the report into its block of a page and nowhere else', () => {
    const page = [
      'intro',
      '<!-- BEGIN GENERATED: import-graph before -->',
      'old before',
      '<!-- END GENERATED: import-graph before -->',
      '<!-- BEGIN GENERATED: import-graph after -->',
      'old after',
      '<!-- END GENERATED: import-graph after -->',
      '',
    ].join('\n');
    assert.equal(splice(page, 'after', 'new\n'), page.replace('old after\n', 'new\n'));
    assert.throws(() => splice(page, 'during', 'x\n'), /no block/);
  });

  test('--current --check fails on a stale architecture page, and passes once --current rewrote it', async () => {
    const dir = tempDir('santra-graph-');
    const files = {
      'package.json': '{}',
      'server/src/support/log.ts': 'export const log = 1;\n',
      'server/src/tools/read.ts': "import { log } from '../support/log.ts';\nexport const read = log;\n",
      'docs/architecture.md':
        '# Map\n<!-- BEGIN GENERATED: import-graph current -->\nstale\n<!-- END GENERATED: import-graph current -->\n',
    };
    for (const [path, content] of Object.entries(files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), content);
    }
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [SCRIPT, '--root', dir, '--current', ...args], { encoding: 'utf8' });
    const stale = run('--check');
    assert.equal(stale.status, 1);
    assert.match(stale.stderr, /has changed since its "current" section was written; run npm run generate/);
    assert.equal(run().status, 0);
    assert.match(
      await readFile(join(dir, 'docs/architecture.md'), 'utf8'),
      /server\/src: 2 files in 2 folders/,
    );
    assert.equal(run('--check').status, 0);
  });
});
