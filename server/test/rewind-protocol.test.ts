/**
 * session/rewind and session/prompts through the real server and a fake model: what the model is
 * sent after a rewind (read from the fake's requests), a fork that leaves the original whole, a
 * rewind past a compaction, files put back without writing over what the user changed since, and
 * the rewind kept in the session's records across a restart.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  type FakeProvider,
  type FakeTurn,
  startFakeProvider,
} from '../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { sentTexts, sessionServers } from './helpers/sessions.ts';
import type { Json } from './helpers/wire.ts';

const cleanup: Array<() => Promise<void>> = [];
const servers = sessionServers();
servers.later(async () => {
  for (const step of cleanup.reverse()) await step();
});

/** An agent with the file tools, so the fake model's calls run without the orchestrator. */
const EDITOR = {
  id: 'editor',
  name: 'Editor',
  description: 'Changes files for the rewind tests.',
  systemPrompt: 'You edit files.',
  toolNames: ['read_file', 'write_file', 'str_replace'],
};

async function setup(turns: FakeTurn[]) {
  const fake = await startFakeProvider('anthropic', turns);
  const home = tempDir('santra-home-');
  const workspace = tempDir('santra-ws-');
  mkdirSync(join(workspace, '.agents'));
  writeFileSync(join(workspace, '.agents/editor.json'), JSON.stringify(EDITOR));
  cleanup.push(async () => {
    await fake.close();
    await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
  });
  return { fake, home, workspace };
}

/** A server answering the prompts' approvals with allow, and a restore's with `restoreAnswer`. */
async function server(
  at: { home: string; workspace: string; fake: FakeProvider },
  options: { capabilities?: Json; agent?: string } = {},
) {
  const base = await servers.start({
    home: at.home,
    workspace: at.workspace,
    anthropicUrl: at.fake.url,
    capabilities: options.capabilities ?? { approve: true },
    promptDefaults: options.agent === undefined ? { mode: 'simple_chat' } : { agent: options.agent },
  });
  const restoreAsks: Json[] = [];
  base.client.handle('approve', (params) => {
    if (params.toolName !== 'session/undo') return { decision: 'allow' };
    restoreAsks.push(params);
    return { decision: 'reject' };
  });
  return {
    ...base,
    restoreAsks,
    async ask(sessionId: string, text: string): Promise<Json> {
      const { result } = await base.prompt({ text, sessionId });
      assert.equal(result.status, 'completed', JSON.stringify(result));
      return result;
    },
  };
}

const promptTexts = async (s: { ok: (m: string, p: unknown) => Promise<Json> }, sessionId: string) =>
  ((await s.ok('session/prompts', { sessionId })).prompts as Json[]).map((p) => p.text);

describe('session/rewind', () => {
  test('the conversation goes back to just before the prompt: the model no longer sees what came after', async () => {
    const at = await setup([{ text: 'Answer one.' }, { text: 'Answer two.' }, { text: 'Answer three.' }]);
    const s = await server(at);
    const first = await s.prompt({ text: 'Question one' });
    const sessionId = first.result.sessionId as string;
    const second = await s.ask(sessionId, 'Question two');
    await s.ask(sessionId, 'Question three');
    assert.deepEqual(await promptTexts(s, sessionId), ['Question one', 'Question two', 'Question three']);

    const rewound = await s.ok('session/rewind', { sessionId, runId: second.runId });
    assert.equal(rewound.text, 'Question two', 'the prompt comes back for the composer');
    assert.deepEqual(rewound.changes, []);
    assert.equal(rewound.forkedFrom, undefined);
    assert.equal((rewound.session as Json).sessionId, sessionId);
    assert.equal((rewound.session as Json).messageCount, 2);
    assert.deepEqual(await promptTexts(s, sessionId), ['Question one']);

    at.fake.push({ text: 'Answer two, again.' });
    await s.ask(sessionId, 'Question two, edited');
    assert.deepEqual(sentTexts(at.fake), ['Question one', 'Answer one.', 'Question two, edited']);

    // Saved: a new server resumes the rewound conversation, and the export says it was rewound.
    await s.stop();
    const again = await server(at);
    await again.ok('session/resume', { sessionId });
    at.fake.push({ text: 'Answer four.' });
    await again.ask(sessionId, 'Question four');
    assert.deepEqual(sentTexts(at.fake), [
      'Question one',
      'Answer one.',
      'Question two, edited',
      'Answer two, again.',
      'Question four',
    ]);
    const exported = await again.ok('session/export', { sessionId, format: 'json' });
    const rewinds = (exported.records as Json[]).filter((r) => r.type === 'rewind');
    assert.deepEqual(
      rewinds.map((r) => [r.runId, (r.messages as Json[]).length]),
      [[second.runId, 2]],
    );
    const markdown = await again.ok('session/export', { sessionId, format: 'markdown' });
    assert.match(markdown.content as string, /Rewound: the conversation went back/);
    assert.match(markdown.content as string, /Question three/, 'what came after stays in the record');
  });

  test('a fork is a new session with the history up to the prompt; the original stays whole', async () => {
    const at = await setup([{ text: 'Answer one.' }, { text: 'Answer two.' }]);
    const s = await server(at);
    const first = await s.prompt({ text: 'Question one' });
    const sessionId = first.result.sessionId as string;
    const second = await s.ask(sessionId, 'Question two');

    const forked = await s.ok('session/rewind', { sessionId, runId: second.runId, fork: true });
    const forkId = (forked.session as Json).sessionId as string;
    assert.notEqual(forkId, sessionId);
    assert.equal(forked.forkedFrom, sessionId);
    assert.equal(forked.text, 'Question two');
    assert.equal(
      (forked.session as Json).title,
      'Question one',
      'the fork has the history before the prompt',
    );
    assert.deepEqual(await promptTexts(s, forkId), ['Question one']);
    assert.deepEqual(await promptTexts(s, sessionId), ['Question one', 'Question two']);

    at.fake.push({ text: 'Fork answer.' });
    await s.ask(forkId, 'Another question two');
    assert.deepEqual(sentTexts(at.fake), ['Question one', 'Answer one.', 'Another question two']);
    at.fake.push({ text: 'Original answer.' });
    await s.ask(sessionId, 'Question three');
    assert.deepEqual(sentTexts(at.fake), [
      'Question one',
      'Answer one.',
      'Question two',
      'Answer two.',
      'Question three',
    ]);
  });

  test('a rewind past a compaction sends the history word for word again, not the summary', async () => {
    const at = await setup([{ text: 'Answer one.' }, { text: 'Answer two.' }, { text: 'Answer three.' }]);
    const s = await server(at);
    const first = await s.prompt({ text: 'Question one' });
    const sessionId = first.result.sessionId as string;
    await s.ask(sessionId, 'Question two');
    const third = await s.ask(sessionId, 'Question three');
    at.fake.push({ text: 'SUMMARY: two questions were asked.' });
    const compacted = await s.ok('session/compact', { sessionId, keepTurns: 1 });
    assert.equal(compacted.compacted, true);

    await s.ok('session/rewind', { sessionId, runId: third.runId });
    at.fake.push({ text: 'Answer three, again.' });
    await s.ask(sessionId, 'Question three, edited');
    const sent = sentTexts(at.fake);
    assert.deepEqual(sent, [
      'Question one',
      'Answer one.',
      'Question two',
      'Answer two.',
      'Question three, edited',
    ]);
    assert.ok(!sent.some((text) => text.includes('SUMMARY')), 'the summary is gone with what it summarised');
  });

  test('restoreFiles puts back the files changed since, and asks (here: declined) where the user changed one', async () => {
    const at = await setup([
      { toolCalls: [{ id: 'w1', name: 'write_file', args: { path: 'a.txt', content: 'one\n' } }] },
      { text: 'Wrote a.' },
      { toolCalls: [{ id: 'w2', name: 'write_file', args: { path: 'a.txt', content: 'two\n' } }] },
      { toolCalls: [{ id: 'w3', name: 'write_file', args: { path: 'b.txt', content: 'model b\n' } }] },
      { text: 'Wrote a and b.' },
    ]);
    const s = await server(at, { agent: 'editor' });
    const first = await s.prompt({ text: 'write a' });
    const sessionId = first.result.sessionId as string;
    const second = await s.ask(sessionId, 'change a, write b');
    // The user edits b.txt after the run: the rewind must not write over it unasked.
    writeFileSync(join(at.workspace, 'b.txt'), 'typed by the user\n');

    const rewound = await s.ok('session/rewind', { sessionId, runId: second.runId, restoreFiles: true });
    assert.deepEqual(
      (rewound.changes as Json[]).map((c) => `${String(c.operation)} ${String(c.path)} ${String(c.outcome)}`),
      ['create b.txt kept', 'modify a.txt restored'],
    );
    assert.equal(
      readFileSync(join(at.workspace, 'a.txt'), 'utf8'),
      'one\n',
      'changed since the prompt: restored',
    );
    assert.equal(readFileSync(join(at.workspace, 'b.txt'), 'utf8'), 'typed by the user\n');
    assert.deepEqual(
      s.restoreAsks.map((a) => a.path),
      ['b.txt'],
      'asked only about the file the user changed',
    );
    assert.equal(rewound.text, 'change a, write b');
    assert.ok(existsSync(join(at.workspace, 'a.txt')), 'the first prompt’s file stays');
  });

  test('a run that is not a prompt of the conversation is refused with the ones that are; the server goes on', async () => {
    const at = await setup([{ text: 'Answer one.' }, { text: 'Answer two.' }]);
    const s = await server(at);
    const first = await s.prompt({ text: 'Question one' });
    const sessionId = first.result.sessionId as string;
    const response = await s.call('session/rewind', { sessionId, runId: 'run_nope' });
    const error = response.error as Json;
    assert.equal(error.code, -32602);
    assert.match(error.message as string, /params\.runId: "run_nope" is not a prompt of session/);
    assert.ok((error.message as string).includes(String(first.result.runId)), 'names the runs there are');

    // After going back before the only prompt, that prompt is gone from the list too.
    await s.ok('session/rewind', { sessionId, runId: first.result.runId });
    assert.deepEqual(await promptTexts(s, sessionId), []);
    const twice = await s.call('session/rewind', { sessionId, runId: first.result.runId });
    assert.match((twice.error as Json).message as string, /it has no prompts to go back to/);
    await s.ask(sessionId, 'Fresh start');
    assert.deepEqual(sentTexts(at.fake), ['Fresh start']);
  });
});
