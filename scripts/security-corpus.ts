/**
 * Runs the bypass corpus (server/test/helpers/bypass-corpus.ts) and writes its counts into
 * docs/security.md between the generated-block markers. Exits 1 when any variant ran unasked and
 * did more than read the workspace, or when the markers are missing.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { renderCounts, runCorpus, spliceCounts } from '../server/test/helpers/bypass-corpus.ts';

const DOC = new URL('../docs/security.md', import.meta.url);

const report = await runCorpus();
const doc = await readFile(DOC, 'utf8');
const updated = spliceCounts(doc, renderCounts(report));
if (updated === undefined) {
  console.error('docs/security.md has no bypass-corpus markers.');
  process.exit(1);
}
if (updated !== doc) await writeFile(DOC, updated);
const { tried, autoAllowed, asked, executedUnasked } = report.total;
console.log(
  `${tried} variants: ${autoAllowed} allowed unasked, ${asked} asked, ${executedUnasked} ran unasked and did more than read the workspace.`,
);
for (const breach of report.breaches) console.error(`BREACH: ${JSON.stringify(breach)}`);
if (executedUnasked > 0) process.exit(1);
