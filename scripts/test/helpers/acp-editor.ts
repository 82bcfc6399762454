/**
 * The harness of the `santra acp` end-to-end tests (acp-agent.test.ts, acp-files.test.ts): the
 * built server spawned with a fake Anthropic provider on 127.0.0.1, a workspace with a custom
 * agent, and the official ACP SDK's client side driving it as an editor would — answering
 * permissions, and, when asked to, lending buffers over the disk and terminals that really run
 * the commands they are given.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';
import {
  type FakeProvider,
  type FakeTurn,
  startFakeProvider,
} from '../../../conformance-tests/src/fake-providers/index.ts';
import { removeTempDir, tempDir } from '../../temp-dirs.ts';
import { santraTestEnv, writeTesterAgent } from './editor-env.ts';

const SERVER = fileURLToPath(new URL('../../../dist/santra-server.js', import.meta.url));
const cleanups: (() => Promise<void>)[] = [];

/** Undoes what the tests set up (fake providers, temp directories), last first: the test files' `after`. */
export async function cleanUp(): Promise<void> {
  for (const cleanup of cleanups.reverse()) await cleanup();
}

type RecordedRequest = FakeProvider['requests'][number];
const systemText = (request: RecordedRequest) =>
  ((request.body.system ?? []) as Array<{ text: string }>).map((block) => block.text).join('\n');
/** A turn served only to the agent of this role (its system prompt says "You are the <role>"). */
export const call = (role: string, id: string, name: string, args: unknown): FakeTurn => ({
  match: (request) => systemText(request).includes(`You are the ${role}`),
  toolCalls: [{ id, name, args }],
});

export const write = (path: string, content: string): FakeTurn => ({
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

export interface Setup {
  home: string;
  workspace: string;
  fake: FakeProvider;
}

const WRITER_TOOLS = ['write_file', 'ask_user', 'todo_write', 'task_completed'];

export async function setup(turns: FakeTurn[], tools: readonly string[] = WRITER_TOOLS): Promise<Setup> {
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
export class EditorLending {
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

export async function connect(
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

export const choose =
  (optionId: string): PermissionAnswer =>
  () => ({ outcome: { outcome: 'selected', optionId } });

export const refuse: PermissionAnswer = () => {
  throw new Error('no permission request was expected');
};

/** A new session on the workspace that runs every prompt with the tester agent. */
export async function testerSession(
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

export const updatesOf = <K extends acp.SessionUpdate['sessionUpdate']>(editor: Editor, kind: K) =>
  editor.updates
    .map((notification) => notification.update)
    .filter(
      (update): update is Extract<acp.SessionUpdate, { sessionUpdate: K }> => update.sessionUpdate === kind,
    );

/**
 * What the editor shows as the content of the tool call `toolCallId` after every update: ACP's
 * `tool_call` sets it, and a `tool_call_update` that carries `content` replaces it.
 */
export function rowContent(editor: Editor, toolCallId: string | undefined): acp.ToolCallContent[] {
  let content: acp.ToolCallContent[] = [];
  for (const { update } of editor.updates) {
    if (update.sessionUpdate !== 'tool_call' && update.sessionUpdate !== 'tool_call_update') continue;
    if (update.toolCallId === toolCallId && update.content != null) content = update.content;
  }
  return content;
}

export const messageText = (editor: Editor) =>
  updatesOf(editor, 'agent_message_chunk')
    .map((update) => (update.content.type === 'text' ? update.content.text : ''))
    .join('');

export async function rejection(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    const { code, message } = error as { code: number; message: string };
    return { code, message };
  }
  assert.fail('the request was expected to fail');
}
