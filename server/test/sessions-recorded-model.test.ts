/**
 * Recording and replay through the real server: a session recorded against the fake provider (text,
 * a file read, an approved edit, a question, a sub-agent, two runs) is executed again with
 * `santra-server --replay FILE` in a fresh copy of the workspace, with no provider configured:
 * the same phases, the same answers, the same file. A replay whose workspace differs, or whose
 * recording was cut short, stops with a divergence naming the run, the agent and the turn; the
 * server keeps serving.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import {
  type FakeProvider,
  type FakeTurn,
  type RecordedRequest,
  startFakeProvider,
} from '../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import type { ChatMessage } from '../src/providers/messages.ts';
import type { ModelRequest, StreamEvent } from '../src/providers/stream.ts';
import { parseJournal } from '../src/sessions/journal.ts';
import type { SessionRecord } from '../src/sessions/records.ts';
import { recordingOf, recordedModelStream } from '../src/sessions/recorded-model.ts';
import { CANARY_KEY } from './helpers/run.ts';
import { sessionServers } from './helpers/sessions.ts';
import { type Json, WireClient } from './helpers/wire.ts';

const cleanup: Array<() => Promise<void>> = [];
const servers = sessionServers();
servers.later(async () => {
  for (const step of cleanup.reverse()) await step();
});

/** One agent with the file tools and ask_user, so the root itself reads what a replay checks. */
const TESTER = {
  id: 'tester',
  name: 'Tester',
  description: 'The agent of this test.',
  systemPrompt: 'You are the test agent.',
  toolNames: ['read_file', 'str_replace', 'ask_user', 'task_completed'],
};

/** The workspace as it is before the recorded session: what every replay starts from. */
function freshWorkspace(greeting = 'hello world\n'): string {
  const workspace = tempDir('santra-ws-');
  cleanup.push(() => removeTempDir(workspace));
  mkdirSync(join(workspace, '.agents'));
  writeFileSync(join(workspace, '.agents', 'tester.json'), JSON.stringify(TESTER));
  writeFileSync(join(workspace, 'greeting.txt'), greeting);
  return workspace;
}

const systemText = (request: RecordedRequest) =>
  (request.body.system as Array<{ text: string }>).map((block) => block.text).join('\n');
const as =
  (role: string): FakeTurn['match'] =>
  (request) =>
    systemText(request).includes(`You are the ${role}`);
const call = (id: string, name: string, args: unknown) => ({ id, name, args });

const TURNS: FakeTurn[] = [
  // Run 1, the tester: reads, asks, edits (approved), answers.
  {
    match: as('test agent'),
    text: 'Let me read it.',
    toolCalls: [call('t1', 'read_file', { path: 'greeting.txt' })],
  },
  {
    match: as('test agent'),
    toolCalls: [call('t2', 'ask_user', { prompt: 'Which word instead of hello?' })],
  },
  {
    match: as('test agent'),
    thinking: 'The user wants goodbye.',
    toolCalls: [call('t3', 'str_replace', { path: 'greeting.txt', oldStr: 'hello', newStr: 'goodbye' })],
  },
  { match: as('test agent'), text: 'Done: the greeting now says goodbye.' },
  // Run 2, the orchestrator: a reader sub-agent checks the file.
  {
    match: as('orchestrator'),
    toolCalls: [call('o1', 'spawn_agent', { agentId: 'reader', task: 'Read greeting.txt' })],
  },
  { match: as('reader'), toolCalls: [call('r1', 'read_file', { path: 'greeting.txt' })] },
  { match: as('reader'), toolCalls: [call('r2', 'task_completed', { result: 'It says goodbye world.' })] },
  { match: as('orchestrator'), text: 'The reader confirms: goodbye world.' },
];

const PROMPTS: Json[] = [
  { text: 'Change the greeting', agent: 'tester' },
  { text: 'Have a reader check the greeting', agent: 'orchestrator' },
];

/** A server in its own home; `env` adds the provider (recording) or not (replay). */
async function server(workspace: string, env: NodeJS.ProcessEnv, args: string[] = []) {
  const home = tempDir('santra-home-');
  const base = await servers.start({
    home,
    workspace,
    env,
    args,
    capabilities: { approve: true, ask: true },
    ownsHome: true,
  });
  const approvals: Json[] = [];
  base.client.handle('approve', (params) => {
    approvals.push(params);
    return { decision: 'allow' };
  });
  base.client.handle('ask', () => ({ answer: 'goodbye' }));
  return { ...base, home, approvals };
}

type Server = Awaited<ReturnType<typeof server>>;

/** Sends the prompts in order, in one session. */
async function runAll(s: Server, prompts: Json[]): Promise<Array<{ result: Json; phases: Json[] }>> {
  const runs: Array<{ result: Json; phases: Json[] }> = [];
  let sessionId: unknown;
  for (const prompt of prompts) {
    const run = await s.prompt(sessionId === undefined ? prompt : { ...prompt, sessionId });
    sessionId ??= run.result.sessionId;
    runs.push(run);
  }
  return runs;
}

/**
 * What a replay must repeat of a run's phases: their order, types, agents and content; not ids,
 * times or how text was split into deltas (consecutive deltas of one agent are joined).
 */
function shape(phases: Json[]): string[] {
  const lines: string[] = [];
  for (const phase of phases) {
    const who = String(phase.agentId);
    let line: string;
    switch (phase.type) {
      case 'text':
      case 'thinking': {
        const last = lines.at(-1);
        const head = `${who} ${phase.type}: `;
        if (last?.startsWith(head) === true) {
          lines[lines.length - 1] = last + String(phase.text);
          continue;
        }
        line = head + String(phase.text);
        break;
      }
      case 'tool_call':
        line = `${who} tool_call ${String(phase.toolName)} ${JSON.stringify(phase.args)}`;
        break;
      case 'tool_result':
        line = `${who} tool_result ${String(phase.toolName)} ${String(phase.status)}: ${String(phase.output).replace(/after [\d.]+ s/g, '')}`;
        break;
      case 'status':
      case 'section':
        line = `${who} ${phase.type}: ${String(phase.text ?? phase.title)}`;
        break;
      default:
        line = `${who} ${String(phase.type)}${typeof phase.status === 'string' ? ` ${phase.status}` : ''}`;
    }
    lines.push(line);
  }
  return lines;
}

function sessionFile(home: string): string {
  const dir = join(home, 'santra', 'sessions');
  for (const project of readdirSync(dir))
    for (const name of readdirSync(join(dir, project)))
      if (name.endsWith('.jsonl')) return join(dir, project, name);
  throw new Error(`no session file under ${dir}`);
}

const recordingDir = tempDir('santra-recording-');
cleanup.push(() => removeTempDir(recordingDir));

let fake: FakeProvider;
let recording: string;
let recordedRuns: Array<{ result: Json; phases: Json[] }>;
let recordedRecords: SessionRecord[];

before(async () => {
  fake = await startFakeProvider('anthropic', TURNS);
  cleanup.push(() => fake.close());
  const workspace = freshWorkspace();
  const recorder = await server(workspace, {
    ANTHROPIC_API_KEY: CANARY_KEY,
    ANTHROPIC_BASE_URL: fake.url,
    SANTRA_MODEL: 'anthropic/claude-sonnet-4-5',
  });
  recordedRuns = await runAll(recorder, PROMPTS);
  assert.deepEqual(
    recordedRuns.map((run) => run.result.status),
    ['completed', 'completed'],
  );
  assert.equal(readFileSync(join(workspace, 'greeting.txt'), 'utf8'), 'goodbye world\n');
  assert.equal(recorder.approvals.length, 1, 'the edit was approved by the client');
  const text = readFileSync(sessionFile(recorder.home), 'utf8');
  recordedRecords = parseJournal(text, 'recording').records;
  recording = join(recordingDir, 'recording.jsonl');
  writeFileSync(recording, text);
});

/** A replaying server with no provider: no key, no base URL, no model configured. */
const replayer = (workspace: string, file = recording, env: NodeJS.ProcessEnv = {}) =>
  server(workspace, env, ['--replay', file]);

describe('replay', () => {
  test('re-executes the recording with no provider: the same phases, answers and file', async () => {
    const workspace = freshWorkspace();
    const replay = await replayer(workspace);
    const runs = await runAll(replay, PROMPTS);
    assert.deepEqual(
      runs.map((run) => [run.result.status, run.result.output, run.result.usage, run.result.costUsd]),
      recordedRuns.map((run) => [run.result.status, run.result.output, run.result.usage, run.result.costUsd]),
    );
    for (const [index, run] of runs.entries())
      assert.deepEqual(shape(run.phases), shape(recordedRuns[index]?.phases ?? []), `run ${index + 1}`);
    const kinds = shape(runs.flatMap((run) => run.phases)).join('\n');
    for (const expected of [
      'tester thinking: The user wants goodbye.',
      'tester tool_call str_replace',
      'reader-1 section: Reader: Read greeting.txt',
      'reader-1 tool_call read_file',
    ])
      assert.ok(kinds.includes(expected), `${expected} in\n${kinds}`);
    assert.equal(readFileSync(join(workspace, 'greeting.txt'), 'utf8'), 'goodbye world\n');
    assert.equal(replay.approvals.length, 1, 'the edit was put to the client, as it was');
    assert.equal((replay.approvals[0] as Json).path, 'greeting.txt');
    assert.equal(replay.client.stderr, '', 'nothing to warn about');
  });

  test('a workspace that differs from the recorded one: the divergence names the run, agent, turn and message', async () => {
    const workspace = freshWorkspace('hello there\n');
    const replay = await replayer(workspace);
    const [first] = await runAll(replay, PROMPTS.slice(0, 1));
    assert.equal(first?.result.status, 'error');
    const error = first?.phases.find((phase) => phase.type === 'error');
    assert.equal(error?.code, 'replay_divergence');
    assert.match(
      String(error?.message),
      /^Replay diverged at run 1 of 2, agent tester, turn 2: message 3 \(result of read_file call t1\): they differ at character \d+: the recording has ".*hello world.*", this call ".*hello there.*"/,
    );
    assert.equal(readFileSync(join(workspace, 'greeting.txt'), 'utf8'), 'hello there\n', 'nothing edited');
    // The server keeps serving: a model list, and another prompt (which is run 2's, and diverges too).
    assert.ok((await replay.call('model/list', {})).result !== undefined);
  });

  test('a recording cut short: the call it has no answer for stops the run; a configured provider is never called', async () => {
    // Everything before the reader's second model output.
    const cut = recordedRecords.findIndex(
      (record) => record.type === 'model_output' && record.agentId === 'reader-1' && record.turn === 2,
    );
    assert.ok(cut > 0);
    const truncated = join(recordingDir, 'truncated.jsonl');
    writeFileSync(
      truncated,
      recordedRecords
        .slice(0, cut)
        .map((record) => `${JSON.stringify(record)}\n`)
        .join(''),
    );
    const workspace = freshWorkspace();
    const requestsBefore = fake.requests.length;
    const replay = await replayer(workspace, truncated, {
      // A provider with a key, which a replay must never call.
      ANTHROPIC_API_KEY: CANARY_KEY,
      ANTHROPIC_BASE_URL: fake.url,
    });
    const [first, second] = await runAll(replay, PROMPTS);
    assert.equal(first?.result.status, 'completed');
    assert.equal(second?.result.status, 'error');
    const errors = second?.phases.filter((phase) => phase.type === 'error') ?? [];
    assert.deepEqual(
      errors.map((phase) => [phase.agentId, phase.code]),
      [
        ['reader-1', 'replay_divergence'],
        // The sub-agent's failure is a result for its parent, whose next call the recording lacks too.
        ['orchestrator', 'replay_divergence'],
      ],
    );
    assert.match(
      String(errors[0]?.message),
      /^Replay diverged at run 2 of 2, agent reader-1, turn 2: the recording has 1 model call of reader-1 in this run; this is one more/,
    );
    assert.equal(fake.requests.length, requestsBefore, 'no request reached the provider');
    assert.ok(!replay.client.stdout.includes(CANARY_KEY));
  });

  test('a file that cannot be read or holds no model output is refused at start with exit code 2', async () => {
    const empty = join(recordingDir, 'no-outputs.jsonl');
    writeFileSync(
      empty,
      recordedRecords
        .filter((record) => record.type !== 'model_output')
        .map((record) => `${JSON.stringify(record)}\n`)
        .join(''),
    );
    for (const [file, why] of [
      [join(recordingDir, 'missing.jsonl'), /--replay: cannot read .*missing\.jsonl: no such file/],
      [empty, /--replay: .*no-outputs\.jsonl holds no model outputs to replay/],
    ] as const) {
      const client = new WireClient(['--replay', file]);
      const exit = await client.exit();
      assert.equal(exit.code, 2);
      assert.match(client.stderr, why);
    }
  });
});

describe('recordedModelStream', () => {
  const model = { provider: 'anthropic', id: 'claude-sonnet-4-5' } as ModelRequest['model'];
  const endpoint = {
    id: 'anthropic',
    name: 'Anthropic',
    api: 'anthropic',
    baseUrl: '',
    needsKey: false,
  } as const;
  const user = (text: string): ChatMessage => ({ role: 'user', content: [{ type: 'text', text }] });
  const records: SessionRecord[] = [
    { type: 'prompt', runId: 'run_a', at: '', text: 'hi', model: 'anthropic/claude-sonnet-4-5' },
    { type: 'message', runId: 'run_a', message: user('hi') },
    {
      type: 'model_output',
      runId: 'run_a',
      agentId: 'assistant',
      turn: 1,
      inputMessages: 1,
      text: 'Hal',
      failure: {
        kind: 'overloaded',
        provider: 'anthropic',
        retryable: true,
        message: 'Anthropic: overloaded.',
      },
    },
  ];
  const ask = async (request: Partial<ModelRequest>) => {
    const events: StreamEvent[] = [];
    for await (const event of recordedModelStream(recordingOf(records))(endpoint, {
      model,
      system: '',
      messages: [user('hi')],
      tools: [],
      maxOutputTokens: 100,
      signal: new AbortController().signal,
      caller: { runId: 'run_live', agentId: 'assistant', turn: 1 },
      ...request,
    }))
      events.push(event);
    return events;
  };

  test('a recorded failure is replayed as that failure, after the text that streamed before it', async () => {
    assert.deepEqual(await ask({}), [
      { type: 'text_delta', text: 'Hal' },
      { type: 'error', failure: (records[2] as Extract<SessionRecord, { type: 'model_output' }>).failure },
    ]);
  });

  test('another model, another conversation length: divergences that say where', async () => {
    const failure = (events: StreamEvent[]) => {
      assert.equal(events.length, 1);
      const [event] = events;
      assert.equal(event?.type, 'error');
      return event.type === 'error' ? event.failure : undefined;
    };
    const otherModel = failure(await ask({ model: { ...model, id: 'claude-opus-4-1' } }));
    assert.equal(otherModel?.kind, 'replay_divergence');
    assert.match(
      String(otherModel?.message),
      /run 1 of 1, agent assistant, turn 1: the recording ran on anthropic\/claude-sonnet-4-5, this call asks anthropic\/claude-opus-4-1/,
    );
    const longer = failure(await ask({ messages: [user('hi'), user('again')] }));
    assert.match(String(longer?.message), /turn 1: the recording sent 1 message, this call sends 2/);
    const other = failure(await ask({ caller: { runId: 'run_live', agentId: 'helper', turn: 1 } }));
    assert.match(
      String(other?.message),
      /the agent helper made no model call in this run of the recording \(its agents: assistant\)/,
    );
    const anonymous = failure(await ask({ caller: undefined }));
    assert.match(String(anonymous?.message), /no agent turn/);
  });
});

describe('replaying a compaction', () => {
  test('summary calls are answered from the compaction outputs, in order; one more is a divergence', async () => {
    const endpoint = {
      id: 'anthropic',
      name: 'Anthropic',
      api: 'anthropic',
      baseUrl: '',
      needsKey: false,
    } as const;
    const records: SessionRecord[] = [
      {
        type: 'model_output',
        runId: 'compaction',
        agentId: 'compaction',
        turn: 1,
        inputMessages: 4,
        content: [{ type: 'text', text: 'The user wants milk.' }],
        stopReason: 'end_turn',
        usage: { inputTokens: 40, outputTokens: 6, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
    ];
    const stream = recordedModelStream(recordingOf(records));
    const summarise = async () => {
      const events: StreamEvent[] = [];
      for await (const event of stream(endpoint, {
        model: { provider: 'anthropic', id: 'claude-sonnet-4-5' } as ModelRequest['model'],
        system: 'Summarise',
        messages: [],
        tools: [],
        maxOutputTokens: 100,
        signal: new AbortController().signal,
        caller: { runId: 'compaction', agentId: 'compaction', turn: 1 },
      }))
        events.push(event);
      return events;
    };
    const first = await summarise();
    assert.equal(first.at(-1)?.type, 'done');
    assert.deepEqual(
      first.filter((e) => e.type === 'text_delta').map((e) => (e.type === 'text_delta' ? e.text : '')),
      ['The user wants milk.'],
    );
    const second = await summarise();
    assert.equal(second.length, 1);
    assert.match(JSON.stringify(second[0]), /compaction 2: the recording has 1 compaction; this is one more/);
  });
});
