import assert from 'node:assert/strict';
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, test } from 'node:test';
import type { FileChangeRequest, GateDecision } from '../src/approval/gate.ts';
import { run } from './helpers/file-tools.ts';
import { type TestContext, tempWorkspace, testContext } from './helpers/tool-context.ts';

function fileChanges(context: TestContext): FileChangeRequest[] {
  return context.gateRequests.flatMap((request) => (request.kind === 'file_change' ? [request.request] : []));
}

async function workspaceWith(files: Record<string, string>): Promise<{ root: string; context: TestContext }> {
  const root = await tempWorkspace();
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return { root, context: await testContext(root) };
}

async function contents(root: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const name of (await readdir(root, { recursive: true })).sort()) {
    result[name] = await readFile(join(root, name), 'utf8').catch(() => 'dir');
  }
  return result;
}

describe('a file that changes on disk between the diff and the approval', () => {
  test('str_replace recomputes the change on the new content and asks again', async () => {
    const { root, context } = await workspaceWith({ 'a.txt': 'alpha\nbeta\ngamma\n' });
    let changed = false;
    context.beforeDecision = async () => {
      if (changed) return;
      changed = true;
      await writeFile(join(root, 'a.txt'), 'ALPHA\nbeta\ngamma\n');
    };
    const result = await run(context, 'str_replace', { path: 'a.txt', oldStr: 'beta', newStr: 'BETA' });
    assert.equal(result.isError, undefined, result.output);
    assert.match(result.output, /recomputed on the new content and approved again/);
    assert.deepEqual(
      fileChanges(context).map((request) => [request.oldContent, request.newContent]),
      [
        ['alpha\nbeta\ngamma\n', 'alpha\nBETA\ngamma\n'],
        ['ALPHA\nbeta\ngamma\n', 'ALPHA\nBETA\ngamma\n'],
      ],
    );
    assert.equal(await readFile(join(root, 'a.txt'), 'utf8'), 'ALPHA\nBETA\ngamma\n');
  });

  test('when oldStr is gone after the change, the error says so and nothing is written', async () => {
    const { root, context } = await workspaceWith({ 'a.txt': 'alpha\nbeta\n' });
    context.beforeDecision = () => writeFile(join(root, 'a.txt'), 'alpha\nrewritten\n');
    const result = await run(context, 'str_replace', { path: 'a.txt', oldStr: 'beta', newStr: 'BETA' });
    assert.equal(result.errorType, 'no_match');
    assert.match(
      result.output,
      /^The file changed on disk while the change was waiting for approval, and now: oldStr was not found/,
    );
    assert.match(result.output, /Nothing was written\./);
    assert.equal(await readFile(join(root, 'a.txt'), 'utf8'), 'alpha\nrewritten\n');
    assert.equal(context.gateRequests.length, 1);
  });

  test('multi_edit redoes all its edits on the new content', async () => {
    const { root, context } = await workspaceWith({ 'a.txt': 'one\ntwo\nthree\n' });
    let changed = false;
    context.beforeDecision = async () => {
      if (!changed) await writeFile(join(root, 'a.txt'), 'zero\none\ntwo\nthree\n');
      changed = true;
    };
    const result = await run(context, 'multi_edit', {
      path: 'a.txt',
      edits: [
        { oldStr: 'one', newStr: '1' },
        { oldStr: 'three', newStr: '3' },
      ],
    });
    assert.equal(result.isError, undefined, result.output);
    assert.equal(await readFile(join(root, 'a.txt'), 'utf8'), 'zero\n1\ntwo\n3\n');
  });
});

describe('modified since read', () => {
  test('an edit after the file changed under the agent is refused until it reads again', async () => {
    const { root, context } = await workspaceWith({ 'a.txt': 'one\ntwo\n', 'b.txt': 'b\n' });
    await run(context, 'read_file', { path: 'a.txt' });
    await writeFile(join(root, 'a.txt'), 'one\ntwo\nthree (the user typed this)\n');
    for (const [name, args] of [
      ['str_replace', { path: 'a.txt', oldStr: 'two', newStr: '2' }],
      ['multi_edit', { path: 'a.txt', edits: [{ oldStr: 'two', newStr: '2' }] }],
      ['write_file', { path: 'a.txt', content: 'overwritten\n' }],
      ['delete_file', { path: 'a.txt' }],
    ] as const) {
      const result = await run(context, name, args);
      assert.equal(result.errorType, 'modified_since_read', name);
      assert.match(result.output, /a\.txt was modified since you last read it/);
    }
    assert.equal(context.gateRequests.length, 0);
    assert.equal(await readFile(join(root, 'a.txt'), 'utf8'), 'one\ntwo\nthree (the user typed this)\n');
    await run(context, 'read_file', { path: 'a.txt' });
    assert.equal(
      (await run(context, 'str_replace', { path: 'a.txt', oldStr: 'two', newStr: '2' })).isError,
      undefined,
    );
    assert.equal(
      (await run(context, 'str_replace', { path: 'a.txt', oldStr: 'one', newStr: '1' })).isError,
      undefined,
      'its own edit is not a change behind its back',
    );
    assert.equal(await readFile(join(root, 'a.txt'), 'utf8'), '1\n2\nthree (the user typed this)\n');
  });

  test('a change by another agent counts too', async () => {
    const { root, context } = await workspaceWith({ 'a.txt': 'shared\n' });
    const other = await testContext(root, { agentId: 'sub_1' });
    other.files = context.files;
    await run(context, 'read_file', { path: 'a.txt' });
    assert.equal(
      (await run(other, 'str_replace', { path: 'a.txt', oldStr: 'shared', newStr: 'theirs' })).isError,
      undefined,
    );
    const mine = await run(context, 'str_replace', { path: 'a.txt', oldStr: 'theirs', newStr: 'mine' });
    assert.equal(mine.errorType, 'modified_since_read');
    assert.equal(await readFile(join(root, 'a.txt'), 'utf8'), 'theirs\n');
  });
});

describe('parallel edits of one file', () => {
  test('str_replace calls in parallel are all applied, each approved once', async () => {
    const lines = Array.from({ length: 8 }, (_, index) => `item ${index} pending`);
    const { root, context } = await workspaceWith({ 'list.txt': `${lines.join('\n')}\n` });
    // A gate that takes a moment, as a user does, so the calls really overlap.
    context.beforeDecision = () => delay(5);
    const results = await Promise.all(
      lines.map((line, index) =>
        run(context, 'str_replace', { path: 'list.txt', oldStr: line, newStr: `item ${index} done` }),
      ),
    );
    for (const result of results) assert.equal(result.isError, undefined, result.output);
    const expected = lines.map((_, index) => `item ${index} done`);
    assert.equal(await readFile(join(root, 'list.txt'), 'utf8'), `${expected.join('\n')}\n`);
    assert.equal(context.gateRequests.length, 8);
  });

  test('parallel write_file, multi_edit and str_replace on one file serialize without losing an edit', async () => {
    const { root, context } = await workspaceWith({ 'a.txt': 'a\nb\nc\n' });
    context.beforeDecision = () => delay(2);
    const results = await Promise.all([
      run(context, 'str_replace', { path: 'a.txt', oldStr: 'a\n', newStr: 'A\n' }),
      run(context, 'multi_edit', { path: 'a.txt', edits: [{ oldStr: 'b\n', newStr: 'B\n' }] }),
      run(context, 'str_replace', { path: 'a.txt', oldStr: 'c\n', newStr: 'C\n' }),
    ]);
    for (const result of results) assert.equal(result.isError, undefined, result.output);
    assert.equal(await readFile(join(root, 'a.txt'), 'utf8'), 'A\nB\nC\n');
  });
});

describe('gate refusals leave the disk untouched', () => {
  const calls: Array<[string, Record<string, unknown>]> = [
    ['write_file', { path: 'a.txt', content: 'replaced\n' }],
    ['write_file', { path: 'new/b.txt', content: 'created\n' }],
    ['str_replace', { path: 'a.txt', oldStr: 'original', newStr: 'changed' }],
    ['multi_edit', { path: 'a.txt', edits: [{ oldStr: 'original', newStr: 'changed' }] }],
    ['delete_file', { path: 'a.txt' }],
    ['move_file', { from: 'a.txt', to: 'moved/a.txt' }],
  ];
  for (const decision of [
    { allowed: false, reason: 'rejected', message: 'The user rejected this.' },
    { allowed: false, reason: 'denied', message: 'Not allowed by the policy.' },
  ] satisfies GateDecision[]) {
    test(`${decision.reason}: every changing tool reports it and writes nothing`, async () => {
      const { root, context } = await workspaceWith({ 'a.txt': 'original\n' });
      const before = await contents(root);
      for (const [name, args] of calls) {
        context.decisions.push(decision);
        const result = await run(context, name, args);
        assert.equal(result.isError, true, name);
        assert.equal(result.errorType, decision.reason, name);
        assert.equal(result.rejected, decision.reason === 'rejected', name);
        assert.equal(result.output, decision.message, name);
      }
      assert.equal(context.gateRequests.length, calls.length);
      assert.deepEqual(await contents(root), before);
    });
  }
});

describe('atomic writes', () => {
  test('keep the file mode and leave no temporary file behind', async () => {
    const { root, context } = await workspaceWith({ 'run.sh': '#!/bin/sh\necho one\n' });
    const script = join(root, 'run.sh');
    await chmod(script, 0o755);
    await run(context, 'str_replace', { path: 'run.sh', oldStr: 'echo one', newStr: 'echo two' });
    assert.equal((await stat(script)).mode & 0o7777, 0o755);
    await run(context, 'multi_edit', { path: 'run.sh', edits: [{ oldStr: 'two', newStr: 'three' }] });
    assert.equal((await stat(script)).mode & 0o7777, 0o755);
    await run(context, 'write_file', { path: 'run.sh', content: '#!/bin/sh\necho four\n' });
    assert.equal((await stat(script)).mode & 0o7777, 0o755);
    assert.equal(await readFile(script, 'utf8'), '#!/bin/sh\necho four\n');
    assert.deepEqual(await readdir(root), ['run.sh']);
  });
});

describe('cancellation', () => {
  test('listing, finding and reading stop when the run is cancelled', async () => {
    const { context } = await workspaceWith({ 'a/b.txt': 'x\n' });
    context.abort();
    assert.equal((await run(context, 'list_dir', { path: '.', recursive: true })).errorType, 'cancelled');
    assert.equal((await run(context, 'find_file', { pattern: '*.txt' })).errorType, 'cancelled');
    assert.equal((await run(context, 'read_file', { path: 'a/b.txt' })).errorType, 'cancelled');
  });
});
