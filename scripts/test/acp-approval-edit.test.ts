/**
 * `santra acp` and approvals that edit (protocol §7.3.2), end to end with the official ACP SDK's
 * client side: ACP's permission outcome carries an option id only, so an editor that lets its
 * user edit a proposal sends the edit in the outcome's `_meta.santra` (`content`, `hunks` or
 * `command`), as the request's `_meta.santra.edit` offers; without it the answer is
 * all-or-nothing. With forms, a command can be edited in a form before it is allowed.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import { choose, cleanUp, connect, setup, testerSession } from './helpers/acp-editor.ts';

after(cleanUp);

/** Twelve lines; the model changes the first and the last: two hunks. */
const ORIGINAL = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`);
const PROPOSED = ORIGINAL.map((line, i) => (i === 0 || i === 11 ? line.toUpperCase() : line));
const text = (lines: readonly string[]) => `${lines.join('\n')}\n`;

const writeTwoHunks = () => [
  { toolCalls: [{ id: 'w1', name: 'write_file', args: { path: 'notes.txt', content: text(PROPOSED) } }] },
  { text: 'Done.' },
];

/** Allows, with `santra` as the outcome's `_meta.santra` (computed from the request). */
const allowWith =
  (santra: (request: acp.RequestPermissionRequest) => Record<string, unknown>) =>
  (request: acp.RequestPermissionRequest): acp.RequestPermissionResponse => ({
    outcome: { outcome: 'selected', optionId: 'allow', _meta: { santra: santra(request) } },
  });

const offered = (request: acp.RequestPermissionRequest | undefined) =>
  (
    request?._meta?.santra as
      { edit?: { content?: boolean; hunks?: string[]; command?: boolean } } | undefined
  )?.edit;

async function prompt(editor: Awaited<ReturnType<typeof connect>>, workspace: string, text: string) {
  const sessionId = await testerSession(editor, workspace);
  return editor.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: 'text', text }],
  });
}

const toldModel = (context: Awaited<ReturnType<typeof setup>>, index: number) =>
  JSON.stringify(context.fake.requests[index]?.body.messages.at(-1));

describe('santra acp: approvals that edit', () => {
  test('the request offers content and the hunk ids; an "Allow" with _meta.santra.content writes the edited version', async () => {
    const context = await setup(writeTwoHunks());
    writeFileSync(join(context.workspace, 'notes.txt'), text(ORIGINAL));
    const edited = text(['LINE 1', ...ORIGINAL.slice(1, 11), 'line 12, kept by the person']);
    const editor = await connect(
      context,
      allowWith(() => ({ content: edited })),
    );
    assert.equal((await prompt(editor, context.workspace, 'shout')).stopReason, 'end_turn');
    const edit = offered(editor.permissions[0]);
    assert.equal(edit?.content, true);
    assert.equal(edit?.hunks?.length, 2);
    assert.equal(edit?.command, undefined);
    assert.equal(readFileSync(join(context.workspace, 'notes.txt'), 'utf8'), edited);
    // The model is told the person's changes, as a diff from its proposal.
    assert.match(toldModel(context, 1), /-LINE 12/);
    assert.match(toldModel(context, 1), /\+line 12, kept by the person/);
    assert.equal(await editor.close(), 0);
  });

  test('an "Allow" with _meta.santra.hunks applies only those hunks', async () => {
    const context = await setup(writeTwoHunks());
    writeFileSync(join(context.workspace, 'notes.txt'), text(ORIGINAL));
    const editor = await connect(
      context,
      allowWith((request) => ({ hunks: offered(request)?.hunks?.slice(1) ?? [] })),
    );
    await prompt(editor, context.workspace, 'shout');
    const written = ORIGINAL.map((line, i) => (i === 11 ? 'LINE 12' : line));
    assert.equal(readFileSync(join(context.workspace, 'notes.txt'), 'utf8'), text(written));
    assert.match(toldModel(context, 1), /LINE 1\b/);
    assert.equal(await editor.close(), 0);
  });

  test('without _meta the answer is all or nothing; a _meta.santra field of the wrong type is declined, and nothing is written', async () => {
    const whole = await setup(writeTwoHunks());
    writeFileSync(join(whole.workspace, 'notes.txt'), text(ORIGINAL));
    const plain = await connect(whole, choose('allow'));
    await prompt(plain, whole.workspace, 'shout');
    assert.equal(readFileSync(join(whole.workspace, 'notes.txt'), 'utf8'), text(PROPOSED));
    assert.equal(await plain.close(), 0);

    const bad = await setup(writeTwoHunks());
    writeFileSync(join(bad.workspace, 'notes.txt'), text(ORIGINAL));
    const editor = await connect(
      bad,
      allowWith(() => ({ content: 42 })),
    );
    await prompt(editor, bad.workspace, 'shout');
    assert.equal(readFileSync(join(bad.workspace, 'notes.txt'), 'utf8'), text(ORIGINAL));
    assert.match(toldModel(bad, 1), /_meta\.santra\.content must be a string/);
    assert.equal(await editor.close(), 0);
  });

  test('the file changed on disk before the answer: the edited version is not written over it', async () => {
    const context = await setup(writeTwoHunks());
    const path = join(context.workspace, 'notes.txt');
    writeFileSync(path, text(ORIGINAL));
    const meanwhile = text(ORIGINAL.map((line, i) => (i === 5 ? 'changed on disk meanwhile' : line)));
    let asked = 0;
    const editor = await connect(context, () => {
      if (asked++ > 0) return { outcome: { outcome: 'selected', optionId: 'reject' } };
      writeFileSync(path, meanwhile);
      return {
        outcome: { outcome: 'selected', optionId: 'allow', _meta: { santra: { content: 'edited\n' } } },
      };
    });
    await prompt(editor, context.workspace, 'shout');
    // Santra asked again on the new text (rejected here) or gave up: either way the disk keeps it.
    assert.equal(readFileSync(path, 'utf8'), meanwhile);
    assert.equal(await editor.close(), 0);
  });

  test('with forms, "Edit the command, then allow…" runs the edited command after asking again; the proposed one never runs', async () => {
    const context = await setup(
      [
        { toolCalls: [{ id: 'c1', name: 'run_command', args: { command: 'touch proposed.txt' } }] },
        { text: 'Ran it.' },
      ],
      ['run_command', 'task_completed'],
    );
    let asked = 0;
    const editor = await connect(
      context,
      () => ({ outcome: { outcome: 'selected', optionId: asked++ === 0 ? 'edit_command' : 'allow' } }),
      { forms: () => ({ action: 'accept', content: { answer: 'touch edited.txt' } }) },
    );
    await prompt(editor, context.workspace, 'make a file');
    const [first, second] = editor.permissions;
    assert.ok(first?.options.some((option) => option.name === 'Edit the command, then allow…'));
    assert.equal(offered(first)?.command, true);
    const [form] = editor.forms;
    const schema = form !== undefined && 'requestedSchema' in form ? form.requestedSchema : undefined;
    const properties = (schema as { properties?: Record<string, { default?: string }> } | undefined)
      ?.properties;
    const field = properties?.answer;
    assert.equal(field?.default, 'touch proposed.txt');
    // The edited command is a new command: asked again, with the person's version.
    assert.match(JSON.stringify(second?.toolCall), /touch edited\.txt/);
    assert.equal(existsSync(join(context.workspace, 'edited.txt')), true);
    assert.equal(existsSync(join(context.workspace, 'proposed.txt')), false);
    assert.equal(await editor.close(), 0);
  });
});
