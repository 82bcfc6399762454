/**
 * The bypass corpus (helpers/bypass-corpus.ts) in CI: no variant may run unasked and do more
 * than read, the corpus must be able to see a breach, and the counts in docs/security.md must be
 * the ones this run produces (`npm run security:corpus` rewrites them). Its protected part
 * (helpers/bypass-corpus-protected.ts) runs after allow-all: nothing that reaches where git runs
 * code — through quotes, globs, cd, links, core.hooksPath or a git subcommand — may run unasked,
 * and harmless neighbours must.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { before, describe, test } from 'node:test';
import { type CorpusReport, renderCounts, runCorpus, spliceCounts } from './helpers/bypass-corpus.ts';
import { protectedCorpus, runProtectedCorpus } from './helpers/bypass-corpus-protected.ts';

const DOC = new URL('../../docs/security.md', import.meta.url);

describe('the bypass corpus', () => {
  let report: CorpusReport;
  let protectedReport: CorpusReport;
  before(async () => {
    report = await runCorpus();
    protectedReport = await runProtectedCorpus();
  });

  test('nothing that ran unasked did more than read the workspace', () => {
    assert.deepEqual(report.breaches, []);
    assert.equal(report.total.executedUnasked, 0);
  });

  test('it runs what the policy allows (the plain commands), so it could see a breach', () => {
    assert.equal(report.families.get('plain')?.autoAllowed, report.families.get('plain')?.tried);
    assert.ok(report.total.tried > 1000, `${report.total.tried} variants`);
  });

  test('after allow-all, nothing that ran unasked changed where git runs code', () => {
    assert.deepEqual(protectedReport.breaches, []);
    assert.equal(protectedReport.total.executedUnasked, 0);
    for (const family of ['quoting', 'symlink', 'hooksPath', 'cd', 'git', 'unreadable']) {
      const counts = protectedReport.families.get(`protected: ${family}`);
      assert.ok(counts !== undefined && counts.tried > 0, family);
      assert.equal(counts.asked, counts.tried, `every ${family} variant is asked`);
    }
  });

  test('after allow-all, the harmless neighbours run unasked, so the corpus could see a breach', () => {
    const neighbours = protectedReport.families.get('neighbours (control)');
    assert.ok(neighbours !== undefined && neighbours.tried > 0);
    assert.equal(neighbours.autoAllowed, neighbours.tried);
  });

  test('docs/security.md shows the counts of this run', async () => {
    const doc = await readFile(DOC, 'utf8');
    const block = renderCounts(report, protectedReport);
    assert.equal(spliceCounts(doc, block), doc, 'stale: run npm run security:corpus');
  });
});

test('a breach is seen: with touch on the allowlist, `touch pwned` runs unasked and is counted', async () => {
  const report = await runCorpus([{ family: 'x', command: 'touch pwned' }], ['touch']);
  assert.equal(report.total.autoAllowed, 1);
  assert.equal(report.total.executedUnasked, 1);
  assert.deepEqual(report.breaches, [{ family: 'x', command: 'touch pwned' }]);
});

test('a breach after allow-all is seen: with the protected rules off, the protected variants run and are counted', async () => {
  const variants = protectedCorpus().filter((variant) => variant.family !== 'neighbours (control)');
  const report = await runProtectedCorpus(variants, { protection: false });
  assert.equal(report.total.asked, 0);
  for (const family of ['quoting', 'glob', 'symlink', 'hooksPath', 'cd', 'git', 'unreadable'])
    assert.ok(
      (report.families.get(`protected: ${family}`)?.executedUnasked ?? 0) > 0,
      `a ${family} variant changed where git runs code`,
    );
});
