import assert from 'node:assert/strict';
import { lstat, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { FileChangeRequest } from '../src/approval/gate.ts';
import { withCpuTime } from './helpers/cpu-time.ts';
import { put, run, tools } from './helpers/file-tools.ts';
import { type TestContext, tempWorkspace, testContext } from './helpers/tool-context.ts';

function fileChanges(context: TestContext): FileChangeRequest[] {
  return context.gateRequests.flatMap((request) => (request.kind === 'file_change' ? [request.request] : []));
}

async function exists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined)) !== undefined;
}

const SOURCE = [
  'function greet(name) {',
  '\treturn `hello ${name}`;',
  '}',
  '',
  'function part() {',
  '\treturn 1;',
  '}',
  '',
].join('\n');

describe('write_file', () => {
  test('creates a file and its parent directories, approved as a create', async () => {
    const root = await tempWorkspace();
    const context = await testContext(root);
    const result = await run(context, 'write_file', { path: 'src/deep/a.ts', content: 'one\ntwo\n' });
    assert.equal(result.summary, 'created src/deep/a.ts (2 lines)');
    assert.equal(await readFile(join(root, 'src/deep/a.ts'), 'utf8'), 'one\ntwo\n');
    const [request] = fileChanges(context);
    assert.equal(request?.operation, 'create');
    assert.equal(request?.oldContent, undefined);
    assert.equal(request?.newContent, 'one\ntwo\n');
    assert.equal(request?.path.display, 'src/deep/a.ts');
  });

  test('replaces an existing file, showing old and new content; identical content is no change', async () => {
    const root = await tempWorkspace();
    await put(root, 'a.txt', 'old\n');
    const context = await testContext(root);
    const result = await run(context, 'write_file', { path: 'a.txt', content: 'new\n' });
    assert.equal(result.summary, 'updated a.txt (1 lines)');
    assert.deepEqual(
      fileChanges(context).map((request) => [request.operation, request.oldContent, request.newContent]),
      [['modify', 'old\n', 'new\n']],
    );
    const same = await run(context, 'write_file', { path: 'a.txt', content: 'new\n' });
    assert.equal(same.summary, 'no change');
    assert.equal(context.gateRequests.length, 1, 'nothing to approve');
  });

  test('a directory at the path, or a file where a parent directory should be, is refused', async () => {
    const root = await tempWorkspace();
    await put(root, 'plain.txt', 'x');
    await mkdir(join(root, 'dir'));
    const context = await testContext(root);
    assert.equal((await run(context, 'write_file', { path: 'dir', content: 'x' })).errorType, 'is_directory');
    const blocked = await run(context, 'write_file', { path: 'plain.txt/inner/a.txt', content: 'x' });
    assert.equal(blocked.errorType, 'not_a_directory');
    assert.match(blocked.output, /plain\.txt is a file, not a directory/);
    assert.equal(context.gateRequests.length, 0);
  });
});

describe('str_replace', () => {
  test('replaces the single occurrence and shows the edited lines', async () => {
    const root = await tempWorkspace();
    await put(root, 'a.js', SOURCE);
    const context = await testContext(root);
    const result = await run(context, 'str_replace', {
      path: 'a.js',
      oldStr: '\treturn 1;',
      newStr: '\tconst two = 2;\n\treturn two;',
    });
    assert.equal(result.isError, undefined, result.output);
    assert.equal(
      await readFile(join(root, 'a.js'), 'utf8'),
      SOURCE.replace('\treturn 1;', '\tconst two = 2;\n\treturn two;'),
    );
    assert.match(
      result.output,
      /^Updated a\.js\. Replaced line 6 with lines 6–7\. The edited part now reads:\n/,
    );
    assert.match(result.output, / {4}6│ \tconst two = 2;\n {4}7│ \treturn two;\n {4}8│ }/);
    assert.equal(result.summary, 'updated a.js (8 lines)');
  });

  test('newStr is taken literally ($& and $1 are not patterns)', async () => {
    const root = await tempWorkspace();
    await put(root, 'a.txt', 'price: X\n');
    await run(await testContext(root), 'str_replace', { path: 'a.txt', oldStr: 'X', newStr: "$&$1$$'" });
    assert.equal(await readFile(join(root, 'a.txt'), 'utf8'), "price: $&$1$$'\n");
  });

  test('no match: the same lines with other indentation are pointed out', async () => {
    const root = await tempWorkspace();
    await put(root, 'a.js', SOURCE);
    const context = await testContext(root);
    const result = await run(context, 'str_replace', {
      path: 'a.js',
      oldStr: 'function part() {\n    return 1;\n}',
      newStr: 'x',
    });
    assert.equal(result.errorType, 'no_match');
    assert.match(result.output, /It matches lines 5–7 if whitespace is ignored/);
    assert.match(result.output, / {4}6│ \treturn 1;/);
    assert.equal(context.gateRequests.length, 0);
    assert.equal(await readFile(join(root, 'a.js'), 'utf8'), SOURCE);
  });

  test('no match: where the first line is and where oldStr diverges; or that nothing is close', async () => {
    const root = await tempWorkspace();
    await put(root, 'a.js', SOURCE);
    const context = await testContext(root);
    const diverges = await run(context, 'str_replace', {
      path: 'a.js',
      oldStr: 'function part() {\n\treturn 2;',
      newStr: 'x',
    });
    assert.match(
      diverges.output,
      /Its first line matches line 5, but then oldStr has "return 2;" where line 6 of the file is "return 1;"/,
    );
    const nothing = await run(context, 'str_replace', { path: 'a.js', oldStr: 'class Nope {}', newStr: 'x' });
    assert.match(nothing.output, /Not even its first line \("class Nope \{\}"\) occurs in it/);
  });

  test('more than one occurrence: fails, with the count and the line numbers', async () => {
    const root = await tempWorkspace();
    await put(root, 'a.js', SOURCE);
    const context = await testContext(root);
    const result = await run(context, 'str_replace', { path: 'a.js', oldStr: '}', newStr: '};' });
    assert.equal(result.errorType, 'not_unique');
    assert.match(result.output, /oldStr occurs 3 times \(on lines 2, 3, 7\); it must occur exactly once/);
    assert.equal(await readFile(join(root, 'a.js'), 'utf8'), SOURCE);
  });

  test('empty or identical strings, missing, directory, binary and non-UTF-8 files are refused', async () => {
    const root = await tempWorkspace();
    await put(root, 'a.txt', 'text\n');
    await put(root, 'bin.dat', Uint8Array.from([1, 0, 2, 3]));
    await put(root, 'latin1.txt', Buffer.from('caf\xe9\n', 'latin1'));
    await mkdir(join(root, 'dir'));
    const context = await testContext(root);
    const empty = await run(context, 'str_replace', { path: 'a.txt', oldStr: '', newStr: 'x' });
    assert.equal(empty.errorType, 'invalid_arguments');
    assert.match(empty.output, /oldStr is empty/);
    assert.equal(
      (await run(context, 'str_replace', { path: 'a.txt', oldStr: 'text', newStr: 'text' })).errorType,
      'invalid_arguments',
    );
    assert.equal(
      (await run(context, 'str_replace', { path: 'b.txt', oldStr: 'a', newStr: 'b' })).errorType,
      'not_found',
    );
    assert.equal(
      (await run(context, 'str_replace', { path: 'dir', oldStr: 'a', newStr: 'b' })).errorType,
      'is_directory',
    );
    assert.equal(
      (await run(context, 'str_replace', { path: 'bin.dat', oldStr: 'a', newStr: 'b' })).errorType,
      'binary_file',
    );
    assert.equal(
      (await run(context, 'str_replace', { path: 'latin1.txt', oldStr: 'caf', newStr: 'b' })).errorType,
      'not_utf8',
    );
    assert.equal(context.gateRequests.length, 0);
  });

  test('a CRLF file matches an oldStr written with \\n, and keeps its CRLF', async () => {
    const root = await tempWorkspace();
    await put(root, 'dos.txt', 'one\r\ntwo\r\nthree\r\n');
    await run(await testContext(root), 'str_replace', {
      path: 'dos.txt',
      oldStr: 'one\ntwo',
      newStr: 'uno\ndos',
    });
    assert.equal(await readFile(join(root, 'dos.txt'), 'utf8'), 'uno\r\ndos\r\nthree\r\n');
  });

  test('editing line 25,000 of a 50,000-line file is exact and quick', async () => {
    const root = await tempWorkspace();
    const lines = Array.from({ length: 50_000 }, (_, index) => `const value${index + 1} = ${index + 1};`);
    await put(root, 'big.ts', `${lines.join('\n')}\n`);
    const context = await testContext(root);
    const { result, cpuMs } = await withCpuTime(() =>
      run(context, 'str_replace', {
        path: 'big.ts',
        oldStr: 'const value25000 = 25000;',
        newStr: 'const value25000 = -1;\n// inserted',
      }),
    );
    assert.equal(result.isError, undefined, result.output);
    assert.match(result.output, /Replaced line 25000 with lines 25000–25001/);
    const after = (await readFile(join(root, 'big.ts'), 'utf8')).split('\n');
    assert.equal(after.length, 50_002);
    assert.deepEqual(after.slice(24_998, 25_002), [
      'const value24999 = 24999;',
      'const value25000 = -1;',
      '// inserted',
      'const value25001 = 25001;',
    ]);
    assert.equal(after[50_000], 'const value50000 = 50000;');
    // Generous on purpose: the edit takes about 25 ms of CPU, a quadratic scan of this file minutes.
    // CPU time, not wall-clock time: waiting for a core (or for the disk) does not count.
    assert.ok(cpuMs < 2000, `${Math.round(cpuMs)} ms of CPU time`);
  });
});

describe('multi_edit', () => {
  test('applies the edits in order to the running text, approved once with the combined diff', async () => {
    const root = await tempWorkspace();
    await put(root, 'a.js', SOURCE);
    const context = await testContext(root);
    const result = await run(context, 'multi_edit', {
      path: 'a.js',
      edits: [
        { oldStr: 'function part()', newStr: 'function piece()' },
        { oldStr: 'piece() {\n\treturn 1;', newStr: 'piece() {\n\treturn 2;' },
        { oldStr: 'greet(name)', newStr: 'greet(who)' },
      ],
    });
    assert.equal(result.isError, undefined, result.output);
    assert.match(result.output, /Applied 3 edits\./);
    const expected = SOURCE.replace(
      'function part() {\n\treturn 1;',
      'function piece() {\n\treturn 2;',
    ).replace('greet(name)', 'greet(who)');
    assert.equal(await readFile(join(root, 'a.js'), 'utf8'), expected);
    assert.equal(fileChanges(context).length, 1);
    assert.equal(fileChanges(context)[0]?.newContent, expected);
  });

  test('uniqueness is checked against the text as it stands at each edit; the error names the edit; nothing is written', async () => {
    const root = await tempWorkspace();
    await put(root, 'a.js', SOURCE);
    const context = await testContext(root);
    const duplicated = await run(context, 'multi_edit', {
      path: 'a.js',
      edits: [
        { oldStr: 'return 1;', newStr: 'return `hello ${name}`;' },
        { oldStr: 'return `hello ${name}`;', newStr: 'return name;' },
      ],
    });
    assert.equal(duplicated.errorType, 'not_unique');
    assert.match(
      duplicated.output,
      /^edits\[1\] failed \(line numbers are those of the text after the edits before it\): oldStr occurs 2 times \(on lines 2, 6\)/,
    );
    assert.match(duplicated.output, /No edit was applied/);
    const missing = await run(context, 'multi_edit', {
      path: 'a.js',
      edits: [
        { oldStr: 'part', newStr: 'piece' },
        { oldStr: 'greet', newStr: 'hail' },
        { oldStr: 'absent', newStr: 'x' },
      ],
    });
    assert.equal(missing.errorType, 'no_match');
    assert.match(missing.output, /^edits\[2\] failed/);
    const empty = await run(context, 'multi_edit', {
      path: 'a.js',
      edits: [
        { oldStr: 'part', newStr: 'x' },
        { oldStr: '', newStr: 'y' },
      ],
    });
    assert.equal(empty.errorType, 'invalid_arguments');
    assert.match(empty.output, /^edits\[1\]: oldStr is empty/);
    assert.equal(await readFile(join(root, 'a.js'), 'utf8'), SOURCE);
    assert.equal(context.gateRequests.length, 0);
    assert.throws(
      () => tools.get('multi_edit')?.parameters.parse({ path: 'a.js', edits: [] }),
      'at least one edit',
    );
  });
});

describe('delete_file', () => {
  test('deletes a file after approval, showing what goes', async () => {
    const root = await tempWorkspace();
    await put(root, 'old.txt', 'bye\n');
    const context = await testContext(root);
    const result = await run(context, 'delete_file', { path: 'old.txt' });
    assert.equal(result.summary, 'deleted old.txt');
    assert.equal(await exists(join(root, 'old.txt')), false);
    assert.deepEqual(
      fileChanges(context).map((request) => [request.operation, request.oldContent, request.newContent]),
      [['delete', 'bye\n', undefined]],
    );
  });

  test('directories, links and missing files are refused', async () => {
    const root = await tempWorkspace();
    await mkdir(join(root, 'dir'));
    await put(root, 'target.txt', 't');
    await symlink('target.txt', join(root, 'link'));
    const context = await testContext(root);
    const dir = await run(context, 'delete_file', { path: 'dir' });
    assert.equal(dir.errorType, 'is_directory');
    assert.match(dir.output, /run_command/);
    assert.equal((await run(context, 'delete_file', { path: 'link' })).errorType, 'not_a_file');
    assert.equal(await exists(join(root, 'link')), true);
    assert.equal((await run(context, 'delete_file', { path: 'nope.txt' })).errorType, 'not_found');
    assert.equal(context.gateRequests.length, 0);
  });
});

describe('move_file', () => {
  test('moves a file into a new directory after approval as a move', async () => {
    const root = await tempWorkspace();
    await put(root, 'a.txt', 'content\n');
    const context = await testContext(root);
    const result = await run(context, 'move_file', { from: 'a.txt', to: 'lib/deep/b.txt' });
    assert.equal(result.summary, 'moved a.txt → lib/deep/b.txt');
    assert.equal(await readFile(join(root, 'lib/deep/b.txt'), 'utf8'), 'content\n');
    assert.equal(await exists(join(root, 'a.txt')), false);
    const [request] = fileChanges(context);
    assert.equal(request?.operation, 'move');
    assert.equal(request?.path.display, 'a.txt');
    assert.equal(request?.destination?.display, 'lib/deep/b.txt');
    assert.equal(request?.oldContent, 'content\n');
    assert.equal(request?.newContent, 'content\n');
  });

  test('never overwrites; refuses directories, missing sources and a move onto itself', async () => {
    const root = await tempWorkspace();
    await put(root, 'a.txt', 'a');
    await put(root, 'b.txt', 'b');
    await mkdir(join(root, 'dir'));
    const context = await testContext(root);
    const onto = await run(context, 'move_file', { from: 'a.txt', to: 'b.txt' });
    assert.equal(onto.errorType, 'already_exists');
    assert.match(onto.output, /never overwrites/);
    const intoDir = await run(context, 'move_file', { from: 'a.txt', to: 'dir' });
    assert.equal(intoDir.errorType, 'already_exists');
    assert.match(intoDir.output, /file name included \(e\.g\. dir\/name\)/);
    assert.equal((await run(context, 'move_file', { from: 'dir', to: 'dir2' })).errorType, 'is_directory');
    assert.equal((await run(context, 'move_file', { from: 'nope', to: 'x' })).errorType, 'not_found');
    assert.equal(
      (await run(context, 'move_file', { from: 'a.txt', to: './a.txt' })).errorType,
      'invalid_arguments',
    );
    assert.equal(await readFile(join(root, 'a.txt'), 'utf8'), 'a');
    assert.equal(await readFile(join(root, 'b.txt'), 'utf8'), 'b');
    assert.equal(context.gateRequests.length, 0);
  });

  test('the destination is checked again after approval', async () => {
    const root = await tempWorkspace();
    await put(root, 'a.txt', 'a');
    const context = await testContext(root);
    context.beforeDecision = () => writeFile(join(root, 'b.txt'), 'arrived meanwhile');
    const result = await run(context, 'move_file', { from: 'a.txt', to: 'b.txt' });
    assert.equal(result.errorType, 'already_exists');
    assert.equal(await readFile(join(root, 'b.txt'), 'utf8'), 'arrived meanwhile');
    assert.equal(await readFile(join(root, 'a.txt'), 'utf8'), 'a');
  });
});
