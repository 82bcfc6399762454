/**
 * `santra -p --replay FILE` end to end: the built santra starts the built santra-server with
 * `--replay`, sends the recording's prompts in order in one session, approves as the recording
 * did, and prints the answers as -p does — with no provider, no key and no network. A recording
 * that runs out stops the replay with the divergence on stderr and exit code 1.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { Approvals, QuestionWithdrawn } from '../src/print/approvals.ts';
import { parseCommandLine } from '../src/print/args.ts';
import { type RerunClient, readRerunScript, RecordedAnswers, runsToRerun } from '../src/print/rerun.ts';
import { serverArgs } from '../src/client/server-process.ts';
import { NewerRecordFormat, readSessionRecords } from '../src/client/session-records.ts';
import { SessionRecord } from '#protocol';

const SANTRA = fileURLToPath(new URL('../../dist/santra.js', import.meta.url));
const MODEL = 'anthropic/claude-sonnet-4-5';
const AT = '2026-11-23T10:00:00.000Z';
const USAGE = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 };

const dirs: string[] = [];
after(async () => {
  for (const dir of dirs) await removeTempDir(dir);
});
function dir(prefix: string): string {
  const path = tempDir(prefix);
  dirs.push(path);
  return path;
}

const WRITE = { path: 'hello.txt', content: 'hi\n' };

/**
 * A recording as the server writes it (server/src/sessions/records.ts): an executor that writes a
 * file after an approval, then a chat answer in the same session.
 */
const RECORDS = [
  {
    type: 'session',
    format: 1,
    sessionId: 'ses_recorded',
    workspaceRoot: '/where/it/was/recorded',
    createdAt: AT,
    santraVersion: '0.1.0',
  },
  { type: 'prompt', runId: 'run_1', at: AT, text: 'Write the greeting', model: MODEL, agent: 'executor' },
  {
    type: 'message',
    runId: 'run_1',
    message: { role: 'user', content: [{ type: 'text', text: 'Write the greeting' }] },
  },
  {
    type: 'model_output',
    runId: 'run_1',
    agentId: 'executor',
    turn: 1,
    inputMessages: 1,
    content: [
      { type: 'text', text: 'Writing it.\n' },
      { type: 'tool_call', id: 'c1', name: 'write_file', args: WRITE, argsText: JSON.stringify(WRITE) },
    ],
    stopReason: 'tool_use',
    usage: USAGE,
  },
  {
    type: 'approval',
    runId: 'run_1',
    request: {
      kind: 'file_change',
      sessionId: 'ses_recorded',
      runId: 'run_1',
      agentId: 'executor',
      toolCallId: 'c1',
      toolName: 'write_file',
      path: 'hello.txt',
      operation: 'create',
      diff: { added: 1, removed: 0, hunks: [], unifiedDiff: '+hi\n', replacement: false },
    },
    answer: { decision: 'allow' },
    at: AT,
  },
  {
    type: 'model_output',
    runId: 'run_1',
    agentId: 'executor',
    turn: 2,
    inputMessages: 3,
    content: [{ type: 'text', text: 'Done: hello.txt says hi.' }],
    stopReason: 'end_turn',
    usage: USAGE,
  },
  { type: 'run_end', runId: 'run_1', status: 'completed', model: MODEL, usage: USAGE, costUsd: 0, at: AT },
  { type: 'prompt', runId: 'run_2', at: AT, text: 'Thanks', model: MODEL, mode: 'simple_chat' },
  {
    type: 'model_output',
    runId: 'run_2',
    agentId: 'assistant',
    turn: 1,
    // Run 1's prompt, call, result and answer, and this prompt.
    inputMessages: 5,
    content: [{ type: 'text', text: 'You are welcome.' }],
    stopReason: 'end_turn',
    usage: USAGE,
  },
  { type: 'run_end', runId: 'run_2', status: 'completed', model: MODEL, usage: USAGE, costUsd: 0, at: AT },
];

describe('the recording is read as the published record format (§10.9)', () => {
  test('every record of the fixture is a SessionRecord, so the fixture is what a server writes', () => {
    for (const record of RECORDS) assert.ok(SessionRecord.safeParse(record).success, JSON.stringify(record));
  });

  test('a damaged line and a record that breaks its schema are skipped and counted; a newer type is passed over', () => {
    const lines = [
      JSON.stringify(RECORDS[0]),
      '{"type":"prompt","runId":"run_1","at":',
      // An approval without the session it was asked in is not one the server writes.
      JSON.stringify({ ...(RECORDS[4] as object), request: { kind: 'file_change' } }),
      JSON.stringify({ type: 'bookmark_from_a_newer_server', at: AT }),
      `${JSON.stringify(RECORDS[1])}\0\0${JSON.stringify(RECORDS[2])}`,
    ];
    const { records, skipped } = readSessionRecords(lines.join('\n'));
    assert.deepEqual(
      records.map((record) => record.type),
      ['session', 'prompt', 'message'],
    );
    assert.equal(skipped, 2);
  });

  test('a recording in a later record format is refused, saying which and what to do', () => {
    const later = [{ ...(RECORDS[0] as object), format: 2 }, ...RECORDS.slice(1)];
    assert.throws(() => readSessionRecords(JSON.stringify(later)), NewerRecordFormat);
    assert.throws(
      () => readRerunScript(recording(later)),
      /session record format 2, and this santra reads format 1; update santra/,
    );
  });

  test('session/export json: the array, or the whole result with the records as its content', () => {
    const array = JSON.stringify(RECORDS);
    assert.equal(readSessionRecords(array).records.length, RECORDS.length);
    const result = JSON.stringify({ format: 'json', content: array, records: RECORDS });
    assert.equal(readSessionRecords(result).records.length, RECORDS.length);
  });
});

function recording(records: readonly object[]): string {
  const file = join(dir('santra-recording-'), 'session.jsonl');
  writeFileSync(file, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
  return file;
}

/** The built santra, in `workspace`, with a fresh home and nothing else: no key, no provider. */
async function santra(args: string[], workspace: string) {
  const home = dir('santra-home-');
  const child = spawn(process.execPath, [SANTRA, ...args, '--cwd', workspace], {
    cwd: workspace,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, HOME: home, SANTRA_HOME: join(home, 'santra'), NO_COLOR: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

describe('santra -p --replay', () => {
  test('re-executes the recording: its prompts in one session, its approval, its answers', async () => {
    const workspace = dir('santra-ws-');
    const { code, stdout, stderr } = await santra(['-p', '--replay', recording(RECORDS)], workspace);
    assert.equal(code, 0, stderr);
    assert.equal(stdout, 'Writing it.\nDone: hello.txt says hi.\nYou are welcome.\n');
    assert.equal(readFileSync(join(workspace, 'hello.txt'), 'utf8'), 'hi\n');
    assert.match(stderr, /santra: replay: allow create hello\.txt \(\+1 −0\), as recorded/);
    assert.doesNotMatch(stderr, /error/);
  });

  test('a recording that runs out: the divergence on stderr, the replay stops, exit code 1', async () => {
    const workspace = dir('santra-ws-');
    const cut = RECORDS.filter((record) => !(record.type === 'model_output' && record.runId === 'run_2'));
    const { code, stdout, stderr } = await santra(['-p', '--replay', recording(cut)], workspace);
    assert.equal(code, 1);
    assert.equal(stdout, 'Writing it.\nDone: hello.txt says hi.\n');
    assert.match(
      stderr,
      /santra: error: Replay diverged at run 2 of 2, agent assistant, turn 1: the agent assistant made no model call in this run of the recording/,
    );
    assert.match(stderr, /santra: replay: run 2 of 2 ended error, the recorded one completed; stopped there/);
  });

  test('a file with nothing to replay is a usage error; a prompt beside --replay too', async () => {
    const workspace = dir('santra-ws-');
    const missing = await santra(['-p', '--replay', join(workspace, 'none.jsonl')], workspace);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /santra: --replay .*none\.jsonl: no such file/);
    const empty = await santra(['-p', '--replay', recording([RECORDS[0] as object])], workspace);
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /no prompts to replay/);
    const both = await santra(['-p', 'hello', '--replay', recording(RECORDS)], workspace);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--replay sends the recording's prompts; give no prompt/);
    assert.ok(!existsSync(join(workspace, 'hello.txt')));
  });
});

describe('--replay on the command line', () => {
  const parse = (...argv: string[]) => parseCommandLine(argv, { stdinIsTTY: true, cwd: '/home/me/project' });

  test('needs no prompt, even on a terminal, and is made absolute', () => {
    const command = parse('-p', '--replay', 'rec/session.jsonl');
    assert.equal(command.action, 'print');
    assert.equal(
      command.action === 'print' ? command.options.replay : undefined,
      '/home/me/project/rec/session.jsonl',
    );
    assert.equal(command.action === 'print' ? command.options.prompt : 'x', undefined);
  });

  test('refuses what the recording decides, and works with -p only', () => {
    const errors = [
      parse('-p', '--replay', 'f.jsonl', '--model', 'openai/gpt-4o'),
      parse('-p', '--replay', 'f.jsonl', '--agent', 'reader'),
      parse('-p', '--replay', 'f.jsonl', '--continue'),
      parse('-p', '--replay', ''),
      parse('--replay', 'f.jsonl'),
    ].map((command) => (command.action === 'usage_error' ? command.message : command.action));
    assert.deepEqual(errors, [
      "--replay runs the recording's models; leave out --model",
      "--replay runs the recording's agents; leave out --agent",
      "--replay runs the recording's session; leave out --continue",
      '--replay needs a session file',
      '--replay only works with -p/--print',
    ]);
  });

  test('the server is started with --replay alone: approvals stay with the client', () => {
    assert.deepEqual(serverArgs({ approveAll: true, replay: '/r.jsonl' }), ['--replay', '/r.jsonl']);
    assert.deepEqual(serverArgs({ approveAll: true }), ['--auto-approve']);
  });
});

describe('what the person did between runs', () => {
  const user = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] });
  const answer = (text: string) => ({ role: 'assistant', content: [{ type: 'text', text }] });
  const prompt = (runId: string) => ({ type: 'prompt', runId, at: AT, text: runId, model: MODEL });
  const end = (runId: string, status = 'completed') => ({
    type: 'run_end',
    runId,
    status,
    model: MODEL,
    usage: USAGE,
    costUsd: 0,
    at: AT,
  });
  const phase = (runId: string, type: 'status' | 'complete' = 'status') => ({
    type: 'phase',
    phase: {
      type,
      runId,
      sessionId: 'ses_recorded',
      seq: 1,
      agentId: 'assistant',
      ...(type === 'status' ? { text: 'Route: …' } : { status: 'error', output: '' }),
    },
  });
  const compaction = (kept: object[]) => ({
    type: 'compaction',
    summary: user('[Summary of the earlier conversation …]'),
    kept,
    usage: USAGE,
    costUsd: 0,
    at: AT,
  });
  const change = (runId: string, changeId: string) => ({
    type: 'file_change',
    runId,
    changeId,
    toolCallId: 't',
    path: `${changeId}.txt`,
    operation: 'create',
    before: null,
    after: 'x',
    at: AT,
  });
  const undo = (...changeIds: string[]) => ({ type: 'undo', changeIds, at: AT });
  const toolTurn = [
    user('P2'),
    {
      role: 'assistant',
      content: [{ type: 'tool_call', id: 'c', name: 'read_file', args: {}, argsText: '{}' }],
    },
    {
      role: 'user',
      content: [{ type: 'tool_result', toolCallId: 'c', toolName: 'read_file', output: 'x', isError: false }],
    },
    answer('A2'),
  ];

  test('a compaction between runs, an undo of one change or of a run: steps in the recorded order', () => {
    const script = readRerunScript(
      recording([
        RECORDS[0] as object,
        // A compaction before any run: nothing to act on yet.
        compaction([]),
        prompt('run_1'),
        phase('run_1'),
        change('run_1', 'c1'),
        change('run_1', 'c2'),
        end('run_1'),
        // session/compact keeping one turn (its tool results are not turns) and a note (one).
        compaction([...toolTurn, user('[The user stopped this request before you answered it.]')]),
        // The compaction the server does before a prompt near the context window: its phases come first.
        phase('run_2'),
        compaction([]),
        prompt('run_2'),
        end('run_2'),
        // The last change, then the one before it: each the last one left.
        undo('c2'),
        undo('c1'),
        prompt('run_3'),
        change('run_3', 'c3'),
        change('run_3', 'c4'),
        end('run_3'),
        undo('c3', 'c4'),
      ]),
    );
    assert.deepEqual(
      script.steps.map((step) => (step.action === 'prompt' ? step.run.text : step)),
      [
        'run_1',
        { action: 'compact', keepTurns: 2 },
        'run_2',
        { action: 'undo', scope: 'change' },
        { action: 'undo', scope: 'change' },
        'run_3',
        { action: 'undo', scope: 'run' },
      ],
    );
    assert.deepEqual(
      script.runs.map((run) => run.text),
      ['run_1', 'run_2', 'run_3'],
    );
  });

  test('a prompt refused before it ran leaves no run behind: a later compaction is still the person’s', () => {
    const script = readRerunScript(
      recording([
        prompt('run_1'),
        end('run_1'),
        phase('run_x'),
        phase('run_x', 'complete'),
        compaction([user('P1'), answer('A1')]),
        prompt('run_2'),
        end('run_2'),
      ]),
    );
    assert.deepEqual(
      script.steps.map((step) => step.action),
      ['prompt', 'compact', 'prompt'],
    );
  });

  test('the steps are sent in order in the session; a compaction the server does not do stops the replay', async () => {
    const script = readRerunScript(
      recording([
        prompt('run_1'),
        end('run_1'),
        compaction([user('P1'), answer('A1')]),
        prompt('run_2'),
        undo('c9'),
      ]),
    );
    const sent: string[] = [];
    const said: string[] = [];
    let compacted = true;
    const client: RerunClient = {
      prompt: (params) => {
        sent.push(`prompt ${params.text} ${params.sessionId ?? '(new)'}`);
        return Promise.resolve({
          runId: 'r',
          sessionId: 'ses_live',
          status: 'completed',
          output: '',
          usage: USAGE,
          costUsd: 0,
          sessionUsage: USAGE,
          sessionCostUsd: 0,
        });
      },
      cancel: () => sent.push('cancel'),
      compact: (params) => {
        sent.push(`compact ${params.sessionId} ${params.keepTurns}`);
        return Promise.resolve({ compacted, messagesBefore: 5, messagesAfter: 3, usage: USAGE, costUsd: 0 });
      },
      undo: (params) => {
        sent.push(`undo ${params.sessionId} ${params.scope}`);
        return Promise.resolve({ changes: [{ path: 'c9.txt', operation: 'create', outcome: 'restored' }] });
      },
    };
    const answers = new RecordedAnswers(
      new Approvals({ policy: 'reject', write: () => {}, color: false }),
      () => {},
    );
    const replay = () =>
      runsToRerun(
        script,
        answers,
        client,
        (line) => said.push(line),
        () => false,
      );
    assert.equal(await replay(), true);
    assert.deepEqual(sent, [
      'prompt run_1 (new)',
      'compact ses_live 1',
      'prompt run_2 ses_live',
      'undo ses_live run',
    ]);
    assert.match(said.join('\n'), /compacted the conversation, as recorded: 5 messages became 3/);
    assert.match(said.join('\n'), /undid the last run's changes, as recorded: restored c9\.txt/);

    compacted = false;
    sent.length = 0;
    assert.equal(await replay(), false);
    assert.deepEqual(sent, ['prompt run_1 (new)', 'compact ses_live 1']);
    assert.match(
      said.at(-1) ?? '',
      /the recording compacted the conversation here, this session\/compact did not/,
    );
  });

  test('an approval the person left unanswered when they stopped the run: the replay stops the run there', async () => {
    const request = (RECORDS[4] as { request: object }).request;
    const script = readRerunScript(
      recording([
        prompt('run_1'),
        { type: 'approval', runId: 'run_1', request, at: AT },
        end('run_1', 'cancelled'),
        prompt('run_2'),
        { type: 'approval', runId: 'run_2', request, at: AT },
        end('run_2', 'error'),
      ]),
    );
    const said: string[] = [];
    const answers = new RecordedAnswers(
      new Approvals({ policy: 'reject', write: () => {}, color: false }),
      (line) => said.push(line),
    );
    const [stoppedRun, failedRun] = script.runs;
    assert.ok(stoppedRun !== undefined && failedRun !== undefined);
    let stopped = 0;
    answers.startRun(stoppedRun, () => stopped++);
    const server = new AbortController();
    const asked = answers.approve({ ...(request as ApproveRequest), runId: 'run_live' }, server.signal);
    assert.equal(stopped, 1, 'the run is cancelled, as the person cancelled it');
    server.abort();
    await assert.rejects(asked, QuestionWithdrawn);
    assert.match(
      said.join('\n'),
      /the recorded run was stopped at create hello\.txt \(\+1 −0\); stopping it there/,
    );

    // In a run that was not stopped, an approval without an answer was not allowed.
    answers.startRun(failedRun, () => stopped++);
    const rejected = await answers.approve(
      { ...(request as ApproveRequest), runId: 'run_live' },
      new AbortController().signal,
    );
    assert.deepEqual(rejected, { decision: 'reject' });
    assert.equal(stopped, 1);
  });
});

type ApproveRequest = Parameters<RecordedAnswers['approve']>[0];
