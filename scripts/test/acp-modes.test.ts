/**
 * Santra's permission modes (§7.8) through `santra acp`, as an editor sets them: the session's
 * `permission_mode` config option (ACP's `mode` category; ACP's session modes choose the agent).
 * The mode reaches the server's gate: under acceptEdits a file change is written without a
 * permission request, under plan it is refused without one, and an unknown mode is refused.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import { cleanUp, connect, refuse, setup, testerSession, updatesOf, write } from './helpers/acp-editor.ts';

after(cleanUp);

const permissionOption = (options: readonly acp.SessionConfigOption[] | null | undefined) =>
  options?.find((option) => option.id === 'permission_mode');

describe('santra acp: permission modes', () => {
  test('offered as a config option; acceptEdits writes unasked, plan refuses unasked, an unknown mode is refused', async () => {
    const context = await setup([
      write('accepted.txt', 'written under acceptEdits\n'),
      { text: 'Wrote it.' },
      write('planned.txt', 'must not be written\n'),
      { text: 'Refused, as planned.' },
    ]);
    // `refuse` fails the test if a permission request comes: neither mode may ask for these.
    const editor = await connect(context, refuse);
    const sessionId = await testerSession(editor, context.workspace);

    const set = (value: string) =>
      editor.agent.request(acp.methods.agent.session.setConfigOption, {
        sessionId,
        configId: 'permission_mode',
        value,
      });
    const accepting = await set('acceptEdits');
    const option = permissionOption(accepting.configOptions);
    assert.equal(option?.type, 'select');
    assert.equal(option?.category, 'mode');
    assert.equal(option?.type === 'select' ? option.currentValue : undefined, 'acceptEdits');
    const values =
      option?.type === 'select'
        ? option.options.map((choice) => ('value' in choice ? choice.value : ''))
        : [];
    assert.deepEqual(values, ['default', 'acceptEdits', 'plan', 'bypassPermissions']);

    const first = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'write accepted.txt' }],
    });
    assert.equal(first.stopReason, 'end_turn');
    assert.equal(
      readFileSync(join(context.workspace, 'accepted.txt'), 'utf8'),
      'written under acceptEdits\n',
    );

    await set('plan');
    const second = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'write planned.txt' }],
    });
    assert.equal(second.stopReason, 'end_turn');
    assert.equal(existsSync(join(context.workspace, 'planned.txt')), false, 'plan mode wrote a file');
    const refused = updatesOf(editor, 'tool_call_update').filter((update) => update.status === 'failed');
    assert.ok(refused.length > 0, 'the write in plan mode shows as failed');
    assert.equal(editor.permissions.length, 0);

    await assert.rejects(set('yolo'), /unknown permission mode "yolo"/);
  });

  test('the mode changed while a prompt runs applies to its later tool calls at once', async () => {
    const context = await setup([
      { toolCalls: [{ id: 't1', name: 'write_file', args: { path: 'first.txt', content: 'one\n' } }] },
      { toolCalls: [{ id: 't2', name: 'write_file', args: { path: 'second.txt', content: 'two\n' } }] },
      { text: 'Both written.' },
    ]);
    let sessionId = '';
    // At the first permission request the user picks acceptEdits in the editor's selector, then allows.
    const editor = await connect(context, async (request) => {
      if (editor.permissions.length === 1)
        await editor.agent.request(acp.methods.agent.session.setConfigOption, {
          sessionId,
          configId: 'permission_mode',
          value: 'acceptEdits',
        });
      const allow = request.options.find((option) => option.kind === 'allow_once');
      return { outcome: { outcome: 'selected', optionId: allow?.optionId ?? 'allow' } };
    });
    sessionId = await testerSession(editor, context.workspace);
    const done = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'write both files' }],
    });
    assert.equal(done.stopReason, 'end_turn');
    assert.equal(readFileSync(join(context.workspace, 'second.txt'), 'utf8'), 'two\n');
    assert.equal(editor.permissions.length, 1, 'the second write was not asked');
  });
});
