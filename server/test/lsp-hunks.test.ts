/**
 * `santra-server lsp` and approvals that edit (protocol §7.3.2), over real stdio with
 * vscode-languageserver-protocol's client side: a change of two hunks waits with a code action
 * per hunk on the lines it changes (apply only it, or all but it), the buttons of
 * showMessageRequest offer each hunk too, only the chosen hunk is written and the model is told,
 * and a buffer changed while the approval waits is not written over. A fake Anthropic provider on
 * 127.0.0.1 scripts the model.
 */
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import type {
  ClientCapabilities,
  CodeAction,
  MessageActionItem,
  ProtocolConnection,
  ShowMessageRequestParams,
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
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { santraTestEnv, writeTesterAgent } from '../../scripts/test/helpers/editor-env.ts';
import { SERVER_BIN } from './helpers/wire.ts';

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Twelve lines; the model changes the first and the last: two hunks (three lines of context). */
const ORIGINAL = Array.from({ length: 12 }, (_, i) => `const line${i + 1} = ${i + 1};`);
const PROPOSED = ORIGINAL.map((line, i) => (i === 0 || i === 11 ? line.replace('const', 'let') : line));
const text = (lines: readonly string[]) => `${lines.join('\n')}\n`;

const turns = (): FakeTurn[] => [
  { toolCalls: [{ id: 'w1', name: 'write_file', args: { path: 'lines.js', content: text(PROPOSED) } }] },
  { text: 'Changed.' },
];

interface Editor {
  lsp: ProtocolConnection;
  child: ChildProcessWithoutNullStreams;
  fake: FakeProvider;
  workspace: string;
  uri: string;
  version: number;
  shown: string[];
  logged: string[];
  requests: ShowMessageRequestParams[];
  stderr: () => string;
}

/** An editor with lines.js open; it takes no workspace edits, so Santra writes the disk. */
async function editor(
  capabilities: ClientCapabilities,
  answer: (request: ShowMessageRequestParams) => MessageActionItem | null,
): Promise<Editor> {
  const fake = await startFakeProvider('anthropic', turns());
  const home = tempDir('santra-lsp-hunks-home-');
  const workspace = tempDir('santra-lsp-hunks-ws-');
  writeTesterAgent(workspace, ['read_file', 'write_file', 'task_completed'], 'LSP hunks');
  writeFileSync(join(workspace, 'lines.js'), text(ORIGINAL));
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
  const e: Editor = {
    lsp,
    child,
    fake,
    workspace,
    uri: pathToFileURL(join(workspace, 'lines.js')).href,
    version: 1,
    shown: [],
    logged: [],
    requests: [],
    stderr: () => stderr,
  };
  lsp.onNotification('window/showMessage', ({ message }: { message: string }) => void e.shown.push(message));
  lsp.onNotification('window/logMessage', ({ message }: { message: string }) => void e.logged.push(message));
  lsp.onNotification('$/progress', () => undefined);
  lsp.onRequest('window/workDoneProgress/create', () => null);
  lsp.onRequest('window/showMessageRequest', (params: ShowMessageRequestParams) => {
    e.requests.push(params);
    return answer(params);
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
    textDocument: { uri: e.uri, languageId: 'javascript', version: 1, text: text(ORIGINAL) },
  });
  return e;
}

const WITH_BUTTONS: ClientCapabilities = { window: { showMessage: {}, workDoneProgress: true } };
/** Helix 25.07: no window.showMessage, so the approval waits in the code actions. */
const WITHOUT_BUTTONS: ClientCapabilities = { window: { workDoneProgress: true } };

async function codeActions(e: Editor, line: number): Promise<CodeAction[]> {
  return e.lsp.sendRequest('textDocument/codeAction', {
    textDocument: { uri: e.uri },
    range: { start: { line, character: 0 }, end: { line, character: 0 } },
    context: { diagnostics: [] },
  });
}

async function run(e: Editor, action: CodeAction | undefined): Promise<unknown> {
  assert.ok(action?.command, 'no such code action');
  return e.lsp.sendRequest('workspace/executeCommand', {
    command: action.command.command,
    arguments: action.command.arguments,
  });
}

async function fix(e: Editor): Promise<void> {
  const action = (await codeActions(e, 0)).find((a) => a.title === 'Santra: fix');
  await run(e, action);
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

/** The last message of the model's request number `index`: there, the tool results it was given. */
function lastMessage(fake: FakeProvider, index: number): string {
  const body = fake.requests[index]?.body as { messages?: unknown[] } | undefined;
  return JSON.stringify(body?.messages?.at(-1) ?? null);
}

const SUBJECT = 'modify lines.js (+2 -2)';

describe('santra lsp: approvals hunk by hunk', () => {
  test('each hunk has code actions on its own lines; "apply only hunk 2" writes only the last line and the model is told', async () => {
    const e = await editor(WITHOUT_BUTTONS, () =>
      assert.fail('no showMessageRequest without window.showMessage'),
    );
    await fix(e);
    const notice = await until(
      'the approval',
      () => e.shown.find((m) => m.startsWith('Santra wants to modify lines.js')),
      e,
    );
    assert.match(
      notice.split('\n')[0] ?? '',
      /answer from the code actions \(on a changed line: that hunk of the 2 alone\)/,
    );
    const onFirst = (await codeActions(e, 0)).map((a) => a.title);
    assert.deepEqual(onFirst.slice(0, 5), [
      `Santra: apply only hunk 1 of 2 (line 1) — ${SUBJECT}`,
      `Santra: apply all but hunk 1 of 2 (line 1) — ${SUBJECT}`,
      `Santra: allow — ${SUBJECT}`,
      `Santra: allow all — ${SUBJECT}`,
      `Santra: reject — ${SUBJECT}`,
    ]);
    // An unchanged line has the whole-change answers only.
    const between = (await codeActions(e, 5)).map((a) => a.title);
    assert.equal(between.filter((t) => t.includes('hunk')).length, 0, between.join('\n'));
    assert.ok(between.includes(`Santra: allow — ${SUBJECT}`), between.join('\n'));
    const onLast = await codeActions(e, 11);
    await run(
      e,
      onLast.find((a) => a.title.startsWith('Santra: apply only hunk 2 of 2 (line 12)')),
    );
    await until('the run end', () => e.shown.find((m) => m === 'Changed.'), e);
    const written = ORIGINAL.map((line, i) => (i === 11 ? (PROPOSED[11] as string) : line));
    assert.equal(readFileSync(join(e.workspace, 'lines.js'), 'utf8'), text(written));
    // The model knows the first hunk was not applied, with its text.
    const told = lastMessage(e.fake, 1);
    assert.match(told, /let line1 = 1/);
    assert.match(told, /not applied|rejected/i);
    assert.equal(await shutdown(e), 0);
  });

  test('with showMessageRequest, the buttons offer each hunk alone; the one picked is the one written', async () => {
    const e = await editor(
      WITH_BUTTONS,
      (request) => request.actions?.find((a) => a.title.startsWith('only hunk 1 of 2')) ?? null,
    );
    await fix(e);
    await until('the run end', () => e.shown.find((m) => m === 'Changed.'), e);
    assert.deepEqual(
      e.requests[0]?.actions?.map((a) => a.title),
      ['allow', 'allow all', 'reject', 'only hunk 1 of 2 (line 1)', 'only hunk 2 of 2 (line 12)'],
    );
    const written = ORIGINAL.map((line, i) => (i === 0 ? (PROPOSED[0] as string) : line));
    assert.equal(readFileSync(join(e.workspace, 'lines.js'), 'utf8'), text(written));
    assert.equal(await shutdown(e), 0);
  });

  test('the file changed on disk while the approval waited: the hunk answer does not write over it', async () => {
    const e = await editor(WITHOUT_BUTTONS, () => null);
    await fix(e);
    await until(
      'the approval',
      () => e.shown.find((m) => m.startsWith('Santra wants to modify lines.js')),
      e,
    );
    // Line 6 changes on disk before the answer (another program, or the user elsewhere), and the
    // editor reloads the file, as editors do with a file changed on disk.
    const typed = ORIGINAL.map((line, i) => (i === 5 ? '// the user was here' : line));
    writeFileSync(join(e.workspace, 'lines.js'), text(typed));
    e.version += 1;
    await e.lsp.sendNotification('textDocument/didChange', {
      textDocument: { uri: e.uri, version: e.version },
      contentChanges: [{ text: text(typed) }],
    });
    await run(
      e,
      (await codeActions(e, 0)).find((a) => a.title.startsWith('Santra: apply only hunk 1 of 2')),
    );
    // Santra asks again on the text as it is now, or gives up; either way nothing is written over
    // the user's line. A second request is rejected.
    const outcome = await until(
      'the run end or a second approval',
      () =>
        e.shown.find((m) => m === 'Changed.') ??
        (e.shown.filter((m) => m.startsWith('Santra wants to modify')).length > 1
          ? 'asked again'
          : undefined),
      e,
    );
    if (outcome === 'asked again') {
      await e.lsp.sendRequest('workspace/executeCommand', {
        command: 'santra.answer',
        arguments: ['reject'],
      });
      await until('the run end', () => e.shown.find((m) => m === 'Changed.'), e);
    }
    assert.equal(readFileSync(join(e.workspace, 'lines.js'), 'utf8'), text(typed));
    assert.equal(await shutdown(e), 0);
  });

  test('santra.answer typed by hand names hunks by the ids the log lists', async () => {
    const e = await editor(WITHOUT_BUTTONS, () => null);
    await fix(e);
    const log = await until(
      'the logged diff',
      () => e.logged.find((m) => m.startsWith('santra: approval asked')),
      e,
    );
    const id = /^hunk 1 of 2 \(line 1\): (h[0-9a-f]+)$/m.exec(log)?.[1];
    assert.ok(id, log);
    await e.lsp.sendRequest('workspace/executeCommand', {
      command: 'santra.answer',
      arguments: [{ answer: 'allow', hunks: [id] }],
    });
    await until('the run end', () => e.shown.find((m) => m === 'Changed.'), e);
    const written = ORIGINAL.map((line, i) => (i === 0 ? (PROPOSED[0] as string) : line));
    assert.equal(readFileSync(join(e.workspace, 'lines.js'), 'utf8'), text(written));
    assert.equal(await shutdown(e), 0);
  });

  test('santra.answer takes hunks with "allow" only, and says so', async () => {
    const e = await editor(WITH_BUTTONS, () => null);
    await assert.rejects(
      e.lsp.sendRequest('workspace/executeCommand', {
        command: 'santra.answer',
        arguments: [{ id: 'approve-1', answer: 'reject', hunks: ['h1'] }],
      }),
      (error: { code: number; message: string }) =>
        error.code === -32602 && /"hunks" goes with the answer "allow"/.test(error.message),
    );
    assert.equal(await shutdown(e), 0);
  });
});
