/**
 * `santra-server acp` end to end, driven by the official ACP SDK's client side as Zed drives an
 * agent: the built server is spawned, speaks ACP on its stdio, and runs Santra's swarm against a
 * fake Anthropic provider on 127.0.0.1 that scripts a write_file through the custom agent chosen
 * as the session's mode. Real process, real files, real SDKs. A client that lends its files and
 * terminals holds buffers over the disk and really runs the commands it is given.
 *
 * It lives in scripts/test: it runs the built server with the fake providers of the conformance
 * suite (scripts/dependency-rules.ts).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';
import {
  type FakeProvider,
  type FakeTurn,
  startFakeProvider,
} from '../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../temp-dirs.ts';
import { santraTestEnv, writeTesterAgent } from './helpers/editor-env.ts';

const SERVER = fileURLToPath(new URL('../../dist/santra-server.js', import.meta.url));
const cleanups: (() => Promise<void>)[] = [];

after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

type RecordedRequest = FakeProvider['requests'][number];
const systemText = (request: RecordedRequest) =>
  ((request.body.system ?? []) as Array<{ text: string }>).map((block) => block.text).join('\n');
/** A turn served only to the agent of this role (its system prompt says "You are the <role>"). */
const call = (role: string, id: string, name: string, args: unknown): FakeTurn => ({
  match: (request) => systemText(request).includes(`You are the ${role}`),
  toolCalls: [{ id, name, args }],
});

const write = (path: string, content: string): FakeTurn => ({
  toolCalls: [{ id: 't1', name: 'write_file', args: { path, content } }],
});

type PermissionAnswer = (
  request: acp.RequestPermissionRequest,
  signal: AbortSignal,
) => acp.RequestPermissionResponse | Promise<acp.RequestPermissionResponse>;

interface Editor {
  agent: acp.ClientContext;
  updates: acp.SessionNotification[];
  permissions: acp.RequestPermissionRequest[];
  forms: acp.CreateElicitationRequest[];
  /** Resolves at the next session/update that `test` accepts. */
  nextUpdate(test: (update: acp.SessionUpdate) => boolean): Promise<acp.SessionUpdate>;
  /** Ends the connection as an editor does (closes the agent's stdin) and waits for the exit code. */
  close(): Promise<number | null>;
  stderr(): string;
}

interface Setup {
  home: string;
  workspace: string;
  fake: FakeProvider;
}

const WRITER_TOOLS = ['write_file', 'ask_user', 'todo_write', 'task_completed'];

async function setup(turns: FakeTurn[], tools: readonly string[] = WRITER_TOOLS): Promise<Setup> {
  const fake = await startFakeProvider('anthropic', turns);
  const home = tempDir('santra-acp-home-');
  const workspace = tempDir('santra-acp-ws-');
  cleanups.push(async () => {
    await fake.close();
    await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
  });
  writeTesterAgent(workspace, tools, 'ACP');
  return { home, workspace, fake };
}

/** Spawns `santra-server acp` and connects the SDK's client to it, answering permissions with `answer`. */
interface ConnectOptions {
  /** Advertise elicitation forms and answer each with this (the form's message → the answer). */
  forms?: (request: acp.CreateElicitationRequest) => acp.CreateElicitationResponse;
  /** Advertise the file system and terminals, served by this; without it, a request for them fails the test. */
  lend?: EditorLending;
}

interface Terminal {
  request: acp.CreateTerminalRequest;
  child: ChildProcess;
  output: string;
  exited: Promise<acp.TerminalExitStatus>;
}

/**
 * An editor's files and terminals, as Zed lends them: reads answer from its buffers (unsaved text)
 * or else the disk; a write goes into the buffer only — not saved, so the test sees Santra make
 * sure of the disk itself; terminals really run their command, in a process group of its own
 * that kill and release end. Every request is recorded.
 */
class EditorLending {
  readonly buffers = new Map<string, string>();
  /** Reads fail, as when the editor cannot open a file. */
  failReads = false;
  readonly reads: acp.ReadTextFileRequest[] = [];
  readonly writes: acp.WriteTextFileRequest[] = [];
  readonly terminals = new Map<string, Terminal>();
  /** The terminal requests other than create, in order: "kill term-1", "release term-1", … */
  readonly calls: string[] = [];
  /** The environment the editor itself runs commands with, before a terminal's `env`. */
  readonly #env: NodeJS.ProcessEnv;

  constructor(env: NodeJS.ProcessEnv) {
    this.#env = env;
  }

  read(request: acp.ReadTextFileRequest): acp.ReadTextFileResponse {
    this.reads.push(request);
    if (this.failReads) throw acp.RequestError.internalError(undefined, `cannot open ${request.path}`);
    return { content: this.buffers.get(request.path) ?? readFileSync(request.path, 'utf8') };
  }

  write(request: acp.WriteTextFileRequest): acp.WriteTextFileResponse {
    this.writes.push(request);
    this.buffers.set(request.path, request.content);
    return {};
  }

  create(request: acp.CreateTerminalRequest): acp.CreateTerminalResponse {
    const terminalId = `term-${this.terminals.size + 1}`;
    const env = { ...this.#env };
    for (const variable of request.env ?? []) env[variable.name] = variable.value;
    const child = spawn(request.command, request.args ?? [], {
      cwd: request.cwd ?? undefined,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const terminal: Terminal = {
      request,
      child,
      output: '',
      exited: once(child, 'exit').then(([exitCode, signal]) => ({
        exitCode: exitCode as number | null,
        signal: signal as string | null,
      })),
    };
    child.stdout?.on('data', (chunk: Buffer) => (terminal.output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (terminal.output += chunk.toString()));
    this.terminals.set(terminalId, terminal);
    cleanups.push(async () => this.#kill(terminal));
    return { terminalId };
  }

  async output(request: acp.TerminalOutputRequest): Promise<acp.TerminalOutputResponse> {
    const terminal = this.#terminal(request.terminalId);
    const ended = terminal.child.exitCode !== null || terminal.child.signalCode !== null;
    return { output: terminal.output, truncated: false, exitStatus: ended ? await terminal.exited : null };
  }

  waitForExit(request: acp.WaitForTerminalExitRequest): Promise<acp.WaitForTerminalExitResponse> {
    return this.#terminal(request.terminalId).exited;
  }

  kill(request: acp.KillTerminalRequest): acp.KillTerminalResponse {
    this.calls.push(`kill ${request.terminalId}`);
    this.#kill(this.#terminal(request.terminalId));
    return {};
  }

  release(request: acp.ReleaseTerminalRequest): acp.ReleaseTerminalResponse {
    this.calls.push(`release ${request.terminalId}`);
    this.#kill(this.#terminal(request.terminalId));
    return {};
  }

  #terminal(terminalId: string): Terminal {
    const terminal = this.terminals.get(terminalId);
    if (terminal === undefined) throw acp.RequestError.resourceNotFound(terminalId);
    return terminal;
  }

  #kill(terminal: Terminal): void {
    if (terminal.child.exitCode !== null || terminal.child.signalCode !== null) return;
    if (terminal.child.pid !== undefined) process.kill(-terminal.child.pid, 'SIGKILL');
  }
}

async function connect(
  { home, fake }: Setup,
  answer: PermissionAnswer,
  options: ConnectOptions = {},
): Promise<Editor> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [SERVER, 'acp'], {
    cwd: home,
    env: santraTestEnv(home, fake.url),
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // A second reader of stdout, to check that it carries ACP messages and nothing else.
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = once(child, 'exit') as Promise<[number | null]>;
  const updates: acp.SessionNotification[] = [];
  const permissions: acp.RequestPermissionRequest[] = [];
  const forms: acp.CreateElicitationRequest[] = [];
  const lend = options.lend;
  const unlent: string[] = [];
  const notLent = (method: string) => () => {
    unlent.push(method);
    throw new Error(`${method}: the client did not offer it`);
  };
  const waiters: { test: (update: acp.SessionUpdate) => boolean; resolve: (u: acp.SessionUpdate) => void }[] =
    [];
  const app = acp
    .client({ name: 'acp-test' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
      for (const waiter of waiters.splice(0)) {
        if (waiter.test(params.update)) waiter.resolve(params.update);
        else waiters.push(waiter);
      }
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params, signal }) => {
      permissions.push(params);
      return answer(params, signal);
    })
    .onRequest(acp.methods.client.elicitation.create, ({ params }) => {
      forms.push(params);
      if (options.forms === undefined) throw new Error('no form was expected');
      return options.forms(params);
    })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) =>
      lend === undefined ? notLent('fs/read_text_file')() : lend.read(params),
    )
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) =>
      lend === undefined ? notLent('fs/write_text_file')() : lend.write(params),
    )
    .onRequest(acp.methods.client.terminal.create, ({ params }) =>
      lend === undefined ? notLent('terminal/create')() : lend.create(params),
    )
    .onRequest(acp.methods.client.terminal.output, ({ params }) =>
      lend === undefined ? notLent('terminal/output')() : lend.output(params),
    )
    .onRequest(acp.methods.client.terminal.waitForExit, ({ params }) =>
      lend === undefined ? notLent('terminal/wait_for_exit')() : lend.waitForExit(params),
    )
    .onRequest(acp.methods.client.terminal.kill, ({ params }) =>
      lend === undefined ? notLent('terminal/kill')() : lend.kill(params),
    )
    .onRequest(acp.methods.client.terminal.release, ({ params }) =>
      lend === undefined ? notLent('terminal/release')() : lend.release(params),
    );
  const connection = app.connect(
    acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>),
  );
  const editor: Editor = {
    agent: connection.agent,
    updates,
    permissions,
    nextUpdate: (test) => new Promise((resolve) => waiters.push({ test, resolve })),
    forms,
    close: async () => {
      child.stdin.end();
      const [code] = await exited;
      connection.close();
      assert.deepEqual(unlent, [], 'Santra asks only for what the client offers');
      for (const line of stdout.split('\n').filter((text) => text !== '')) {
        const message = JSON.parse(line) as { jsonrpc?: string };
        assert.equal(message.jsonrpc, '2.0', `stdout carries ACP only, got: ${line}`);
      }
      return code;
    },
    stderr: () => stderr,
  };
  cleanups.push(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const init = await editor.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {
      ...(lend === undefined ? {} : { fs: { readTextFile: true, writeTextFile: true }, terminal: true }),
      ...(options.forms === undefined ? {} : { elicitation: { form: {} } }),
    },
    clientInfo: { name: 'acp-test', version: '1.0.0' },
  });
  assert.equal(init.protocolVersion, acp.PROTOCOL_VERSION);
  return editor;
}

const choose =
  (optionId: string): PermissionAnswer =>
  () => ({ outcome: { outcome: 'selected', optionId } });

const refuse: PermissionAnswer = () => {
  throw new Error('no permission request was expected');
};

/** A new session on the workspace that runs every prompt with the tester agent. */
async function testerSession(
  editor: Editor,
  workspace: string,
  mcpServers: acp.McpServer[] = [],
): Promise<string> {
  const session = await editor.agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers });
  assert.ok(session.modes?.availableModes.some((mode) => mode.id === 'tester'));
  await editor.agent.request(acp.methods.agent.session.setMode, {
    sessionId: session.sessionId,
    modeId: 'tester',
  });
  return session.sessionId;
}

const updatesOf = <K extends acp.SessionUpdate['sessionUpdate']>(editor: Editor, kind: K) =>
  editor.updates
    .map((notification) => notification.update)
    .filter(
      (update): update is Extract<acp.SessionUpdate, { sessionUpdate: K }> => update.sessionUpdate === kind,
    );

const messageText = (editor: Editor) =>
  updatesOf(editor, 'agent_message_chunk')
    .map((update) => (update.content.type === 'text' ? update.content.text : ''))
    .join('');

async function rejection(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    const { code, message } = error as { code: number; message: string };
    return { code, message };
  }
  assert.fail('the request was expected to fail');
}

describe('santra acp', () => {
  test('a turn with an approval: chunks stream, the edit shows its diff, "allow" writes the file', async () => {
    const context = await setup([write('greeting.txt', 'hello from acp\n'), { text: 'Wrote greeting.txt.' }]);
    const editor = await connect(context, choose('allow'));
    const sessionId = await testerSession(editor, context.workspace);
    const response = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'write the greeting' }],
    });
    assert.equal(response.stopReason, 'end_turn');
    assert.equal(readFileSync(join(context.workspace, 'greeting.txt'), 'utf8'), 'hello from acp\n');
    assert.match(messageText(editor), /Wrote greeting\.txt\./);

    const [call] = updatesOf(editor, 'tool_call');
    assert.equal(call?.kind, 'edit');
    assert.match(call?.title ?? '', /greeting\.txt/);
    assert.deepEqual(call?.locations, [{ path: join(context.workspace, 'greeting.txt') }]);

    const [permission] = editor.permissions;
    assert.equal(permission?.sessionId, sessionId);
    assert.equal(permission?.toolCall.toolCallId, call?.toolCallId);
    assert.deepEqual(
      permission?.options.map((option) => option.kind),
      ['allow_once', 'allow_always', 'reject_once'],
    );
    assert.deepEqual(permission?.toolCall.content, [
      { type: 'diff', path: join(context.workspace, 'greeting.txt'), newText: 'hello from acp\n' },
    ]);

    const done = updatesOf(editor, 'tool_call_update').filter(
      (update) => update.toolCallId === call?.toolCallId,
    );
    assert.equal(done.at(-1)?.status, 'completed');
    assert.equal(done.at(-1)?.content?.[0]?.type, 'diff', 'the completed edit keeps its diff');
    assert.equal(await editor.close(), 0);
  });

  test('"reject": nothing is written, the tool call fails and the model is told', async () => {
    const context = await setup([write('greeting.txt', 'never\n'), { text: 'Understood.' }]);
    const editor = await connect(context, choose('reject'));
    const sessionId = await testerSession(editor, context.workspace, [
      { name: 'files', command: '/bin/true', args: [], env: [] },
    ]);
    const response = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'write the greeting' }],
    });
    assert.equal(response.stopReason, 'end_turn');
    assert.equal(existsSync(join(context.workspace, 'greeting.txt')), false);
    const [call] = updatesOf(editor, 'tool_call');
    const last = updatesOf(editor, 'tool_call_update').filter(
      (update) => update.toolCallId === call?.toolCallId,
    );
    assert.equal(last.at(-1)?.status, 'failed');
    assert.match(JSON.stringify(context.fake.requests[1]?.body.messages.at(-1)), /reject/i);
    assert.match(messageText(editor), /does not connect to the MCP servers the editor passed \(files\)/);
    assert.equal(await editor.close(), 0);
  });

  test('session/cancel mid-stream ends the turn with stopReason cancelled; closing stdin mid-run exits 0', async () => {
    const context = await setup([{ text: ['working '], fault: { kind: 'stall', afterEvents: 4 } }]);
    const editor = await connect(context, refuse);
    const sessionId = await testerSession(editor, context.workspace);
    const streaming = editor.nextUpdate((update) => update.sessionUpdate === 'agent_message_chunk');
    const turn = editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'work for a long time' }],
    });
    await streaming;
    await editor.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    assert.equal((await turn).stopReason, 'cancelled');

    // The editor going away mid-run (its end of stdin) ends the run and the process, cleanly.
    context.fake.push({ text: ['again '], fault: { kind: 'stall', afterEvents: 4 } });
    const streamingAgain = editor.nextUpdate((update) => update.sessionUpdate === 'agent_message_chunk');
    const abandoned = editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'and again' }],
    });
    abandoned.catch(() => {}); // Unanswered: the connection closes under it.
    await streamingAgain;
    assert.equal(await editor.close(), 0);
    assert.doesNotMatch(editor.stderr(), /uncaught|unhandled/i);
  });

  test('session/cancel while a permission prompt is open: the prompt is withdrawn, nothing is written', async () => {
    const context = await setup([write('greeting.txt', 'never\n')]);
    let opened: () => void = () => {};
    const asked = new Promise<void>((resolve) => (opened = resolve));
    const editor = await connect(context, async (_request, signal) => {
      opened();
      // As an editor does: the open prompt goes away when the turn is cancelled.
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
      return { outcome: { outcome: 'cancelled' } };
    });
    const sessionId = await testerSession(editor, context.workspace);
    const turn = editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'write the greeting' }],
    });
    await asked;
    await editor.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    assert.equal((await turn).stopReason, 'cancelled');
    assert.equal(existsSync(join(context.workspace, 'greeting.txt')), false);
    assert.equal(await editor.close(), 0);
  });

  test('a provider failure is told in the answer and the turn ends; the session stays usable', async () => {
    const context = await setup([
      { fault: { kind: 'http_error', status: 401, message: 'invalid x-api-key' } },
      { text: 'Back again.' },
    ]);
    const editor = await connect(context, refuse);
    const sessionId = await testerSession(editor, context.workspace);
    const failed = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'hello' }],
    });
    assert.equal(failed.stopReason, 'end_turn');
    assert.match(messageText(editor), /\*\*Error:\*\*/);
    const again = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'hello again' }],
    });
    assert.equal(again.stopReason, 'end_turn');
    assert.match(messageText(editor), /Back again\./);
    assert.equal(await editor.close(), 0);
  });

  test('session/list and session/load: a new process replays the saved session, which goes on', async () => {
    const context = await setup([
      write('greeting.txt', 'hello again\n'),
      { text: 'Wrote greeting.txt.' },
      { text: 'It says hello again.' },
    ]);
    const first = await connect(context, choose('allow'));
    const sessionId = await testerSession(first, context.workspace);
    await first.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'write the greeting' }],
    });
    assert.equal(await first.close(), 0);

    const second = await connect(context, refuse);
    const listed = await second.agent.request(acp.methods.agent.session.list, { cwd: context.workspace });
    assert.equal(listed.sessions.length, 1);
    const saved = listed.sessions[0];
    assert.equal(saved?.sessionId, sessionId, 'the thread keeps its id across a restart');
    assert.equal(saved?.cwd, context.workspace);
    assert.equal(saved?.title, 'write the greeting');

    const loaded = await second.agent.request(acp.methods.agent.session.load, {
      sessionId: saved?.sessionId ?? '',
      cwd: context.workspace,
      mcpServers: [],
    });
    assert.equal(loaded.modes?.currentModeId, 'auto');
    const user = updatesOf(second, 'user_message_chunk').map((update) =>
      update.content.type === 'text' ? update.content.text : '',
    );
    assert.deepEqual(user, ['write the greeting']);
    assert.match(messageText(second), /Wrote greeting\.txt\./);
    const [call] = updatesOf(second, 'tool_call');
    assert.equal(call?.kind, 'edit');
    const replayedDiff = updatesOf(second, 'tool_call_update').flatMap((update) => update.content ?? []);
    assert.ok(
      replayedDiff.some((content) => content.type === 'diff' && content.newText === 'hello again\n'),
      'the approval diff is replayed',
    );

    const response = await second.agent.request(acp.methods.agent.session.prompt, {
      sessionId: saved?.sessionId ?? '',
      prompt: [{ type: 'text', text: 'what does it say?' }],
    });
    assert.equal(response.stopReason, 'end_turn');
    const history = JSON.stringify(context.fake.requests.at(-1)?.body.messages);
    assert.match(history, /write the greeting/, 'the loaded session continues with its history');
    assert.equal(await second.close(), 0);
  });

  test('the swarm: a sub-agent is a think row with its own prefixed tool calls; "allow all" is asked once', async () => {
    const context = await setup([
      call('orchestrator', 'o1', 'spawn_agent', { agentId: 'executor', task: 'Create notes.txt' }),
      call('executor', 'e1', 'write_file', { path: 'notes.txt', content: 'notes\n' }),
      call('executor', 'e2', 'write_file', { path: 'more.txt', content: 'more\n' }),
      call('executor', 'e3', 'task_completed', { result: 'notes.txt created' }),
      call('orchestrator', 'o2', 'task_completed', { result: 'Created notes.txt.' }),
    ]);
    const editor = await connect(context, choose('allow_all'));
    const { sessionId } = await editor.agent.request(acp.methods.agent.session.new, {
      cwd: context.workspace,
      mcpServers: [],
    });
    const response = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'Create notes.txt in the project' }],
    });
    assert.equal(response.stopReason, 'end_turn');
    assert.equal(readFileSync(join(context.workspace, 'more.txt'), 'utf8'), 'more\n');
    assert.equal(editor.permissions.length, 1, 'after "allow all" Santra allows the second write itself');
    const calls = updatesOf(editor, 'tool_call');
    const section = calls.find((update) => update.kind === 'think');
    assert.match(section?.title ?? '', /^Executor: Create notes\.txt/);
    assert.ok(calls.some((update) => update.title === 'executor-1: write_file notes.txt'));
    assert.ok(!calls.some((update) => /task_completed/.test(update.title)), 'task_completed is not a row');
    const sectionEnd = updatesOf(editor, 'tool_call_update').filter(
      (u) => u.toolCallId === section?.toolCallId,
    );
    assert.equal(sectionEnd.at(-1)?.status, 'completed');
    assert.match(messageText(editor), /Created notes\.txt\./);
    assert.equal(await editor.close(), 0);
  });

  test('a question with options is a permission prompt whose options are the answers; the plan is shown', async () => {
    const context = await setup([
      {
        toolCalls: [
          {
            id: 'p1',
            name: 'todo_write',
            args: {
              todos: [
                { content: 'Ask about style', status: 'in_progress' },
                { content: 'Write', status: 'pending' },
              ],
            },
          },
        ],
      },
      {
        toolCalls: [
          {
            id: 'q1',
            name: 'ask_user',
            args: {
              prompt: 'Tabs or spaces?',
              options: [
                { label: 'Tabs', value: 'tabs' },
                { label: 'Spaces', value: 'spaces' },
              ],
            },
          },
        ],
      },
      { text: 'Spaces it is.' },
    ]);
    const editor = await connect(context, (request) => {
      const spaces = request.options.find((option) => option.name === 'Spaces');
      return { outcome: { outcome: 'selected', optionId: spaces?.optionId ?? 'none' } };
    });
    const sessionId = await testerSession(editor, context.workspace);
    await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'ask me' }],
    });
    const [question] = editor.permissions;
    assert.equal(question?.toolCall.title, 'Tabs or spaces?');
    assert.deepEqual(
      question?.options.map((option) => option.name),
      ['Tabs', 'Spaces', 'Skip (let the agent decide)'],
    );
    assert.match(JSON.stringify(context.fake.requests[2]?.body.messages.at(-1)), /The user answered: spaces/);
    assert.deepEqual(updatesOf(editor, 'plan')[0]?.entries, [
      { content: 'Ask about style', status: 'in_progress', priority: 'medium' },
      { content: 'Write', status: 'pending', priority: 'medium' },
    ]);
    assert.equal(await editor.close(), 0);
  });

  test('with forms: a free-text question is a form, and "Reject with feedback…" asks why', async () => {
    const context = await setup([
      { toolCalls: [{ id: 'q1', name: 'ask_user', args: { prompt: 'Which file name?' } }] },
      write('a.txt', 'one\n'),
      { text: 'Understood, a.md it is.' },
    ]);
    const editor = await connect(context, choose('feedback'), {
      forms: (request) => ({
        action: 'accept',
        content: { answer: request.message === 'Which file name?' ? 'a.txt' : 'use a.md instead' },
      }),
    });
    const sessionId = await testerSession(editor, context.workspace);
    await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'write a file' }],
    });
    assert.deepEqual(
      editor.forms.map((form) => form.message),
      ['Which file name?', 'Why reject it? The agent reads this.'],
    );
    assert.ok(editor.permissions[0]?.options.some((option) => option.optionId === 'feedback'));
    assert.equal(existsSync(join(context.workspace, 'a.txt')), false);
    assert.match(JSON.stringify(context.fake.requests[1]?.body.messages.at(-1)), /The user answered: a\.txt/);
    assert.match(JSON.stringify(context.fake.requests[2]?.body.messages.at(-1)), /use a\.md instead/);
    assert.equal(await editor.close(), 0);
  });

  test('without forms a free-text question cannot be put: the user is told and the agent goes on', async () => {
    const context = await setup([
      { toolCalls: [{ id: 'q1', name: 'ask_user', args: { prompt: 'Which file name?' } }] },
      { text: 'I will pick one myself.' },
    ]);
    const editor = await connect(context, refuse);
    const sessionId = await testerSession(editor, context.workspace);
    const response = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'name a file' }],
    });
    assert.equal(response.stopReason, 'end_turn');
    assert.match(messageText(editor), /Santra asked: Which file name\?/);
    assert.match(messageText(editor), /I will pick one myself\./);
    const [row] = updatesOf(editor, 'tool_call');
    const end = updatesOf(editor, 'tool_call_update').filter(
      (update) => update.toolCallId === row?.toolCallId,
    );
    assert.equal(end.at(-1)?.status, 'failed');
    assert.equal(await editor.close(), 0);
  });

  test('bad input is answered with ACP errors that say what to fix', async () => {
    const context = await setup([]);
    const editor = await connect(context, refuse);
    const relative = await rejection(
      editor.agent.request(acp.methods.agent.session.new, { cwd: 'project', mcpServers: [] }),
    );
    assert.equal(relative.code, -32602);
    assert.match(relative.message, /cwd "project" is not an absolute path/);
    const missing = await rejection(
      editor.agent.request(acp.methods.agent.session.new, {
        cwd: join(context.home, 'nope'),
        mcpServers: [],
      }),
    );
    assert.match(missing.message, /is not an existing directory/);
    const unknown = await rejection(
      editor.agent.request(acp.methods.agent.session.prompt, {
        sessionId: 'acp_nope',
        prompt: [{ type: 'text', text: 'hi' }],
      }),
    );
    assert.equal(unknown.code, -32002);
    assert.match(unknown.message, /unknown session "acp_nope"/);
    const { sessionId } = await editor.agent.request(acp.methods.agent.session.new, {
      cwd: context.workspace,
      mcpServers: [],
    });
    const image = await rejection(
      editor.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }],
      }),
    );
    assert.equal(image.code, -32602);
    assert.match(image.message, /prompt\[0\] is an image/);
    const mode = await rejection(
      editor.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'wizard' }),
    );
    assert.match(mode.message, /unknown mode "wizard"/);
    const notLoaded = await rejection(
      editor.agent.request(acp.methods.agent.session.load, {
        sessionId: 'ses_missing',
        cwd: context.workspace,
        mcpServers: [],
      }),
    );
    assert.equal(notLoaded.code, -32002);
    const schema = await rejection(editor.agent.request('session/new', { mcpServers: [] }));
    assert.equal(schema.code, -32602);
    assert.equal(await editor.close(), 0);
  });
});

describe("santra acp with the editor's files and terminals", () => {
  const tools = ['read_file', 'str_replace', 'run_command', 'task_completed'];
  /** The editor's own environment holds a provider key, which a command must not see. */
  const editorEnv = (home: string) => ({
    PATH: process.env.PATH,
    HOME: home,
    ANTHROPIC_API_KEY: 'sk-editor-key',
  });
  const lastMessage = (context: Setup, index: number) =>
    JSON.stringify(context.fake.requests[index]?.body.messages.at(-1));

  test('read_file reads the buffer; an approved edit goes into it and to disk; a command runs in a terminal on its tool call', async () => {
    const command = 'echo "key=[$ANTHROPIC_API_KEY]"; cat app.js; exit 3';
    const context = await setup(
      [
        { toolCalls: [{ id: 'r1', name: 'read_file', args: { path: 'app.js' } }] },
        {
          toolCalls: [
            {
              id: 's1',
              name: 'str_replace',
              args: { path: 'app.js', oldStr: 'const b = 2;', newStr: 'const b = 3;' },
            },
          ],
        },
        { toolCalls: [{ id: 'c1', name: 'run_command', args: { command } }] },
        { text: 'Done.' },
      ],
      tools,
    );
    const file = join(context.workspace, 'app.js');
    writeFileSync(file, 'const a = 1;\n');
    const lend = new EditorLending(editorEnv(context.home));
    lend.buffers.set(file, 'const a = 1;\nconst b = 2;\n'); // unsaved in the editor
    const editor = await connect(context, choose('allow'), { lend });
    const sessionId = await testerSession(editor, context.workspace);
    const response = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'bump b, then run it' }],
    });
    assert.equal(response.stopReason, 'end_turn');

    assert.ok(lend.reads.some((read) => read.path === file && read.sessionId === sessionId));
    assert.match(lastMessage(context, 1), /const b = 2;/, 'the model reads the unsaved buffer');

    const [edit, run] = editor.permissions;
    assert.ok(
      edit?.toolCall.content?.some(
        (content) =>
          content.type === 'diff' &&
          content.path === file &&
          content.oldText?.includes('const b = 2;') === true &&
          content.newText.includes('const b = 3;'),
      ),
      `the diff is against the buffer: ${JSON.stringify(edit?.toolCall.content)}`,
    );
    assert.deepEqual(
      lend.writes.map(({ sessionId: id, path, content }) => ({ id, path, content })),
      [{ id: sessionId, path: file, content: 'const a = 1;\nconst b = 3;\n' }],
    );
    assert.equal(readFileSync(file, 'utf8'), 'const a = 1;\nconst b = 3;\n', 'Santra makes sure of the disk');

    assert.equal(run?.toolCall.kind, 'execute');
    const terminal = lend.terminals.get('term-1');
    assert.equal(terminal?.request.command, '/bin/sh');
    assert.deepEqual(terminal?.request.args, ['-c', command]);
    assert.equal(terminal?.request.cwd, context.workspace);
    assert.ok(
      terminal?.request.env?.some(
        (variable) => variable.name === 'ANTHROPIC_API_KEY' && variable.value === '',
      ),
      'the provider key is blanked',
    );
    const result = lastMessage(context, 3);
    assert.match(result, /key=\[\]/, 'the command did not see the key');
    assert.match(result, /const b = 3;/, 'the command saw the edit on disk');
    assert.match(result, /Exit code 3/);
    assert.deepEqual(lend.calls, ['release term-1']);

    const row = updatesOf(editor, 'tool_call').find((update) => update.kind === 'execute');
    const rowUpdates = updatesOf(editor, 'tool_call_update').filter(
      (update) => update.toolCallId === row?.toolCallId,
    );
    const shown = rowUpdates.findIndex((update) =>
      (update.content ?? []).some(
        (content) => content.type === 'terminal' && content.terminalId === 'term-1',
      ),
    );
    assert.ok(shown >= 0, 'the tool call shows the terminal');
    assert.equal(rowUpdates.at(-1)?.status, 'failed');
    assert.deepEqual(rowUpdates.at(-1)?.content?.[0], { type: 'terminal', terminalId: 'term-1' });
    assert.equal(await editor.close(), 0);
    assert.doesNotMatch(editor.stderr(), /the editor could not|was not released|uncaught|unhandled/i);
  });

  test('a read the editor cannot answer falls back to the disk, and the run goes on', async () => {
    const context = await setup(
      [{ toolCalls: [{ id: 'r1', name: 'read_file', args: { path: 'app.js' } }] }, { text: 'Read it.' }],
      tools,
    );
    writeFileSync(join(context.workspace, 'app.js'), 'const onDisk = true;\n');
    const lend = new EditorLending(editorEnv(context.home));
    lend.failReads = true;
    const editor = await connect(context, refuse, { lend });
    const sessionId = await testerSession(editor, context.workspace);
    const response = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'read it' }],
    });
    assert.equal(response.stopReason, 'end_turn');
    assert.equal(lend.reads.length, 1);
    assert.match(lastMessage(context, 1), /const onDisk = true;/);
    assert.match(messageText(editor), /Read it\./);
    assert.equal(await editor.close(), 0);
  });

  test('a command that outlives its timeout is killed; the model gets what it printed and is told', async () => {
    const context = await setup(
      [
        {
          toolCalls: [
            { id: 'c1', name: 'run_command', args: { command: 'echo started; sleep 30', timeout: 0.5 } },
          ],
        },
        { text: 'It hung.' },
      ],
      tools,
    );
    const lend = new EditorLending(editorEnv(context.home));
    const editor = await connect(context, choose('allow'), { lend });
    const sessionId = await testerSession(editor, context.workspace);
    const response = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'run it' }],
    });
    assert.equal(response.stopReason, 'end_turn');
    assert.ok((lend.terminals.get('term-1')?.request.outputByteLimit ?? 0) > 0);
    assert.deepEqual(lend.calls, ['kill term-1', 'release term-1']);
    const result = lastMessage(context, 1);
    assert.match(result, /Timed out after 0\.5 s/);
    assert.match(result, /started/);
    assert.equal(await editor.close(), 0);
  });

  test('session/cancel while a command runs in the terminal kills and releases it', async () => {
    const context = await setup(
      [{ toolCalls: [{ id: 'c1', name: 'run_command', args: { command: 'sleep 30' } }] }],
      tools,
    );
    const lend = new EditorLending(editorEnv(context.home));
    const editor = await connect(context, choose('allow'), { lend });
    const sessionId = await testerSession(editor, context.workspace);
    const running = editor.nextUpdate(
      (update) =>
        update.sessionUpdate === 'tool_call_update' &&
        (update.content ?? []).some((content) => content.type === 'terminal'),
    );
    const turn = editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'wait a while' }],
    });
    await running;
    await editor.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    assert.equal((await turn).stopReason, 'cancelled');
    // Killed and released before the turn was answered: the editor may drop its terminals then.
    assert.deepEqual(lend.calls, ['kill term-1', 'release term-1']);
    assert.equal((await lend.terminals.get('term-1')?.exited)?.signal, 'SIGKILL');
    assert.equal(await editor.close(), 0);
    assert.doesNotMatch(editor.stderr(), /the editor could not|was not released|uncaught|unhandled/i);
  });
});
