import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { put, run, tools } from './helpers/file-tools.ts';
import { tempWorkspace, testContext } from './helpers/tool-context.ts';

const PNG = Uint8Array.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52,
]);

describe('read_file', () => {
  test('numbers every line, right-aligned, with one format', async () => {
    const root = await tempWorkspace();
    await put(root, 'a.txt', 'alpha\n\tbeta\ngamma\n');
    const result = await run(await testContext(root), 'read_file', { path: 'a.txt' });
    assert.equal(result.isError, undefined);
    assert.equal(result.output, '    1│ alpha\n    2│ \tbeta\n    3│ gamma');
    assert.equal(result.summary, '3 lines');
  });

  test('a range is inclusive and says where it sits; endLine past the end is clamped and said', async () => {
    const root = await tempWorkspace();
    await put(root, 'a.txt', ['one', 'two', 'three', 'four', 'five'].join('\n'));
    const context = await testContext(root);
    const middle = await run(context, 'read_file', { path: 'a.txt', startLine: 2, endLine: 3 });
    assert.equal(middle.output, '    2│ two\n    3│ three\n[Lines 2–3 of 5.]');
    assert.equal(middle.summary, 'lines 2–3 of 5');
    const tail = await run(context, 'read_file', { path: 'a.txt', startLine: 4, endLine: 99 });
    assert.match(tail.output, /^ {4}4│ four\n {4}5│ five\n\[Lines 4–5 of 5: the file ends at line 5\.\]$/);
  });

  test('out-of-range lines are an error that gives the line count', async () => {
    const root = await tempWorkspace();
    await put(root, 'a.txt', 'one\ntwo\n');
    const context = await testContext(root);
    const past = await run(context, 'read_file', { path: 'a.txt', startLine: 3 });
    assert.equal(past.errorType, 'out_of_range');
    assert.match(past.output, /has 2 lines; startLine 3 is past the end/);
    const backwards = await run(context, 'read_file', { path: 'a.txt', startLine: 2, endLine: 1 });
    assert.equal(backwards.errorType, 'out_of_range');
    assert.match(backwards.output, /endLine 1 is before startLine 2/);
    assert.throws(
      () => tools.get('read_file')?.parameters.parse({ path: 'a.txt', startLine: 0 }),
      'lines are 1-based',
    );
  });

  test('a 50,000-line file: 40 KB per read, the continuation line stated, ranges exact', async () => {
    const root = await tempWorkspace();
    const lines = Array.from({ length: 50_000 }, (_, index) => `line ${index + 1} ${'x'.repeat(20)}`);
    await put(root, 'big.txt', `${lines.join('\n')}\n`);
    const context = await testContext(root);

    const first = await run(context, 'read_file', { path: 'big.txt' });
    const match = /Continue with startLine (\d+)\.\]$/.exec(first.output);
    assert.ok(match, first.output.slice(-300));
    const next = Number(match[1]);
    const shown = first.output.split('\n').filter((line) => line.includes('│'));
    assert.equal(shown.length, next - 1, 'every line before the continuation point is shown');
    const contentBytes = shown.reduce(
      (sum, line) => sum + Buffer.byteLength(line.slice(line.indexOf('│') + 2)) + 1,
      0,
    );
    assert.ok(contentBytes <= 40 * 1024, `${contentBytes} bytes of content`);
    assert.ok(contentBytes > 39 * 1024, 'the limit is used, not wasted');
    assert.match(first.output, new RegExp(`Showing lines 1–${next - 1} of 50000`));
    assert.equal(first.summary, `lines 1–${next - 1} of 50000 (truncated)`);

    const continued = await run(context, 'read_file', { path: 'big.txt', startLine: next });
    assert.ok(
      continued.output.startsWith(`${String(next).padStart(5)}│ line ${next} `),
      continued.output.slice(0, 80),
    );

    const slice = await run(context, 'read_file', { path: 'big.txt', startLine: 25_000, endLine: 25_002 });
    assert.equal(
      slice.output,
      `25000│ ${lines[24_999]}\n25001│ ${lines[25_000]}\n25002│ ${lines[25_001]}\n[Lines 25000–25002 of 50000.]`,
    );
    const end = await run(context, 'read_file', { path: 'big.txt', startLine: 49_999 });
    assert.equal(
      end.output,
      `49999│ ${lines[49_998]}\n50000│ ${lines[49_999]}\n[Lines 49999–50000 of 50000.]`,
    );
  });

  test('one line longer than 40 KB shows its head and says so', async () => {
    const root = await tempWorkspace();
    await put(root, 'min.js', `${'é'.repeat(60_000)}\nsecond\n`);
    const result = await run(await testContext(root), 'read_file', { path: 'min.js' });
    assert.match(result.output, /Line 1 is 117\.2 KB long; only its first 40 KB is shown/);
    assert.match(result.output, /Continue with startLine 2\./);
    const shownLine = result.output.split('\n')[0] ?? '';
    assert.ok(!shownLine.includes('\uFFFD'), 'a character is never cut in half');
    assert.ok(Buffer.byteLength(shownLine) <= 40 * 1024 + 10);
  });

  test('empty files, CRLF and a few invalid UTF-8 bytes', async () => {
    const root = await tempWorkspace();
    await put(root, 'empty.txt', '');
    await put(root, 'dos.txt', 'one\r\ntwo\r\n');
    await put(root, 'latin1.txt', Buffer.from('caf\xe9 au lait\nna\xefve\n', 'latin1'));
    const context = await testContext(root);
    const empty = await run(context, 'read_file', { path: 'empty.txt' });
    assert.equal(empty.output, 'empty.txt is empty.');
    const dos = await run(context, 'read_file', { path: 'dos.txt' });
    assert.equal(dos.output, '    1│ one\n    2│ two\n[The file has CRLF line endings (not shown above).]');
    const latin = await run(context, 'read_file', { path: 'latin1.txt' });
    assert.equal(latin.isError, undefined);
    assert.match(latin.output, /caf\uFFFD au lait/);
    assert.match(latin.output, /not valid UTF-8/);
  });

  test('binary files are refused with their size and type', async () => {
    const root = await tempWorkspace();
    await put(root, 'logo.png', PNG);
    await put(
      root,
      'noise.dat',
      Uint8Array.from({ length: 4096 }, (_, index) => 0x80 + (index % 0x7f)),
    );
    const context = await testContext(root);
    const png = await run(context, 'read_file', { path: 'logo.png' });
    assert.equal(png.errorType, 'binary_file');
    assert.match(png.output, /logo\.png is a binary file \(PNG image, 16 B\)/);
    const noise = await run(context, 'read_file', { path: 'noise.dat' });
    assert.equal(noise.errorType, 'binary_file', 'invalid UTF-8 throughout, no NUL');
    assert.match(noise.output, /binary data \(\.dat file\), 4\.0 KB/);
  });

  test('a file over 16 MB is not loaded; the message says how to get at it', async () => {
    const root = await tempWorkspace();
    await put(root, 'huge.log', Buffer.alloc(17 * 1024 * 1024, 'a\n'));
    const result = await run(await testContext(root), 'read_file', { path: 'huge.log' });
    assert.equal(result.errorType, 'too_large');
    assert.match(
      result.output,
      /huge\.log is 17\.0 MB, more than read_file loads \(16\.0 MB\)\. Find what you need with grep_search/,
    );
  });

  test('directories, missing files (with the closest names) and pipes', async () => {
    const root = await tempWorkspace();
    await put(root, 'src/README.md', 'hi');
    await put(root, 'src/index.ts', 'x');
    const context = await testContext(root);
    const dir = await run(context, 'read_file', { path: 'src' });
    assert.equal(dir.errorType, 'is_directory');
    assert.match(dir.output, /list_dir/);
    const typo = await run(context, 'read_file', { path: 'src/READEM.md' });
    assert.equal(typo.errorType, 'not_found');
    assert.match(typo.output, /Similar names in src: src\/README\.md/);
    const otherExtension = await run(context, 'read_file', { path: 'src/index.js' });
    assert.match(otherExtension.output, /src\/index\.ts/);
    const noDir = await run(context, 'read_file', { path: 'lib/deep/x.ts' });
    assert.equal(noDir.errorType, 'not_found');
    assert.match(noDir.output, /there is no directory lib\b/);
    execFileSync('mkfifo', [join(root, 'pipe')]);
    const pipe = await run(context, 'read_file', { path: 'pipe' });
    assert.equal(pipe.errorType, 'not_a_file', 'a pipe is refused, not read (which would block)');
  });
});

describe('list_dir', () => {
  let root: string;
  before(async () => {
    root = await tempWorkspace();
    await put(root, '.gitignore', '*.log\nbuild/\n');
    await put(root, '.git/HEAD', 'ref: refs/heads/main\n');
    await put(root, '.git/info/exclude', 'local-notes.md\n');
    await put(root, 'local-notes.md', 'mine');
    await put(root, 'README.md', 'x'.repeat(2048));
    await put(root, 'app.log', 'log');
    await put(root, 'build/out.js', 'built');
    await put(root, 'src/a.ts', 'a');
    await put(root, 'src/B.ts', 'b');
    await put(root, 'src/.gitignore', 'secret.ts\n!keep.log\n');
    await put(root, 'src/secret.ts', 's');
    await put(root, 'src/keep.log', 'k');
    await put(root, 'src/drop.log', 'd');
    await put(root, 'src/nested/c.ts', 'c');
    await mkdir(join(root, 'docs'));
    await symlink('src', join(root, 'link'));
  });

  test('directories first, then sorted entries with type and size; .git and ignored entries left out', async () => {
    const result = await run(await testContext(root), 'list_dir', { path: '.' });
    assert.equal(
      result.output,
      [
        '.:',
        'dir   docs/',
        'dir   src/',
        'file  .gitignore  13 B',
        'link  link -> src',
        'file  README.md  2.0 KB',
        '[3 entries ignored by .gitignore not shown.]',
      ].join('\n'),
    );
    assert.equal(result.summary, '5 entries');
  });

  test('a subdirectory gets the rules from the root down, and its own; a deeper negation wins', async () => {
    const result = await run(await testContext(root), 'list_dir', { path: 'src' });
    assert.equal(
      result.output,
      [
        'src:',
        'dir   nested/',
        'file  .gitignore  20 B',
        'file  a.ts  1 B',
        'file  B.ts  1 B',
        'file  keep.log  1 B',
        '[2 entries ignored by .gitignore not shown.]',
      ].join('\n'),
    );
  });

  test('recursive lists the tree depth first without following links', async () => {
    const result = await run(await testContext(root), 'list_dir', { path: '.', recursive: true });
    const paths = result.output
      .split('\n')
      .slice(1, -1)
      .map((line) => line.slice(6).split('  ')[0]);
    assert.deepEqual(paths, [
      'docs/',
      'src/',
      'src/nested/',
      'src/nested/c.ts',
      'src/.gitignore',
      'src/a.ts',
      'src/B.ts',
      'src/keep.log',
      '.gitignore',
      'link -> src',
      'README.md',
    ]);
  });

  test('an ignored directory asked for by name is listed, saying so', async () => {
    const result = await run(await testContext(root), 'list_dir', { path: 'build' });
    assert.match(result.output, /^build:\nfile {2}out\.js {2}5 B\n\[build itself is ignored by \.gitignore/);
  });

  test('the recursive listing stops at 1,000 entries and says so', async () => {
    const many = await tempWorkspace();
    await mkdir(join(many, 'd'));
    await Promise.all(
      Array.from({ length: 1005 }, (_, index) => writeFile(join(many, 'd', `f${index}.txt`), '')),
    );
    const result = await run(await testContext(many), 'list_dir', { path: '.', recursive: true });
    assert.equal(result.output.split('\n').filter((line) => /^(file|dir) /.test(line)).length, 1000);
    assert.match(result.output, /Stopped at 1000 entries; there are more/);
    assert.equal(result.summary, '1000+ entries');
  });

  test('a file, a missing path and an empty directory', async () => {
    const context = await testContext(root);
    assert.equal((await run(context, 'list_dir', { path: 'README.md' })).errorType, 'not_a_directory');
    assert.equal((await run(context, 'list_dir', { path: 'nope' })).errorType, 'not_found');
    assert.equal((await run(context, 'list_dir', { path: 'docs' })).output, 'docs is empty.');
  });
});

describe('find_file', () => {
  let root: string;
  before(async () => {
    root = await tempWorkspace();
    await put(root, '.gitignore', 'node_modules/\n*.gen.ts\n');
    await put(root, 'src/a.ts', '');
    await put(root, 'src/a.gen.ts', '');
    await put(root, 'src/util/test-one.js', '');
    await put(root, 'src/test-two.js', '');
    await put(root, 'lib/test-three.js', '');
    await put(root, 'lib/deep/a.ts', '');
    await put(root, '.github/ci.ts', '');
    await put(root, 'node_modules/pkg/index.ts', '');
    await symlink('src', join(root, 'alias'));
  });

  test('**/*.ts finds every TypeScript file, relative to the root, sorted, ignored ones left out', async () => {
    const result = await run(await testContext(root), 'find_file', { pattern: '**/*.ts' });
    assert.equal(result.output, ['.github/ci.ts', 'lib/deep/a.ts', 'src/a.ts'].join('\n'));
    assert.equal(result.summary, '3 files');
  });

  test('a bare name matches at any depth; a pattern with a directory matches below it only', async () => {
    const context = await testContext(root);
    assert.equal((await run(context, 'find_file', { pattern: 'a.ts' })).output, 'lib/deep/a.ts\nsrc/a.ts');
    assert.equal(
      (await run(context, 'find_file', { pattern: 'src/**/test-*.js' })).output,
      'src/test-two.js\nsrc/util/test-one.js',
    );
    assert.equal((await run(context, 'find_file', { pattern: './lib/*.js' })).output, 'lib/test-three.js');
  });

  test('path narrows the search; results stay relative to the root', async () => {
    const result = await run(await testContext(root), 'find_file', { pattern: '*.js', path: 'src' });
    assert.equal(result.output, 'src/test-two.js\nsrc/util/test-one.js');
  });

  test('no match, patterns leaving the directory, and a file as path', async () => {
    const context = await testContext(root);
    const none = await run(context, 'find_file', { pattern: '*.rs' });
    assert.equal(none.summary, 'no matches');
    assert.match(none.output, /No files match "\*\.rs"/);
    assert.equal((await run(context, 'find_file', { pattern: '../**/*.ts' })).errorType, 'invalid_arguments');
    assert.equal((await run(context, 'find_file', { pattern: '/etc/*' })).errorType, 'invalid_arguments');
    assert.equal((await run(context, 'find_file', { pattern: '' })).errorType, 'invalid_arguments');
    assert.equal(
      (await run(context, 'find_file', { pattern: '*.ts', path: 'src/a.ts' })).errorType,
      'not_a_directory',
    );
    assert.equal(
      (await run(context, 'find_file', { pattern: 'alias/*.ts' })).summary,
      'no matches',
      'links are not followed',
    );
  });

  test('results are capped at 200, and the total is stated', async () => {
    const many = await tempWorkspace();
    await Promise.all(
      Array.from({ length: 250 }, (_, index) => put(many, `m/f${String(index).padStart(3, '0')}.txt`, '')),
    );
    const result = await run(await testContext(many), 'find_file', { pattern: '*.txt' });
    const lines = result.output.split('\n');
    assert.equal(lines.length, 201);
    assert.equal(lines[0], 'm/f000.txt');
    assert.equal(lines[200], '[250 files match; showing the first 200. Narrow the pattern or set path.]');
    assert.equal(result.summary, '250 files');
  });
});

describe('get_file_info', () => {
  test('a text file: size, ISO mtime, permissions in octal and rwx, line count', async () => {
    const root = await tempWorkspace();
    const file = await put(root, 'run.sh', '#!/bin/sh\necho hi\n');
    await chmod(file, 0o754);
    const result = await run(await testContext(root), 'get_file_info', { path: 'run.sh' });
    const lines = result.output.split('\n');
    assert.deepEqual(
      lines.filter((line) => !line.startsWith('modified:')),
      [
        'path: run.sh',
        'type: file',
        'size: 18 bytes',
        'permissions: 0754 (rwxr-xr--)',
        'content: text, 2 lines',
      ],
    );
    assert.match(result.output, /modified: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/);
    assert.equal(result.summary, 'file, 18 B, 2 lines');
  });

  test('directories, binary files, large files and links', async () => {
    const root = await tempWorkspace();
    await put(root, 'd/one', '1');
    await put(root, 'd/two', '2');
    await put(root, 'img.png', PNG);
    await put(root, 'big.txt', 'y\n'.repeat(600_000));
    await symlink('d/one', join(root, 'to-one'));
    await symlink('missing', join(root, 'dangling'));
    const context = await testContext(root);
    assert.match(
      (await run(context, 'get_file_info', { path: 'd' })).output,
      /type: directory\n.*\n.*\nentries: 2$/,
    );
    assert.match(
      (await run(context, 'get_file_info', { path: 'img.png' })).output,
      /content: binary \(PNG image\)/,
    );
    const big = await run(context, 'get_file_info', { path: 'big.txt' });
    assert.match(big.output, /size: 1200000 bytes \(1\.1 MB\)/);
    assert.match(big.output, /lines not counted: over 1 MB/);
    const link = await run(context, 'get_file_info', { path: 'to-one' });
    assert.match(
      link.output,
      /^path: to-one\ntype: symlink -> d\/one\ntarget: d\/one\ntarget type: file\ntarget size: 1 bytes/,
    );
    assert.equal(link.summary, 'symlink to file, 1 B, 1 line');
    assert.match((await run(context, 'get_file_info', { path: 'dangling' })).output, /dangling link/);
    assert.equal((await run(context, 'get_file_info', { path: 'nope' })).errorType, 'not_found');
  });
});
