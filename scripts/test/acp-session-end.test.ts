/**
 * SessionEnd under `santra acp`, where one process runs a Santra per editor session: closing one
 * session (ACP `session/close`) ends that session only, and the others end when the agent does.
 * The built server, the ACP SDK's client, a fake Anthropic provider, a real hook script.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import { choose, cleanUp, connect, setup, testerSession } from './helpers/acp-editor.ts';

after(cleanUp);

/** The `session_id` of each SessionEnd the hook saw, in order. */
function ended(log: string): string[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => String((JSON.parse(line) as { session_id: unknown }).session_id));
}

describe('santra acp: SessionEnd', () => {
  test('closing one editor session runs its SessionEnd only; the other ends with the agent', async () => {
    const context = await setup([{ text: 'One.' }, { text: 'Two.' }]);
    const log = join(context.home, 'ended.jsonl');
    const hook = join(context.home, 'session-end.sh');
    writeFileSync(hook, `#!/bin/sh\ncat >> "${log}"\necho >> "${log}"\n`);
    chmodSync(hook, 0o755);
    mkdirSync(join(context.home, 'santra'), { recursive: true });
    writeFileSync(
      join(context.home, 'santra/config.json'),
      JSON.stringify({ hooks: { SessionEnd: [{ hooks: [{ type: 'command', command: hook }] }] } }),
    );
    const editor = await connect(context, choose('allow'));
    const first = await testerSession(editor, context.workspace);
    const second = await testerSession(editor, context.workspace);
    for (const sessionId of [first, second]) {
      const response = await editor.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'hello' }],
      });
      assert.equal(response.stopReason, 'end_turn');
    }
    await editor.agent.request(acp.methods.agent.session.close, { sessionId: first });
    assert.deepEqual(ended(log), [first], 'only the closed session ended');
    assert.equal(await editor.close(), 0);
    assert.deepEqual(ended(log), [first, second]);
  });
});
