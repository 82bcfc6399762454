/**
 * :SantraRewind in a headless Neovim (editors/nvim/test/rewind_flow.lua) against the built
 * santra-server and a fake Anthropic provider: the session's prompts offered newest first through
 * vim.ui.select, the picked one put back in the chat buffer, and the edited prompt sent to a model
 * that no longer sees the prompt or its answer. Then an event sent into the idle session is drawn
 * in its transcript as a card.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { nvimFlowSuite, runNvimFlow, writeTesterAgent } from '../../scripts/test/helpers/editor-env.ts';

const { SERVER, PLUGIN, cleanups } = nvimFlowSuite();

interface RewindReport {
  error?: string;
  notices: string[];
  session: string;
  choices: string[];
  rewind_notice: string;
  chat: string[];
  transcript_tail: string;
  same_session: boolean;
  event_delivered: string;
  event_card: string[];
}

describe(':SantraRewind', () => {
  test('picks an earlier prompt, puts it in the chat buffer, and the model no longer sees what came after', async () => {
    const { report, fake } = await runNvimFlow<RewindReport>({
      plugin: PLUGIN,
      server: SERVER,
      script: join(PLUGIN, 'test/rewind_flow.lua'),
      turns: [{ text: 'First answer.' }, { text: 'Second answer.' }, { text: 'Edited answer.' }],
      prepare: (workspace) => writeTesterAgent(workspace, ['read_file', 'task_completed'], 'rewind'),
      env: {},
      cleanups,
    });
    assert.match(report.choices[1] ?? '', /second question beta/, JSON.stringify(report.choices));
    assert.match(report.choices[2] ?? '', /first question alpha/);
    assert.match(report.rewind_notice, /rewound: the prompt is in the chat buffer/);
    assert.deepEqual(report.chat, ['second question beta']);
    assert.match(report.transcript_tail, /Rewound to just before: second question beta/);
    assert.equal(report.same_session, true);
    const sent = JSON.stringify((fake.requests.at(-1)?.body as { messages: unknown[] }).messages);
    assert.match(sent, /first question alpha[\s\S]*First answer\.[\s\S]*second question beta, edited/);
    assert.doesNotMatch(sent, /Second answer/);
    assert.equal(report.event_delivered, 'saved');
    assert.deepEqual(report.event_card, ['✉ event from ci (saved, untrusted):', '  │ CI failed: test_login']);
  });
});
