/**
 * `santra-server acp` with an editor that lends its files and terminals (protocol §7.5), driven by
 * the official ACP SDK's client side: the client holds buffers over the disk that differ from it
 * and really runs the commands it is given, so what the model reads, what is asked, what lands on
 * disk and what a command sees are all checked end to end against a fake provider.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import {
  choose,
  cleanUp,
  connect,
  EditorLending,
  messageText,
  refuse,
  type Setup,
  setup,
  testerSession,
  updatesOf,
} from './helpers/acp-editor.ts';

after(cleanUp);

describe("santra acp with the editor's files and terminals", () => {
  const tools = ['read_file', 'str_replace', 'run_command', 'task_completed'];
  /** The editor's own environment holds a provider key, which a command must not see. */
  const editorEnv = (home: string) => ({
    PATH: process.env.PATH,
    HOME: home,
    ANTHROPIC_API_KEY: 'sk-editor-key',
  });
  const lastMessage = (context: Setup, index: number) =>
    JSON.stringify(context.fake.requests[index]?.body.messages.at(-1));

  test('read_file reads the buffer; an approved edit goes into it and to disk; a command runs in a terminal on its tool call', async () => {
    const command = 'echo "key=[$ANTHROPIC_API_KEY]"; cat app.js; exit 3';
    const context = await setup(
      [
        { toolCalls: [{ id: 'r1', name: 'read_file', args: { path: 'app.js' } }] },
        {
          toolCalls: [
            {
              id: 's1',
              name: 'str_replace',
              args: { path: 'app.js', oldStr: 'const b = 2;', newStr: 'const b = 3;' },
            },
          ],
        },
        { toolCalls: [{ id: 'c1', name: 'run_command', args: { command } }] },
        { text: 'Done.' },
      ],
      tools,
    );
    const file = join(context.workspace, 'app.js');
    writeFileSync(file, 'const a = 1;\n');
    const lend = new EditorLending(editorEnv(context.home));
    lend.buffers.set(file, 'const a = 1;\nconst b = 2;\n'); // unsaved in the editor
    const editor = await connect(context, choose('allow'), { lend });
    const sessionId = await testerSession(editor, context.workspace);
    const response = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'bump b, then run it' }],
    });
    assert.equal(response.stopReason, 'end_turn');

    assert.ok(lend.reads.some((read) => read.path === file && read.sessionId === sessionId));
    assert.match(lastMessage(context, 1), /const b = 2;/, 'the model reads the unsaved buffer');

    const [edit, run] = editor.permissions;
    assert.ok(
      edit?.toolCall.content?.some(
        (content) =>
          content.type === 'diff' &&
          content.path === file &&
          content.oldText?.includes('const b = 2;') === true &&
          content.newText.includes('const b = 3;'),
      ),
      `the diff is against the buffer: ${JSON.stringify(edit?.toolCall.content)}`,
    );
    assert.deepEqual(
      lend.writes.map(({ sessionId: id, path, content }) => ({ id, path, content })),
      [{ id: sessionId, path: file, content: 'const a = 1;\nconst b = 3;\n' }],
    );
    assert.equal(readFileSync(file, 'utf8'), 'const a = 1;\nconst b = 3;\n', 'Santra makes sure of the disk');

    assert.equal(run?.toolCall.kind, 'execute');
    const terminal = lend.terminals.get('term-1');
    assert.equal(terminal?.request.command, '/bin/sh');
    // The terminal is the editor's, on this machine: the command comes wrapped in the OS sandbox
    // where there is one (bubblewrap around /bin/sh -c), else as it is.
    const [flag, line = ''] = terminal?.request.args ?? [];
    assert.equal(flag, '-c');
    if (line !== command) {
      assert.match(line, /^exec \S*bwrap /, 'sandboxed with bubblewrap');
      assert.ok(line.includes(` -- /bin/sh -c '${command}'`), line);
    }
    assert.equal(terminal?.request.cwd, context.workspace);
    assert.ok(
      terminal?.request.env?.some(
        (variable) => variable.name === 'ANTHROPIC_API_KEY' && variable.value === '',
      ),
      'the provider key is blanked',
    );
    const result = lastMessage(context, 3);
    assert.match(result, /key=\[\]/, 'the command did not see the key');
    assert.match(result, /const b = 3;/, 'the command saw the edit on disk');
    assert.match(result, /Exit code 3/);
    assert.deepEqual(lend.calls, ['release term-1']);

    const row = updatesOf(editor, 'tool_call').find((update) => update.kind === 'execute');
    const rowUpdates = updatesOf(editor, 'tool_call_update').filter(
      (update) => update.toolCallId === row?.toolCallId,
    );
    const shown = rowUpdates.findIndex((update) =>
      (update.content ?? []).some(
        (content) => content.type === 'terminal' && content.terminalId === 'term-1',
      ),
    );
    assert.ok(shown >= 0, 'the tool call shows the terminal');
    assert.equal(rowUpdates.at(-1)?.status, 'failed');
    assert.deepEqual(rowUpdates.at(-1)?.content?.[0], { type: 'terminal', terminalId: 'term-1' });
    assert.equal(await editor.close(), 0);
    assert.doesNotMatch(editor.stderr(), /the editor could not|was not released|uncaught|unhandled/i);
  });

  test("a selection Zed attaches (file://…#L2:3) reaches the model as the prompt's context, read from the unsaved buffer", async () => {
    const context = await setup([{ text: 'It adds them.' }], tools);
    const file = join(context.workspace, 'app.js');
    writeFileSync(file, 'const a = 1;\n');
    const lend = new EditorLending(editorEnv(context.home));
    lend.buffers.set(file, 'const a = 1;\nconst b = a + 1;\nconst c = a + b;\n'); // unsaved in the editor
    const editor = await connect(context, refuse, { lend });
    const sessionId = await testerSession(editor, context.workspace);
    const response = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [
        { type: 'text', text: 'What does ' },
        {
          type: 'resource',
          resource: { uri: `file://${file}#L2:3`, text: 'const b = a + 1;\nconst c = a + b;\n' },
        },
        { type: 'text', text: ' do?' },
      ],
    });
    assert.equal(response.stopReason, 'end_turn');
    const prompt = lastMessage(context, 0);
    assert.match(prompt, /What does @app\.js:2-3 do\?/);
    assert.match(prompt, /Selected, 2–3:\\n +2│ const b = a \+ 1;\\n +3│ const c = a \+ b;/);
    assert.ok(
      lend.reads.some((read) => read.path === file),
      'the server read the selection from the buffer',
    );
    assert.equal(await editor.close(), 0);
  });

  test('a read the editor cannot answer falls back to the disk, and the run goes on', async () => {
    const context = await setup(
      [{ toolCalls: [{ id: 'r1', name: 'read_file', args: { path: 'app.js' } }] }, { text: 'Read it.' }],
      tools,
    );
    writeFileSync(join(context.workspace, 'app.js'), 'const onDisk = true;\n');
    const lend = new EditorLending(editorEnv(context.home));
    lend.failReads = true;
    const editor = await connect(context, refuse, { lend });
    const sessionId = await testerSession(editor, context.workspace);
    const response = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'read it' }],
    });
    assert.equal(response.stopReason, 'end_turn');
    assert.equal(lend.reads.length, 1);
    assert.match(lastMessage(context, 1), /const onDisk = true;/);
    assert.match(messageText(editor), /Read it\./);
    assert.equal(await editor.close(), 0);
  });

  test('a command that outlives its timeout is killed; the model gets what it printed and is told', async () => {
    const context = await setup(
      [
        {
          toolCalls: [
            { id: 'c1', name: 'run_command', args: { command: 'echo started; sleep 30', timeout: 0.5 } },
          ],
        },
        { text: 'It hung.' },
      ],
      tools,
    );
    const lend = new EditorLending(editorEnv(context.home));
    const editor = await connect(context, choose('allow'), { lend });
    const sessionId = await testerSession(editor, context.workspace);
    const response = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'run it' }],
    });
    assert.equal(response.stopReason, 'end_turn');
    assert.ok((lend.terminals.get('term-1')?.request.outputByteLimit ?? 0) > 0);
    assert.deepEqual(lend.calls, ['kill term-1', 'release term-1']);
    const result = lastMessage(context, 1);
    assert.match(result, /Timed out after 0\.5 s/);
    assert.match(result, /started/);
    assert.equal(await editor.close(), 0);
  });

  test('session/cancel while a command runs in the terminal kills and releases it', async () => {
    const context = await setup(
      [{ toolCalls: [{ id: 'c1', name: 'run_command', args: { command: 'sleep 30' } }] }],
      tools,
    );
    const lend = new EditorLending(editorEnv(context.home));
    const editor = await connect(context, choose('allow'), { lend });
    const sessionId = await testerSession(editor, context.workspace);
    const running = editor.nextUpdate(
      (update) =>
        update.sessionUpdate === 'tool_call_update' &&
        (update.content ?? []).some((content) => content.type === 'terminal'),
    );
    const turn = editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'wait a while' }],
    });
    await running;
    await editor.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    assert.equal((await turn).stopReason, 'cancelled');
    // Killed and released before the turn was answered: the editor may drop its terminals then.
    assert.deepEqual(lend.calls, ['kill term-1', 'release term-1']);
    assert.equal((await lend.terminals.get('term-1')?.exited)?.signal, 'SIGKILL');
    assert.equal(await editor.close(), 0);
    assert.doesNotMatch(editor.stderr(), /the editor could not|was not released|uncaught|unhandled/i);
  });
});
