/**
 * Writes the files generated from protocol-spec/src, or with --check, fails when any checked-in
 * copy differs from what the source renders.
 *   node scripts/generate-protocol.ts           regenerate
 *   node scripts/generate-protocol.ts --check   verify (part of npm run check)
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderArtifacts, staleArtifacts } from './protocol-artifacts.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

if (process.argv.includes('--check')) {
  const stale = await staleArtifacts(root);
  if (stale.length > 0) {
    process.stderr.write(
      `Generated protocol files are out of date with protocol-spec/src:\n${stale.map((f) => `  ${f}`).join('\n')}\nRun: npm run generate\n`,
    );
    process.exit(1);
  }
} else {
  for (const [file, content] of await renderArtifacts(root)) {
    await writeFile(join(root, file), content);
    process.stderr.write(`wrote ${file}\n`);
  }
}
