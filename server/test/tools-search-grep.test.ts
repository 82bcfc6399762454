/**
 * grep_search on real temp trees, every case run with ripgrep and with the built-in searcher
 * (.ci/run installs rg; without it the ripgrep cases fail). The cases assert the exact output, so
 * both backends are held to the same lines.
 */
import assert from 'node:assert/strict';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { grepSearchTool } from '../src/tools/grep-search.ts';
import { findRipgrep } from '../src/tools/grep/ripgrep.ts';
import type { ToolResult } from '../src/tools/types.ts';
import { tempWorkspace, testContext } from './helpers/tool-context.ts';

// rg is part of the test environment (.ci/run installs it): without it these tests fail, not skip.
const BACKENDS = [
  { name: 'ripgrep', useRipgrep: true },
  { name: 'built-in', useRipgrep: false },
] as const;
const tool = grepSearchTool();

async function writeTree(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
}

type Args = { pattern: string; path?: string; filePattern?: string; caseInsensitive?: boolean };

for (const backend of BACKENDS) {
  describe(`grep_search (${backend.name})`, () => {
    if (backend.useRipgrep)
      test('rg is on PATH (.ci/run installs it)', () => assert.ok(findRipgrep(), 'install ripgrep'));
    let parent: string;
    let root: string;
    const grep = async (
      args: Args,
      prepare?: (context: Awaited<ReturnType<typeof testContext>>) => void,
    ): Promise<ToolResult> => {
      const context = await testContext(root, { settings: { useRipgrep: backend.useRipgrep } });
      prepare?.(context);
      return tool.execute(args, context);
    };

    before(async () => {
      parent = await tempWorkspace('santra-grep-');
      root = join(parent, 'proj');
      await writeTree(parent, {
        // Above the workspaces: applies to plain/ (no .git), not to proj/ (a git repository).
        '.gitignore': '*.above\n',
        'plain/x.above': 'needle ignored from above\n',
        'plain/y.txt': 'needle\n',
        'proj-evil/secret.txt': 'needle in the sibling\n',
        'outside/secret.txt': 'needle outside\n',
      });
      await writeTree(root, {
        '.gitignore': 'build/\n*.log\n!keep.log\n/dist\nnode_modules\n',
        '.ignore': 'dot-ignored.txt\n',
        'src/app.ts': 'import x from "y";\nexport function needle() {}\n// needle again\n',
        'src/util.ts': 'const Needle = 1;\nexport const other = 2;\n',
        'src/.gitignore': 'generated.ts\n',
        'src/generated.ts': 'needle generated\n',
        'src/deep/nested/file.md': '# needle in markdown\n',
        'src/dist/kept.js': 'needle in src/dist: the /dist rule is anchored\n',
        'src/build/out.js': 'needle in a build dir\n',
        'dist/bundle.js': 'needle in dist\n',
        'app.log': 'needle in a log\n',
        'keep.log': 'needle kept by negation\n',
        'x.above': 'needle ignored from above\n',
        'dot-ignored.txt': 'needle in .ignore\n',
        'sub/.rgignore': 'local.txt\n',
        'sub/local.txt': 'needle in .rgignore\n',
        'sub/other.txt': 'needle beside it\n',
        '.github/ci.yml': 'run: needle\n',
        '.git/config': 'needle in .git\n',
        'node_modules/pkg/index.js': 'needle in a dependency\n',
        'node_modules/pkg/node_modules/inner/x.js': 'needle nested dependency\n',
        'binary.dat': Buffer.concat([
          Buffer.from('needle'),
          Buffer.from([0, 1, 2, 3]),
          Buffer.from('needle\n'),
        ]),
        'unicode.txt': 'Straße\nÉCOLE école\nnaïve café 😀 needle\n',
        'crlf.txt': 'first needle\r\nsecond line\r\n',
        'bom.txt': '\ufeffneedle at the start\n',
        'utf16.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('needle in utf-16\n', 'utf16le')]),
      });
      await writeFile(join(root, 'big.txt'), `needle big\n${'x'.repeat(2 * 1024 * 1024)}\n`);
      await symlink(join(parent, 'outside', 'secret.txt'), join(root, 'link-out.txt'));
      await symlink(join(parent, 'outside'), join(root, 'link-dir'));
    });
    after(() => rm(parent, { recursive: true, force: true }));

    test('lists matching lines as path:line: text, sorted by path then line, honouring every ignore file', async () => {
      const result = await grep({ pattern: 'needle' });
      assert.equal(result.isError, undefined);
      assert.equal(
        result.output,
        [
          '.github/ci.yml:1: run: needle',
          'bom.txt:1: needle at the start',
          'crlf.txt:1: first needle',
          'keep.log:1: needle kept by negation',
          'src/app.ts:2: export function needle() {}',
          'src/app.ts:3: // needle again',
          'src/deep/nested/file.md:1: # needle in markdown',
          'src/dist/kept.js:1: needle in src/dist: the /dist rule is anchored',
          'sub/other.txt:1: needle beside it',
          'unicode.txt:3: naïve café 😀 needle',
          'utf16.txt:1: needle in utf-16',
          'x.above:1: needle ignored from above',
          '',
          '[1 file over 2 MB not searched: big.txt. Read a part of one with read_file (startLine/endLine), or search it with run_command and grep.]',
        ].join('\n'),
      );
      assert.equal(result.summary, '12 matches in 11 files');
    });

    test('.gitignore files above the workspace apply up to the nearest directory holding .git', async () => {
      const context = await testContext(join(parent, 'plain'), {
        settings: { useRipgrep: backend.useRipgrep },
      });
      assert.equal((await tool.execute({ pattern: 'needle' }, context)).output, 'y.txt:1: needle');
    });

    test('a case-insensitive search folds Unicode case', async () => {
      const result = await grep({ pattern: 'école', caseInsensitive: true, path: 'unicode.txt' });
      assert.equal(result.output, 'unicode.txt:2: ÉCOLE école');
      const leading = await grep({ pattern: '(?i)NEEDLE', path: 'src/util.ts' });
      assert.equal(leading.output, 'src/util.ts:1: const Needle = 1;');
      const sensitive = await grep({ pattern: 'NEEDLE', path: 'src' });
      assert.equal(sensitive.summary, 'no matches');
    });

    test('filePattern: a name glob, braces, and a path glob', async () => {
      assert.equal(
        (await grep({ pattern: 'needle', filePattern: '*.ts' })).output,
        'src/app.ts:2: export function needle() {}\nsrc/app.ts:3: // needle again',
      );
      const braces = await grep({ pattern: 'needle', filePattern: '*.{md,yml}' });
      assert.equal(
        braces.output,
        '.github/ci.yml:1: run: needle\nsrc/deep/nested/file.md:1: # needle in markdown',
      );
      const paths = await grep({ pattern: 'needle', filePattern: 'src/**/*.js' });
      assert.equal(paths.output, 'src/dist/kept.js:1: needle in src/dist: the /dist rule is anchored');
    });

    test('path narrows the search to a directory or a file', async () => {
      assert.equal(
        (await grep({ pattern: 'needle', path: 'src/deep' })).output,
        'src/deep/nested/file.md:1: # needle in markdown',
      );
      assert.equal(
        (await grep({ pattern: 'other', path: 'src/util.ts' })).output,
        'src/util.ts:2: export const other = 2;',
      );
      // Inside a directory's own .gitignore rules when searching it directly.
      assert.equal((await grep({ pattern: 'needle', path: 'src' })).summary, '4 matches in 3 files');
    });

    test('a directory named explicitly is searched even when ignored; ignore rules still apply inside it', async () => {
      const result = await grep({ pattern: 'needle', path: 'node_modules/pkg' });
      assert.equal(result.output, 'node_modules/pkg/index.js:1: needle in a dependency');
    });

    test('a binary file named as path is refused; one over 2 MB too', async () => {
      const binary = await grep({ pattern: 'needle', path: 'binary.dat' });
      assert.equal(binary.errorType, 'binary_file');
      const big = await grep({ pattern: 'needle', path: 'big.txt' });
      assert.equal(big.errorType, 'too_large');
      assert.match(big.output, /2 MB/);
    });

    test('CRLF counts as one line break for $ and in the text shown', async () => {
      const result = await grep({ pattern: 'needle$', path: 'crlf.txt' });
      assert.equal(result.output, 'crlf.txt:1: first needle');
      assert.equal(
        (await grep({ pattern: '^needle', path: 'bom.txt' })).output,
        'bom.txt:1: needle at the start',
      );
    });

    test('more than 200 matching lines: the first 200 shown, the total stated; long lines cut', async () => {
      await writeTree(root, {
        'many/a.txt': Array.from({ length: 150 }, (_, i) => `hit ${i}`).join('\n'),
        'many/b.txt': Array.from({ length: 150 }, (_, i) => `hit ${i}`).join('\n'),
        'many/long.txt': `${'é'.repeat(100)}hit${'y'.repeat(1000)}\n`,
      });
      const result = await grep({ pattern: 'hit', path: 'many' });
      const lines = result.output.split('\n');
      assert.equal(lines[0], 'many/a.txt:1: hit 0');
      assert.equal(lines[199], 'many/b.txt:50: hit 49');
      assert.match(result.output, /\[200 of 301 matching lines \(in 3 files\) shown/);
      assert.equal(result.summary, '301 matches in 3 files (200 shown)');
      const long = await grep({ pattern: 'hit', path: 'many/long.txt' });
      assert.equal(long.output.split('\n')[0], `many/long.txt:1: ${'é'.repeat(100)}hit${'y'.repeat(197)}…`);
      assert.match(long.output, /longer than 300 characters are cut/);
    });

    test('paths outside the workspace are refused', async () => {
      for (const path of [
        '../outside',
        join(parent, 'outside'),
        '../proj-evil',
        join(parent, 'proj-evil', 'secret.txt'),
        'link-out.txt',
        'link-dir',
      ]) {
        const result = await grep({ pattern: 'needle', path });
        assert.equal(result.errorType, 'outside_workspace', path);
      }
      assert.equal((await grep({ pattern: 'needle', path: 'src\u0000' })).errorType, 'invalid_path');
      assert.equal((await grep({ pattern: 'needle', path: 'missing' })).errorType, 'not_found');
    });

    test('invalid and unsupported patterns get a clear invalid_regex error', async () => {
      const cases: Array<[string, RegExp]> = [
        ['foo(', /Invalid regular expression "foo\(":/],
        ['[abc', /never closed/],
        ['(?=x)y', /look-ahead/],
        ['(a)\\1', /backreferences/],
        ['a\\nb', /each line is matched on its own/],
        ['\\Qx', /\\Q is not supported/],
      ];
      for (const [pattern, message] of cases) {
        const result = await grep({ pattern });
        assert.equal(result.errorType, 'invalid_regex', pattern);
        assert.match(result.output, message);
      }
      assert.equal((await grep({ pattern: 'x', filePattern: '*.[ts' })).errorType, 'invalid_glob');
    });

    test('a cancelled search reports cancelled', async () => {
      const result = await grep({ pattern: 'needle' }, (context) => context.abort());
      assert.equal(result.errorType, 'cancelled');
    });
  });
}
