/**
 * The bypass corpus (helpers/bypass-corpus.ts) in CI: no variant may run unasked and do more
 * than read, the corpus must be able to see a breach, and the counts in docs/security.md must be
 * the ones this run produces (`npm run security:corpus` rewrites them).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { before, describe, test } from 'node:test';
import { type CorpusReport, renderCounts, runCorpus, spliceCounts } from './helpers/bypass-corpus.ts';

const DOC = new URL('../../docs/security.md', import.meta.url);

describe('the bypass corpus', () => {
  let report: CorpusReport;
  before(async () => {
    report = await runCorpus();
  });

  test('nothing that ran unasked did more than read the workspace', () => {
    assert.deepEqual(report.breaches, []);
    assert.equal(report.total.executedUnasked, 0);
  });

  test('it runs what the policy allows (the plain commands), so it could see a breach', () => {
    assert.equal(report.families.get('plain')?.autoAllowed, report.families.get('plain')?.tried);
    assert.ok(report.total.tried > 1000, `${report.total.tried} variants`);
  });

  test('docs/security.md shows the counts of this run', async () => {
    const doc = await readFile(DOC, 'utf8');
    const block = renderCounts(report);
    assert.equal(spliceCounts(doc, block), doc, 'stale: run npm run security:corpus');
  });
});

test('a breach is seen: with touch on the allowlist, `touch pwned` runs unasked and is counted', async () => {
  const report = await runCorpus([{ family: 'x', command: 'touch pwned' }], ['touch']);
  assert.equal(report.total.autoAllowed, 1);
  assert.equal(report.total.executedUnasked, 1);
  assert.deepEqual(report.breaches, [{ family: 'x', command: 'touch pwned' }]);
});
