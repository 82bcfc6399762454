/**
 * session/import through the built server: a Claude Code transcript (sent as its text) and a
 * Codex rollout (as a path) become sessions that list, resume — the next prompt sends the model
 * the imported history, read here from the fake provider's request, on the Anthropic and the
 * OpenAI wire — export and play back like any other, at no cost. Importing again gives the same
 * session; a transcript that grew adds its new turns to it, unless the session went on here;
 * the original is kept beside the session; a transcript that cannot be read is refused, naming
 * its line, and nothing is written.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  type FakeApi,
  type FakeTurn,
  startFakeProvider,
} from '../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { CANARY_KEY } from './helpers/run.ts';
import { sessionServers } from './helpers/sessions.ts';
import type { Json } from './helpers/wire.ts';
import { CLAUDE, CODEX, TRANSCRIPTS as FIXTURES, transcript } from './helpers/transcripts.ts';

const claude = transcript(CLAUDE);

const cleanup: Array<() => Promise<void>> = [];
const servers = sessionServers();
servers.later(async () => {
  for (const step of cleanup.reverse()) await step();
});

/** A server with a home and workspace of its own, its model served by a fake provider of `api`. */
async function setup(api: FakeApi = 'anthropic', turns: FakeTurn[] = [{ text: 'Noted.' }]) {
  const fake = await startFakeProvider(api, turns);
  const home = tempDir('santra-home-');
  const workspace = tempDir('santra-ws-');
  cleanup.push(async () => {
    await fake.close();
    await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
  });
  const server = await servers.start({
    home,
    workspace,
    promptDefaults: { mode: 'simple_chat' },
    ...(api === 'anthropic'
      ? { anthropicUrl: fake.url }
      : {
          env: { OPENAI_API_KEY: CANARY_KEY, OPENAI_BASE_URL: fake.url, SANTRA_MODEL: 'openai/gpt-6.1-sol' },
        }),
  });
  const project = () => {
    const sessions = join(home, 'santra', 'sessions');
    const [folder] = existsSync(sessions) ? readdirSync(sessions) : [];
    return folder === undefined ? undefined : join(sessions, folder);
  };
  return { fake, server, home, workspace, project };
}

type Message = { role: string; content: string | Array<Record<string, unknown>> };
const requestMessages = (body: unknown) => (body as { messages: Message[] }).messages;
const blocksOf = (message: Message | undefined) =>
  typeof message?.content === 'string' ? [{ type: 'text', text: message.content }] : (message?.content ?? []);

describe('a Claude Code transcript, imported and continued', () => {
  test('it lists at no cost, and the next prompt sends the model its whole history, with Santra’s tools', async () => {
    const { fake, server, workspace } = await setup();
    const imported = await server.ok('session/import', {
      format: 'claude',
      content: claude,
      name: 'ada.jsonl',
    });
    assert.equal(imported.outcome, 'created');
    assert.deepEqual(imported.warnings, [
      `ada.jsonl was recorded in /home/ada/project, not in this workspace (${workspace}): its paths inside /home/ada/project now name files here`,
    ]);
    assert.deepEqual(imported.counts, {
      runs: 2,
      messages: 17,
      toolCalls: 7,
      mappedToolCalls: 6,
      textToolCalls: 1,
      skippedLines: 11,
    });
    const session = imported.session as Json;
    assert.equal(session.title, 'Make greet() use a template string, then run the tests');
    assert.equal(session.costUsd, 0);
    assert.deepEqual(session.usage, {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    assert.equal((session.imported as Json).from, 'claude');
    assert.equal(((session.imported as Json).usage as Json).outputTokens, 340 + 245);
    assert.equal(session.model, undefined, "the transcript's model is not the session's");
    const listed = await server.ok('session/list');
    assert.deepEqual(
      (listed.sessions as Json[]).map((s) => s.sessionId),
      [session.sessionId],
    );

    const { result } = await server.prompt({
      text: 'What did you change, in one line?',
      sessionId: session.sessionId,
    });
    assert.equal(result.sessionId, session.sessionId);
    const request = fake.requests.at(-1);
    assert.equal(
      (request?.body as Json).model,
      'claude-sonnet-4-5',
      "the server's model answers, not the transcript's",
    );
    const sent = requestMessages(request?.body);
    assert.equal(blocksOf(sent[0])[0]?.text, 'Make greet() use a template string, then run the tests');
    const reading = sent.findIndex((m) =>
      blocksOf(m).some((b) => b.type === 'tool_use' && b.name === 'read_file'),
    );
    assert.ok(reading > 0, 'the read is sent as a call of read_file');
    assert.deepEqual(
      blocksOf(sent[reading]).find((b) => b.type === 'tool_use'),
      {
        type: 'tool_use',
        id: 'toolu_01NzjV452AGVQR51StZtarfB',
        name: 'read_file',
        input: { path: 'src/greet.ts' },
      },
    );
    const result1 = blocksOf(sent[reading + 1])[0];
    assert.equal(result1?.type, 'tool_result');
    assert.equal(result1?.tool_use_id, 'toolu_01NzjV452AGVQR51StZtarfB');
    assert.match(JSON.stringify(result1?.content), /1→export function greet/);
    const all = JSON.stringify(sent);
    assert.match(all, /\[Claude Code used mcp__github__search_issues: /);
    assert.doesNotMatch(all, /"type":"thinking"/, "Claude Code's thinking is not sent back");
    assert.doesNotMatch(all, /Rename greet to hello everywhere/, 'nor the branch rewound from');
    assert.match(JSON.stringify(sent.at(-1)), /What did you change, in one line\?/);
    // The cost is this run's alone.
    assert.equal(result.sessionCostUsd, result.costUsd);
  });

  test('it exports and plays back like any other session; deleting it deletes the original kept beside it', async () => {
    const { server, project } = await setup();
    const imported = await server.ok('session/import', { format: 'claude', content: claude });
    const sessionId = (imported.session as Json).sessionId as string;
    const original = join(project() ?? '', `${sessionId}.original.jsonl`);
    assert.equal(readFileSync(original, 'utf8'), claude, 'the transcript is kept as it was');

    const markdown = await server.ok('session/export', { sessionId, format: 'markdown' });
    assert.match(
      markdown.content as string,
      /## You\n\nCheck that the docs name a Node version whose test runner is stable/,
    );
    assert.match(markdown.content as string, /- `run_command npm test`\n {2}→ 7 lines/);
    const json = await server.ok('session/export', { sessionId, format: 'json' });
    const prompts = (json.records as Json[]).filter((r) => r.type === 'prompt');
    assert.deepEqual(
      prompts.map((p) => (p.imported as Json).from),
      ['claude', 'claude'],
    );

    const resumed = await server.ok('session/resume', { sessionId, afterSeq: 0 });
    const replayed = server.client.messages.filter((m) => m.method === 'phase');
    server.client.messages.splice(0);
    assert.equal(resumed.replayedPhases, (imported.session as Json).lastSeq);
    assert.equal(replayed.length, resumed.replayedPhases);
    assert.deepEqual(
      replayed.filter((m) => (m.params as Json).type === 'complete').map((m) => (m.params as Json).agentId),
      ['claude-code', 'claude-code'],
    );

    await server.ok('session/delete', { sessionId });
    assert.equal(existsSync(original), false);
  });
});

describe('a Codex rollout, imported by path and continued on the OpenAI wire', () => {
  test('the calls are sent as Santra’s tools with their Codex ids, the unmatched one as text', async () => {
    const { fake, server } = await setup('openai');
    const path = join(FIXTURES, CODEX);
    const imported = await server.ok('session/import', { format: 'codex', path });
    assert.equal(imported.outcome, 'created');
    assert.equal(((imported.session as Json).imported as Json).from, 'codex');
    const sessionId = (imported.session as Json).sessionId;
    await server.prompt({ text: 'Did the tests pass?', sessionId });
    const sent = requestMessages(fake.requests.at(-1)?.body) as Array<
      Message & { tool_calls?: Json[]; tool_call_id?: string }
    >;
    assert.deepEqual(
      sent
        .filter((m) => m.role === 'user')
        .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)).split('\n')[0]),
      [
        'Make greet() use a template string and run the tests',
        'Which Node release made the test runner stable? Look at the screenshot in docs/ too.',
        '[What view_image gave Codex: attached local image path]',
        'Did the tests pass?',
      ],
    );
    const calls = sent.flatMap((m) => m.tool_calls ?? []).map((c) => [c.id, (c.function as Json).name]);
    assert.deepEqual(calls, [
      ['call_5tcmcvPueMOTIeYuTUGW0Ss3', 'run_command'],
      ['call_WuSzB7qw4JfmVu3XnXzVloeu', 'str_replace'],
      ['call_DoYgFbIRmwvZHTwt17T1LVAS', 'todo_write'],
      ['call_wA3j0oL4eg5gKSRsuKwRzUpC', 'run_command'],
    ]);
    const results = sent.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
    assert.deepEqual(
      results,
      calls.map(([id]) => id),
    );
    assert.match(JSON.stringify(sent), /\[Codex used view_image: /);
  });
});

describe('importing again', () => {
  const lines = claude.split('\n');
  /** The transcript as far as its first `n` lines. */
  const upTo = (n: number) => `${lines.slice(0, n).join('\n')}\n`;
  const firstTurn = upTo(15); // to the end of the first turn (its turn_duration notice)

  test('the same transcript is the same session; one that grew gets its new turns added', async () => {
    const { server, project } = await setup();
    const first = await server.ok('session/import', { format: 'claude', content: firstTurn });
    const sessionId = (first.session as Json).sessionId;
    assert.equal((first.counts as Json).runs, 1);
    const again = await server.ok('session/import', { format: 'claude', content: firstTurn });
    assert.equal(again.outcome, 'unchanged');
    assert.equal((again.session as Json).sessionId, sessionId);
    assert.equal((again.counts as Json).messages, 0);

    const grown = await server.ok('session/import', { format: 'claude', content: claude });
    assert.equal(grown.outcome, 'appended');
    assert.equal((grown.session as Json).sessionId, sessionId);
    assert.equal((grown.counts as Json).runs, 1);
    assert.equal((grown.session as Json).messageCount, 17);
    const listed = await server.ok('session/list');
    assert.equal((listed.sessions as Json[]).length, 1, 'one session');
    assert.equal(readFileSync(join(project() ?? '', `${String(sessionId)}.original.jsonl`), 'utf8'), claude);
    // Phases go on from the first import's; run ids too.
    const json = await server.ok('session/export', { sessionId, format: 'json' });
    const records = json.records as Json[];
    const seqs = records.flatMap((r) => (r.type === 'phase' ? [(r.phase as Json).seq] : []));
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => i + 1),
    );
    assert.deepEqual(
      records.filter((r) => r.type === 'prompt').map((r) => r.runId),
      ['run_imported_1', 'run_imported_2'],
    );
  });

  test('a session continued here is not added to: the grown transcript is a new session, and says why', async () => {
    const { server } = await setup();
    const first = await server.ok('session/import', { format: 'claude', content: firstTurn });
    const sessionId = (first.session as Json).sessionId;
    await server.prompt({ text: 'Thanks.', sessionId });
    const grown = await server.ok('session/import', { format: 'claude', content: claude, name: 'ada.jsonl' });
    assert.equal(grown.outcome, 'created');
    assert.notEqual((grown.session as Json).sessionId, sessionId);
    assert.match(
      grown.reason as string,
      new RegExp(
        `^ada\\.jsonl was imported before as ${String(sessionId)}, which has been continued here since`,
      ),
    );
    // The next import of it is the new session.
    const again = await server.ok('session/import', { format: 'claude', content: claude });
    assert.equal(again.outcome, 'unchanged');
    assert.equal((again.session as Json).sessionId, (grown.session as Json).sessionId);
  });

  test('a transcript whose last imported turn went on, or that changed, is a new session', async () => {
    const { server } = await setup();
    const midTurn = upTo(lines.length - 2); // the last answer without its final tool call
    const first = await server.ok('session/import', {
      format: 'claude',
      content: midTurn,
      name: 'ada.jsonl',
    });
    const whole = await server.ok('session/import', { format: 'claude', content: claude, name: 'ada.jsonl' });
    assert.equal(whole.outcome, 'created');
    assert.match(whole.reason as string, /while its last turn was still going on/);
    assert.notEqual((whole.session as Json).sessionId, (first.session as Json).sessionId);
    const edited = await server.ok('session/import', {
      format: 'claude',
      content: claude.replace('then run the tests', 'then run the tests twice'),
      name: 'ada.jsonl',
    });
    assert.equal(edited.outcome, 'created');
    assert.match(edited.reason as string, /has changed since other than by growing/);
  });
});

describe('a transcript that cannot be imported', () => {
  test('is refused with InvalidParams naming its file and line, and nothing is written', async () => {
    const { server, project } = await setup();
    const damaged = claude.split('\n');
    damaged[6] = '{"parentUuid":';
    const refused = await server.call('session/import', {
      format: 'claude',
      content: damaged.join('\n'),
      name: 'ada.jsonl',
    });
    const error = refused.error as Json;
    assert.equal(error.code, -32602);
    assert.match(
      error.message as string,
      /^Invalid params for session\/import: ada\.jsonl:7: not valid JSON .* Nothing was imported\.$/,
    );
    assert.equal((error.data as Json).line, 7);
    const wrong = await server.call('session/import', {
      format: 'codex',
      content: claude,
      name: 'ada.jsonl',
    });
    assert.match(
      (wrong.error as Json).message as string,
      /ada\.jsonl:1: a Codex rollout starts with a "session_meta" line/,
    );
    for (const [params, pattern] of [
      [{ format: 'pi' }, /either as `content`.*or as `path`/],
      [{ format: 'pi', content: '', path: '/x' }, /not both or neither/],
      [{ format: 'pi', path: 'relative.jsonl' }, /params\.path: relative\.jsonl is not an absolute path/],
      [
        { format: 'pi', path: '/nonexistent/santra/x.jsonl' },
        /\/nonexistent\/santra\/x\.jsonl: no such file/,
      ],
      [{ format: 'pi', path: FIXTURES }, /is not a file/],
      [{ format: 'gemini', content: '{}' }, /params\.format/],
    ] as const) {
      const response = await server.call('session/import', params);
      assert.equal((response.error as Json | undefined)?.code, -32602, JSON.stringify(params));
      assert.match((response.error as Json).message as string, pattern);
    }
    assert.deepEqual((await server.ok('session/list')).sessions, []);
    assert.equal(project(), undefined, 'no session, original or ledger was written');
  });
});
