/**
 * The tools with an editor that lends its buffers and terminal (§7.5): what the model reads, what
 * is asked and written, and what the disk holds afterwards, with an editor that saves, one that
 * only changes its buffer, one that fails, and one whose buffer changes during the approval.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { FileChangeRequest } from '../src/approval/gate.ts';
import { environmentChange } from '../src/runtime/editor-access.ts';
import { runCommandTool } from '../src/tools/run-command.ts';
import type { EditorCommand, ToolResult } from '../src/tools/types.ts';
import { put, run } from './helpers/file-tools.ts';
import { type TestContext, tempWorkspace, testContext } from './helpers/tool-context.ts';

/** An editor's buffers in memory: what it holds, what it was asked, and how it saves. */
class Editor {
  readonly buffers = new Map<string, string>();
  readonly reads: string[] = [];
  readonly writes: Array<{ path: string; text: string }> = [];
  /** Save a written buffer to disk (as Zed does); false: only the buffer changes (an LSP editor). */
  saves = true;
  failWrites = false;

  lend(context: TestContext): void {
    context.editor = {
      readText: (path) => {
        this.reads.push(path);
        return Promise.resolve(this.buffers.get(path));
      },
      writeText: async (path, text) => {
        this.writes.push({ path, text });
        if (this.failWrites) return;
        this.buffers.set(path, text);
        if (this.saves) await writeFile(path, text);
      },
    };
  }
}

function fileChanges(context: TestContext): FileChangeRequest[] {
  return context.gateRequests.flatMap((request) => (request.kind === 'file_change' ? [request.request] : []));
}

async function setUp(disk: string, buffer: string | undefined) {
  const root = await tempWorkspace();
  const path = await put(root, 'a.txt', disk);
  const context = await testContext(root);
  const editor = new Editor();
  if (buffer !== undefined) editor.buffers.set(path, buffer);
  editor.lend(context);
  return { root, path, context, editor };
}

describe('files the editor holds', () => {
  test('read_file shows the buffer, unsaved changes included; a file it does not hold comes from disk', async () => {
    const { root, path, context, editor } = await setUp('on disk\n', 'in the buffer\n');
    const held = await run(context, 'read_file', { path: 'a.txt' });
    assert.match(held.output, /in the buffer/);
    assert.doesNotMatch(held.output, /on disk/);
    assert.deepEqual(editor.reads, [path]);
    await put(root, 'b.txt', 'only on disk\n');
    assert.match((await run(context, 'read_file', { path: 'b.txt' })).output, /only on disk/);
  });

  test('an edit is computed and shown against the buffer, put into it, and the disk holds it after', async () => {
    const { path, context, editor } = await setUp('one\ntwo\n', 'one\ntwo\nunsaved three\n');
    await run(context, 'read_file', { path: 'a.txt' });
    const result = await run(context, 'str_replace', { path: 'a.txt', oldStr: 'two', newStr: 'TWO' });
    assert.equal(result.isError, undefined, result.output);
    const [request] = fileChanges(context);
    assert.equal(request?.oldContent, 'one\ntwo\nunsaved three\n');
    assert.equal(request?.newContent, 'one\nTWO\nunsaved three\n');
    assert.deepEqual(editor.writes, [{ path, text: 'one\nTWO\nunsaved three\n' }]);
    assert.equal(await readFile(path, 'utf8'), 'one\nTWO\nunsaved three\n');
    // Undo gives back what the user had, unsaved changes included.
    assert.equal(Buffer.from(context.changes[0]?.before ?? []).toString(), 'one\ntwo\nunsaved three\n');
  });

  test('an editor that only changes its buffer, or fails, still leaves the approved text on disk', async () => {
    for (const variant of ['buffer only', 'fails'] as const) {
      const { path, context, editor } = await setUp('a\n', 'a\nb\n');
      editor.saves = variant !== 'buffer only';
      editor.failWrites = variant === 'fails';
      const result = await run(context, 'str_replace', { path: 'a.txt', oldStr: 'b', newStr: 'B' });
      assert.equal(result.summary, 'updated a.txt (2 lines)', variant);
      assert.equal(await readFile(path, 'utf8'), 'a\nB\n', variant);
    }
  });

  test('a buffer that changes while the user is asked is recomputed and asked again', async () => {
    const { path, context, editor } = await setUp('x\n', 'x\ny\n');
    let changed = false;
    context.beforeDecision = () => {
      if (!changed) editor.buffers.set(path, 'x\ny\nz\n');
      changed = true;
    };
    const result = await run(context, 'str_replace', { path: 'a.txt', oldStr: 'y', newStr: 'Y' });
    assert.match(result.output, /recomputed on the new content/);
    assert.deepEqual(
      fileChanges(context).map((request) => request.oldContent),
      ['x\ny\n', 'x\ny\nz\n'],
    );
    assert.equal(await readFile(path, 'utf8'), 'x\nY\nz\n');
  });

  test('a change the agent has not seen in the buffer is refused as modified since read', async () => {
    const { path, context, editor } = await setUp('same\n', 'same\n');
    await run(context, 'read_file', { path: 'a.txt' });
    editor.buffers.set(path, 'the user typed\n');
    const result = await run(context, 'write_file', { path: 'a.txt', content: 'new\n' });
    assert.equal(result.errorType, 'modified_since_read');
    assert.equal(editor.writes.length, 0);
  });

  test('a rejected edit is never written; a new file is created on disk, not through the editor', async () => {
    const { root, context, editor } = await setUp('keep\n', 'keep\nbuffer\n');
    context.decisions.push({ allowed: false, reason: 'rejected', message: 'The user rejected the change.' });
    const rejected = await run(context, 'write_file', { path: 'a.txt', content: 'gone\n' });
    assert.equal(rejected.rejected, true);
    await run(context, 'write_file', { path: 'new.txt', content: 'fresh\n' });
    assert.deepEqual(editor.writes, []);
    assert.equal(await readFile(join(root, 'new.txt'), 'utf8'), 'fresh\n');
  });
});

describe("commands in the editor's terminal", () => {
  async function runCommand(context: TestContext, args: Record<string, unknown>): Promise<ToolResult> {
    const tool = runCommandTool();
    return tool.execute(tool.parameters.parse(args), context);
  }

  test('an approved command runs there, with its output and exit code reported to the model', async () => {
    const root = await tempWorkspace();
    const context = await testContext(root, {
      settings: { commandOutputLimit: 1000, commandTimeoutMs: 5000 },
    });
    const sent: EditorCommand[] = [];
    context.editor = {
      runCommand: async (command) => {
        sent.push(command);
        // The editor runs it for real, as a terminal would.
        const ran = await promisify(execFile)('/bin/sh', ['-c', command.command], { cwd: command.cwd }).catch(
          (error: { stdout: string; code: number }) => error,
        );
        return {
          output: ran.stdout,
          truncated: true,
          exitCode: 'code' in ran ? ran.code : 0,
          signal: null,
          timedOut: false,
        };
      },
    };
    const result = await runCommand(context, { command: 'echo hi; exit 3' });
    assert.deepEqual(
      sent.map(({ command, cwd, timeoutMs, outputByteLimit }) => [command, cwd, timeoutMs, outputByteLimit]),
      [['echo hi; exit 3', root, 5000, 1000]],
    );
    assert.equal(context.gateRequests[0]?.kind, 'command', 'asked first');
    assert.equal(result.summary, 'exit 3');
    assert.match(result.output, /<output>\nhi\n<\/output>/);
    assert.match(result.output, /ran in the editor's terminal/);
    assert.match(result.output, /start of the output was cut/);
  });

  test('a timeout is reported as one; an editor that fails is an error and the command is not run here', async () => {
    const root = await tempWorkspace();
    const context = await testContext(root);
    context.editor = {
      runCommand: () =>
        Promise.resolve({ output: '', truncated: false, exitCode: null, signal: 'SIGKILL', timedOut: true }),
    };
    assert.equal((await runCommand(context, { command: 'sleep 100' })).errorType, 'timeout');
    context.editor = { runCommand: () => Promise.reject(new Error('the terminal could not start')) };
    const failed = await runCommand(context, { command: 'touch marker' });
    assert.equal(failed.errorType, 'terminal_failed');
    assert.match(failed.output, /may or may not have run/);
    assert.equal(existsSync(join(root, 'marker')), false);
  });

  test("the environment is sent as a change to the editor's: secrets unset, provider keys always", () => {
    const own = { PATH: '/bin', HOME: '/h', GH_TOKEN: 'ghp_secret' };
    const command = { PATH: '/bin', HOME: '/h', GIT_CONFIG_COUNT: '1' };
    const change = environmentChange(own, command);
    assert.deepEqual(change.env, { GIT_CONFIG_COUNT: '1' });
    assert.ok(change.unsetEnv.includes('GH_TOKEN'));
    assert.ok(change.unsetEnv.includes('ANTHROPIC_API_KEY'));
    assert.ok(!change.unsetEnv.includes('PATH'));
  });
});
