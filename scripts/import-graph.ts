/**
 * The import graph of server/src by folder, as Markdown: per folder its layer, file count and median
 * file size; the edges between folders with their import counts, marking the imports that go
 * against the layers of scripts/dependency-rules.ts; and the same graph as a Mermaid block.
 *
 *   node scripts/import-graph.ts                      report on this checkout, to stdout
 *   node scripts/import-graph.ts --root DIR           report on another checkout (e.g. a git worktree)
 *   node scripts/import-graph.ts --into FILE --section NAME
 *       write the report between `<!-- BEGIN GENERATED: import-graph NAME -->` and
 *       `<!-- END GENERATED: import-graph NAME -->` in FILE instead (docs/architecture.md)
 *   node scripts/import-graph.ts --current [--check]
 *       the "current" section of docs/architecture.md: this checkout's graph, without a commit id
 *       (`npm run generate` writes it; `npm run check` fails when it is stale)
 *
 * A folder is the first folder under server/src (tools/files/ counts as tools/); files directly in
 * server/src are the folder "(top level)". Imports within a folder are counted, not drawn.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import {
  folderOf,
  LAYERED,
  LAYERS,
  loadSources,
  mayImport,
  outsideLayers,
  type Layer,
  type Source,
} from './dependency-rules.ts';

export const TOP_LEVEL = '(top level)';

export interface FolderStats {
  /** `agent`, …, or `(top level)`. */
  folder: string;
  layer: Layer | undefined;
  files: number;
  medianLines: number;
  totalLines: number;
  /** Imports between files of this folder. */
  internal: number;
}

export interface Edge {
  from: string;
  to: string;
  imports: number;
  /** Imports from a layer to a layer that it may not import. */
  against: number;
  /** Imports of type-only form (`import type`, …). */
  typeOnly: number;
  /** One end belongs to no layer, so the layers cannot judge the edge. */
  unlayered: boolean;
  /** The imports that go against the layers, as `file:line → specifier`. */
  offenders: string[];
}

export interface ImportGraph {
  folders: FolderStats[];
  edges: Edge[];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return 0;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** The report's name of the folder of a server/src path. */
function folderName(path: string): string {
  const folder = folderOf(path) as string;
  return folder === '' ? TOP_LEVEL : folder;
}

/** Layers first, top of the stack first; then other folders by name; "(top level)" last. */
function order(layers: Layer[]): (a: string, b: string) => number {
  const rank = (folder: string): number => {
    const index = layers.findIndex((layer) => layer.folder === folder);
    return index !== -1 ? index : folder === TOP_LEVEL ? layers.length + 1 : layers.length;
  };
  return (a, b) => rank(a) - rank(b) || a.localeCompare(b);
}

export function importGraph(sources: Source[], layers: Layer[] = LAYERS): ImportGraph {
  const inside = sources.filter((source) => folderOf(source.file) !== undefined);
  const sort = order(layers);
  const byFolder = new Map<string, Source[]>();
  for (const source of inside) {
    const name = folderName(source.file);
    byFolder.set(name, [...(byFolder.get(name) ?? []), source]);
  }
  const internal = new Map<string, number>();
  const edges = new Map<string, Edge>();
  for (const source of inside) {
    const from = folderName(source.file);
    const fromLayer = outsideLayers(source.file, layers) === undefined;
    const layer = layers.find((candidate) => candidate.folder === from);
    for (const found of source.imports) {
      if (folderOf(found.target) === undefined) continue;
      const to = folderName(found.target);
      if (to === from) {
        internal.set(from, (internal.get(from) ?? 0) + 1);
        continue;
      }
      const key = `${from}\0${to}`;
      const unlayered = !fromLayer || outsideLayers(found.target, layers) !== undefined;
      const edge = edges.get(key) ?? {
        from,
        to,
        imports: 0,
        against: 0,
        typeOnly: 0,
        unlayered,
        offenders: [],
      };
      edge.imports++;
      if (found.typeOnly) edge.typeOnly++;
      if (!unlayered && layer !== undefined && !mayImport(layer, found.target)) {
        edge.against++;
        edge.offenders.push(`${source.file.slice(LAYERED.length)}:${found.line} → ${found.specifier}`);
      }
      edges.set(key, edge);
    }
  }
  const folders = [...byFolder.entries()]
    .map(([folder, files]): FolderStats => ({
      folder,
      layer: layers.find((layer) => layer.folder === folder),
      files: files.length,
      medianLines: median(files.map((file) => file.lines)),
      totalLines: files.reduce((sum, file) => sum + file.lines, 0),
      internal: internal.get(folder) ?? 0,
    }))
    .sort((a, b) => sort(a.folder, b.folder));
  return {
    folders,
    edges: [...edges.values()].sort((a, b) => sort(a.from, b.from) || sort(a.to, b.to)),
  };
}

const label = (folder: string): string => (folder === TOP_LEVEL ? folder : `${folder}/`);
const nodeId = (folder: string): string => (folder === TOP_LEVEL ? 'top_level' : folder.replace(/\W/g, '_'));

/** The report, as Markdown (headings at level 3, to sit under a section of a page). */
export function renderGraph(
  graph: ImportGraph,
  revision?: string,
  options: { sizes?: boolean } = {},
): string {
  // Line counts change with every edit: a section checked for drift leaves them out.
  const sizes = options.sizes !== false;
  const { folders, edges } = graph;
  const files = folders.reduce((sum, folder) => sum + folder.files, 0);
  const imports = edges.reduce((sum, edge) => sum + edge.imports, 0);
  const against = edges.reduce((sum, edge) => sum + edge.against, 0);
  const unlayeredFiles = folders.filter((folder) => folder.layer === undefined);
  const out: string[] = [];
  out.push(
    `server/src${revision === undefined ? '' : ` at ${revision}`}: ${files} files in ${folders.length} folders, ` +
      `${imports} imports between folders (${edges.length} edges), **${against}** against the layers` +
      (unlayeredFiles.length === 0
        ? '.'
        : `; ${unlayeredFiles.reduce((sum, folder) => sum + folder.files, 0)} files are in no layer ` +
          `(${unlayeredFiles.map((folder) => `${folder.folder === TOP_LEVEL ? 'top level' : label(folder.folder)}: ${folder.files}`).join(', ')}), ` +
          'so the layers cannot judge their edges.'),
    '',
    '### Folders',
    '',
    sizes
      ? '| folder | layer | files | median lines | total lines | imports inside |'
      : '| folder | layer | files | imports inside |',
    sizes ? '| --- | --- | ---: | ---: | ---: | ---: |' : '| --- | --- | ---: | ---: |',
  );
  for (const folder of folders)
    out.push(
      `| ${label(folder.folder)} | ${folder.layer === undefined ? 'none' : 'yes'} | ${folder.files} | ` +
        `${sizes ? `${folder.medianLines} | ${folder.totalLines} | ` : ''}${folder.internal} |`,
    );
  out.push(
    '',
    '### Edges',
    '',
    'An import counts once per `import`, re-export, dynamic `import()` or `require()`; "types only" are',
    'the `import type` kind. "Against the layers" counts the imports the layer of the importing',
    'folder may not make.',
    '',
    '| from | to | imports | types only | against the layers |',
    '| --- | --- | ---: | ---: | --- |',
  );
  for (const edge of edges) {
    const verdict = edge.unlayered ? 'no layer' : edge.against === 0 ? '' : `**✗ ${edge.against}**`;
    out.push(
      `| ${label(edge.from)} | ${label(edge.to)} | ${edge.imports} | ${edge.typeOnly || ''} | ${verdict} |`,
    );
  }
  const offenders = edges.filter((edge) => edge.against > 0);
  if (offenders.length > 0) {
    out.push('', '### Imports against the layers', '');
    for (const edge of offenders) {
      out.push(`- ${label(edge.from)} → ${label(edge.to)}:`);
      for (const offender of edge.offenders) out.push(`  - \`${offender}\``);
    }
  }
  out.push('', '### Graph', '', '```mermaid', 'graph TD');
  for (const folder of folders)
    out.push(`  ${nodeId(folder.folder)}["${label(folder.folder)} · ${folder.files} files"]`);
  const red: number[] = [];
  const dashed: number[] = [];
  edges.forEach((edge, index) => {
    out.push(`  ${nodeId(edge.from)} -->|${edge.imports}| ${nodeId(edge.to)}`);
    if (edge.against > 0) red.push(index);
    else if (edge.unlayered) dashed.push(index);
  });
  if (red.length > 0) out.push(`  linkStyle ${red.join(',')} stroke:#d00,stroke-width:2px`);
  if (dashed.length > 0) out.push(`  linkStyle ${dashed.join(',')} stroke:#888,stroke-dasharray:4`);
  if (unlayeredFiles.length > 0) {
    out.push('  classDef nolayer stroke-dasharray:4,fill:#eee');
    out.push(`  class ${unlayeredFiles.map((folder) => nodeId(folder.folder)).join(',')} nolayer`);
  }
  out.push('```', '');
  out.push('Red edges hold imports against the layers; grey dashed ones start or end in no layer.', '');
  return out.join('\n');
}

/** The short commit of `root`, with `+ uncommitted changes` when server/src differs from it. */
function revisionOf(root: string): string | undefined {
  try {
    const git = (...args: string[]): string =>
      execFileSync('git', ['-C', root, ...args], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
    const commit = git('rev-parse', '--short', 'HEAD');
    return git('status', '--porcelain', '--', LAYERED) === '' ? commit : `${commit} + uncommitted changes`;
  } catch {
    return undefined;
  }
}

/** Replaces the generated block `name` of a Markdown page with `body`. */
export function splice(page: string, name: string, body: string): string {
  const begin = `<!-- BEGIN GENERATED: import-graph ${name} -->`;
  const end = `<!-- END GENERATED: import-graph ${name} -->`;
  const start = page.indexOf(begin);
  const stop = page.indexOf(end);
  if (start === -1 || stop < start) throw new Error(`no block "${begin}" … "${end}"`);
  return `${page.slice(0, start + begin.length)}\n${body}${page.slice(stop)}`;
}

/** The page whose "current" section is this checkout's graph, kept up to date by the check. */
export const ARCHITECTURE_PAGE = 'docs/architecture.md';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      root: { type: 'string' },
      into: { type: 'string' },
      section: { type: 'string' },
      current: { type: 'boolean' },
      check: { type: 'boolean' },
    },
  });
  const root = resolve(values.root ?? fileURLToPath(new URL('..', import.meta.url)));
  const graph = importGraph(await loadSources(root, [LAYERED.slice(0, -1)]));
  if (values.current === true) {
    // No commit id: the section must read the same in every checkout of the same tree.
    const page = resolve(root, ARCHITECTURE_PAGE);
    const before = await readFile(page, 'utf8');
    const after = splice(before, 'current', renderGraph(graph, undefined, { sizes: false }));
    if (values.check !== true) {
      if (after !== before) await writeFile(page, after);
      return;
    }
    if (after !== before) {
      process.stderr.write(
        `${ARCHITECTURE_PAGE}: the import graph of server/src has changed since its "current" section was written; run npm run generate\n`,
      );
      process.exitCode = 1;
    }
    return;
  }
  const report = renderGraph(graph, revisionOf(root));
  if (values.into === undefined) {
    process.stdout.write(report);
    return;
  }
  if (values.section === undefined) throw new Error('--into needs --section NAME');
  await writeFile(values.into, splice(await readFile(values.into, 'utf8'), values.section, report));
  process.stderr.write(`wrote the "${values.section}" import graph into ${values.into}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  await main().catch((error: unknown) => {
    process.stderr.write(`import-graph: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  });
