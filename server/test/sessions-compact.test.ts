/**
 * Compaction: `session/compact` and the compaction a prompt does first near the context window,
 * through the real server against a fake Anthropic provider. What the model is sent afterwards is
 * read from the fake's requests; a failed, cancelled or killed compaction leaves the history whole.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  type FakeProvider,
  type FakeTurn,
  type RecordedRequest,
  startFakeProvider,
} from '../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { renderTranscript, splitIndex, SUMMARY_HEADER } from '../src/agent/compaction.ts';
import { validateConfig } from '../src/config/schema.ts';
import { type ChatMessage, userText } from '../src/providers/messages.ts';
import { sessionRecords, sessionServers } from './helpers/sessions.ts';
import type { Json } from './helpers/wire.ts';

const cleanup: Array<() => Promise<void>> = [];

/** An agent with two read tools, so a conversation holds tool calls and their results. */
const READER = {
  id: 'reader_test',
  name: 'Reader',
  description: 'Reads files for the tests.',
  systemPrompt: 'You are the test agent.',
  toolNames: ['list_dir', 'read_file'],
};

/** A home and workspace that outlive any one server, and a fake provider. */
async function setup(turns: FakeTurn[]) {
  const fake = await startFakeProvider('anthropic', turns);
  const home = tempDir('santra-home-');
  const workspace = tempDir('santra-ws-');
  writeFileSync(join(workspace, 'notes.txt'), 'remember the milk\n');
  mkdirSync(join(workspace, '.agents'));
  writeFileSync(join(workspace, '.agents/reader_test.json'), JSON.stringify(READER));
  cleanup.push(async () => {
    await fake.close();
    await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
  });
  return { fake, home, workspace, sessionsDir: join(home, 'santra', 'sessions') };
}

const servers = sessionServers();
servers.later(async () => {
  for (const step of cleanup.reverse()) await step();
});

async function server(at: { home: string; fake: FakeProvider; workspace: string }, config?: Json) {
  if (config !== undefined) writeFileSync(join(at.home, 'santra', 'config.json'), JSON.stringify(config));
  return servers.start({
    home: at.home,
    workspace: at.workspace,
    anthropicUrl: at.fake.url,
    promptDefaults: { agent: 'reader_test' },
  });
}

type Block = { type: string; text?: string; name?: string };

/**
 * A request's conversation, one line a message: `role: text`, tool calls and results named (the
 * note on when and where the user writes left out).
 */
function conversation(request: RecordedRequest | undefined): string[] {
  const body = request?.body as { messages: Array<{ role: string; content: string | Block[] }> };
  return body.messages.map((m) => {
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    const parts = blocks
      .filter((b) => b.text?.startsWith('<environment>') !== true)
      .map((b) => (b.type === 'text' ? b.text : b.type === 'tool_use' ? `[call ${b.name}]` : `[${b.type}]`));
    return `${m.role}: ${parts.join(' ')}`;
  });
}

/** A summary asked for afresh: no tools, the summariser's own system prompt, the transcript. */
function assertFreshSummaryRequest(request: RecordedRequest | undefined): void {
  assert.equal(request?.body.tools, undefined, 'the summary request offers no tools');
  assert.match(JSON.stringify(request?.body.system), /summarise the earlier part of a conversation/);
}

/** `value` without prompt-cache markers, which are no part of the prefix a provider caches. */
const unmarked = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (key, v) => (key === 'cache_control' ? undefined : v)));

/**
 * A summary asked for inside the conversation (agent/summary-request.ts): the agent's own system
 * prompt and tools, the older messages as `earlier` (a request of the agent's) sent them — so the
 * provider serves them from its cache — and the question last. Returns the messages before it.
 */
function assertAskedInConversation(
  summary: RecordedRequest | undefined,
  earlier: RecordedRequest | undefined,
): string[] {
  assert.deepEqual(unmarked(summary?.body.tools), unmarked(earlier?.body.tools), "the agent's tools");
  assert.deepEqual(
    unmarked(summary?.body.system),
    unmarked(earlier?.body.system),
    "the agent's system prompt",
  );
  const messages = summary?.body.messages as Json[];
  const before = earlier?.body.messages as Json[];
  const shared = Math.min(messages.length - 1, before.length);
  assert.deepEqual(unmarked(messages.slice(0, shared)), unmarked(before.slice(0, shared)));
  assert.match(
    conversation(summary).at(-1) ?? '',
    /^user: \[Compaction: the conversation above is about to be replaced by a summary/,
  );
  return conversation(summary).slice(0, -1);
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const statuses = (phases: Json[]) => phases.filter((p) => p.type === 'status').map((p) => p.text as string);

describe('where a conversation is cut', () => {
  const call = (id: string): ChatMessage => ({
    role: 'assistant',
    content: [{ type: 'tool_call', id, name: 'read_file', args: {}, argsText: '{"path":"a.ts"}' }],
  });
  const result = (id: string, output = 'content'): ChatMessage => ({
    role: 'user',
    content: [{ type: 'tool_result', toolCallId: id, toolName: 'read_file', output, isError: false }],
  });
  const answer = (text: string): ChatMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });

  test('at the start of a user turn, never between a tool call and its result', () => {
    const messages = [
      userText('one'),
      call('a'),
      result('a'),
      answer('done'),
      userText('two'),
      call('b'),
      result('b'),
      call('c'),
      result('c'),
      answer('ok'),
    ];
    assert.equal(splitIndex(messages, 1), 4);
    assert.equal(splitIndex(messages, 2), 0, 'two turns kept: nothing before them');
    assert.equal(splitIndex(messages, 5), 0);
    assert.equal(splitIndex(messages, 0), messages.length, 'none kept: everything is summarised');
    const summary = userText(`${SUMMARY_HEADER}\n\nearlier`);
    assert.equal(splitIndex([summary, ...messages], 2), 1, 'an earlier summary is not a turn');
  });

  test('the transcript names tool calls and results, and cuts long outputs and long conversations', () => {
    const messages = [userText('the task'), call('a'), result('a', 'x'.repeat(50_000)), answer('the end')];
    const text = renderTranscript(messages, 100_000);
    assert.match(text, /^\[user\]\nthe task/);
    assert.match(text, /\[assistant called read_file\]\n\{"path":"a.ts"\}/);
    assert.match(text, /\[result of read_file\]\nx+\n\[… 46000 characters left out …\]\nx+/);
    assert.ok(text.length < 5_000);
    const short = renderTranscript(messages, 1_000);
    assert.ok(short.startsWith('[user]\nthe task') && short.endsWith('[assistant]\nthe end'), short);
    assert.ok(short.length < 1_100);
  });
});

describe('agent.compactAt', () => {
  test('is a share of the context window: above 0, at most 1', () => {
    assert.deepEqual(validateConfig({ agent: { compactAt: 1 } }, 'config.json').agent, { compactAt: 1 });
    assert.throws(
      () => validateConfig({ agent: { compactAt: 0 } }, 'config.json'),
      /agent\.compactAt: Too small/,
    );
    assert.throws(
      () => validateConfig({ agent: { compactAt: 80 } }, 'config.json'),
      /agent\.compactAt: Too big/,
    );
  });
});

describe('session/compact', () => {
  test('summarises the older turns; the next prompt sends the summary and the kept turns', async () => {
    const at = await setup([
      { toolCalls: [{ name: 'list_dir', args: { path: '.' } }] },
      { text: 'There is notes.txt.' },
      { text: 'Answer two.' },
      { text: 'Answer three.' },
    ]);
    const s = await server(at);
    const first = await s.prompt({ text: 'What files are there?' });
    const sessionId = first.result.sessionId as string;
    const second = await s.prompt({ text: 'Second question', sessionId });
    const third = await s.prompt({ text: 'Third question', sessionId });

    at.fake.push({
      text: 'The user asked which files exist: only notes.txt.',
      usage: { inputTokens: 900, outputTokens: 40 },
    });
    const compact = await s.call('session/compact', { sessionId });
    const outcome = compact.result as Json;
    assert.deepEqual(
      { ...outcome, costUsd: undefined },
      {
        compacted: true,
        messagesBefore: 8,
        messagesAfter: 5,
        usage: { inputTokens: 900, outputTokens: 40, cacheReadTokens: 0, cacheWriteTokens: 0 },
        costUsd: undefined,
      },
    );
    assert.ok(Math.abs((outcome.costUsd as number) - (900 * 3 + 40 * 15) / 1e6) < 1e-12);
    // Asked for inside the conversation, as the last prompt's requests sent it (the kept turns not).
    assert.deepEqual(assertAskedInConversation(at.fake.requests.at(-1), at.fake.requests.at(-2)), [
      'user: What files are there?',
      'assistant: [call list_dir]',
      'user: [tool_result]',
      'assistant: There is notes.txt.',
    ]);

    at.fake.push({ text: 'Answer four.' });
    const fourth = await s.prompt({ text: 'Fourth question', sessionId });
    assert.deepEqual(conversation(at.fake.requests.at(-1)), [
      `user: ${SUMMARY_HEADER}\n\nThe user asked which files exist: only notes.txt.`,
      'user: Second question',
      'assistant: Answer two.',
      'user: Third question',
      'assistant: Answer three.',
      'user: Fourth question',
    ]);
    const runs = [first, second, third, fourth].map((run) => run.result.costUsd as number);
    const expected = runs.reduce((sum, cost) => sum + cost, outcome.costUsd as number);
    assert.ok(
      Math.abs((fourth.result.sessionCostUsd as number) - expected) < 1e-9,
      'the summary counts towards the session',
    );
    const saved = sessionRecords(at.sessionsDir, sessionId).filter((r) => r.type === 'compaction');
    assert.equal(saved.length, 1);
    assert.equal(saved[0]?.type === 'compaction' && saved[0].kept.length, 4);

    // Nothing older than three turns but the summary: nothing to do, and no model call.
    const requests = at.fake.requests.length;
    const idle = await s.call('session/compact', { sessionId, keepTurns: 3 });
    assert.deepEqual(idle.result, {
      compacted: false,
      messagesBefore: 7,
      messagesAfter: 7,
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      costUsd: 0,
    });
    assert.equal(at.fake.requests.length, requests);
  });

  test('a compaction and a prompt of the same session do not run at once (SessionBusy)', async () => {
    const at = await setup([{ text: 'One.' }, { text: 'Two.', firstByteDelayMs: 500 }]);
    const s = await server(at);
    const sessionId = (await s.prompt({ text: 'first' })).result.sessionId as string;
    const promptId = 'busy-prompt';
    s.client.request(promptId, 'prompt', { agent: 'reader_test', text: 'second', sessionId });
    await until(() => at.fake.requests.length === 2, 'the prompt reached the model');
    const refused = await s.call('session/compact', { sessionId, keepTurns: 1 });
    assert.equal((refused.error as Json).code, -33004);
    assert.equal(((await s.client.response(promptId)).result as Json).status, 'completed');

    at.fake.push({ text: 'Summary.', firstByteDelayMs: 500 });
    const compactId = 'busy-compact';
    s.client.request(compactId, 'session/compact', { sessionId, keepTurns: 1 });
    await until(() => at.fake.requests.length === 3, 'the summary was asked for');
    const busy = await s.call('prompt', { agent: 'reader_test', text: 'third', sessionId });
    assert.equal((busy.error as Json).code, -33004);
    assert.equal(((await s.client.response(compactId)).result as Json).compacted, true);
  });

  test('a summary that fails or is cancelled changes nothing: the next prompt sends the whole history', async () => {
    const at = await setup([{ text: 'A1' }, { text: 'A2' }]);
    const s = await server(at);
    const sessionId = (await s.prompt({ text: 'P1' })).result.sessionId as string;
    await s.prompt({ text: 'P2', sessionId });

    // Refused inside the conversation, the summary is asked for afresh, as a transcript: refused too.
    const tooLong = { fault: { kind: 'http_error', status: 400, message: 'prompt is too long' } } as const;
    at.fake.push(tooLong, tooLong);
    const failed = await s.call('session/compact', { sessionId, keepTurns: 1 });
    const error = failed.error as Json;
    assert.equal(error.code, -32803);
    assert.match(error.message as string, /not compacted: .*prompt is too long.* Its history is unchanged/);
    assert.equal((error.data as Json).retryable, false);
    assert.equal(at.fake.requests.length, 4);
    assertAskedInConversation(at.fake.requests[2], at.fake.requests[1]);
    assertFreshSummaryRequest(at.fake.requests[3]);

    at.fake.push({ fault: { kind: 'stall', afterEvents: 0 } });
    const cancelId = 'cancelled-compact';
    s.client.request(cancelId, 'session/compact', { sessionId, keepTurns: 1 });
    await until(() => at.fake.requests.length === 5, 'the summary was asked for');
    s.client.notify('$/cancelRequest', { id: cancelId });
    assert.equal(((await s.client.response(cancelId)).error as Json).code, -32800);

    at.fake.push({ text: 'A3' });
    await s.prompt({ text: 'P3', sessionId });
    assert.deepEqual(conversation(at.fake.requests.at(-1)), [
      'user: P1',
      'assistant: A1',
      'user: P2',
      'assistant: A2',
      'user: P3',
    ]);
    assert.ok(!sessionRecords(at.sessionsDir, sessionId).some((r) => r.type === 'compaction'));
  });

  test('a summary cut off at the output limit, or refused, is not used: the history is unchanged', async () => {
    const at = await setup([{ text: 'A1' }, { text: 'A2' }]);
    const s = await server(at);
    const sessionId = (await s.prompt({ text: 'P1' })).result.sessionId as string;
    await s.prompt({ text: 'P2', sessionId });
    const refusal = [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"c","usage":{"input_tokens":9,"output_tokens":1}}}\n\n',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"refusal","stop_details":{"type":"refusal","category":"cyber","explanation":null}},"usage":{"output_tokens":1}}\n\n',
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ].join('');
    const cases: Array<[FakeTurn, RegExp]> = [
      [{ text: 'The user asked', stopReason: 'max_tokens' }, /cut the summary off at the output limit/],
      [{ recorded: refusal }, /declined to write the summary \(category: cyber\)/],
    ];
    for (const [turn, why] of cases) {
      at.fake.push(turn);
      const failed = await s.call('session/compact', { sessionId, keepTurns: 1 });
      assert.match(String((failed.error as Json | undefined)?.message), why);
    }
    at.fake.push({ text: 'A3' });
    await s.prompt({ text: 'P3', sessionId });
    assert.deepEqual(conversation(at.fake.requests.at(-1)), [
      'user: P1',
      'assistant: A1',
      'user: P2',
      'assistant: A2',
      'user: P3',
    ]);
  });
});

describe('auto-compaction', () => {
  test('a prompt compacts first once the last call passed 80% of the window, and says so', async () => {
    // claude-sonnet-4-5: a 200,000-token window, so the default threshold is 160,000.
    const at = await setup([{ text: 'A1', usage: { inputTokens: 150_000, outputTokens: 10 } }]);
    const s = await server(at);
    const sessionId = (await s.prompt({ text: 'P1' })).result.sessionId as string;

    at.fake.push({ text: 'A2', usage: { inputTokens: 20_000, cacheReadTokens: 150_000, outputTokens: 10 } });
    const below = await s.prompt({ text: 'P2', sessionId });
    assert.equal(at.fake.requests.length, 2, 'at 75% nothing is compacted');
    assert.ok(!statuses(below.phases).some((text) => /ompact/.test(text)));

    at.fake.push(
      { text: 'Summary: the user said P1.', usage: { inputTokens: 500, outputTokens: 20 } },
      { text: 'A3', usage: { inputTokens: 2_000, outputTokens: 10 } },
    );
    const past = await s.prompt({ text: 'P3', sessionId });
    assert.equal(at.fake.requests.length, 4);
    assert.deepEqual(assertAskedInConversation(at.fake.requests[2], at.fake.requests[1]), [
      'user: P1',
      'assistant: A1',
    ]);
    assert.deepEqual(conversation(at.fake.requests[3]), [
      `user: ${SUMMARY_HEADER}\n\nSummary: the user said P1.`,
      'user: P2',
      'assistant: A2',
      'user: P3',
    ]);
    const said = statuses(past.phases);
    assert.ok(
      said.some((text) =>
        /about 170,0\d\d tokens, 85% of claude-sonnet-4-5's context window of 200,000 \(compaction starts at 80%\)/.test(
          text,
        ),
      ),
      said.join('\n'),
    );
    assert.ok(
      said.some((text) =>
        /^Compacted the conversation: 4 messages .* the last 1 turn kept word for word — 3 messages, about \d+ tokens; about \d+ tokens saved\.$/.test(
          text,
        ),
      ),
      said.join('\n'),
    );
    assert.equal(past.result.status, 'completed');

    // Past the threshold again, and the summary fails: a warning, and the prompt runs on everything.
    at.fake.push({ text: 'A4', usage: { inputTokens: 190_000, outputTokens: 10 } });
    await s.prompt({ text: 'P4', sessionId });
    at.fake.push(
      // Inside the conversation, then afresh as a transcript.
      { fault: { kind: 'http_error', status: 400, message: 'prompt is too long' } },
      { fault: { kind: 'http_error', status: 400, message: 'prompt is too long' } },
      { text: 'A5' },
    );
    const failed = await s.prompt({ text: 'P5', sessionId });
    assert.equal(failed.result.status, 'completed');
    assert.ok(
      failed.phases.some(
        (p) =>
          p.type === 'status' &&
          p.level === 'warning' &&
          /^Could not compact the conversation: .*prompt is too long.* The history is unchanged/.test(
            p.text as string,
          ),
      ),
    );
    assert.deepEqual(conversation(at.fake.requests.at(-1)).slice(1), [
      'user: P2',
      'assistant: A2',
      'user: P3',
      'assistant: A3',
      'user: P4',
      'assistant: A4',
      'user: P5',
    ]);
  });
});

describe('a compacted session in a new server', () => {
  test('resumes compacted; a server killed mid-compaction leaves the old history; agent.compactAt and the estimate apply', async () => {
    const long = 'A long answer about the milk. '.repeat(700); // 21,000 characters: about 5,250 tokens
    const at = await setup([{ text: 'A1' }, { text: 'A2' }, { text: 'A3' }]);
    const first = await server(at);
    const sessionId = (await first.prompt({ text: 'P1' })).result.sessionId as string;
    await first.prompt({ text: 'P2', sessionId });
    await first.prompt({ text: 'P3', sessionId });
    at.fake.push({ text: 'Summary one: P1 and P2 were asked.' });
    assert.equal(
      ((await first.call('session/compact', { sessionId, keepTurns: 1 })).result as Json).compacted,
      true,
    );
    at.fake.push({ text: long });
    await first.prompt({ text: 'P4', sessionId });
    // The second compaction never gets its summary: the server dies while the model writes.
    at.fake.push({ fault: { kind: 'stall', afterEvents: 0 } });
    first.client.request('killed-compact', 'session/compact', { sessionId, keepTurns: 1 });
    await until(() => at.fake.requests.length === 6, 'the summary was asked for');
    first.client.child.kill('SIGKILL');
    await first.client.exited;
    assert.equal(sessionRecords(at.sessionsDir, sessionId).filter((r) => r.type === 'compaction').length, 1);

    // 2% of 200,000 is 4,000 tokens; no call was reported to this server, so the size is estimated.
    const second = await server(at, { agent: { compactAt: 0.02 } });
    const resumed = await second.call('session/resume', { sessionId });
    assert.equal(((resumed.result as Json).session as Json).messageCount, 5);
    at.fake.push({ text: 'Summary two: milk.' }, { text: 'A5' });
    const fifth = await second.prompt({ text: 'P5', sessionId });
    // A new server asks inside the conversation too: the prompt's agent sends what the last server's
    // requests sent, and the provider may still hold it.
    const asked = assertAskedInConversation(at.fake.requests.at(-2), at.fake.requests[4]);
    assert.deepEqual(asked.slice(1), ['user: P3', 'assistant: A3', 'user: P4', `assistant: ${long}`]);
    assert.match(asked[0] ?? '', /^user: \[Summary of the earlier conversation[^\n]*\n\nSummary one/);
    // The last turn alone is past a quarter of the threshold: nothing is kept word for word.
    assert.deepEqual(conversation(at.fake.requests.at(-1)), [
      `user: ${SUMMARY_HEADER}\n\nSummary two: milk.`,
      'user: P5',
    ]);
    assert.ok(statuses(fifth.phases).some((text) => /nothing kept word for word/.test(text)));

    at.fake.push({ text: 'A6' });
    await second.prompt({ text: 'P6', sessionId });
    assert.deepEqual(conversation(at.fake.requests.at(-1)).slice(1), [
      'user: P5',
      'assistant: A5',
      'user: P6',
    ]);
  });
});
