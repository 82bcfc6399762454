/**
 * `santra-server lsp` over real stdio, driven by vscode-languageserver-protocol's client side:
 * the initialize result, approvals answered with showMessageRequest (reject) or — for editors
 * without it, as Helix releases up to 25.07 — through code actions, the editor's buffer lent to
 * Santra (it reads unsaved changes, its edits arrive by workspace/applyEdit), changes made on
 * disk by other means mirrored into the buffer, cancellation, and clear errors for bad calls.
 * The test's editor keeps its buffer of greet.js as an editor does: it applies the edits it takes
 * and reports them with didChange. A fake Anthropic provider on 127.0.0.1 scripts the model.
 */
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import {
  type ApplyWorkspaceEditParams,
  type ClientCapabilities,
  type CodeAction,
  type InitializeResult,
  type MessageActionItem,
  type ProtocolConnection,
  type ResponseError,
  type ShowMessageRequestParams,
  type TextEdit,
} from 'vscode-languageserver-protocol';
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node';
import {
  type FakeProvider,
  type FakeTurn,
  startFakeProvider,
} from '../../conformance-tests/src/fake-providers/index.ts';
import { offsetAt } from '../src/connection/lsp/documents.ts';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { SERVER_BIN } from './helpers/wire.ts';
import { santraTestEnv, writeTesterAgent } from '../../scripts/test/helpers/editor-env.ts';
import { FIXED, ORIGINAL, readThenFixTurns, UNSAVED_LINE } from '../../scripts/test/helpers/greet-fixture.ts';

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

interface Editor {
  lsp: ProtocolConnection;
  child: ChildProcessWithoutNullStreams;
  fake: FakeProvider;
  workspace: string;
  uri: string;
  /** The editor's buffer of greet.js and its version, as the server was told with didOpen/didChange. */
  text: string;
  version: number;
  /** Set: the editor refuses every workspace/applyEdit with this reason. */
  refuseEdits?: string;
  /** What the server showed: window/showMessage and logMessage texts, in order. */
  shown: string[];
  logged: string[];
  edits: ApplyWorkspaceEditParams[];
  requests: ShowMessageRequestParams[];
  stderr: () => string;
}

/** Starts `santra-server lsp` with a workspace holding greet.js, as an editor would. */
async function editor(
  turns: FakeTurn[],
  capabilities: ClientCapabilities,
  answer: (request: ShowMessageRequestParams) => MessageActionItem | null | Promise<never>,
): Promise<Editor> {
  const fake = await startFakeProvider('anthropic', turns);
  const home = tempDir('santra-lsp-home-');
  const workspace = tempDir('santra-lsp-ws-');
  writeTesterAgent(
    workspace,
    ['read_file', 'write_file', 'str_replace', 'run_command', 'task_completed'],
    'LSP adapter',
  );
  writeFileSync(join(workspace, 'greet.js'), ORIGINAL);
  const child = spawn(process.execPath, [SERVER_BIN, 'lsp'], {
    cwd: workspace,
    env: santraTestEnv(home, fake.url),
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lsp = createProtocolConnection(
    new StreamMessageReader(child.stdout),
    new StreamMessageWriter(child.stdin),
  );
  const result: Editor = {
    lsp,
    child,
    fake,
    workspace,
    uri: pathToFileURL(join(workspace, 'greet.js')).href,
    text: ORIGINAL,
    version: 1,
    shown: [],
    logged: [],
    edits: [],
    requests: [],
    stderr: () => stderr,
  };
  lsp.onNotification(
    'window/showMessage',
    ({ message }: { message: string }) => void result.shown.push(message),
  );
  lsp.onNotification(
    'window/logMessage',
    ({ message }: { message: string }) => void result.logged.push(message),
  );
  lsp.onNotification('$/progress', () => undefined);
  lsp.onRequest('window/workDoneProgress/create', () => null);
  lsp.onRequest('window/showMessageRequest', async (params: ShowMessageRequestParams) => {
    result.requests.push(params);
    return answer(params);
  });
  lsp.onRequest('workspace/applyEdit', async (params: ApplyWorkspaceEditParams) => {
    result.edits.push(params);
    return applyToBuffer(result, params);
  });
  lsp.listen();
  cleanups.push(async () => {
    if (child.exitCode === null) child.kill();
    await fake.close();
    await Promise.all([removeTempDir(home), removeTempDir(workspace)]);
  });
  await lsp.sendRequest('initialize', {
    processId: process.pid,
    rootUri: pathToFileURL(workspace).href,
    workspaceFolders: [{ uri: pathToFileURL(workspace).href, name: 'ws' }],
    capabilities,
    initializationOptions: { agent: 'tester' },
  });
  await lsp.sendNotification('initialized', {});
  await lsp.sendNotification('textDocument/didOpen', {
    textDocument: { uri: result.uri, languageId: 'javascript', version: 1, text: ORIGINAL },
  });
  return result;
}

/**
 * What an editor does with a workspace/applyEdit: refuse an edit made for another version of the
 * buffer, else apply it and report the buffer's new text with didChange before answering.
 */
async function applyToBuffer(e: Editor, params: ApplyWorkspaceEditParams) {
  if (e.refuseEdits !== undefined) return { applied: false, failureReason: e.refuseEdits };
  for (const change of params.edit.documentChanges ?? []) {
    if (!('textDocument' in change) || change.textDocument.uri !== e.uri) continue;
    if (change.textDocument.version !== e.version) {
      return { applied: false, failureReason: `the buffer is at version ${e.version}` };
    }
    await type(e, applyEdits(e.text, change.edits as TextEdit[]));
  }
  return { applied: true };
}

/** Applies `edits` (ranges in `text`) from the last to the first, so each range still holds. */
function applyEdits(text: string, edits: TextEdit[]): string {
  const start = (edit: TextEdit) => offsetAt(text, edit.range.start);
  let result = text;
  for (const edit of [...edits].sort((a, b) => start(b) - start(a))) {
    result = result.slice(0, start(edit)) + edit.newText + result.slice(offsetAt(text, edit.range.end));
  }
  return result;
}

/** The buffer changes (the user typed, or an edit was applied): the server is told with didChange. */
async function type(e: Editor, text: string): Promise<void> {
  e.text = text;
  e.version += 1;
  await e.lsp.sendNotification('textDocument/didChange', {
    textDocument: { uri: e.uri, version: e.version },
    contentChanges: [{ text }],
  });
}

const WITH_BUTTONS: ClientCapabilities = {
  window: { showMessage: {}, workDoneProgress: true },
  workspace: { applyEdit: true, workspaceEdit: { documentChanges: true } },
};
/** Helix 25.07: no window.showMessage, so no showMessageRequest. */
const WITHOUT_BUTTONS: ClientCapabilities = {
  window: { workDoneProgress: true },
  workspace: { applyEdit: true, workspaceEdit: { documentChanges: true } },
};

/** A line the user typed into the buffer and did not save. */
const UNSAVED = `${UNSAVED_LINE}\n`;

/** The last message of the model's request number `index`: there, the tool results it was given. */
function lastMessage(fake: FakeProvider, index: number): string {
  const body = fake.requests[index]?.body as { messages?: unknown[] } | undefined;
  return JSON.stringify(body?.messages?.at(-1) ?? null);
}

const fixTurns = (): FakeTurn[] => [
  { toolCalls: [{ id: 't1', name: 'write_file', args: { path: 'greet.js', content: FIXED } }] },
  { text: 'Fixed greet().' },
];

async function codeActions(e: Editor, line = 1): Promise<CodeAction[]> {
  return e.lsp.sendRequest('textDocument/codeAction', {
    textDocument: { uri: e.uri },
    range: { start: { line, character: 0 }, end: { line: line + 1, character: 0 } },
    context: { diagnostics: [] },
  });
}

async function runAction(e: Editor, title: string | RegExp, line = 1): Promise<unknown> {
  const action = (await codeActions(e, line)).find((a) => a.title.match(title) !== null);
  assert.ok(action?.command, `no code action ${String(title)}`);
  return e.lsp.sendRequest('workspace/executeCommand', {
    command: action.command.command,
    arguments: action.command.arguments,
  });
}

async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  e: Editor,
): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      assert.fail(`timed out waiting for ${what}\nshown: ${e.shown.join(' | ')}\nstderr: ${e.stderr()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function shutdown(e: Editor): Promise<number | null> {
  const exited = once(e.child, 'exit');
  await e.lsp.sendRequest('shutdown');
  await e.lsp.sendNotification('exit');
  const [code] = (await exited) as [number | null];
  e.lsp.dispose();
  return code;
}

/** `santra-server lsp` with no provider at all, in a temp home, and an LSP connection to it. */
function bareLsp(prefix: string) {
  const home = tempDir(prefix);
  const child = spawn(process.execPath, [SERVER_BIN, 'lsp'], {
    env: { PATH: process.env.PATH, HOME: home },
  });
  cleanups.push(async () => {
    if (child.exitCode === null) child.kill();
    await removeTempDir(home);
  });
  const lsp = createProtocolConnection(
    new StreamMessageReader(child.stdout),
    new StreamMessageWriter(child.stdin),
  );
  lsp.listen();
  return { home, child, lsp };
}

describe('santra lsp', () => {
  test('initialize advertises code actions, the commands and incremental sync; a second initialize fails; shutdown and exit end with 0', async () => {
    const { home, child, lsp } = bareLsp('santra-lsp-init-');
    const init: InitializeResult = await lsp.sendRequest('initialize', {
      processId: null,
      rootUri: pathToFileURL(home).href,
      capabilities: {},
    });
    assert.deepEqual(init.capabilities.executeCommandProvider, {
      commands: [
        'santra.explain',
        'santra.fix',
        'santra.ask',
        'santra.answer',
        'santra.cancel',
        'santra.undo',
      ],
    });
    assert.ok(init.capabilities.codeActionProvider);
    assert.deepEqual(init.capabilities.textDocumentSync, { openClose: true, change: 2 });
    assert.equal(init.serverInfo?.name, 'santra');
    await assert.rejects(lsp.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} }));
    const exited = once(child, 'exit');
    await lsp.sendRequest('shutdown');
    await lsp.sendNotification('exit');
    assert.equal(((await exited) as [number | null])[0], 0);
    lsp.dispose();
  });

  test('a bad config (initializationOptions) is refused with an error naming the key; end of input exits 1', async () => {
    const { child, lsp } = bareLsp('santra-lsp-bad-');
    await assert.rejects(
      lsp.sendRequest('initialize', {
        processId: null,
        rootUri: null,
        capabilities: {},
        initializationOptions: { agnet: 'x' },
      }),
      (error: ResponseError<unknown>) =>
        error.code === -32602 &&
        error.message.includes('agnet') &&
        error.message.includes('"agent" and "model"'),
    );
    const exited = once(child, 'exit');
    child.stdin.end();
    assert.equal(((await exited) as [number | null])[0], 1);
    lsp.dispose();
  });

  test('fix, rejected in the showMessageRequest: the question names the file and shows the change with line numbers and context; nothing is written', async () => {
    const e = await editor(fixTurns(), WITH_BUTTONS, () => ({ title: 'reject' }));
    assert.equal(await runAction(e, 'Santra: fix'), null);
    await until('the answer', () => e.shown.find((m) => m === 'Fixed greet().'), e);
    const request = e.requests[0];
    assert.ok(request);
    assert.deepEqual(
      request.actions?.map((a) => a.title),
      ['allow', 'allow all', 'reject'],
    );
    assert.equal(
      request.message,
      [
        'Santra wants to modify greet.js (+1 -1)',
        '1   export function greet(name) {',
        '2 -   return "Hello " + name;',
        '  +   return `Hello, ${name}!`;',
        '3   }',
      ].join('\n'),
    );
    assert.equal(readFileSync(join(e.workspace, 'greet.js'), 'utf8'), ORIGINAL);
    assert.equal(e.edits.length, 0);
    assert.ok(
      e.logged.some((line) => line.includes('✗ write_file')),
      e.logged.join('\n'),
    );
    assert.equal(await shutdown(e), 0);
  });

  test('without showMessageRequest the approval waits in the code actions; "allow" writes the file and the buffer gets it by applyEdit', async () => {
    const e = await editor(fixTurns(), WITHOUT_BUTTONS, () =>
      assert.fail('no showMessageRequest without window.showMessage'),
    );
    await runAction(e, 'Santra: fix');
    const notice = await until(
      'the approval notice',
      () => e.shown.find((m) => m.startsWith('Santra wants to modify greet.js')),
      e,
    );
    // The status line shows the first line only: how to answer is there, typed as Helix takes it.
    assert.equal(
      notice.split('\n')[0],
      'Santra wants to modify greet.js (+1 -1) — answer from the code actions, or with santra.answer "allow" (or "allow_all", "reject", "your feedback")',
    );
    const titles = (await codeActions(e)).map((a) => a.title);
    assert.deepEqual(titles.slice(0, 3), [
      'Santra: allow — modify greet.js (+1 -1)',
      'Santra: allow all — modify greet.js (+1 -1)',
      'Santra: reject — modify greet.js (+1 -1)',
    ]);
    assert.ok(titles.includes('Santra: cancel the run'), titles.join('\n'));
    await runAction(e, /^Santra: allow —/);
    await until('the answer', () => e.shown.find((m) => m === 'Fixed greet().'), e);
    assert.equal(readFileSync(join(e.workspace, 'greet.js'), 'utf8'), FIXED);
    assert.equal(e.text, FIXED);
    // Once: the change went through the buffer, so mirroring the disk afterwards finds nothing to do.
    assert.equal(e.edits.length, 1);
    assert.deepEqual(e.edits[0]?.edit.documentChanges, [
      {
        textDocument: { uri: e.uri, version: 1 },
        edits: [
          {
            range: { start: { line: 1, character: 9 }, end: { line: 1, character: 24 } },
            newText: '`Hello, ${name}!`',
          },
        ],
      },
    ]);
    await assert.rejects(
      e.lsp.sendRequest('workspace/executeCommand', { command: 'santra.answer', arguments: ['allow'] }),
      /not waiting for an answer/,
    );
    assert.equal(await shutdown(e), 0);
  });

  test('a buffer with unsaved changes: the model reads them, the approved edit lands in the buffer with them kept, and the disk holds both', async () => {
    const e = await editor(readThenFixTurns(), WITH_BUTTONS, () => ({ title: 'allow' }));
    await type(e, ORIGINAL + UNSAVED);
    await runAction(e, 'Santra: fix');
    await until('the answer', () => e.shown.find((m) => m === 'Fixed greet().'), e);
    // The request after read_file carries its result: the buffer, not the file on disk.
    assert.ok(lastMessage(e.fake, 1).includes(UNSAVED.trim()), lastMessage(e.fake, 1));
    assert.match(e.requests[0]?.message ?? '', /^Santra wants to modify greet\.js \(\+1 -1\)/);
    assert.deepEqual(e.edits.length, 1);
    assert.deepEqual(e.edits[0]?.edit.documentChanges, [
      {
        textDocument: { uri: e.uri, version: 2 },
        edits: [
          {
            range: { start: { line: 1, character: 9 }, end: { line: 1, character: 24 } },
            newText: '`Hello, ${name}!`',
          },
        ],
      },
    ]);
    assert.equal(e.text, FIXED + UNSAVED);
    assert.equal(readFileSync(join(e.workspace, 'greet.js'), 'utf8'), FIXED + UNSAVED);
    assert.ok(!e.shown.some((m) => m.includes('unsaved changes')), e.shown.join(' | '));
    assert.equal(await shutdown(e), 0);
  });

  test("fix sends the selection and the diagnostics as the prompt's context: the model gets the buffer's lines and the problem", async () => {
    const e = await editor(fixTurns(), WITH_BUTTONS, () => ({ title: 'reject' }));
    await type(e, ORIGINAL.replace('"Hello " + name', '"Hi " + nam'));
    const range = { start: { line: 1, character: 0 }, end: { line: 2, character: 0 } };
    const actions: CodeAction[] = await e.lsp.sendRequest('textDocument/codeAction', {
      textDocument: { uri: e.uri },
      range,
      context: {
        diagnostics: [{ range, message: "Cannot find name 'nam'.", source: 'ts', code: 2304, severity: 1 }],
      },
    });
    const fix = actions.find((a) => a.title === 'Santra: fix');
    assert.ok(fix?.command);
    await e.lsp.sendRequest('workspace/executeCommand', {
      command: fix.command.command,
      arguments: fix.command.arguments,
    });
    await until('the answer', () => e.shown.find((m) => m === 'Fixed greet().'), e);
    const prompt = lastMessage(e.fake, 0);
    // The unsaved line, read by the server from the buffer the editor lends, numbered as read_file does.
    assert.match(prompt, /Selected, line 2:\\n +2│ +return \\"Hi \\" \+ nam;/);
    assert.match(prompt, /- greet\.js:2 error \(ts 2304\): Cannot find name 'nam'\./);
    assert.doesNotMatch(prompt, /```/, 'the code is not quoted in the text as well');
    assert.equal(await shutdown(e), 0);
  });

  test('an editor that refuses the edit: Santra writes the disk itself, and the user is told to reload the buffer', async () => {
    const e = await editor(readThenFixTurns(), WITH_BUTTONS, () => ({ title: 'allow' }));
    await type(e, ORIGINAL + UNSAVED);
    e.refuseEdits = 'the buffer is read-only';
    await runAction(e, 'Santra: fix');
    await until('the answer', () => e.shown.find((m) => m === 'Fixed greet().'), e);
    assert.equal(readFileSync(join(e.workspace, 'greet.js'), 'utf8'), FIXED + UNSAVED);
    assert.equal(e.text, ORIGINAL + UNSAVED);
    assert.ok(
      e.shown.some((m) => m.includes('its buffer could not be updated (the buffer is read-only): reload it')),
      e.shown.join(' | '),
    );
    // The disk holds the buffer's unsaved change: mirroring it would lose nothing.
    assert.ok(!e.shown.some((m) => m.includes('had unsaved changes')), e.shown.join(' | '));
    assert.equal(await shutdown(e), 0);
  });

  test('files the editor has not open are read and written on disk; a command that changes an open file is mirrored into its buffer', async () => {
    const e = await editor(
      [
        { toolCalls: [{ id: 't1', name: 'read_file', args: { path: 'notes.txt' } }] },
        {
          toolCalls: [
            { id: 't2', name: 'str_replace', args: { path: 'notes.txt', oldStr: 'draft', newStr: 'final' } },
          ],
        },
        {
          toolCalls: [
            { id: 't3', name: 'run_command', args: { command: "printf 'by a command\\n' > greet.js" } },
          ],
        },
        { text: 'Done.' },
      ],
      WITH_BUTTONS,
      () => ({ title: 'allow' }),
    );
    writeFileSync(join(e.workspace, 'notes.txt'), 'a draft on disk\n');
    await runAction(e, 'Santra: explain');
    await until('the answer', () => e.shown.find((m) => m === 'Done.'), e);
    assert.ok(lastMessage(e.fake, 1).includes('a draft on disk'), lastMessage(e.fake, 1));
    assert.equal(readFileSync(join(e.workspace, 'notes.txt'), 'utf8'), 'a final on disk\n');
    assert.equal(readFileSync(join(e.workspace, 'greet.js'), 'utf8'), 'by a command\n');
    assert.equal(e.text, 'by a command\n');
    assert.equal(e.edits.length, 1, 'only greet.js, the open file, is edited');
    assert.ok(!e.shown.some((m) => m.includes('unsaved changes')), e.shown.join(' | '));
    assert.equal(await shutdown(e), 0);
  });

  test('santra.undo (the code action "Santra: undo the last change") puts the file back on disk and in the buffer', async () => {
    const e = await editor(fixTurns(), WITH_BUTTONS, () => ({ title: 'allow' }));
    assert.ok(!(await codeActions(e)).some((a) => a.title === 'Santra: undo the last change'));
    await runAction(e, 'Santra: fix');
    await until('the answer', () => e.shown.find((m) => m === 'Fixed greet().'), e);
    assert.equal(readFileSync(join(e.workspace, 'greet.js'), 'utf8'), FIXED);
    assert.equal(e.text, FIXED);
    await runAction(e, 'Santra: undo the last change');
    await until('the undo', () => e.shown.find((m) => m.startsWith('santra.undo:')), e);
    assert.ok(e.shown.includes('santra.undo: restored greet.js'), e.shown.join(' | '));
    assert.equal(readFileSync(join(e.workspace, 'greet.js'), 'utf8'), ORIGINAL);
    assert.equal(e.text, ORIGINAL, 'the buffer is brought along, by an edit undo can take back');
    assert.equal(e.edits.length, 2);
    await e.lsp.sendRequest('workspace/executeCommand', { command: 'santra.undo' });
    await until('the second undo', () => e.shown.find((m) => m === 'santra.undo: nothing left to undo'), e);
    assert.ok(!(await codeActions(e)).some((a) => a.title === 'Santra: undo the last change'));
    assert.equal(await shutdown(e), 0);
  });

  test('santra.undo of a file changed on disk since asks first, saying it is the undo', async () => {
    const e = await editor(fixTurns(), WITH_BUTTONS, () => ({ title: 'allow' }));
    await runAction(e, 'Santra: fix');
    await until('the answer', () => e.shown.find((m) => m === 'Fixed greet().'), e);
    writeFileSync(join(e.workspace, 'greet.js'), `${FIXED}// saved by someone else\n`);
    await e.lsp.sendRequest('workspace/executeCommand', { command: 'santra.undo' });
    await until('the undo', () => e.shown.find((m) => m.startsWith('santra.undo:')), e);
    assert.match(
      e.requests[1]?.message ?? '',
      /^santra\.undo, on a file changed since, wants to modify greet\.js \(\+1 -2\)\n/,
    );
    assert.equal(readFileSync(join(e.workspace, 'greet.js'), 'utf8'), ORIGINAL);
    assert.equal(e.text, ORIGINAL);
    assert.equal(await shutdown(e), 0);
  });

  test("the editor's undo takes the change out of the buffer only: the user is told, and santra.undo puts the disk back", async () => {
    const e = await editor(fixTurns(), WITH_BUTTONS, () => ({ title: 'allow' }));
    await runAction(e, 'Santra: fix');
    await until('the answer', () => e.shown.find((m) => m === 'Fixed greet().'), e);
    await type(e, ORIGINAL); // `u` in the editor: the buffer as before, which the editor calls unmodified
    const told = await until('the notice', () => e.shown.find((m) => m.includes('your undo took')), e);
    assert.match(
      told,
      /greet\.js: your undo took Santra's change out of the buffer, but the file on disk still has it/,
    );
    assert.match(told, /run santra\.undo \(Helix: :lsp-workspace-command santra\.undo\)/);
    assert.equal(readFileSync(join(e.workspace, 'greet.js'), 'utf8'), FIXED);
    await e.lsp.sendRequest('workspace/executeCommand', { command: 'santra.undo' });
    await until('the undo', () => e.shown.find((m) => m.startsWith('santra.undo:')), e);
    assert.equal(readFileSync(join(e.workspace, 'greet.js'), 'utf8'), ORIGINAL);
    assert.equal(e.text, ORIGINAL);
    assert.equal(e.edits.length, 1, 'the buffer held the old text already');
    assert.equal(await shutdown(e), 0);
  });

  test('santra.cancel while an approval waits: the run ends cancelled and the file is untouched', async () => {
    const e = await editor(fixTurns(), WITHOUT_BUTTONS, () => null);
    await runAction(e, 'Santra: fix');
    await until('the approval notice', () => e.shown.find((m) => m.startsWith('Santra wants to modify')), e);
    await e.lsp.sendRequest('workspace/executeCommand', { command: 'santra.cancel' });
    await until('the cancelled notice', () => e.shown.find((m) => m.startsWith('Santra: fix: cancelled')), e);
    assert.equal(readFileSync(join(e.workspace, 'greet.js'), 'utf8'), ORIGINAL);
    assert.equal((await codeActions(e)).filter((a) => a.title.startsWith('Santra: allow')).length, 0);
    await assert.rejects(
      e.lsp.sendRequest('workspace/executeCommand', { command: 'santra.cancel' }),
      /no Santra run is going/,
    );
    assert.equal(await shutdown(e), 0);
  });

  test('bad commands get errors that say what was wrong', async () => {
    const e = await editor([], WITH_BUTTONS, () => null);
    const run = (command: string, args?: unknown[]) =>
      e.lsp.sendRequest('workspace/executeCommand', {
        command,
        ...(args === undefined ? {} : { arguments: args }),
      });
    await assert.rejects(
      run('santra.fix'),
      (error: ResponseError<unknown>) =>
        error.code === -32602 && /takes one argument \{uri, range/.test(error.message),
    );
    await assert.rejects(run('santra.fix', ['why?']), /needs a selection/);
    await assert.rejects(
      run('santra.nope'),
      /unknown command "santra.nope": santra lsp offers santra.explain/,
    );
    const range = { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } };
    await assert.rejects(
      run('santra.explain', [{ uri: 'file:///nowhere/x.js', range }]),
      /is not open in the editor/,
    );
    await assert.rejects(
      run('santra.answer', [42]),
      /takes the answer as one string, in double quotes on a command line: santra.answer "allow"/,
    );
    await assert.rejects(
      run('santra.undo', ['everything']),
      /takes no argument \(the last change\), or "run"/,
    );
    await assert.rejects(run('santra.undo'), /Santra has changed nothing here yet/);
    assert.equal(await shutdown(e), 0);
  });
});
