import { PROTOCOL_VERSION } from '#protocol/version';
/**
 * `santra -p` end to end: the real program from the sources as a child process, talking to the
 * fake server (tui/test/fixtures/fake-server.ts) over real pipes.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { tempDir } from '../../scripts/temp-dirs.ts';
import { type Json, PrintRun, runPrint } from './helpers/print-run.ts';

const workspace = tempDir('santra-print-ws-');
const inWorkspace = ['--cwd', workspace];

describe('santra -p output formats', () => {
  test('text: an answer given by task_completed follows the plan the agent streamed', async () => {
    const { code, stdout } = await runPrint(['-p', 'write hello.txt'], {
      cwd: workspace,
      scenario: 'plan-then-result',
    });
    assert.equal(code, 0);
    assert.equal(stdout, 'I will ask the executor to write it.\nDone: hello.txt greets the world.\n');
  });

  test("text: the root agent's text on stdout, in order, ending with a newline", async () => {
    const { code, stdout, stderr, run } = await runPrint(['-p', 'say hello'], { cwd: workspace });
    assert.equal(code, 0, stderr);
    assert.equal(stdout, 'Hello, world.\n');
    assert.doesNotMatch(
      stderr,
      /SUB-AGENT|fake-server/,
      'no sub-agent text, no server log without --verbose',
    );
    const [initialize] = run.log().filter((entry) => entry.method === 'initialize');
    assert.deepEqual((initialize as Json).params, {
      protocolVersion: PROTOCOL_VERSION,
      clientInfo: { name: 'santra-print', version: '0.1.0' },
      workspaceRoot: workspace,
      capabilities: { approve: true, ask: false, diffs: false },
    });
    assert.deepEqual(run.methods(), ['initialize', 'initialized', 'prompt', 'shutdown', 'exit']);
  });

  test('json: one parseable object at the end, the prompt result', async () => {
    const { code, stdout } = await runPrint(['-p', 'say hello', '--output-format', 'json', ...inWorkspace]);
    assert.equal(code, 0);
    assert.equal(stdout.trimEnd().split('\n').length, 1);
    const result = JSON.parse(stdout) as Json;
    assert.equal(result.status, 'completed');
    assert.equal(result.output, 'Hello, world.');
    assert.deepEqual(Object.keys(result).sort(), [
      'costUsd',
      'output',
      'runId',
      'sessionCostUsd',
      'sessionId',
      'sessionUsage',
      'status',
      'usage',
    ]);
  });

  test('stream-json: one line per phase as received, unknown types too, then the result', async () => {
    const { code, stdout } = await runPrint([
      '-p',
      'say hello',
      '--output-format=stream-json',
      ...inWorkspace,
    ]);
    assert.equal(code, 0);
    const lines = stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Json);
    assert.equal(lines.length, 11);
    assert.deepEqual(
      lines.slice(0, 10).map((line) => line.seq),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
    assert.ok(lines.some((line) => line.type === 'future_phase_type'));
    assert.deepEqual(lines[3], {
      runId: 'run-1',
      sessionId: 'ses-1',
      agentId: 'reader-1',
      parentAgentId: 'root',
      agentRole: 'reader',
      seq: 4,
      type: 'text',
      text: 'SUB-AGENT TEXT',
    });
    const last = lines[10] as Json;
    assert.equal(last.type, 'result');
    assert.equal(last.status, 'completed');
    assert.equal(last.runId, 'run-1');
  });

  test('--verbose: tool calls, results and status lines on stderr, and the server log passed through', async () => {
    const { code, stdout, stderr } = await runPrint(['-p', 'hi', '--verbose', ...inWorkspace]);
    assert.equal(code, 0);
    assert.equal(stdout, 'Hello, world.\n');
    for (const line of [
      '· Reading the code',
      '▸ [reader] Reader: looking around',
      '→ [reader] read_file a.ts',
      '← [reader] read_file ok: 3 lines',
      'fake-server: playing scenario text',
    ]) {
      assert.ok(stderr.includes(line), `missing "${line}" in:\n${stderr}`);
    }
  });

  test('--model and --agent go into the prompt, and a prompt piped on stdin is read (without its newline)', async () => {
    const { code, run } = await runPrint(
      ['-p', '--model', 'openai/gpt-5', '--agent', 'tester', ...inWorkspace],
      { input: 'what is 2 + 2?\n' },
    );
    assert.equal(code, 0);
    const prompt = run.log().find((entry) => entry.method === 'prompt') as Json;
    assert.deepEqual(prompt.params, { text: 'what is 2 + 2?', model: 'openai/gpt-5', agent: 'tester' });
  });
});

describe('santra -p failures', () => {
  test('an error phase and status error: exit 1, the message on stderr', async () => {
    const { code, stdout, stderr } = await runPrint(['-p', 'hi', ...inWorkspace], { scenario: 'error' });
    assert.equal(code, 1);
    assert.equal(stdout, 'Partial answer\n');
    assert.match(
      stderr,
      /santra: error: The provider rejected the API key; set ANTHROPIC_API_KEY and retry\. \(anthropic 401 auth\)/,
    );
  });

  test('status interrupted: exit 1, with a note', async () => {
    const { code, stderr } = await runPrint(['-p', 'hi', ...inWorkspace], { scenario: 'interrupted' });
    assert.equal(code, 1);
    assert.match(stderr, /the run was interrupted/);
  });

  test('a refused prompt or initialize: exit 1, the server message on stderr', async () => {
    const prompt = await runPrint(['-p', 'hi', ...inWorkspace], { scenario: 'prompt-error' });
    assert.equal(prompt.code, 1);
    assert.match(
      prompt.stderr,
      /santra-server refused the prompt: prompt is not implemented by this server yet/,
    );
    const init = await runPrint(['-p', 'hi', ...inWorkspace], { scenario: 'init-fail' });
    assert.equal(init.code, 1);
    assert.match(init.stderr, /santra-server refused initialize: Unsupported protocol version/);
    assert.ok(!init.run.methods().includes('prompt'));
  });

  test('the server dying mid-run: exit 1, with the tail of its stderr', async () => {
    const { code, stdout, stderr } = await runPrint(['-p', 'hi', ...inWorkspace], { scenario: 'die' });
    assert.equal(code, 1);
    assert.equal(stdout, 'before the crash\n');
    assert.match(stderr, /santra-server \(.*fake-server\.ts\) exited unexpectedly with code 7/);
    assert.match(stderr, /last 50 stderr lines:/);
    assert.match(stderr, /fake-server: log line 60\n.*fake-server: fatal: out of cheese/);
    assert.doesNotMatch(stderr, /log line 11\n/, 'only the tail is kept');
  });

  test('usage errors exit 2: an empty prompt, an empty stdin, a missing --cwd', async () => {
    const empty = await runPrint(['-p', '', ...inWorkspace]);
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /the prompt is empty/);
    const emptyStdin = await runPrint(['-p', ...inWorkspace], { input: '\n  \n' });
    assert.equal(emptyStdin.code, 2);
    assert.match(emptyStdin.stderr, /the prompt is empty/);
    const missing = join(workspace, 'no-such-dir');
    const cwd = await runPrint(['-p', 'hi', '--cwd', missing]);
    assert.equal(cwd.code, 2);
    assert.ok(cwd.stderr.includes(`--cwd ${missing}: no such directory`), cwd.stderr);
    for (const run of [empty, emptyStdin, cwd]) assert.deepEqual(run.run.log(), [], 'no server was started');
  });

  test('a SANTRA_SERVER that does not exist: exit 1, saying so', async () => {
    const { code, stderr } = await runPrint(['-p', 'hi', ...inWorkspace], {
      env: { SANTRA_SERVER: join(workspace, 'missing-server.js') },
    });
    assert.equal(code, 1);
    assert.match(stderr, /SANTRA_SERVER=.*missing-server\.js: no such file/);
  });
});

describe('santra -p approvals without a terminal', () => {
  test('rejected, with a note naming what and --approve-all', async () => {
    const { code, stdout, stderr, run } = await runPrint(['-p', 'edit', ...inWorkspace], {
      scenario: 'approve',
    });
    assert.equal(code, 0);
    assert.equal(stdout, 'file_change: reject\ncommand: reject\n');
    assert.match(stderr, /rejected modify src\/greet\.ts \(\+1 −1\): stdin is not a terminal.*--approve-all/);
    assert.match(stderr, /rejected command `npm test` in \/tmp/);
    assert.doesNotMatch(stderr, /WARNING/);
    assert.deepEqual(
      run.log().filter((entry) => 'approveAnswer' in entry),
      [{ approveAnswer: { decision: 'reject' } }, { approveAnswer: { decision: 'reject' } }],
    );
  });

  test('--approve-all: allowed, after a loud warning', async () => {
    const { code, stdout, stderr, run } = await runPrint(['-p', 'edit', '--approve-all', ...inWorkspace], {
      scenario: 'approve',
    });
    assert.equal(code, 0);
    assert.equal(stdout, 'file_change: allow\ncommand: allow\n');
    // One flag, one meaning: the server is started with its own auto-approve.
    const init = run.log().find((entry) => entry.method === 'initialize');
    assert.ok((init?.argv as string[]).includes('--auto-approve'), JSON.stringify(init?.argv));
    assert.match(stderr, /WARNING.*EVERY FILE CHANGE AND EVERY COMMAND.*WITHOUT ASKING/);
    assert.equal(stderr.match(/WARNING/g)?.length, 1);
  });

  test('ask is answered with an error explaining there is no terminal', async () => {
    const { code, stdout } = await runPrint(['-p', 'hi', ...inWorkspace], { scenario: 'ask' });
    assert.equal(code, 0);
    assert.match(stdout, /^ask failed: santra -p has no terminal to ask on .*Which colour\?\n$/);
  });
});

describe('santra -p and Ctrl-C', () => {
  test('SIGINT cancels the prompt with $/cancelRequest, then shuts the server down; exit 130', async () => {
    const run = new PrintRun(['-p', 'work', ...inWorkspace], { scenario: 'slow' });
    await run.waitFor('stdout', /working\.\.\./);
    run.child.kill('SIGINT');
    const { code, stdout, stderr } = await run.finished;
    assert.equal(code, 130, stderr);
    assert.equal(stdout, 'working...\ncancel received\n');
    assert.deepEqual(run.methods(), [
      'initialize',
      'initialized',
      'prompt',
      '$/cancelRequest',
      'shutdown',
      'exit',
    ]);
  });

  test('a server that ignores the cancel is stopped after the grace period; exit 130', async () => {
    const run = new PrintRun(['-p', 'work', ...inWorkspace], { scenario: 'stubborn', watchServer: true });
    await run.waitFor('stdout', /working\.\.\./);
    assert.ok(await run.serverRuns(), 'the server runs while it works (the control of serverGone)');
    run.child.kill('SIGINT');
    const { code, stderr } = await run.finished;
    assert.equal(code, 130);
    assert.match(stderr, /did not answer the cancellation within 2 s/);
    await run.serverGone(); // the server was killed
    assert.ok(run.methods().includes('$/cancelRequest'));
  });

  test('a second SIGINT quits at once and kills the server', async () => {
    const run = new PrintRun(['-p', 'work', ...inWorkspace], { scenario: 'stubborn', watchServer: true });
    await run.waitFor('stdout', /working\.\.\./);
    run.child.kill('SIGINT');
    await run.waitFor('stderr', /cancelling the run/);
    run.child.kill('SIGINT');
    const { code, stderr } = await run.finished;
    assert.equal(code, 130);
    assert.match(stderr, /santra: stopped/);
    assert.doesNotMatch(stderr, /did not answer the cancellation/);
    await run.serverGone(); // the server was killed
  });
});
