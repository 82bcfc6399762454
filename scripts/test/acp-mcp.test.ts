/**
 * The MCP servers an ACP editor passes with session/new (Zed's context servers): `santra acp`
 * starts them in the session's runtime, as the person's own, so the model can call their tools —
 * each call put to the editor as a permission request, as for the servers of Santra's config.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import type { FakeTurn, RecordedRequest } from '../../conformance-tests/src/fake-providers/index.ts';
import { MCP_SERVERS_SCRIPT } from '../../server/test/helpers/mcp-servers.ts';
import { cleanUp, connect, setup, testerSession, updatesOf } from './helpers/acp-editor.ts';

after(cleanUp);

const ECHO = 'mcp__editor_tools__echo';
const offersEcho = (request: RecordedRequest) =>
  JSON.stringify((request.body as { tools?: unknown }).tools ?? []).includes(ECHO);
/** The server starts in the background: until its tools are offered, the model just says so. */
const notYet = (): FakeTurn => ({ match: (request) => !offersEcho(request), text: 'Not connected yet.' });

describe('santra acp: the editor’s MCP servers', () => {
  test('a stdio server passed with session/new is started; its tool is asked for, allowed and run', async () => {
    const context = await setup(
      [
        ...Array.from({ length: 40 }, notYet),
        {
          match: offersEcho,
          toolCalls: [{ id: 'm1', name: ECHO, args: { text: 'from the editor server' } }],
        },
        { text: 'The server echoed it.' },
      ],
      ['mcp__editor_tools__*', 'task_completed'],
    );
    const editor = await connect(context, (request) => {
      const allow = request.options.find((option) => option.kind === 'allow_once');
      return { outcome: { outcome: 'selected', optionId: allow?.optionId ?? 'allow' } };
    });
    const sessionId = await testerSession(editor, context.workspace, [
      // A name no tool name can carry: made one (editor-mcp.ts).
      { name: 'editor tools', command: process.execPath, args: [MCP_SERVERS_SCRIPT, 'tools'], env: [] },
    ]);
    const deadline = Date.now() + 20_000;
    for (;;) {
      await editor.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'echo something through the editor server' }],
      });
      if (context.fake.requests.some(offersEcho)) break;
      assert.ok(Date.now() < deadline, 'the editor server’s tools were never offered');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.equal(editor.permissions.length, 1, 'the MCP call was put to the editor');
    assert.match(JSON.stringify(editor.permissions[0]), /editor_tools/);
    const result = updatesOf(editor, 'tool_call_update').find(
      (update) => update.status === 'completed' && JSON.stringify(update).includes('from the editor server'),
    );
    assert.ok(result, JSON.stringify(updatesOf(editor, 'tool_call_update')));
    assert.match(JSON.stringify(context.fake.requests.at(-1)?.body), /from the editor server/);
    assert.equal(await editor.close(), 0);
  });
});
