/**
 * The prompt cache through each wire format: a session with tool calls, parallel sub-agents, a
 * prompt from another directory, a compaction, a restart of the server (resume) and a model switch
 * there and back, against the real server and SDKs and a fake provider. Every request of an agent
 * must start with the one before it byte for byte (cache markers aside) and mark a breakpoint in its
 * conversation; a failure names the field that broke the prefix (helpers/prefix-chain.ts).
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  type FakeApi,
  type FakeTurn,
  type RecordedRequest,
  startFakeProvider,
} from '../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import {
  conversationOf,
  lineBreaks,
  markers,
  prefixBreak,
  systemOf,
  unmarked,
} from './helpers/prefix-chain.ts';
import { CANARY_KEY } from './helpers/run.ts';
import { type SessionServer, sessionServers } from './helpers/sessions.ts';
import type { Json } from './helpers/wire.ts';

const servers = sessionServers();

/**
 * Where each wire format is served from in the test, and the model switched to and back from;
 * `openrouter` is the OpenAI wire to a relay of Claude, which takes Anthropic's markers on parts.
 */
type Setup = 'anthropic' | 'openai' | 'openai-responses' | 'openrouter';
const SETUPS: Record<
  Setup,
  { api?: FakeApi; env: (url: string) => NodeJS.ProcessEnv; config: Json; other: string }
> = {
  anthropic: {
    env: (url) => ({
      ANTHROPIC_API_KEY: CANARY_KEY,
      ANTHROPIC_BASE_URL: url,
      SANTRA_MODEL: 'anthropic/claude-sonnet-4-5',
    }),
    // As Anthropic's own API is spoken to: the request-level cache_control marks the end.
    config: { providers: { anthropic: { compat: { autoCacheControl: true } } } },
    other: 'anthropic/claude-haiku-4-5',
  },
  // OPENAI_BASE_URL makes `openai` a compatible server, sent no cache fields unless the config says.
  openai: {
    env: (url) => ({ OPENAI_API_KEY: CANARY_KEY, OPENAI_BASE_URL: url, SANTRA_MODEL: 'openai/gpt-6.1-sol' }),
    config: { providers: { openai: { compat: { promptCacheKey: true, promptCaching: true } } } },
    other: 'openai/gpt-6.1-terra',
  },
  'openai-responses': {
    env: () => ({ SANTRA_MODEL: 'resp/gpt-6.1-sol' }),
    config: {
      providers: {
        resp: {
          api: 'openai-responses',
          baseUrl: 'FAKE_URL',
          apiKey: CANARY_KEY,
          compat: { promptCacheKey: true, promptCaching: true },
        },
      },
    },
    other: 'resp/gpt-6.1-terra',
  },
  openrouter: {
    api: 'openai',
    env: () => ({ OPENROUTER_API_KEY: CANARY_KEY, SANTRA_MODEL: 'openrouter/anthropic/claude-sonnet-5.5' }),
    config: { providers: { openrouter: { baseUrl: 'FAKE_URL' } } },
    // Not in the catalog: the anthropic/ family on OpenRouter takes the markers all the same.
    other: 'openrouter/anthropic/claude-haiku-4.5',
  },
};

const roleOf = (request: RecordedRequest) =>
  /You are the (\w+)/.exec(systemOf(request.body as Json))?.[1] ?? '?';
const textOf = (item: unknown): string => {
  const content = (item as Json).content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Array<{ text?: unknown }>)
    .map((part) => (typeof part.text === 'string' ? part.text : ''))
    .join('');
};
/** A sub-agent's task, from the message that gives it (openai.ts folds it into the user turn before). */
const taskOf = (request: RecordedRequest) => {
  const text = conversationOf(request.body as Json)
    .map(textOf)
    .find((message) => message.includes('Your task:'));
  return text?.slice(text.indexOf('Your task:'));
};
const as = (role: string, task?: string) => (request: RecordedRequest) =>
  roleOf(request) === role && (task === undefined || (taskOf(request) ?? '').includes(task));
const turn = (match: FakeTurn['match'], rest: Omit<FakeTurn, 'match'>): FakeTurn => ({ match, ...rest });
const calls = (name: string, args: unknown) => ({ toolCalls: [{ name, args }] });

/** The first run: the orchestrator sends two readers in parallel, each reads its file. */
const FIRST_RUN: FakeTurn[] = [
  turn(
    as('orchestrator'),
    calls('spawn_agents', {
      agents: [
        { agentId: 'reader', task: 'Read a.txt' },
        { agentId: 'reader', task: 'Read b.txt' },
      ],
    }),
  ),
  turn(as('reader', 'a.txt'), calls('read_file', { path: 'a.txt' })),
  turn(as('reader', 'b.txt'), calls('read_file', { path: 'b.txt' })),
  turn(as('reader', 'a.txt'), calls('task_completed', { result: 'a.txt says alpha' })),
  turn(as('reader', 'b.txt'), calls('task_completed', { result: 'b.txt says beta' })),
  turn(as('orchestrator'), { text: 'a.txt says alpha, b.txt says beta.' }),
];

/** The second run, from the directory sub/: one reader. */
const SECOND_RUN: FakeTurn[] = [
  turn(as('orchestrator'), calls('spawn_agent', { agentId: 'reader', task: 'Read c.txt' })),
  turn(as('reader'), calls('task_completed', { result: 'c.txt says gamma' })),
  turn(as('orchestrator'), { text: 'c.txt says gamma.' }),
];

interface Session {
  api: Setup;
  requests: RecordedRequest[];
  /** Requests from here on follow the compaction: the root agent's line starts again. */
  compactedAt: number;
  /** The requests of each run, by the prompt's text. */
  runs: Map<string, RecordedRequest[]>;
}

/** Runs the whole session against a fake `api` provider; what it sent. */
async function runSession(api: Setup): Promise<Session> {
  const setup = SETUPS[api];
  const fake = await startFakeProvider(setup.api ?? (api as FakeApi), [...FIRST_RUN, ...SECOND_RUN]);
  const home = tempDir('santra-home-');
  const workspace = tempDir('santra-ws-');
  servers.later(async () => {
    await fake.close();
    await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
  });
  for (const [path, text] of [
    ['a.txt', 'alpha\n'],
    ['b.txt', 'beta\n'],
    ['sub/c.txt', 'gamma\n'],
    ['AGENTS.md', 'Root rule: be brief.\n'],
    ['sub/AGENTS.md', 'Sub rule: quote line numbers.\n'],
  ] as const) {
    mkdirSync(join(workspace, 'sub'), { recursive: true });
    writeFileSync(join(workspace, path), text);
  }
  mkdirSync(join(home, 'santra'), { recursive: true, mode: 0o700 });
  writeFileSync(
    join(home, 'santra', 'config.json'),
    JSON.stringify(setup.config).replaceAll('FAKE_URL', fake.url),
    { mode: 0o600 },
  );
  const start = () =>
    servers.start({ home, workspace, env: setup.env(fake.url), promptDefaults: { agent: 'orchestrator' } });
  const runs = new Map<string, RecordedRequest[]>();
  const run = async (server: SessionServer, params: Json) => {
    const before = fake.requests.length;
    const { result } = await server.prompt(params);
    assert.equal(result.status, 'completed', `${String(params.text)}: ${JSON.stringify(result)}`);
    runs.set(String(params.text), fake.requests.slice(before));
    return result.sessionId as string;
  };

  const first = await start();
  const sessionId = await run(first, { text: 'What do a.txt and b.txt say?' });
  await run(first, { text: 'And c.txt?', sessionId, cwd: 'sub' });
  fake.push({ text: 'Summary: a.txt says alpha, b.txt beta, c.txt gamma.' });
  const compacted = await first.ok('session/compact', { sessionId, keepTurns: 1 });
  assert.equal(compacted.compacted, true);
  const compactedAt = fake.requests.length;
  fake.push(turn(as('orchestrator'), { text: 'Three.' }));
  await run(first, { text: 'Third', sessionId });
  await first.stop();

  const second = await start();
  fake.push(
    turn(as('orchestrator'), { text: 'Four.' }),
    turn(as('orchestrator'), { text: 'Five.' }),
    turn(as('orchestrator'), { text: 'Six.' }),
  );
  await run(second, { text: 'Fourth', sessionId });
  await run(second, { text: 'Fifth', sessionId, model: setup.other });
  await run(second, { text: 'Sixth', sessionId });
  return { api, requests: [...fake.requests], compactedAt, runs };
}

/**
 * The line a request belongs to: its model and agent (a sub-agent by its task), before or after the
 * compaction. The summary request branches off the conversation: a line of its own.
 */
function lineOf(session: Session) {
  return (request: RecordedRequest) => {
    const index = session.requests.indexOf(request);
    if (index === session.compactedAt - 1) return 'the compaction';
    const body = request.body as Json;
    const task = taskOf(request);
    return `${roleOf(request)}${task === undefined ? '' : ` (${task.split('\n')[1]})`} on ${String(body.model)}${index >= session.compactedAt ? ', after the compaction' : ''}`;
  };
}

for (const api of ['anthropic', 'openai', 'openai-responses', 'openrouter'] as const) {
  describe(`the prompt cache through ${api}`, async () => {
    const session = await runSession(api);
    const bodies = session.requests.map((request) => request.body as Json);

    test('each request of an agent starts with its previous one, byte for byte (cache markers aside)', () => {
      assert.deepEqual(lineBreaks(session.requests, lineOf(session)), []);
      // The line of the orchestrator under the first model runs across the restart and the switch.
      const root = session.requests.filter(
        (r) => lineOf(session)(r) === lineOf(session)(session.requests.at(-1) as RecordedRequest),
      );
      assert.ok(root.length >= 3, `${root.length} requests after the compaction, across two servers`);
    });

    test('the system prompt says nothing that changes: the date and the directory go with the prompt', () => {
      const systems = new Set(
        session.requests.filter(as('orchestrator')).map((r) => systemOf(r.body as Json)),
      );
      assert.equal(systems.size, 1, 'one system prompt for the orchestrator, whatever the day or directory');
      assert.doesNotMatch([...systems][0] ?? '', /\d{4}-\d\d-\d\d|\/sub\b|Sub rule/);
      assert.match([...systems][0] ?? '', /Root rule: be brief\./);
      const fromSub = session.runs.get('And c.txt?')?.[0]?.body as Json;
      assert.match(
        textOf(conversationOf(fromSub).at(-1)),
        /<environment>\nToday is \d{4}-\d\d-\d\d\. The user is working in \S*\/sub:[^]*## sub\/AGENTS\.md\n\nSub rule: quote line numbers\.[^]*<\/environment>$/,
      );
    });

    test('every request marks a breakpoint at the end of its conversation', () => {
      for (const [index, body] of bodies.entries()) {
        if (api === 'anthropic') {
          assert.deepEqual(body.cache_control, { type: 'ephemeral' }, `request ${index + 1}`);
          const marked = markers(body);
          assert.ok(marked.inConversation, `request ${index + 1} marks its conversation`);
          assert.ok(marked.total <= 4, `request ${index + 1}: ${marked.total} breakpoints, 4 at most`);
        } else if (api === 'openrouter') {
          // Anthropic's markers on content parts: the system prompt and the conversation's last
          // message that can carry one; none of OpenAI's own fields, which the relay would refuse.
          const conversation = conversationOf(body) as Json[];
          assert.match(JSON.stringify(conversation[0]), /"cache_control":\{"type":"ephemeral"\}/);
          const last = conversation.findLast((message) => message.role !== 'assistant');
          assert.match(JSON.stringify(last), /"cache_control"/, `request ${index + 1} marks its end`);
          assert.ok(markers(body).total <= 4, `request ${index + 1}: ${markers(body).total} markers`);
          assert.doesNotMatch(JSON.stringify(body), /prompt_cache_(breakpoint|options|key)/);
        } else {
          // OpenAI places the breakpoint at the end of the conversation itself (mode implicit).
          assert.deepEqual(body.prompt_cache_options, { mode: 'implicit' }, `request ${index + 1}`);
        }
      }
    });

    test('a sub-agent of a later turn starts with what one of an earlier turn shared (nothing rewritten or made up)', () => {
      // Block for block, as the caches compare: each text with its role, message boundaries aside
      // (the APIs fold a trailing user turn into the task's; openai.ts does it for alternation).
      const blocks = (body: Json) =>
        conversationOf(body).flatMap((item) => {
          const role = String((item as Json).role);
          const content = (item as Json).content;
          const parts =
            typeof content === 'string' ? [content] : (content as Json[]).map((p) => String(p.text));
          return parts
            .flatMap((part) => part.split('\n\n'))
            .filter((text) => text !== '')
            .map((text) => `${role}: ${text}`);
        });
      const earlier = blocks(session.requests.find(as('reader', 'a.txt'))?.body as Json);
      const later = blocks(session.requests.find(as('reader', 'c.txt'))?.body as Json);
      const shared = earlier.slice(
        0,
        earlier.findIndex((block) => block.startsWith('user: Your task:')),
      );
      assert.ok(shared.length >= 2, `the first reader shares the user's prompt: ${JSON.stringify(earlier)}`);
      assert.deepEqual(later.slice(0, shared.length), shared);
      assert.ok(
        !later.some((block) => block === 'assistant: Understood.'),
        'no made-up answer in the history',
      );
    });

    test("sibling sub-agents share their prefix, marked at its end, so the second reads the first's", () => {
      const [a, b] = ['a.txt', 'b.txt'].map(
        (file) => session.requests.find(as('reader', file))?.body as Json,
      );
      assert.ok(a !== undefined && b !== undefined);
      const left = conversationOf(a);
      const shared = left.length - 1;
      assert.equal(
        prefixBreak({ ...a, [Array.isArray(a.messages) ? 'messages' : 'input']: left.slice(0, shared) }, b),
        undefined,
      );
      // The last message they share (OpenAI: the last it can mark, not an assistant's) carries the breakpoint.
      const markable = left
        .slice(0, shared)
        .filter((message) => api === 'anthropic' || (message as Json).role !== 'assistant');
      const mark = api === 'anthropic' || api === 'openrouter' ? 'cache_control' : 'prompt_cache_breakpoint';
      assert.match(
        JSON.stringify(markable.at(-1)),
        new RegExp(`"${mark}"`),
        'a breakpoint at the end of what the siblings share',
      );
      if (api === 'openai' || api === 'openrouter') {
        // Chat Completions folds the task into the user turn before it: the breakpoint splits that turn
        // where the shared history ends, and the parts read as the one text a server without breakpoints gets.
        const parts = (left.at(-1) as Json).content as Json[];
        assert.equal(parts.length, 2, JSON.stringify(parts));
        assert.ok(parts[0]?.[mark] !== undefined && !String(parts[0]?.text).includes('Your task:'));
        assert.match(String(parts[1]?.text), /^\n\nYour task:\nRead a\.txt/);
        // Anthropic's plan also marks the end of the conversation, for the agent's next request.
        assert.equal(parts[1]?.[mark] !== undefined, api === 'openrouter');
      }
      if (api === 'openai' || api === 'openai-responses') {
        assert.equal(a.prompt_cache_key, b.prompt_cache_key, 'one cache key for the readers of a session');
        const root = session.requests.find(as('orchestrator'))?.body as Json;
        assert.notEqual(root.prompt_cache_key, a.prompt_cache_key, 'another for the orchestrator');
        assert.match(String(root.prompt_cache_key), /^santra-[\w-]{32}$/);
      }
    });

    test("the compaction's summary is asked for inside the conversation, extending its cached prefix", () => {
      const summary = session.requests[session.compactedAt - 1];
      // The older part summarised is the first run's: its last request is where the cache stands.
      const older = session.runs.get('What do a.txt and b.txt say?')?.filter(as('orchestrator')).at(-1);
      assert.ok(summary !== undefined && older !== undefined);
      assert.equal(prefixBreak(older.body as Json, summary.body as Json), undefined);
      assert.match(textOf(conversationOf(summary.body as Json).at(-1)), /^\[Compaction: /);
    });

    test('the prefix check names the field that broke it', () => {
      const [previous, next] = session.requests.filter(as('orchestrator')).map((r) => unmarked(r.body));
      assert.ok(previous !== undefined && next !== undefined);
      assert.equal(prefixBreak(previous, next), undefined);
      const dated = JSON.parse(
        JSON.stringify(next).replace(
          'You are the orchestrator',
          'Today is 2031-01-01. You are the orchestrator',
        ),
      ) as Json;
      assert.match(
        String(prefixBreak(previous, dated)),
        api === 'anthropic'
          ? /^system\[0\]\.text differs/
          : api === 'openai' || api === 'openrouter'
            ? /^messages\[0\]\.content\[0\]\.text differs/
            : /^instructions differs/,
      );
      const tools = structuredClone(next);
      ((tools.tools as Json[])[0] as Json).description = 'changed';
      assert.match(String(prefixBreak(previous, tools)), /^tools\[0\]\.(function\.)?description differs/);
      const rewritten = structuredClone(next);
      const conversation = conversationOf(rewritten) as Json[];
      conversation[0] = { ...conversation[0], content: 'rewritten' };
      assert.match(String(prefixBreak(previous, rewritten)), /^(messages|input)\[0\]\.content differs/);
    });
  });
}
