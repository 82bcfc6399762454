/**
 * `santra-server acp` end to end, driven by the official ACP SDK's client side as Zed drives an
 * agent: the built server is spawned, speaks ACP on its stdio, and runs Santra's swarm against a
 * fake Anthropic provider on 127.0.0.1 that scripts a write_file through the custom agent chosen
 * as the session's mode. Real process, real files, real SDKs. (An editor that lends its files and
 * terminals: acp-files.test.ts.)
 *
 * It lives in scripts/test: it runs the built server with the fake providers of the conformance
 * suite (scripts/dependency-rules.ts).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import {
  call,
  choose,
  cleanUp,
  connect,
  messageText,
  refuse,
  rejection,
  rowContent,
  setup,
  testerSession,
  updatesOf,
  write,
} from './helpers/acp-editor.ts';

after(cleanUp);

describe('santra acp', () => {
  test('a turn with an approval: chunks stream, the edit shows its diff, "allow" writes the file', async () => {
    const context = await setup([write('greeting.txt', 'hello from acp\n'), { text: 'Wrote greeting.txt.' }]);
    const editor = await connect(context, choose('allow'));
    const sessionId = await testerSession(editor, context.workspace);
    // As Zed sends a message with a mention: the text around it keeps its spaces.
    const response = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [
        { type: 'text', text: 'write the greeting into ' },
        { type: 'resource_link', name: 'greeting.txt', uri: `file://${context.workspace}/greeting.txt` },
        { type: 'text', text: ' please' },
      ],
    });
    assert.equal(response.stopReason, 'end_turn');
    assert.equal(readFileSync(join(context.workspace, 'greeting.txt'), 'utf8'), 'hello from acp\n');
    assert.match(messageText(editor), /Wrote greeting\.txt\./);
    assert.deepEqual(
      updatesOf(editor, 'session_info_update').map((update) => update.title),
      ['write the greeting into @greeting.txt please'],
    );

    const [call] = updatesOf(editor, 'tool_call');
    assert.equal(call?.kind, 'edit');
    assert.match(call?.title ?? '', /greeting\.txt/);
    assert.deepEqual(call?.locations, [{ path: join(context.workspace, 'greeting.txt') }]);

    const [permission] = editor.permissions;
    assert.equal(permission?.sessionId, sessionId);
    assert.equal(permission?.toolCall.toolCallId, call?.toolCallId);
    assert.deepEqual(
      permission?.options.map((option) => [option.kind, option.name]),
      [
        ['allow_once', 'Allow'],
        ['allow_always', 'Always allow edits and commands'],
        ['reject_once', 'Reject'],
      ],
    );
    const diff = { type: 'diff', path: join(context.workspace, 'greeting.txt'), newText: 'hello from acp\n' };
    assert.deepEqual(permission?.toolCall.content, [diff]);

    const done = updatesOf(editor, 'tool_call_update').filter(
      (update) => update.toolCallId === call?.toolCallId,
    );
    assert.equal(done.at(-1)?.status, 'completed');
    assert.deepEqual(rowContent(editor, call?.toolCallId), [diff], 'the completed edit keeps its diff');
    // One diff, sent once to the row: none before the approval, none again at the end.
    const diffsSent = [call, ...done].filter((update) =>
      (update?.content ?? []).some((content) => content.type === 'diff'),
    );
    assert.equal(diffsSent.length, 1, JSON.stringify(diffsSent));
    assert.equal(await editor.close(), 0);
  });

  test('a protected change is unmistakable: its title, kind, allow option and _meta say so, and "allow all" is not offered', async () => {
    const context = await setup([write('.husky/pre-commit', 'echo hi\n'), { text: 'Done.' }]);
    const editor = await connect(context, choose('reject'));
    const sessionId = await testerSession(editor, context.workspace);
    await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'add a hook' }],
    });
    const [permission] = editor.permissions;
    assert.match(permission?.toolCall.title ?? '', /^⚠ PROTECTED — /);
    assert.equal(permission?.toolCall.kind, 'other');
    assert.deepEqual(
      permission?.options.map((option) => [option.kind, option.name]),
      [
        ['allow_once', 'Allow this change to a protected location'],
        ['reject_once', 'Reject'],
      ],
    );
    assert.equal((permission?._meta?.santra as { protected?: unknown } | undefined)?.protected, true);
    assert.equal(existsSync(join(context.workspace, '.husky/pre-commit')), false);
    assert.equal(await editor.close(), 0);
  });

  test('"reject": nothing is written, the tool call fails and the model is told', async () => {
    const context = await setup([write('greeting.txt', 'never\n'), { text: 'Understood.' }]);
    const editor = await connect(context, choose('reject'));
    const sessionId = await testerSession(editor, context.workspace);
    const response = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'write the greeting' }],
    });
    assert.equal(response.stopReason, 'end_turn');
    assert.equal(existsSync(join(context.workspace, 'greeting.txt')), false);
    const [call] = updatesOf(editor, 'tool_call');
    const last = updatesOf(editor, 'tool_call_update').filter(
      (update) => update.toolCallId === call?.toolCallId,
    );
    assert.equal(last.at(-1)?.status, 'failed');
    assert.match(JSON.stringify(context.fake.requests[1]?.body.messages.at(-1)), /reject/i);
    assert.equal(await editor.close(), 0);
  });

  test('session/cancel mid-stream ends the turn with stopReason cancelled; closing stdin mid-run exits 0', async () => {
    const context = await setup([{ text: ['working '], fault: { kind: 'stall', afterEvents: 4 } }]);
    const editor = await connect(context, refuse);
    const sessionId = await testerSession(editor, context.workspace);
    const streaming = editor.nextUpdate((update) => update.sessionUpdate === 'agent_message_chunk');
    const turn = editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'work for a long time' }],
    });
    await streaming;
    await editor.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    assert.equal((await turn).stopReason, 'cancelled');

    // The editor going away mid-run (its end of stdin) ends the run and the process, cleanly.
    context.fake.push({ text: ['again '], fault: { kind: 'stall', afterEvents: 4 } });
    const streamingAgain = editor.nextUpdate((update) => update.sessionUpdate === 'agent_message_chunk');
    const abandoned = editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'and again' }],
    });
    abandoned.catch(() => {}); // Unanswered: the connection closes under it.
    await streamingAgain;
    assert.equal(await editor.close(), 0);
    assert.doesNotMatch(editor.stderr(), /uncaught|unhandled/i);
  });

  test('session/cancel while a permission prompt is open: the prompt is withdrawn, nothing is written', async () => {
    const context = await setup([write('greeting.txt', 'never\n')]);
    let opened: () => void = () => {};
    const asked = new Promise<void>((resolve) => (opened = resolve));
    const editor = await connect(context, async (_request, signal) => {
      opened();
      // As an editor does: the open prompt goes away when the turn is cancelled.
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
      return { outcome: { outcome: 'cancelled' } };
    });
    const sessionId = await testerSession(editor, context.workspace);
    const turn = editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'write the greeting' }],
    });
    await asked;
    await editor.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    assert.equal((await turn).stopReason, 'cancelled');
    assert.equal(existsSync(join(context.workspace, 'greeting.txt')), false);
    assert.equal(await editor.close(), 0);
  });

  test('a provider failure is told in the answer and the turn ends; the session stays usable', async () => {
    const context = await setup([
      { fault: { kind: 'http_error', status: 401, message: 'invalid x-api-key' } },
      { text: 'Back again.' },
    ]);
    const editor = await connect(context, refuse);
    const sessionId = await testerSession(editor, context.workspace);
    const failed = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'hello' }],
    });
    assert.equal(failed.stopReason, 'end_turn');
    assert.match(messageText(editor), /\*\*Error:\*\*/);
    const again = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'hello again' }],
    });
    assert.equal(again.stopReason, 'end_turn');
    assert.match(messageText(editor), /Back again\./);
    assert.equal(await editor.close(), 0);
  });

  test('session/list and session/load: a new process replays the saved session, which goes on', async () => {
    const context = await setup([
      write('greeting.txt', 'hello again\n'),
      { text: 'Wrote greeting.txt.' },
      { text: 'It says hello again.' },
    ]);
    const first = await connect(context, choose('allow'));
    const sessionId = await testerSession(first, context.workspace);
    await first.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'write the greeting' }],
    });
    assert.equal(await first.close(), 0);

    const second = await connect(context, refuse);
    const listed = await second.agent.request(acp.methods.agent.session.list, { cwd: context.workspace });
    assert.equal(listed.sessions.length, 1);
    const saved = listed.sessions[0];
    assert.equal(saved?.sessionId, sessionId, 'the thread keeps its id across a restart');
    assert.equal(saved?.cwd, context.workspace);
    assert.equal(saved?.title, 'write the greeting');

    const loaded = await second.agent.request(acp.methods.agent.session.load, {
      sessionId: saved?.sessionId ?? '',
      cwd: context.workspace,
      mcpServers: [],
    });
    assert.equal(loaded.modes?.currentModeId, 'auto');
    const user = updatesOf(second, 'user_message_chunk').map((update) =>
      update.content.type === 'text' ? update.content.text : '',
    );
    assert.deepEqual(user, ['write the greeting']);
    assert.match(messageText(second), /Wrote greeting\.txt\./);
    const [call] = updatesOf(second, 'tool_call');
    assert.equal(call?.kind, 'edit');
    const replayedDiff = updatesOf(second, 'tool_call_update').flatMap((update) => update.content ?? []);
    assert.ok(
      replayedDiff.some((content) => content.type === 'diff' && content.newText === 'hello again\n'),
      'the approval diff is replayed',
    );

    const response = await second.agent.request(acp.methods.agent.session.prompt, {
      sessionId: saved?.sessionId ?? '',
      prompt: [{ type: 'text', text: 'what does it say?' }],
    });
    assert.equal(response.stopReason, 'end_turn');
    const history = JSON.stringify(context.fake.requests.at(-1)?.body.messages);
    assert.match(history, /write the greeting/, 'the loaded session continues with its history');
    assert.equal(await second.close(), 0);
  });

  test('the swarm: a sub-agent is a think row with its own prefixed tool calls; "allow all" is asked once', async () => {
    const context = await setup([
      call('orchestrator', 'o1', 'spawn_agent', { agentId: 'executor', task: 'Create notes.txt' }),
      call('executor', 'e1', 'write_file', { path: 'notes.txt', content: 'notes\n' }),
      call('executor', 'e2', 'write_file', { path: 'more.txt', content: 'more\n' }),
      call('executor', 'e3', 'task_completed', { result: 'notes.txt created' }),
      call('orchestrator', 'o2', 'task_completed', { result: 'Created notes.txt.' }),
    ]);
    const editor = await connect(context, choose('allow_all'));
    const { sessionId } = await editor.agent.request(acp.methods.agent.session.new, {
      cwd: context.workspace,
      mcpServers: [],
    });
    const response = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'Create notes.txt in the project' }],
    });
    assert.equal(response.stopReason, 'end_turn');
    assert.equal(readFileSync(join(context.workspace, 'more.txt'), 'utf8'), 'more\n');
    assert.equal(editor.permissions.length, 1, 'after "allow all" Santra allows the second write itself');
    const calls = updatesOf(editor, 'tool_call');
    const section = calls.find((update) => update.kind === 'think');
    assert.match(section?.title ?? '', /^Executor: Create notes\.txt/);
    // One delegation, one row: the spawn_agent call is the executor's row, not a second one.
    assert.deepEqual(
      calls.filter((update) => !update.title.startsWith('executor-1: ')).map((update) => update.title),
      ['Executor: Create notes.txt'],
    );
    assert.ok(calls.some((update) => update.title === 'executor-1: write_file notes.txt'));
    assert.ok(!calls.some((update) => /task_completed/.test(update.title)), 'task_completed is not a row');
    const sectionEnd = updatesOf(editor, 'tool_call_update').filter(
      (u) => u.toolCallId === section?.toolCallId,
    );
    assert.equal(sectionEnd.at(-1)?.status, 'completed');
    assert.match(messageText(editor), /Created notes\.txt\./);
    assert.equal(await editor.close(), 0);
  });

  test('a question with options is a permission prompt whose options are the answers; the plan is shown', async () => {
    const context = await setup([
      {
        toolCalls: [
          {
            id: 'p1',
            name: 'todo_write',
            args: {
              todos: [
                { content: 'Ask about style', status: 'in_progress' },
                { content: 'Write', status: 'pending' },
              ],
            },
          },
        ],
      },
      {
        toolCalls: [
          {
            id: 'q1',
            name: 'ask_user',
            args: {
              prompt: 'Tabs or spaces?',
              options: [
                { label: 'Tabs', value: 'tabs' },
                { label: 'Spaces', value: 'spaces' },
              ],
            },
          },
        ],
      },
      { text: 'Spaces it is.' },
    ]);
    const editor = await connect(context, (request) => {
      const spaces = request.options.find((option) => option.name === 'Spaces');
      return { outcome: { outcome: 'selected', optionId: spaces?.optionId ?? 'none' } };
    });
    const sessionId = await testerSession(editor, context.workspace);
    await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'ask me' }],
    });
    const [question] = editor.permissions;
    assert.equal(question?.toolCall.title, 'Tabs or spaces?');
    assert.deepEqual(
      question?.options.map((option) => option.name),
      ['Tabs', 'Spaces', 'Skip (let the agent decide)'],
    );
    assert.match(JSON.stringify(context.fake.requests[2]?.body.messages.at(-1)), /The user answered: spaces/);
    assert.deepEqual(updatesOf(editor, 'plan')[0]?.entries, [
      { content: 'Ask about style', status: 'in_progress', priority: 'medium' },
      { content: 'Write', status: 'pending', priority: 'medium' },
    ]);
    assert.equal(await editor.close(), 0);
  });

  test('with forms: a free-text question is a form, and "Reject with feedback…" asks why', async () => {
    const context = await setup([
      { toolCalls: [{ id: 'q1', name: 'ask_user', args: { prompt: 'Which file name?' } }] },
      write('a.txt', 'one\n'),
      { text: 'Understood, a.md it is.' },
    ]);
    const editor = await connect(context, choose('feedback'), {
      forms: (request) => ({
        action: 'accept',
        content: { answer: request.message === 'Which file name?' ? 'a.txt' : 'use a.md instead' },
      }),
    });
    const sessionId = await testerSession(editor, context.workspace);
    await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'write a file' }],
    });
    assert.deepEqual(
      editor.forms.map((form) => form.message),
      ['Which file name?', 'Why reject it? The agent reads this.'],
    );
    assert.ok(editor.permissions[0]?.options.some((option) => option.optionId === 'feedback'));
    assert.equal(existsSync(join(context.workspace, 'a.txt')), false);
    assert.match(JSON.stringify(context.fake.requests[1]?.body.messages.at(-1)), /The user answered: a\.txt/);
    assert.match(JSON.stringify(context.fake.requests[2]?.body.messages.at(-1)), /use a\.md instead/);
    assert.equal(await editor.close(), 0);
  });

  test('without forms a free-text question cannot be put: the user is told and the agent goes on', async () => {
    const context = await setup([
      { toolCalls: [{ id: 'q1', name: 'ask_user', args: { prompt: 'Which file name?' } }] },
      { text: 'I will pick one myself.' },
    ]);
    const editor = await connect(context, refuse);
    const sessionId = await testerSession(editor, context.workspace);
    const response = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'name a file' }],
    });
    assert.equal(response.stopReason, 'end_turn');
    assert.match(messageText(editor), /Santra asked: Which file name\?/);
    assert.match(messageText(editor), /I will pick one myself\./);
    const [row] = updatesOf(editor, 'tool_call');
    const end = updatesOf(editor, 'tool_call_update').filter(
      (update) => update.toolCallId === row?.toolCallId,
    );
    assert.equal(end.at(-1)?.status, 'failed');
    assert.equal(await editor.close(), 0);
  });

  test('bad input is answered with ACP errors that say what to fix', async () => {
    const context = await setup([]);
    const editor = await connect(context, refuse);
    const relative = await rejection(
      editor.agent.request(acp.methods.agent.session.new, { cwd: 'project', mcpServers: [] }),
    );
    assert.equal(relative.code, -32602);
    assert.match(relative.message, /cwd "project" is not an absolute path/);
    const missing = await rejection(
      editor.agent.request(acp.methods.agent.session.new, {
        cwd: join(context.home, 'nope'),
        mcpServers: [],
      }),
    );
    assert.match(missing.message, /is not an existing directory/);
    const unknown = await rejection(
      editor.agent.request(acp.methods.agent.session.prompt, {
        sessionId: 'acp_nope',
        prompt: [{ type: 'text', text: 'hi' }],
      }),
    );
    assert.equal(unknown.code, -32002);
    assert.match(unknown.message, /unknown session "acp_nope"/);
    const { sessionId } = await editor.agent.request(acp.methods.agent.session.new, {
      cwd: context.workspace,
      mcpServers: [],
    });
    const image = await rejection(
      editor.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }],
      }),
    );
    assert.equal(image.code, -32602);
    assert.match(image.message, /prompt\[0\] is an image/);
    const mode = await rejection(
      editor.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'wizard' }),
    );
    assert.match(mode.message, /unknown mode "wizard"/);
    const notLoaded = await rejection(
      editor.agent.request(acp.methods.agent.session.load, {
        sessionId: 'ses_missing',
        cwd: context.workspace,
        mcpServers: [],
      }),
    );
    assert.equal(notLoaded.code, -32002);
    const schema = await rejection(editor.agent.request('session/new', { mcpServers: [] }));
    assert.equal(schema.code, -32602);
    assert.equal(await editor.close(), 0);
  });
});
