/**
 * "Implementing a Santra client" (docs/implementing-a-client.md) walks through a client in
 * standard-library Python, docs/examples/santra_client.py. This test keeps the two honest: the
 * page's listing is the file, part by part, and the file works against the built santra-server
 * with a fake model provider on 127.0.0.1 — a greeting, a question, a write that needs approval
 * (answered on the client's stdin, as a user would type it), feedback, Ctrl+C, and an error.
 *
 * python3 is a requirement of this test, as Neovim is of nvim-plugin.test.ts: without it the test
 * fails, it does not skip.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  type FakeTurn,
  type RecordedRequest,
  startFakeProvider,
} from '../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../temp-dirs.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SERVER = join(root, 'dist/santra-server.js');
const CLIENT = join(root, 'docs/examples/santra_client.py');
const GUIDE = join(root, 'docs/implementing-a-client.md');
const cleanups: (() => Promise<void>)[] = [];

after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const systemText = (request: RecordedRequest) =>
  ((request.body.system ?? []) as Array<{ text: string }>).map((block) => block.text).join('\n');
/** A turn served only to the agent with this role, told apart by its system prompt. */
const as = (role: string, turn: FakeTurn): FakeTurn => ({
  ...turn,
  match: (request) => systemText(request).includes(`You are the ${role}`),
});
const call = (id: string, name: string, args: unknown) => ({ id, name, args });

/** The orchestrator greets, asks which file, and has an executor write it. */
const GREET_AND_WRITE: FakeTurn[] = [
  as('orchestrator', {
    text: 'Hello! Let me ask one thing first.',
    toolCalls: [
      call('o1', 'ask_user', {
        prompt: 'Which file should hold the greeting?',
        options: [
          { label: 'greeting.txt', value: 'greeting.txt' },
          { label: 'hello.txt', value: 'hello.txt' },
        ],
      }),
    ],
  }),
  as('orchestrator', {
    toolCalls: [call('o2', 'spawn_agent', { agentId: 'executor', task: 'Write greeting.txt' })],
  }),
  as('executor', {
    toolCalls: [call('e1', 'write_file', { path: 'greeting.txt', content: 'hello, world\n' })],
  }),
  as('executor', { toolCalls: [call('e2', 'task_completed', { result: 'greeting.txt written' })] }),
  as('orchestrator', { toolCalls: [call('o3', 'task_completed', { result: 'Wrote greeting.txt.' })] }),
];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  workspace: string;
  requests: RecordedRequest[];
}

/**
 * Runs the Python client in a fresh workspace with `input` on its stdin. `onStdout` sees the
 * output so far each time more arrives, and may signal the client.
 */
async function runClient(
  turns: FakeTurn[],
  input: string,
  options: { prompt?: string; keys?: boolean; onStdout?: (text: string, pid: number) => void } = {},
): Promise<Run> {
  const fake = await startFakeProvider('anthropic', turns);
  const home = tempDir('santra-client-guide-home-');
  const workspace = tempDir('santra-client-guide-ws-');
  cleanups.push(async () => {
    await fake.close();
    await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
  });
  const keys = options.keys === false ? {} : { ANTHROPIC_API_KEY: 'sk-ant-fake-key' };
  const child = spawn(
    'python3',
    [CLIENT, options.prompt ?? 'Greet me and write the greeting to a file', process.execPath, SERVER],
    {
      cwd: workspace,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH,
        // Memory's extraction after runs is a model call of its own: off, so the scripted turns are the runs'.
        SANTRA_MEMORY_AUTO_EXTRACT: '0',
        HOME: home,
        TMPDIR: home,
        SANTRA_HOME: join(home, 'santra'),
        ANTHROPIC_BASE_URL: fake.url,
        ...keys,
      },
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    options.onStdout?.(stdout, child.pid as number);
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', (error) =>
      reject(new Error(`cannot run python3 (the client guide needs Python 3.8+): ${error.message}`)),
    );
    child.on('close', resolve);
  });
  return { code, stdout, stderr, workspace, requests: fake.requests };
}

/** What the model was sent last in request `index`, as text. */
const lastMessage = (run: Run, index: number) =>
  JSON.stringify((run.requests[index]?.body.messages as unknown[] | undefined)?.at(-1));

/** The ```python blocks of the guide, in order. */
function pythonBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```python\n([\s\S]*?)^```$/gm)].map((match) => match[1] as string);
}

describe('Implementing a Santra client (docs/examples/santra_client.py)', () => {
  test('the listing in the guide is the file, part by part, in order, with nothing left out', () => {
    const file = readFileSync(CLIENT, 'utf8');
    const blocks = pythonBlocks(readFileSync(GUIDE, 'utf8'));
    assert.ok(blocks.length > 1, 'the guide shows no ```python parts');
    let at = 0;
    for (const [index, block] of blocks.entries()) {
      const found = file.indexOf(block, at);
      assert.ok(found >= 0, `part ${index + 1} of the guide is not the next part of the file:\n${block}`);
      assert.equal(file.slice(at, found).trim(), '', `the guide leaves out:\n${file.slice(at, found)}`);
      at = found + block.length;
    }
    assert.equal(file.slice(at).trim(), '', `the guide leaves out the end:\n${file.slice(at)}`);
  });

  test('every requirement id the guide cites is defined in the spec', () => {
    const spec = readFileSync(join(root, 'protocol-spec/README.md'), 'utf8');
    const defined = new Set([...spec.matchAll(/\*\*\[(SANTRA-[A-Z]+-\d{3})\]\*\*/g)].map((m) => m[1]));
    const cited = [...new Set(readFileSync(GUIDE, 'utf8').match(/SANTRA-[A-Z]+-\d{3}/g) ?? [])];
    assert.ok(cited.length > 0, 'the guide cites no requirement');
    assert.deepEqual(
      cited.filter((id) => !defined.has(id)),
      [],
      'ids the spec does not define',
    );
  });

  test('allow: the greeting streams, the question is answered, the diff shown, "y" writes the file', async () => {
    const run = await runClient(GREET_AND_WRITE, '1\ny\n');
    assert.equal(run.code, 0, `the client exited with ${run.code}:\n${run.stdout}\n${run.stderr}`);
    assert.equal(readFileSync(join(run.workspace, 'greeting.txt'), 'utf8'), 'hello, world\n');
    const out = run.stdout;
    assert.match(out, /^\.\.\. Route: agent_task/m);
    assert.match(out, /^Hello! Let me ask one thing first\.$/m);
    // The question with its options; "1" chose the first option's value, which the model read.
    assert.match(out, /^Which file should hold the greeting\?\n {2}1\) greeting\.txt\n {2}2\) hello\.txt$/m);
    assert.match(lastMessage(run, 1), /The user answered: greeting\.txt/);
    // The executor's rows, indented under its section; the diff before the choice.
    assert.match(out, /^\* spawn_agent executor$/m);
    assert.match(out, /^> Executor: Write greeting\.txt$/m);
    assert.match(out, /^ {2}\* write_file greeting\.txt$/m);
    assert.match(out, /^Santra wants to create greeting\.txt:\n--- \/dev\/null\n\+\+\+ b\/greeting\.txt\n/m);
    assert.match(
      out,
      /^\+hello, world\n\[y\] allow {2}\[a\] allow all {2}\[r\] reject {2}\[f\] reject with feedback: y$/m,
    );
    assert.match(out, /^ {4}ok: created greeting\.txt/m);
    assert.match(out, /^ {2}\[executor-1 completed\]$/m);
    // The answer came through task_completed, not as text: the client prints it.
    assert.match(out, /^Wrote greeting\.txt\.\n\[completed\] \$\d+\.\d{4}$/m);
  });

  test('feedback: "f" and a reason reject the write, and the agent reads the reason', async () => {
    const run = await runClient(GREET_AND_WRITE, '2\nf\nname it hello.md instead\n');
    assert.equal(run.code, 0, `the client exited with ${run.code}:\n${run.stdout}\n${run.stderr}`);
    assert.equal(existsSync(join(run.workspace, 'greeting.txt')), false);
    assert.match(run.stdout, /^Feedback for the agent: name it hello\.md instead$/m);
    assert.match(run.stdout, /^ {4}rejected: /m);
    assert.match(lastMessage(run, 3), /name it hello\.md instead/);
    assert.match(run.stdout, /^\[completed\]/m);
  });

  test('end of input at a question and an approval: the question is declined, the write rejected', async () => {
    const run = await runClient(GREET_AND_WRITE, '');
    assert.equal(run.code, 0, `the client exited with ${run.code}:\n${run.stdout}\n${run.stderr}`);
    assert.equal(existsSync(join(run.workspace, 'greeting.txt')), false);
    // The error answer to ask (RequestFailed) ends the ask_user call as an error; the run goes on.
    assert.match(run.stdout, /^ {2}error: /m);
    assert.match(run.stdout, /^ {4}rejected: /m);
  });

  test('Ctrl+C cancels the run with $/cancelRequest: it ends cancelled and the client exits 1', async () => {
    let interrupted = false;
    const run = await runClient(
      [{ text: ['working on it '], fault: { kind: 'stall', afterEvents: 4 } }],
      '',
      {
        prompt: 'hello',
        onStdout: (text, pid) => {
          if (interrupted || !text.includes('working on it')) return;
          interrupted = true;
          process.kill(pid, 'SIGINT');
        },
      },
    );
    assert.equal(interrupted, true, `the answer never streamed:\n${run.stdout}\n${run.stderr}`);
    assert.equal(run.code, 1, `the client exited with ${run.code}:\n${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /^working on it \n\[cancelled\] \$\d+\.\d{4}$/m);
  });

  test('no model configured: the error phase is shown, the run ends in error, the client exits 1', async () => {
    const run = await runClient([], '', { prompt: 'hello', keys: false });
    assert.equal(run.code, 1, `the client exited with ${run.code}:\n${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /^! No model is configured\. Set ANTHROPIC_API_KEY/m);
    assert.match(run.stdout, /^\[error\] \$0\.0000$/m);
  });
});
