/**
 * Reads a V8 `.cpuprofile` (from `node --cpu-prof`) of the bundled server and says where the
 * samples landed: self time per function and per source area, mapped back through the bundle's
 * source maps to `server/src/...` or the npm package, so a missed goal comes with a first answer
 * to "where does the time go?".
 */
import { SourceMap } from 'node:module';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  /** 0-based, as V8 reports them. */
  lineNumber: number;
  columnNumber: number;
}

interface Profile {
  nodes: { id: number; callFrame: CallFrame }[];
  samples: number[];
  timeDeltas: number[];
}

/** The newest `.cpuprofile` in `dir`, or undefined when there is none. */
export function newestProfile(dir: string): string | undefined {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => join(dir, name));
  return files.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}

const maps = new Map<string, SourceMap | undefined>();

function sourceMapOf(url: string): SourceMap | undefined {
  if (!maps.has(url)) {
    let map: SourceMap | undefined;
    if (url.startsWith('file:')) {
      const file = `${fileURLToPath(url)}.map`;
      if (existsSync(file)) map = new SourceMap(JSON.parse(readFileSync(file, 'utf8')) as never);
    }
    maps.set(url, map);
  }
  return maps.get(url);
}

/** Where a frame's code came from: `server/src/x.ts:12`, `openai/src/core/streaming.ts:118`, `node:timers`. */
function origin(frame: CallFrame): { file: string; line: number } | undefined {
  if (frame.url === '') return undefined;
  const entry = sourceMapOf(frame.url)?.findEntry(frame.lineNumber, frame.columnNumber);
  if (entry !== undefined && 'originalSource' in entry) {
    const file = entry.originalSource.replace(/^(\.\.\/)+/, '').replace(/^node_modules\//, '');
    return { file, line: entry.originalLine + 1 };
  }
  const file =
    frame.url.startsWith('node:') || !frame.url.includes('/') ? `node:${frame.url}` : basename(frame.url);
  return { file: file.replace(/^node:node:/, 'node:'), line: frame.lineNumber + 1 };
}

/** The area a source file belongs to: an npm package, a folder of ours, or Node itself. */
function area(file: string | undefined, functionName: string): string {
  // Frames without a script: V8 (garbage collector, idle, program, runMicrotasks) or native bindings.
  if (file === undefined) return `V8/native \`${functionName}\``;
  if (file.startsWith('node:')) return 'Node.js internals';
  // Source-map paths are relative to the build's directory, which may be outside the tree.
  const ours = /(?:^|\/)(server\/src\/(?:[^/]+\/)?|protocol-spec\/src\/|tui\/src\/)/.exec(file);
  if (ours !== null) return ours[1] as string;
  const modules = file.lastIndexOf('node_modules/');
  const scoped = /^(@[^/]+\/[^/]+|[^/]+)\//.exec(
    modules === -1 ? file : file.slice(modules + 'node_modules/'.length),
  );
  return scoped === null ? 'other (bundler glue, eval)' : `${scoped[1]} (npm)`;
}

const table = (title: string, rows: [string, number][], totalMs: number): string[] => [
  `| ${title} | self time | share |`,
  '| --- | --- | --- |',
  ...rows.map(([name, ms]) => `| ${name} | ${ms.toFixed(0)} ms | ${((100 * ms) / totalMs).toFixed(1)} % |`),
];

/** Markdown tables of the `top` source areas and functions by self time in the profile of `process` at `file`. */
export function summarizeProfile(file: string, top: number, process: string): string[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const byFunction = new Map<string, number>();
  const byArea = new Map<string, number>();
  let totalMs = 0;
  profile.samples.forEach((id, index) => {
    const frame = frames.get(id);
    if (frame === undefined) return;
    const ms = (profile.timeDeltas[index] ?? 0) / 1000;
    const where = origin(frame);
    const name = `\`${frame.functionName === '' ? '(anonymous)' : frame.functionName}\``;
    const key = where === undefined ? name : `${name} ${where.file}:${where.line}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + ms);
    const place = area(where?.file, frame.functionName);
    byArea.set(place, (byArea.get(place) ?? 0) + ms);
    totalMs += ms;
  });
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [
    `Profile of ${process} (\`--cpu-prof\`, its whole life): ${totalMs.toFixed(0)} ms sampled.`,
    '',
    ...table('source area', sorted(byArea), totalMs),
    '',
    ...table('function (original source:line)', sorted(byFunction), totalMs),
  ];
}
