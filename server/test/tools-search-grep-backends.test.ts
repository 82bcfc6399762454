/**
 * The two grep backends give the same output: a generated tree (nested ignore files, hidden and
 * binary files, CRLF, Unicode, long lines) searched with many patterns and filters by ripgrep and
 * by the built-in searcher, compared byte for byte. Skipped, saying so, when rg is not on PATH.
 * Also: the built-in searcher yields to the event loop during a large search, and the pattern
 * translation each backend gets.
 */
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { compilePattern } from '../src/tools/grep/pattern.ts';
import { findRipgrep } from '../src/tools/grep/ripgrep.ts';
import { grepSearchTool } from '../src/tools/grep-search.ts';
import { tempWorkspace, testContext } from './helpers/tool-context.ts';

const tool = grepSearchTool();

/** A small deterministic PRNG, so a failure names a tree that can be rebuilt. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

const WORDS = [
  'needle',
  'Needle',
  'NEEDLE',
  'haystack',
  'function',
  'return',
  'const',
  'for',
  'foo',
  'foobar',
  'bar_baz',
  'école',
  'ÉCOLE',
  'Straße',
  'naïve',
  'café',
  '😀',
  'Ωmega',
  'x{2}',
  '{',
  '}',
  '[',
  ']',
  '(',
  ')',
  'a.b',
  'axb',
  'a+b',
  '$HOME',
  '^caret',
  'user@example.com',
  '12345',
  '0x1F',
  'tab\there',
  '-flag',
  'a-z',
  '\\path',
  '#hash',
  'lone\rcr',
  'line\u2028sep',
];

async function generateTree(root: string, seed: number): Promise<void> {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const dirs = [
    '',
    'src',
    'src/lib',
    'src/lib/deep',
    'docs',
    '.config',
    'build',
    'vendor/pkg',
    'tests/fixtures',
  ];
  const rules = [
    '*.log',
    'build/',
    '!keep.log',
    '/vendor',
    'secret*',
    '*.tmp',
    'deep/',
    '!important.tmp',
    'fixtures/*.txt',
  ];
  const files: Record<string, string | Buffer> = {};
  for (const dir of dirs) {
    if (next() < 0.5) files[join(dir, '.gitignore')] = [pick(rules), pick(rules)].join('\n') + '\n';
  }
  files['.ignore'] = 'dot-ignored*\n';
  files['.git/HEAD'] = 'needle\n';
  for (let i = 0; i < 160; i++) {
    const name = `${pick(['file', 'keep', 'secret', 'dot-ignored', '.hidden', 'important', 'data'])}${i}.${pick(['ts', 'js', 'md', 'txt', 'log', 'tmp', 'json'])}`;
    const eol = next() < 0.2 ? '\r\n' : '\n';
    const lines: string[] = [];
    const count = Math.floor(next() * 30);
    for (let l = 0; l < count; l++) {
      const words = Array.from({ length: Math.floor(next() * 8) }, () => pick(WORDS));
      let line = words.join(pick([' ', '  ', '\t', '']));
      if (next() < 0.03) line = line + 'z'.repeat(400) + ' needle';
      lines.push(line);
    }
    let content = lines.join(eol) + (next() < 0.8 ? eol : '');
    if (next() < 0.05) content = '\ufeff' + content;
    files[join(pick(dirs), name)] =
      next() < 0.05 ? Buffer.concat([Buffer.from(content), Buffer.from([0])]) : content;
  }
  // A NUL byte far past the first match: rg prints the match, then a warning that the file is
  // binary; both backends must leave the file out.
  files['late-binary.txt'] = Buffer.concat([
    Buffer.from('needle early\n'),
    Buffer.from('filler line\n'.repeat(40_000)),
    Buffer.from([0]),
    Buffer.from('needle late\n'),
  ]);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
}

const SEARCHES: Array<{ pattern: string; path?: string; filePattern?: string; caseInsensitive?: boolean }> = [
  { pattern: 'needle' },
  { pattern: 'needle', caseInsensitive: true },
  { pattern: '(?i)école' },
  { pattern: 'ÉCOLE|Straße' },
  { pattern: '^needle' },
  { pattern: 'needle$' },
  { pattern: '^$' },
  { pattern: '^\\s*$' },
  { pattern: '.*' },
  { pattern: '\\bfoo\\b' },
  { pattern: '\\Bbar' },
  { pattern: '\\d{3,}' },
  { pattern: '\\w+@\\w+\\.com' },
  { pattern: '[\\w-]+flag' },
  { pattern: '[^a-z ]{3}' },
  { pattern: '[[:upper:]]{4}' },
  { pattern: '[[:punct:]]\\$' },
  { pattern: '\\p{L}+ß' },
  { pattern: '\\x41|\\u00e9|\\x{1F600}' },
  { pattern: 'x\\{2\\}|{|}|\\]' },
  { pattern: 'a.b' },
  { pattern: 'a\\.b' },
  { pattern: 'a\\+b' },
  { pattern: '(?:foo)+bar' },
  { pattern: '(?<word>haystack)\\s+for' },
  { pattern: 'tab\\there' },
  { pattern: '\\\\path' },
  { pattern: 'z{100,}' },
  { pattern: 'return\\s+const\\s*$' },
  { pattern: '\\w+\\(' },
  { pattern: 'lone.cr|^cr|lone$|line.sep|^sep|line$' },
  { pattern: 'lone\\scr' },
  { pattern: '\\s+$' },
  { pattern: '[a-z]+_baz' },
  { pattern: 'z*needle$' },
  { pattern: '.+?ω', caseInsensitive: true },
  { pattern: 'needle', filePattern: '*.ts' },
  { pattern: 'needle', filePattern: '*.{md,json}' },
  { pattern: 'needle', filePattern: 'src/**/*.js' },
  { pattern: 'needle', filePattern: '**/data*' },
  { pattern: 'needle', path: 'src' },
  { pattern: 'needle', path: 'src/lib', caseInsensitive: true },
  { pattern: 'needle', path: 'vendor' },
  { pattern: 'needle', path: 'build' },
];

describe(
  'grep_search backends give the same output',
  // rg is part of the test environment (.ci/run installs it): without it this fails, not skips.
  () => {
    test('rg is on PATH (.ci/run installs it)', () => assert.ok(findRipgrep(), 'install ripgrep'));
    const roots: string[] = [];
    before(async () => {
      for (const seed of [1, 2, 3]) {
        const root = await tempWorkspace(`santra-grep-same-${seed}-`);
        await generateTree(root, seed);
        roots.push(root);
      }
    });
    after(() => Promise.all(roots.map((root) => rm(root, { recursive: true, force: true }))));

    test('every search, on three generated trees', async () => {
      let compared = 0;
      for (const [index, root] of roots.entries()) {
        const withRg = await testContext(root, { settings: { useRipgrep: true } });
        const builtin = await testContext(root, { settings: { useRipgrep: false } });
        for (const search of SEARCHES) {
          const expected = await tool.execute(search, withRg);
          const actual = await tool.execute(search, builtin);
          assert.equal(actual.output, expected.output, `tree ${index + 1}: ${JSON.stringify(search)}`);
          assert.equal(actual.summary, expected.summary);
          if (expected.summary !== 'no matches') compared++;
        }
      }
      const needles = await tool.execute({ pattern: 'needle' }, await testContext(roots[0] as string));
      assert.doesNotMatch(needles.output, /late-binary/);
      // The trees are built so that most searches find something: the comparison is not between empty results.
      assert.ok(compared > SEARCHES.length * 2, `only ${compared} searches found anything`);
    });
  },
);

describe('the built-in searcher', () => {
  let root: string;
  before(async () => {
    root = await tempWorkspace('santra-grep-loop-');
    for (let d = 0; d < 30; d++) {
      await mkdir(join(root, `dir${d}`));
      await Promise.all(
        Array.from({ length: 100 }, (_, f) =>
          writeFile(
            join(root, `dir${d}`, `f${f}.txt`),
            `line one\n${'filler text\n'.repeat(200)}needle ${d}/${f}\n`,
          ),
        ),
      );
    }
  });
  after(() => rm(root, { recursive: true, force: true }));

  test('yields to the event loop during a large search: a timer keeps ticking', async () => {
    const context = await testContext(root, { settings: { useRipgrep: false } });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    let result;
    try {
      result = await tool.execute({ pattern: 'needle \\d+/\\d+' }, context);
    } finally {
      clearInterval(timer);
    }
    assert.equal(result.summary, '3000 matches in 3000 files (200 shown)');
    // 3000 files and a yield at least every 256: a search that blocked would let the timer run at most once.
    assert.ok(ticks >= 3, `the timer ticked ${ticks} times`);
  });

  test('stops when cancelled mid-search', async () => {
    const context = await testContext(root, { settings: { useRipgrep: false } });
    setImmediate(() => context.abort());
    const result = await tool.execute({ pattern: 'needle' }, context);
    assert.equal(result.errorType, 'cancelled');
  });
});

describe('pattern translation', () => {
  const compiled = (source: string, ci = false) => {
    const result = compilePattern(source, ci);
    assert.ok(result.ok, `${source}: ${result.ok ? '' : result.message}`);
    return result.pattern;
  };

  test('ripgrep gets ASCII \\d \\w \\b, Rust group names and escaped literals; JavaScript its own forms', () => {
    assert.equal(compiled('\\d+\\w\\b').rg, '[0-9]+[0-9A-Za-z_](?-u:\\b)');
    assert.equal(compiled('[\\w-]').rg, '[0-9A-Za-z_\\-]');
    assert.equal(compiled('(?<name>x)').rg, '(?P<name>x)');
    assert.equal(compiled('(?P<name>x)').line.source, '(?<name>x)');
    assert.equal(compiled('{a}]').rg, '\\{a\\}\\]');
    assert.equal(compiled('a.b').line.source, 'a[^\\n\\r]b');
    assert.equal(compiled('\\x{e9}').rg, '\\x{e9}');
    assert.equal(compiled('\\p{Greek}').line.source, '\\p{Script=Greek}');
    assert.equal(compiled('[[:alpha:]]').line.source, '[A-Za-z]');
  });

  test('the scan drops what a leading X+ or X* adds only to where a match starts', () => {
    assert.equal(compiled('\\w+\\(').scan.source, '\\w\\(');
    assert.equal(compiled('\\w+\\(').line.source, '\\w+\\(');
    assert.equal(compiled('(?i)\\s*$').scan.source, '$');
    assert.equal(compiled('a+?b').scan.source, 'ab');
    assert.equal(compiled('(a)+b').scan.source, '(a)+b');
  });

  test('in JavaScript as in ripgrep --crlf, nothing matches a carriage return', () => {
    for (const source of ['a\\sb', 'a\\Wb', 'a\\Db', 'a[^x]b', 'a.b', 'a\\P{L}b', 'a[[:space:]]b']) {
      assert.equal(compiled(source).line.test('a\rb'), false, source);
      assert.equal(compiled(source).line.test('a\u00A0b'), source !== 'a[[:space:]]b', source);
    }
  });

  test('a leading (?i) makes the search case-insensitive', () => {
    const pattern = compiled('(?i)abc');
    assert.equal(pattern.caseInsensitive, true);
    assert.equal(pattern.rg, 'abc');
    assert.ok(pattern.line.test('ABC'));
  });

  test('the literal every match holds is found, and only where it is safe to rely on', () => {
    assert.equal(compiled('foo\\s+barbaz').literal, 'barbaz');
    assert.equal(compiled('ab?cd').literal, 'cd');
    assert.equal(compiled('a+bc').literal, 'bc');
    assert.equal(compiled('foo|bar').literal, undefined);
    assert.equal(compiled('x(foo|bar)yz').literal, 'yz');
    assert.equal(compiled('foo', true).literal, undefined);
    assert.equal(compiled('1234', true).literal, '1234');
  });

  test('what the engines cannot agree on is refused with a reason', () => {
    for (const [source, reason] of [
      ['(?<=a)b', /look-ahead and look-behind/],
      ['(?!a)', /look-ahead and look-behind/],
      ['\\k<n>', /backreferences/],
      ['\\A', /\\A is not supported/],
      ['(?s).', /\(\?…\) groups supported/],
      ['x\\', /lone backslash/],
      ['a\\r', /each line is matched on its own/],
      ['a\\x0d', /is a line break/],
      ['\\p{Nonsense}', /not a Unicode property/],
      ['[[:^alpha:]]', /not a supported POSIX class/],
    ] as const) {
      const result = compilePattern(source, false);
      assert.equal(result.ok, false, source);
      if (!result.ok) assert.match(result.message, reason);
    }
  });
});
