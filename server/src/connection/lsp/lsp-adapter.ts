/**
 * `santra lsp`: Santra as a language server, so Helix — which has no plugin runtime — and any LSP
 * editor use it with configuration only. Code actions on a selection and `workspace/executeCommand`
 * start Santra runs; their progress, answers, approvals and questions come back as LSP's window
 * features. Santra reads the editor's open buffers, unsaved changes included, and approved file
 * changes land in them through `workspace/applyEdit` (buffer-sync.ts).
 *
 * Every run goes through the Santra protocol: one in-process Santra server per workspace, spoken
 * to as any client would (santra-session.ts), so this file only maps LSP onto it.
 *
 * The connection is vscode-languageserver's, made with its transport-neutral `createConnection`
 * and a watchdog of our own: the Node variant calls `process.exit` on `exit` and at the end of
 * input, which would skip closing the Santra servers (they save their sessions when closed).
 */
import * as z from 'zod';
import {
  type ApplyWorkspaceEditParams,
  type ApplyWorkspaceEditResult,
  type ClientCapabilities,
  type Connection,
  createConnection,
  ErrorCodes,
  type InitializeParams,
  type InitializeResult,
  ResponseError,
  TextDocumentSyncKind,
  type WatchDog,
} from 'vscode-languageserver';
import {
  createProtocolConnection,
  type ProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node';
import type { AdapterOptions } from '../adapters/adapter.ts';
import { BufferSync } from './buffer-sync.ts';
import { codeActions } from './code-actions.ts';
import {
  COMMANDS,
  parseAnswerArguments,
  parseRunArguments,
  parseUndoArguments,
  type RunKind,
} from './commands.ts';
import { Documents, filePath } from './documents.ts';
import { Interactions } from './interactions.ts';
import { showMessage } from './messages.ts';
import { AnswerFiles } from './run-report.ts';
import { Runs } from './runs.ts';

/** The server's `config` in the editor (LSP initializationOptions). */
const Settings = z
  .object({
    agent: z.string().min(1).optional().describe('run every prompt with this agent'),
    model: z.string().min(1).optional().describe('provider/model for these sessions'),
  })
  .strict();

/** How often the editor's process is checked when it gave its id (`processId`). */
const PARENT_CHECK_MS = 3000;

export async function runLspAdapter(options: AdapterOptions): Promise<number> {
  let ended: (code: number) => void = () => undefined;
  const code = new Promise<number>((resolve) => (ended = resolve));
  let protocol: ProtocolConnection | undefined;
  const watchDog = parentWatch(() => ended(1));
  watchDog.exit = (exitCode) => ended(exitCode);
  const connection = createConnection((logger) => {
    protocol = createProtocolConnection(
      new StreamMessageReader(options.input),
      new StreamMessageWriter(options.output),
      logger,
    );
    return protocol;
  }, watchDog);
  protocol?.onClose(() => ended(watchDog.shutdownReceived ? 0 : 1));

  const documents = new Documents();
  const answers = new AnswerFiles();
  let runs: Runs | undefined;
  let interactions: Interactions | undefined;
  let buffers: BufferSync | undefined;
  /** The editor answers window/showMessageRequest (declared `window.showMessage`). */
  let buttons = false;

  connection.onInitialize((params) => {
    if (runs !== undefined)
      return new ResponseError(ErrorCodes.InvalidRequest, 'santra lsp: already initialized');
    const settings = Settings.safeParse(params.initializationOptions ?? {});
    if (!settings.success) {
      return new ResponseError(
        ErrorCodes.InvalidParams,
        `santra lsp: the server's config (initializationOptions) is not valid: ${z.prettifyError(settings.error).replaceAll('\n', ' ')}. It takes "agent" and "model".`,
      );
    }
    const capabilities = params.capabilities;
    buttons = capabilities.window?.showMessage !== undefined;
    interactions = new Interactions(connection, buttons);
    const canApply = capabilities.workspace?.applyEdit === true;
    buffers = bufferSync(connection, documents, capabilities);
    runs = new Runs({
      connection,
      documents,
      interactions,
      buffers,
      // An editor that takes no edits cannot be lent writes: Santra writes the disk, and the
      // buffer is left for the user to reload.
      lend: { fs: { readTextFile: true, writeTextFile: canApply } },
      answers: capabilities.window?.showDocument?.support === true ? answers : undefined,
      openLink: options.openLink,
      log: options.log,
      roots: workspaceRoots(params),
      settings: settings.data,
      clientInfo: params.clientInfo ?? { name: 'an LSP editor' },
      canChooseQuestion: buttons,
    });
    options.log.info(`lsp: ${params.clientInfo?.name ?? 'an editor'} connected`);
    return initializeResult(options.serverVersion);
  });

  connection.onDidOpenTextDocument(({ textDocument: d }) =>
    documents.open(d.uri, d.languageId, d.version, d.text),
  );
  connection.onDidChangeTextDocument(({ textDocument, contentChanges }) => {
    documents.change(textDocument.uri, textDocument.version, contentChanges);
    void buffers?.noticeChange(textDocument.uri);
  });
  connection.onDidCloseTextDocument(({ textDocument }) => documents.close(textDocument.uri));

  connection.onCodeAction((params) => {
    const document = documents.get(params.textDocument.uri);
    if (document === undefined || runs === undefined || interactions === undefined) return [];
    const root = runs.rootOf(document.path);
    return codeActions(params, {
      document,
      pending: interactions.pending(),
      running: runs.isRunning(root),
      canUndo: runs.canUndo(root),
      canChooseQuestion: buttons,
    });
  });

  connection.onExecuteCommand(({ command, arguments: args }) => {
    if (runs === undefined || interactions === undefined) {
      throw new ResponseError(ErrorCodes.ServerNotInitialized, 'santra lsp: initialize first');
    }
    return executeCommand(runs, interactions, command, args);
  });

  connection.onShutdown(async () => {
    await runs?.close();
  });

  connection.listen();
  const exitCode = await code;
  await runs?.close();
  await answers.remove();
  connection.dispose();
  return exitCode;
}

const RUN_COMMANDS: Record<string, RunKind> = {
  [COMMANDS.explain]: 'explain',
  [COMMANDS.fix]: 'fix',
  [COMMANDS.ask]: 'ask',
};

function executeCommand(
  runs: Runs,
  interactions: Interactions,
  command: string,
  args: unknown[] | undefined,
): null {
  const kind = RUN_COMMANDS[command];
  if (kind !== undefined) {
    const parsed = parseRunArguments(command, args);
    if (!parsed.ok) throw new ResponseError(ErrorCodes.InvalidParams, parsed.error);
    runs.start(kind, parsed.value);
    return null;
  }
  if (command === COMMANDS.cancel) {
    if (!runs.cancel())
      throw new ResponseError(ErrorCodes.InvalidRequest, 'santra.cancel: no Santra run is going');
    return null;
  }
  if (command === COMMANDS.undo) {
    const parsed = parseUndoArguments(args);
    if (!parsed.ok) throw new ResponseError(ErrorCodes.InvalidParams, parsed.error);
    runs.undo(parsed.value);
    return null;
  }
  if (command === COMMANDS.answer) {
    const parsed = parseAnswerArguments(args);
    if (!parsed.ok) throw new ResponseError(ErrorCodes.InvalidParams, parsed.error);
    if (!interactions.answer(parsed.value.id, parsed.value.answer, parsed.value.hunks)) {
      throw new ResponseError(
        ErrorCodes.InvalidRequest,
        'santra.answer: Santra is not waiting for an answer',
      );
    }
    return null;
  }
  throw new ResponseError(
    ErrorCodes.InvalidParams,
    `unknown command "${command}": santra lsp offers ${Object.values(COMMANDS).join(', ')}`,
  );
}

function initializeResult(version: string): InitializeResult {
  return {
    capabilities: {
      textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
      codeActionProvider: { codeActionKinds: ['quickfix', ''] },
      executeCommandProvider: { commands: Object.values(COMMANDS) },
    },
    serverInfo: { name: 'santra', version },
  };
}

/** The editor's workspace folders, else its root, else the directory it started the server in. */
function workspaceRoots(params: InitializeParams): string[] {
  const folders = (params.workspaceFolders ?? []).map((folder) => filePath(folder.uri));
  const root = params.rootUri === null ? undefined : filePath(params.rootUri);
  const paths = [...folders, root, params.rootPath ?? undefined].filter(
    (path) => path !== undefined && path !== null,
  );
  return paths.length > 0 ? [...new Set(paths)] : [process.cwd()];
}

function bufferSync(
  connection: Connection,
  documents: Documents,
  capabilities: ClientCapabilities,
): BufferSync {
  const canApply = capabilities.workspace?.applyEdit === true;
  return new BufferSync({
    documents,
    applyEdit: (params: ApplyWorkspaceEditParams): Promise<ApplyWorkspaceEditResult> =>
      canApply
        ? connection.workspace.applyEdit(params)
        : Promise.resolve({ applied: false, failureReason: 'the editor does not take workspace/applyEdit' }),
    documentChanges: capabilities.workspace?.workspaceEdit?.documentChanges === true,
    warn: (message) => {
      connection.console.warn(message);
      showMessage(connection, 'warning', message);
    },
  });
}

/**
 * The watchdog vscode-languageserver asks for: it records `shutdown`, and when the editor gave its
 * process id, ends the adapter if that process goes away without ending the session.
 */
function parentWatch(gone: () => void): WatchDog {
  return {
    shutdownReceived: false,
    initialize(params: InitializeParams) {
      const pid = params.processId;
      if (typeof pid !== 'number') return;
      const timer = setInterval(() => {
        if (!alive(pid)) {
          clearInterval(timer);
          gone();
        }
      }, PARENT_CHECK_MS);
      timer.unref();
    },
    exit: () => undefined,
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is just not ours to signal.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
