/** JUnit XML for CI, as both modes write it: a test suite per section, a test case per requirement. */

/** `text` as XML character data or an attribute value (characters XML cannot hold are dropped). */
export function xml(text: string): string {
  return text
    .replace(/[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** One test case: a requirement, with the suite (its section) it belongs to. */
export interface JunitCase {
  suite: string;
  classname: string;
  name: string;
  /** A failed case: the failure's one-line message and its full text. */
  failure?: { message: string; body: string };
  /** A case that neither passed nor failed: why. */
  skipped?: string;
}

/** The document `<testsuites name>` of `cases`, a suite per `suite` in the order they first appear. */
export function junitXml(name: string, cases: readonly JunitCase[]): string {
  const suites = new Map<string, JunitCase[]>();
  for (const testCase of cases) {
    const list = suites.get(testCase.suite) ?? [];
    list.push(testCase);
    suites.set(testCase.suite, list);
  }
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="${xml(name)}">`];
  for (const [suite, list] of suites) {
    const failures = list.filter((c) => c.failure !== undefined).length;
    const skipped = list.filter((c) => c.failure === undefined && c.skipped !== undefined).length;
    out.push(
      `  <testsuite name="${xml(suite)}" tests="${list.length}" failures="${failures}" skipped="${skipped}">`,
    );
    for (const c of list) {
      out.push(`    <testcase classname="${xml(c.classname)}" name="${xml(c.name)}">`);
      if (c.failure !== undefined)
        out.push(`      <failure message="${xml(c.failure.message)}">${xml(c.failure.body)}</failure>`);
      else if (c.skipped !== undefined) out.push(`      <skipped message="${xml(c.skipped)}"/>`);
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}
