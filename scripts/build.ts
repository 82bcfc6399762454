/**
 * Bundles the three programs into dist/ with esbuild (run through scripts/build.js, which checks the
 * Node version first). Each program is a small bin module, dist/chunks/<name>.js, that answers
 * --version/--help at once and imports the rest on demand (more chunks), so start-up only pays for
 * what it uses. The code of a worker thread is an entry point too, without a bin.
 *
 * dist/<name>.js, what package.json's "bin" names, is a few lines written here: the Node version
 * check of node-version.js, then `await import('./chunks/<name>.js')`. It has no static import, so
 * the check runs before an old Node meets anything it cannot parse or link (static imports are
 * linked before any code runs). It is rewritten in place and made executable on every build, so an
 * `npm link`ed santra keeps working.
 *   node scripts/build.js [--outdir DIR]   (default: dist/ of this repository)
 */
import { chmod, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build, type Plugin } from 'esbuild';
import packageJson from '../package.json' with { type: 'json' };
import { nodeVersionOk } from './node-version.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { outdir: { type: 'string' } } });
const outdir = values.outdir === undefined ? join(root, 'dist') : resolve(values.outdir);

export const entryPoints = {
  santra: 'tui/src/bin.ts',
  'santra-server': 'server/src/entry/bin.ts',
  'santra-conformance': 'conformance-tests/src/bin.ts',
};

/**
 * Worker threads, each an entry point of its own (no bin): dist/chunks/<name>.js, found by the
 * module that starts it beside its own chunk (server/src/approval/diff-worker.ts).
 */
const workerEntryPoints = {
  'diff-worker-thread': 'server/src/approval/diff-worker-thread.ts',
  // The scripted server of `santra-conformance client`, which a client under test starts.
  'santra-conformance-server': 'conformance-tests/src/client/server-program.ts',
};

const range = packageJson.engines.node;
const ancient = {
  versions: { node: '0.0.0' },
  version: 'v0.0.0',
  execPath: '',
  stderr: { write: () => true },
};
if (nodeVersionOk(ancient, 'build', range))
  throw new Error(`package.json engines.node must read >=MAJOR.MINOR for the bins' check, not ${range}`);

/**
 * yoga-layout (Ink's layout engine) embeds its WebAssembly as a data: URL and, wherever `fetch` is
 * a function, reads it back with fetch(), which loads Node's undici for that alone: 50 to 150 ms
 * of the TUI's start-up. Without fetch it decodes the same base64 in place (its own fallback).
 * This makes the loader take that path; the build fails if yoga's loader no longer reads as expected.
 */
const YOGA_LOADER = /[\\/]yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/;
const yogaWithoutFetch: Plugin = {
  name: 'yoga-without-fetch',
  setup(builder) {
    builder.onLoad({ filter: YOGA_LOADER }, async ({ path }) => {
      const source = await readFile(path, 'utf8');
      const test = '"function"!=typeof fetch';
      const found = source.split(test).length - 1;
      if (found !== 2)
        throw new Error(
          `${path}: expected ${test} twice, found it ${found} times; update yogaWithoutFetch in scripts/build.ts`,
        );
      return { contents: source.replaceAll(test, '!0'), loader: 'js' };
    });
  },
};

/** dist/<name>.js: the version check, then the program. */
function binSource(name: string): string {
  return [
    '#!/usr/bin/env node',
    `// ${name}: the Node version check (scripts/node-version.js), then the program. Written by scripts/build.ts.`,
    nodeVersionOk.toString(),
    `if (nodeVersionOk(process, ${JSON.stringify(name)}, ${JSON.stringify(range)})) await import('./chunks/${name}.js');`,
    '',
  ].join('\n');
}

// The chunks are built beside the old ones and swapped in by rename: a santra started while this
// build runs (another test run on this checkout) finds the old chunks or the new, never none. Not
// the whole directory: the bins are rewritten in place below (an npm link points at them).
for (const name of Object.keys(entryPoints)) await rm(join(outdir, `${name}.js.map`), { force: true });
const staging = join(outdir, `.staging-${process.pid}`);
await rm(staging, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { ...entryPoints, ...workerEntryPoints },
  outdir: staging,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  // A package's ES module build before its CommonJS one (esbuild's default for node is the other
  // way): jsonc-parser's UMD build requires its parts at run time, which a bundle cannot satisfy.
  mainFields: ['module', 'main'],
  // Ink loads React's devtools only when DEV=true and the package is installed; it is not a
  // dependency, so the import stays unresolved in the bundle (and is never reached).
  // node-pty (@lydell/node-pty, the interactive shells) loads its native binary from beside its own
  // files at run time: bundled, that path would not exist.
  external: ['react-devtools-core', '@lydell/node-pty'],
  plugins: [yogaWithoutFetch],
  // React's production build for the TUI (its development build is twice the size and slower);
  // nothing else in the bundle reads NODE_ENV.
  define: { 'process.env.NODE_ENV': '"production"' },
  target: 'node22',
  entryNames: 'chunks/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  outExtension: { '.js': '.js' },
  sourcemap: 'linked',
  minifySyntax: true,
  metafile: true,
  logLevel: 'warning',
  banner: {
    // Bundled CommonJS dependencies (vscode-jsonrpc) call require() for Node built-ins.
    js: "import { createRequire as __santraCreateRequire } from 'node:module';\nconst require = __santraCreateRequire(import.meta.url);",
  },
});
const retired = join(outdir, `.retired-${process.pid}`);
await rename(join(outdir, 'chunks'), retired).catch((error: NodeJS.ErrnoException) => {
  if (error.code !== 'ENOENT') throw error;
});
await rename(join(staging, 'chunks'), join(outdir, 'chunks'));
await Promise.all([retired, staging].map((dir) => rm(dir, { recursive: true, force: true })));
const sizes: [string, number][] = [];
for (const name of Object.keys(entryPoints)) {
  const bin = join(outdir, `${name}.js`);
  const source = binSource(name);
  await writeFile(bin, source);
  await chmod(bin, 0o755); // whatever the umask, and over a bin an older build left without the bit
  sizes.push([bin, Buffer.byteLength(source)]);
}
for (const [file, output] of Object.entries(result.metafile.outputs))
  if (file.endsWith('.js')) sizes.push([join(outdir, relative(staging, resolve(root, file))), output.bytes]);
for (const [file, bytes] of sizes) {
  process.stderr.write(`  ${relative(root, file).padEnd(44)} ${(bytes / 1024).toFixed(1).padStart(7)} KiB\n`);
}
