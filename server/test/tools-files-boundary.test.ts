import assert from 'node:assert/strict';
import { lstat, mkdir, readdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, test } from 'node:test';
import { run } from './helpers/file-tools.ts';
import { type TestContext, tempWorkspace, testContext } from './helpers/tool-context.ts';

/** Every tool called with `path` where it names a file (or, for list_dir and find_file, a directory). */
function callsWith(path: string, dir = path): Array<[string, Record<string, unknown>]> {
  return [
    ['read_file', { path }],
    ['write_file', { path, content: 'pwned' }],
    ['str_replace', { path, oldStr: 'secret', newStr: 'pwned' }],
    ['multi_edit', { path, edits: [{ oldStr: 'secret', newStr: 'pwned' }] }],
    ['delete_file', { path }],
    ['move_file', { from: path, to: 'stolen.txt' }],
    ['move_file', { from: 'mine.txt', to: path }],
    ['get_file_info', { path }],
    ['list_dir', { path: dir }],
    ['find_file', { pattern: '*', path: dir }],
  ];
}

/** Path → content (or link target) of everything under `dir`. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const absolute = join(entry.parentPath, entry.name);
    if (entry.isSymbolicLink()) result[absolute] = `link:${await readlink(absolute)}`;
    else if (entry.isFile()) result[absolute] = await readFile(absolute, 'utf8');
    else result[absolute] = 'dir';
  }
  return result;
}

let base: string;
let root: string;
let evil: string;
let context: TestContext;

beforeEach(async () => {
  base = await tempWorkspace('santra-boundary-');
  root = join(base, 'proj');
  evil = join(base, 'proj-evil');
  await mkdir(join(root, 'sub'), { recursive: true });
  await mkdir(evil);
  await writeFile(join(evil, 'secret.txt'), 'secret\n');
  await writeFile(join(root, 'mine.txt'), 'mine\n');
  context = await testContext(root);
});

describe('paths that leave the workspace', () => {
  for (const [label, path] of [
    ['../ into the sibling proj-evil', '../proj-evil/secret.txt'],
    ['through a subdirectory and back out', 'sub/../../proj-evil/secret.txt'],
    ['an absolute path outside', '/PROJ-EVIL/secret.txt'],
    ['an absolute path through the root and out', '/ROOT/../proj-evil/secret.txt'],
  ] as const) {
    test(`every tool refuses ${label}`, async () => {
      const resolved = path.replace('/PROJ-EVIL', evil).replace('/ROOT', root);
      const before = await snapshot(base);
      for (const [name, args] of callsWith(resolved, resolved.replace(/\/secret\.txt$/, ''))) {
        const result = await run(context, name, args);
        assert.equal(
          result.errorType,
          'outside_workspace',
          `${name} ${JSON.stringify(args)}: ${result.output}`,
        );
        assert.ok(!result.output.includes('secret\n'), 'no outside content in the message');
      }
      assert.deepEqual(await snapshot(base), before);
      assert.equal(context.gateRequests.length, 0);
    });
  }

  test('find_file patterns cannot climb out either', async () => {
    const result = await run(context, 'find_file', { pattern: '../proj-evil/*' });
    assert.equal(result.errorType, 'invalid_arguments');
  });
});

describe('symbolic links pointing out of the workspace', () => {
  test('a link to an outside file cannot be read, edited, inspected or moved through', async () => {
    await symlink(join(evil, 'secret.txt'), join(root, 'leak'));
    for (const [name, args] of [
      ['read_file', { path: 'leak' }],
      ['str_replace', { path: 'leak', oldStr: 'secret', newStr: 'pwned' }],
      ['multi_edit', { path: 'leak', edits: [{ oldStr: 'secret', newStr: 'pwned' }] }],
    ] as const) {
      assert.equal((await run(context, name, args)).errorType, 'outside_workspace', name);
    }
    const info = await run(context, 'get_file_info', { path: 'leak' });
    assert.match(info.output, /target: outside the workspace \(not inspected\)/);
    assert.ok(!/size/.test(info.output), 'nothing about the outside file is told');
    assert.equal((await run(context, 'delete_file', { path: 'leak' })).errorType, 'not_a_file');
    assert.equal((await run(context, 'move_file', { from: 'leak', to: 'moved' })).errorType, 'not_a_file');
    assert.equal(await readFile(join(evil, 'secret.txt'), 'utf8'), 'secret\n');
    assert.equal((await lstat(join(root, 'leak'))).isSymbolicLink(), true);
  });

  test('write_file to the link replaces the link and never writes the outside target', async () => {
    await symlink(join(evil, 'secret.txt'), join(root, 'leak'));
    const result = await run(context, 'write_file', { path: 'leak', content: 'mine now\n' });
    assert.equal(result.isError, undefined, result.output);
    assert.equal(await readFile(join(evil, 'secret.txt'), 'utf8'), 'secret\n');
    const replaced = await lstat(join(root, 'leak'));
    assert.equal(replaced.isFile(), true, 'the link became a regular file');
    assert.equal(await readFile(join(root, 'leak'), 'utf8'), 'mine now\n');
  });

  test('a linked directory pointing outside is refused as a parent, and never walked into', async () => {
    await symlink(evil, join(root, 'evildir'));
    const before = await snapshot(evil);
    for (const [name, args] of [
      ['write_file', { path: 'evildir/new.txt', content: 'x' }],
      ['write_file', { path: 'evildir/deeper/new.txt', content: 'x' }],
      ['read_file', { path: 'evildir/secret.txt' }],
      ['str_replace', { path: 'evildir/secret.txt', oldStr: 'secret', newStr: 'x' }],
      ['delete_file', { path: 'evildir/secret.txt' }],
      ['get_file_info', { path: 'evildir/secret.txt' }],
      ['move_file', { from: 'mine.txt', to: 'evildir/mine.txt' }],
      ['move_file', { from: 'evildir/secret.txt', to: 'got.txt' }],
      ['list_dir', { path: 'evildir' }],
      ['find_file', { pattern: '*', path: 'evildir' }],
    ] as const) {
      assert.equal(
        (await run(context, name, args)).errorType,
        'outside_workspace',
        `${name} ${JSON.stringify(args)}`,
      );
    }
    assert.deepEqual(await snapshot(evil), before);
    const listing = await run(context, 'list_dir', { path: '.', recursive: true });
    assert.match(listing.output, /link {2}evildir -> /);
    assert.ok(!listing.output.includes('secret.txt'), listing.output);
    assert.equal((await run(context, 'find_file', { pattern: '**/secret.txt' })).summary, 'no matches');
    assert.equal(await readFile(join(root, 'mine.txt'), 'utf8'), 'mine\n');
    assert.equal(context.gateRequests.length, 0);
  });

  test('a link inside the workspace is followed for reading and editing', async () => {
    await writeFile(join(root, 'real.txt'), 'one\n');
    await symlink('real.txt', join(root, 'alias.txt'));
    assert.equal((await run(context, 'read_file', { path: 'alias.txt' })).output, '    1│ one');
    await run(context, 'str_replace', { path: 'alias.txt', oldStr: 'one', newStr: 'two' });
    assert.equal(await readFile(join(root, 'real.txt'), 'utf8'), 'two\n');
    assert.equal((await lstat(join(root, 'alias.txt'))).isSymbolicLink(), true, 'the link stays a link');
  });
});

describe('malformed paths', () => {
  for (const [label, path] of [
    ['a NUL byte', 'a\u0000b.txt'],
    ['a newline', 'a\nb.txt'],
    ['an escape sequence', 'bad\u001b[31m.txt'],
    ['a tab', 'tab\there.txt'],
    ['DEL', 'x\u007f.txt'],
    ['nothing at all', ''],
  ] as const) {
    test(`every tool refuses a path with ${label}`, async () => {
      for (const [name, args] of callsWith(path)) {
        const result = await run(context, name, args);
        assert.equal(result.errorType, 'invalid_path', `${name} ${JSON.stringify(args)}: ${result.output}`);
      }
      assert.deepEqual(await readdir(root), ['mine.txt', 'sub']);
    });
  }
});
