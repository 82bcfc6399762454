/**
 * Bundles the three programs into dist/ with esbuild. Each entry is a small bin module that
 * answers --version/--help at once and imports the rest on demand (a separate chunk), so start-up
 * only pays for what it uses.
 */
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

export const entryPoints = {
  santra: 'tui/src/bin.ts',
  'santra-server': 'server/src/bin.ts',
  'santra-conformance': 'conformance-tests/src/bin.ts',
};

await rm(`${root}/dist`, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints,
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  outExtension: { '.js': '.js' },
  sourcemap: 'linked',
  minifySyntax: true,
  metafile: true,
  logLevel: 'warning',
  banner: {
    // Bundled CommonJS dependencies (vscode-jsonrpc) call require() for Node built-ins.
    js: "#!/usr/bin/env node\nimport { createRequire as __santraCreateRequire } from 'node:module';\nconst require = __santraCreateRequire(import.meta.url);",
  },
});
const outputs = Object.entries(result.metafile.outputs).filter(([file]) => file.endsWith('.js'));
for (const [file, output] of outputs) {
  process.stderr.write(`  ${file.padEnd(44)} ${(output.bytes / 1024).toFixed(1).padStart(7)} KiB\n`);
}
