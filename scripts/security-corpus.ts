/**
 * Runs the bypass corpus (server/test/helpers/bypass-corpus.ts, and its protected part after
 * allow-all, bypass-corpus-protected.ts) and writes the counts into docs/security.md between the
 * generated-block markers. Exits 1 when any variant ran unasked and did more than read the
 * workspace (or, after allow-all, changed where git runs code), or when the markers are missing.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { renderCounts, runCorpus, spliceCounts } from '../server/test/helpers/bypass-corpus.ts';
import { runProtectedCorpus } from '../server/test/helpers/bypass-corpus-protected.ts';

const DOC = new URL('../docs/security.md', import.meta.url);

const report = await runCorpus();
const protectedReport = await runProtectedCorpus();
const doc = await readFile(DOC, 'utf8');
const updated = spliceCounts(doc, renderCounts(report, protectedReport));
if (updated === undefined) {
  console.error('docs/security.md has no bypass-corpus markers.');
  process.exit(1);
}
if (updated !== doc) await writeFile(DOC, updated);
const { tried, autoAllowed, asked, executedUnasked } = report.total;
console.log(
  `${tried} variants: ${autoAllowed} allowed unasked, ${asked} asked, ${executedUnasked} ran unasked and did more than read the workspace.`,
);
const guarded = protectedReport.total;
console.log(
  `After allow-all, ${guarded.tried} variants: ${guarded.asked} asked as protected, ${guarded.autoAllowed} ran unasked, ${guarded.executedUnasked} of them changed where git runs code.`,
);
for (const breach of [...report.breaches, ...protectedReport.breaches])
  console.error(`BREACH: ${JSON.stringify(breach)}`);
if (executedUnasked > 0 || guarded.executedUnasked > 0) process.exit(1);
